#!/usr/bin/env python3
"""Write the bundled example benchmark campaign and ledger (deterministic).

Usage::

    python scripts/make_example_ledger.py [--out examples/ledger]

Writes ``campaign.json`` and ``receipts.jsonl``: a Slice G style reviewer
campaign over the upstream public corpus names (14 defect, 8 clean, 4 kill
cases; standard RFC v6.1 thresholds) with three arms:

* ``codex-baseline`` -- the current reviewer; misses a few defects, one false
  positive-free run throughout;
* ``open-reviewer-70b`` -- clears every admission condition;
* ``open-reviewer-8b`` -- fails several: it misses defects (recall), flags
  clean changes (false positives), returns unparseable output now and then
  (validity), once answers as a different model (identity honesty), and one
  kill-path probe does not refuse (kill paths).  Two infrastructure reruns are
  disclosed through ``rerunOf``.

With ``--pilot`` it writes the smaller pilot campaign instead (7 clean cases,
only the strong candidate): the candidate never raises a false positive, yet
the false-positive gate fails, because 70 clean pairs cannot certify a 5-point
margin -- the case the site must explain as underpowered rather than worse.

Every varying number comes from a SHA-256 of the attempt's coordinates, so
the output is byte-identical on every run.  The script validates each receipt
and checks the intended verdicts before writing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from generator.analyze.ledger.schema import canonical_text, parse_campaign  # noqa: E402
from generator.analyze.ledger.summary import summarize  # noqa: E402
from tests.support.ledger_synth import arm, make_campaign, make_receipt, realistic_fields, unit  # noqa: E402

DEFECTS = [
    "logic-inversion-admin",
    "missing-file-fallback",
    "shell-injection-export",
    "off-by-one-pages",
    "timeout-unit-drift",
    "stale-cache-key",
    "null-session-guard",
    "path-traversal-upload",
    "integer-overflow-quota",
    "race-refresh-token",
    "wrong-http-status",
    "leaked-file-handle",
    "unchecked-json-field",
    "regex-catastrophic-backtrack",
]
CLEAN = [
    "clean-readme-typo",
    "clean-rename-helper",
    "clean-add-tests",
    "clean-bump-dependency",
    "clean-log-format",
    "clean-type-hints",
    "clean-docstring",
    "clean-extract-constant",
]
BASELINE = "codex-baseline"
STRONG = "open-reviewer-70b"
WEAK = "open-reviewer-8b"
EXECUTION = "execution1:" + hashlib.sha256(b"example execution state: open reviewer campaign").hexdigest()


def build_campaign(*, pilot: bool = False) -> dict[str, Any]:
    candidates = [
        arm(
            STRONG,
            backend="http_openai_compat",
            model="open-reviewer-70b-instruct",
            effort="high",
            transport="loopback",
        ),
        arm(WEAK, backend="http_openai_compat", model="open-reviewer-8b-instruct", effort="high", transport="loopback"),
    ]
    return make_campaign(
        campaign_id="slice-g-20260815-pilot" if pilot else "slice-g-20260901-open-reviewers",
        defect_cases=DEFECTS,
        clean_cases=CLEAN[:7] if pilot else CLEAN,
        baseline=arm(
            BASELINE, backend="codex", model="gpt-5-codex", effort="high", transport="cli_detached_configured"
        ),
        candidates=candidates[:1] if pilot else candidates,
        corpus_version="corpus1:" + hashlib.sha256(b"camus public benchmark corpus v1").hexdigest(),
    )


def _quality_outcome(arm_id: str, case_id: str, kind: str, repeat: int) -> dict[str, Any]:
    roll = unit(arm_id, case_id, repeat, "outcome")
    if arm_id == BASELINE:
        if kind == "defect" and case_id in ("race-refresh-token", "regex-catastrophic-backtrack") and roll < 0.4:
            return {"detectedDefects": [], "blockingFindingCount": 0}
        return {}
    if arm_id == STRONG:
        if kind == "defect" and case_id == "integer-overflow-quota" and repeat == 7:
            return {"detectedDefects": [], "blockingFindingCount": 0}
        return {}
    # The weak arm.
    if roll < 0.05:
        return {"normalizerRan": False, "detectedDefects": [], "blockingFindingCount": 0}
    if kind == "defect" and roll < 0.42:
        return {"detectedDefects": [], "blockingFindingCount": 0}
    if kind == "clean" and roll < 0.22:
        return {"blockingFindingCount": 1}
    return {}


def build_receipts(raw: dict[str, Any]) -> list[dict[str, Any]]:
    campaign = parse_campaign(raw)
    receipts: list[dict[str, Any]] = []
    arms = [campaign.baseline["armId"], *(candidate["armId"] for candidate in campaign.candidates)]
    for arm_id in arms:
        speed = {BASELINE: 14000, STRONG: 9000, WEAK: 5000}[arm_id]
        price = {BASELINE: None, STRONG: 0.0009, WEAK: 0.0002}[arm_id]
        for case in campaign.manifest["cases"]:
            kind, case_id = case["kind"], case["caseId"]
            if kind == "kill_path":
                for repeat in range(1, 4):
                    fields: dict[str, Any] = {
                        "wallMs": 300 + int(900 * unit(arm_id, case_id, repeat, "kill")),
                        "executionDigest": EXECUTION,
                    }
                    if arm_id == WEAK and case_id == "kill-identity-substitution" and repeat == 2:
                        control = make_receipt(campaign, arm_id, case_id, repeat)["killControl"]
                        fields["killControl"] = dict(control, observed="substituted_model_identity_accepted")
                    receipts.append(make_receipt(campaign, arm_id, case_id, repeat, **fields))
                continue
            for repeat in range(1, 11):
                fields = realistic_fields(
                    arm_id,
                    case_id,
                    repeat,
                    base_ms=speed,
                    usd_per_1k_tokens=price,
                    temperature=0.2 if arm_id != BASELINE else None,
                    seed=1234 if arm_id != BASELINE else None,
                    pinned=arm_id != BASELINE,
                )
                fields.update(_quality_outcome(arm_id, case_id, kind, repeat))
                fields["executionDigest"] = EXECUTION
                if arm_id == WEAK and case_id == "stale-cache-key" and repeat == 4:
                    fields["identityMatch"] = False
                receipts.append(make_receipt(campaign, arm_id, case_id, repeat, **fields))
    # Two disclosed reruns of weak-arm attempts whose output did not parse: new repeat
    # numbers, the originals stay in every denominator.
    failed = [r for r in receipts if r["armId"] == WEAK and not r["normalizerRan"]][:2]
    for n, original in enumerate(failed):
        fields = realistic_fields(
            WEAK,
            original["caseId"],
            11 + n,
            base_ms=5000,
            usd_per_1k_tokens=0.0002,
            temperature=0.2,
            seed=1234,
            pinned=True,
        )
        fields.update(executionDigest=EXECUTION, rerunOf=original["receiptId"])
        receipts.append(make_receipt(campaign, WEAK, original["caseId"], 11 + n, **fields))
    return receipts


def check_verdicts(raw: dict[str, Any], receipts: list[dict[str, Any]], *, pilot: bool = False) -> None:
    summary = summarize(raw, receipts)
    rows = {row["armId"]: row for row in summary["candidates"]}
    if pilot:
        failed = sorted(key for key, ok in rows[STRONG]["conditions"].items() if not ok)
        assert failed == ["falsePositiveMargin"], failed
        assert rows[STRONG]["paired"]["falsePositiveDifference"]["discordant"] == 0
        return
    strong, weak = rows[STRONG], rows[WEAK]
    assert strong["recommendation"] == "eligible_for_human_admission", strong["conditions"]
    failed = sorted(key for key, ok in weak["conditions"].items() if not ok)
    assert weak["recommendation"] == "not_admitted" and len(failed) >= 4, failed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="default: examples/ledger (examples/ledger-pilot with --pilot)")
    parser.add_argument("--pilot", action="store_true", help="the underpowered pilot campaign")
    args = parser.parse_args()
    args.out = args.out or REPO / "examples" / ("ledger-pilot" if args.pilot else "ledger")
    raw = build_campaign(pilot=args.pilot)
    receipts = build_receipts(raw)
    check_verdicts(raw, receipts, pilot=args.pilot)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "campaign.json").write_text(json.dumps(raw, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    (args.out / "receipts.jsonl").write_bytes("".join(canonical_text(r) + "\n" for r in receipts).encode("utf-8"))
    print(f"wrote {len(receipts)} receipts to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
