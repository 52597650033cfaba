#!/usr/bin/env python3
"""Regenerate ``tests/ledger/golden/`` by running the upstream reference ledger tool.

Usage::

    python scripts/make_ledger_golden.py [--reference PATH]

The reference (``ledger_reference.py``, Python standard library only) is run
as a separate process; nothing of it is imported or copied.  Every input is
built here, deterministically, with ``tests.support.ledger_synth``; the
reference's exit status, stdout and stderr are recorded next to it:

``summaries/<name>/``  campaign.json, receipts.jsonl.gz, reference.json
    ``reference.json`` = {"returncode", "stdout", "stderr"} of
    ``summarize --json`` on that campaign and ledger.
``appends/<name>/``  campaign.json, receipts.jsonl.gz, reference.json
    the stdout line of every ``append`` (one process per receipt) and the
    SHA-256 of the resulting ledger.
``cases.json``  single-shot probes: a receipt appended to a small valid
    ledger, a campaign variant, or a hand-edited ledger, each with the
    reference's result and (for appends) whether the ledger changed.

The tests compare evalsite with these files and never run the reference.
"""

from __future__ import annotations

import argparse
import copy
import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from generator.analyze.ledger.schema import canonical_text, parse_campaign, receipt_id  # noqa: E402
from tests.support.ledger_synth import (  # noqa: E402
    arm,
    make_campaign,
    make_receipt,
    realistic_fields,
    unit,
)

DEFAULT_REFERENCE = REPO.parent / "shared" / "reference" / "ledger_reference.py"
OUT = REPO / "tests" / "ledger" / "golden"
BASELINE = arm("codex-baseline", backend="codex", model="gpt-5-codex", transport="cli_detached_configured")


class Reference:
    def __init__(self, script: Path) -> None:
        self.script = script

    def run(self, *args: str, stdin: bytes | None = None, cwd: Path | None = None) -> dict[str, Any]:
        proc = subprocess.run(
            [sys.executable, str(self.script), *args],
            input=stdin if stdin is not None else b"",
            capture_output=True,
            cwd=cwd,
            check=False,
            env={**os.environ, "PYTHONIOENCODING": "utf-8"},
        )
        stderr = proc.stderr.decode("utf-8", "replace")
        if proc.returncode not in (0, 2):
            # A crash: keep the exception line, not the whole traceback.
            stderr = stderr.strip().splitlines()[-1] if stderr.strip() else ""
        return {"returncode": proc.returncode, "stdout": proc.stdout.decode("utf-8", "replace"), "stderr": stderr}


def _jsonl(receipts: list[dict[str, Any]]) -> bytes:
    return "".join(canonical_text(item) + "\n" for item in receipts).encode("utf-8")


def _write_case_dir(folder: Path, campaign: dict[str, Any], ledger: bytes | None) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "campaign.json").write_text(json.dumps(campaign, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    if ledger is not None:
        with gzip.GzipFile(folder / "receipts.jsonl.gz", "wb", mtime=0) as handle:
            handle.write(ledger)


def _dump(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")


# --------------------------------------------------------------------------
# Scenario builders


def _rich(campaign, arm_id, case_id, repeat, **fields):
    extra = realistic_fields(arm_id, case_id, repeat)
    extra.update(fields)
    return make_receipt(campaign, arm_id, case_id, repeat, **extra)


def scenario_passing() -> tuple[dict, list]:
    """Standard thresholds; the candidate clears every bar; the baseline misses a few defects."""
    raw = make_campaign(campaign_id="golden-passing", defect_cases=12, clean_cases=8, candidates=[arm("candidate")])
    c = parse_campaign(raw)
    out = []
    for arm_id in ("codex-baseline", "candidate"):
        for case in c.manifest["cases"]:
            repeats = 3 if case["kind"] == "kill_path" else 10
            for r in range(1, repeats + 1):
                fields: dict[str, Any] = {}
                if arm_id == "codex-baseline" and case["caseId"] in ("defect-03", "defect-07") and r <= 3:
                    fields = {"detectedDefects": [], "blockingFindingCount": 0}
                if case["kind"] == "kill_path":
                    fields.update({"latencyClass": "na", "usage": None, "wallMs": 40 + r})
                    out.append(make_receipt(c, arm_id, case["caseId"], r, **fields))
                else:
                    out.append(_rich(c, arm_id, case["caseId"], r, **fields))
    return raw, out


def scenario_mixed() -> tuple[dict, list]:
    """One strong, one weak and one gappy candidate against the same baseline."""
    raw = make_campaign(
        campaign_id="golden-mixed",
        defect_cases=8,
        clean_cases=8,
        candidates=[arm("strong"), arm("weak", model="small-model-7b"), arm("gappy", model="gappy-model")],
        thresholds={"validityLower": 0.97},
    )
    c = parse_campaign(raw)
    out = []
    for arm_id in ("codex-baseline", "strong", "weak", "gappy"):
        for case in c.manifest["cases"]:
            kind, cid = case["kind"], case["caseId"]
            repeats = 3 if kind == "kill_path" else 10
            if arm_id == "gappy" and cid in ("defect-02", "clean-05"):
                repeats = 7
            if arm_id == "gappy" and cid == "kill-transport-interrupt":
                continue
            for r in range(1, repeats + 1):
                u = unit(arm_id, cid, r, "outcome")
                fields: dict[str, Any] = {}
                if arm_id == "weak" and kind != "kill_path":
                    if u < 0.06:
                        fields = {"normalizerRan": False, "detectedDefects": [], "blockingFindingCount": 0}
                    elif kind == "defect" and u < 0.45:
                        fields = {"detectedDefects": [], "blockingFindingCount": 0}
                    elif kind == "clean" and u < 0.3:
                        fields = {"blockingFindingCount": 1}
                    if unit(arm_id, cid, r, "identity") < 0.03:
                        fields["identityMatch"] = False
                if arm_id == "weak" and cid == "kill-abort" and r == 2:
                    fields = {
                        "killControl": {
                            "mode": "abort",
                            "probe": "review_watch.start+abort",
                            "expected": "aborted_and_process_group_dead",
                            "observed": "process_group_survived",
                            "providerCallsMade": 0,
                        }
                    }
                if kind == "kill_path":
                    fields.setdefault("usage", None)
                    out.append(make_receipt(c, arm_id, cid, r, **fields))
                else:
                    out.append(_rich(c, arm_id, cid, r, **fields))
    return raw, out


def scenario_transport() -> tuple[dict, list]:
    """A loopback/tunnel pair with identical outcomes, a lone tunnel arm, and a mirrored duplicate pair."""
    raw = make_campaign(
        campaign_id="golden-transport",
        defect_cases=13,
        clean_cases=2,
        candidates=[
            arm("cand-loopback", transport="loopback"),
            arm("cand-tunnel", transport="ssh_tunnel"),
            arm("lone-tunnel", model="other-model", transport="ssh_tunnel"),
        ],
        transport_pairs=[("cand-loopback", "cand-tunnel"), ("cand-tunnel", "cand-loopback")],
    )
    c = parse_campaign(raw)
    out = []
    for arm_id in ("codex-baseline", "cand-loopback", "cand-tunnel", "lone-tunnel"):
        for case in c.manifest["cases"]:
            repeats = 3 if case["kind"] == "kill_path" else 10
            for r in range(1, repeats + 1):
                out.append(make_receipt(c, arm_id, case["caseId"], r, wallMs=500 + r))
    return raw, out


def scenario_maker() -> tuple[dict, list]:
    """Maker arms: clean containment, one breach, and too many inconclusive runs."""
    raw = make_campaign(
        campaign_id="golden-maker",
        defect_cases=15,
        clean_cases=2,
        candidates=[
            arm("maker-ok", role="maker"),
            arm("maker-breach", role="maker"),
            arm("maker-vague", role="maker", model="vague"),
        ],
    )
    c = parse_campaign(raw)
    out = []
    for arm_id in ("codex-baseline", "maker-ok", "maker-breach", "maker-vague"):
        for case in c.manifest["cases"]:
            kind, cid = case["kind"], case["caseId"]
            repeats = 3 if kind == "kill_path" else 10
            for r in range(1, repeats + 1):
                fields: dict[str, Any] = {}
                if arm_id != "codex-baseline" and kind != "kill_path":
                    conclusive = not (arm_id == "maker-vague" and r == 4)
                    breach = arm_id == "maker-breach" and cid == "defect-05" and r == 6
                    fields = {
                        "mutationEntered": True,
                        "containmentConclusive": conclusive,
                        "containmentBreach": breach if conclusive else None,
                        "toolUsing": True,
                        "toolCallCorrect": r != 9,
                        "pseudoToolCallCount": 1 if r == 8 else 0,
                        "contextSufficient": r % 3 != 0,
                    }
                out.append(make_receipt(c, arm_id, cid, r, **fields))
    return raw, out


def scenario_legacy() -> tuple[dict, list]:
    """v1 kill receipts, float schema versions, reruns, two execution digests, odd numbers and text."""
    raw = make_campaign(
        campaign_id="golden-légacy ✓",
        defect_cases=["null-deref-ß", "race-条件", "sql-injection", "off-by-one"],
        clean_cases=["clean-ascii", "clean-ünïcode"],
        defects_per_case=2,
        candidates=[arm("candidate", model="modèle-ouvert")],
        thresholds={"validityLower": 1, "recallDelta": 0, "fprEpsilon": 1, "transportDelta": 0.5},
    )
    raw["baseline"]["effort"] = "  medium  "
    c = parse_campaign(raw)
    temps = [0.0, -0.0, 1, 1.0, None, 0.7]
    seeds = [7, "7", None, 0, "seed-α"]
    out: list[dict[str, Any]] = []
    for arm_id in ("codex-baseline", "candidate"):
        for case in c.manifest["cases"]:
            kind, cid = case["kind"], case["caseId"]
            repeats = 3 if kind == "kill_path" else 10
            for r in range(1, repeats + 1):
                u = unit(arm_id, cid, r, "legacy")
                fields: dict[str, Any] = {
                    "wallMs": 1000 + int(9000 * u),
                    "latencyClass": ("cold", "resident", "na")[r % 3],
                    "decoding": {
                        "temperature": temps[r % len(temps)],
                        "seed": seeds[r % len(seeds)],
                        "pinned": r % 2 == 0,
                    },
                }
                if kind == "defect":
                    expected = case["expectedDefects"]
                    fields["detectedDefects"] = [d for i, d in enumerate(expected) if unit(arm_id, cid, r, i) < 0.8]
                    fields["blockingFindingCount"] = len(fields["detectedDefects"])
                if kind != "kill_path":
                    fields["usage"] = {
                        "inputTokens": 1000 + r,
                        "cachedInputTokens": None if r % 4 == 0 else 10 * r,
                        "outputTokens": 200 + r if r % 5 else None,
                        "totalTokens": None if r % 6 == 0 else 1300,
                        "costUsd": (3 if r % 2 else 0.125) if r % 7 else None,
                        "costSource": "provider_receipt" if r % 7 else "unavailable",
                    }
                    fields["toolUsing"] = r % 2 == 1
                    fields["toolCallCorrect"] = (r % 3 != 0) if r % 2 == 1 else None
                    fields["pseudoToolCallCount"] = (1 if r == 5 else 0) if r % 2 == 1 else 0
                    fields["contextSufficient"] = None if r % 4 == 0 else r % 3 != 1
                    fields["identityMatch"] = not (arm_id == "candidate" and cid == "race-条件" and r == 10)
                if r == 9:
                    fields["executionDigest"] = "execution1:" + "a" * 64
                version = 1 if kind == "kill_path" else 2
                receipt = make_receipt(c, arm_id, cid, r, version=version, **fields)
                if kind != "kill_path" and r in (2, 5):
                    receipt["schemaVersion"] = 2.0
                    receipt["receiptId"] = receipt_id(receipt)
                out.append(receipt)
    # Reruns: new repeat numbers pointing back at an earlier receipt of the same arm and case.
    originals = [item for item in out if item["repeat"] == 3 and item["caseKind"] == "defect"][:3]
    for n, original in enumerate(originals):
        rerun = make_receipt(
            c,
            original["armId"],
            original["caseId"],
            11 + n,
            rerunOf=original["receiptId"],
            wallMs=777 + n,
            latencyClass="resident",
        )
        out.append(rerun)
        if n == 0:
            out.append(
                make_receipt(
                    c,
                    original["armId"],
                    original["caseId"],
                    20,
                    rerunOf=rerun["receiptId"],
                    wallMs=4242,
                    latencyClass="resident",
                )
            )
    return raw, out


def scenario_live_shape() -> tuple[dict, list]:
    """The shape the upstream live runner writes: kill receipts with identityMatch false, 7 clean cases."""
    corpus = [
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
    raw = make_campaign(
        campaign_id="slice-g-20260818-http_openai_compat-1a2b3c4d5e",
        defect_cases=corpus,
        clean_cases=[f"clean-{name}" for name in ("readme", "refactor", "tests", "deps", "logging", "types", "docs")],
        corpus_version="corpus1:" + hashlib.sha256(b"public corpus").hexdigest(),
    )
    c = parse_campaign(raw)
    out = []
    for arm_id in ("codex-baseline", "candidate"):
        for case in c.manifest["cases"]:
            kind = case["kind"]
            for r in range(1, (3 if kind == "kill_path" else 10) + 1):
                fields: dict[str, Any] = {"wallMs": 20000 + 37 * r}
                if kind == "kill_path":
                    fields.update(identityMatch=False, normalizerRan=False)
                out.append(make_receipt(c, arm_id, case["caseId"], r, **fields))
    return raw, out


SUMMARY_SCENARIOS: dict[str, Callable[[], tuple[dict, list]]] = {
    "passing": scenario_passing,
    "mixed": scenario_mixed,
    "transport": scenario_transport,
    "maker": scenario_maker,
    "legacy": scenario_legacy,
    "live_shape": scenario_live_shape,
}


# --------------------------------------------------------------------------
# Single-shot probes


def _reseal(receipt: dict[str, Any]) -> dict[str, Any]:
    receipt = dict(receipt)
    receipt["receiptId"] = receipt_id(receipt)
    return receipt


def receipt_probes(raw: dict, base: list[dict]) -> list[dict[str, Any]]:
    """(name, receipt text, how to pass it) appended to a ledger holding ``base``."""
    c = parse_campaign(raw)
    quality = next(item for item in base if item["caseKind"] == "defect" and item["armId"] == "candidate")
    clean = next(item for item in base if item["caseKind"] == "clean" and item["armId"] == "candidate")
    kill = next(item for item in base if item["caseKind"] == "kill_path" and item["armId"] == "candidate")
    fresh = make_receipt(c, "candidate", quality["caseId"], 50, **realistic_fields("candidate", quality["caseId"], 50))
    fresh_kill = make_receipt(c, "candidate", kill["caseId"], 50)
    fresh_clean = make_receipt(c, "candidate", clean["caseId"], 50)

    def edit(source: dict, reseal: bool = True, **changes: Any) -> str:
        receipt = copy.deepcopy(source)
        for key, value in changes.items():
            if value is _DROP:
                receipt.pop(key, None)
            else:
                receipt[key] = value
        return json.dumps(_reseal(receipt) if reseal else receipt, ensure_ascii=False)

    def with_kill(**control: Any) -> str:
        receipt = copy.deepcopy(fresh_kill)
        receipt["killControl"].update(control)
        return json.dumps(_reseal(receipt))

    text = json.dumps
    probes = [
        ("fresh_receipt", text(fresh), "file"),
        ("fresh_receipt_stdin", text(fresh_clean), "stdin"),
        ("exact_duplicate", text(quality), "file"),
        ("wallms_edited_old_id", edit(quality, reseal=False, wallMs=quality["wallMs"] + 1), "file"),
        ("garbage_receipt_id", edit(quality, reseal=False, receiptId="bench1:xyz"), "file"),
        ("unknown_arm", edit(fresh, armId="nobody"), "file"),
        ("unknown_case", edit(fresh, caseId="no-such-case"), "file"),
        ("duplicate_run_other_content", edit(quality, wallMs=quality["wallMs"] + 1), "file"),
        ("nan_in_file", text(fresh).replace('"wallMs":', '"wallMs":NaN,"x":', 1), "file"),
        ("nan_on_stdin", text(fresh).replace('"wallMs":', '"wallMs":NaN,"x":', 1), "stdin"),
        ("wallms_infinite", text(fresh).replace(f'"wallMs": {fresh["wallMs"]}', '"wallMs": 1e999'), "file"),
        ("kill_control_null", edit(fresh_kill, killControl=None), "file"),
        ("kill_control_absent", edit(fresh_kill, killControl=_DROP), "file"),
        ("kill_expected_not_canonical", with_kill(expected="aborted"), "file"),
        ("kill_probe_not_canonical", with_kill(probe="something.else"), "file"),
        ("kill_mode_invalid", with_kill(mode="explode"), "file"),
        ("kill_provider_calls", with_kill(providerCallsMade=1), "file"),
        ("kill_provider_calls_bool", with_kill(providerCallsMade=False), "file"),
        ("kill_provider_calls_float_zero", with_kill(providerCallsMade=0.0), "file"),
        ("kill_passed_inconsistent", edit(fresh_kill, killPathPassed=False), "file"),
        ("quality_with_kill_control", edit(fresh, killControl=copy.deepcopy(fresh_kill["killControl"])), "file"),
        ("clean_with_kill_passed", edit(fresh_clean, killPathPassed=True), "file"),
        ("detected_not_expected", edit(fresh, detectedDefects=["made-up-defect"]), "file"),
        ("detected_duplicate", edit(fresh, detectedDefects=[quality["caseId"], quality["caseId"]]), "file"),
        (
            "reviewer_mutation",
            edit(fresh, mutationEntered=True, containmentConclusive=True, containmentBreach=False),
            "file",
        ),
        ("non_mutation_containment", edit(fresh, containmentConclusive=True), "file"),
        ("rerun_unknown", edit(fresh, rerunOf="bench1:" + "0" * 64), "file"),
        ("rerun_other_case", edit(fresh, rerunOf=clean["receiptId"]), "file"),
        (
            "rerun_other_arm",
            edit(
                fresh,
                rerunOf=next(i for i in base if i["armId"] == "codex-baseline" and i["caseId"] == quality["caseId"])[
                    "receiptId"
                ],
            ),
            "file",
        ),
        ("rerun_valid", edit(fresh, rerunOf=quality["receiptId"]), "file"),
        ("rerun_malformed", edit(fresh, rerunOf="sha256:abc"), "file"),
        ("foreign_campaign_digest", edit(fresh, campaignDigest="campaign1:" + "1" * 64), "file"),
        ("execution_digest_sha256", edit(fresh, executionDigest="sha256:" + "e" * 64), "file"),
        ("schema_version_3", edit(fresh, schemaVersion=3), "file"),
        ("schema_version_bool", edit(fresh, schemaVersion=True), "file"),
        ("schema_version_float_2", edit(fresh, schemaVersion=2.0), "file"),
        (
            "v1_kill_receipt",
            edit(fresh_kill, schemaVersion=1, campaignDigest=_DROP, executionDigest=_DROP, killControl=_DROP),
            "file",
        ),
        ("extra_key", edit(fresh, providerRaw={"id": 1}), "file"),
        ("missing_key", edit(fresh, wallMs=_DROP), "file"),
        ("ground_truth_drift", edit(fresh, expectedDefects=["other"]), "file"),
        ("case_kind_drift", edit(fresh, caseKind="clean"), "file"),
        ("campaign_id_mismatch", edit(fresh, campaignId="other-campaign"), "file"),
        ("seed_boolean", edit(fresh, decoding={"temperature": 0.2, "seed": True, "pinned": True}), "file"),
        ("seed_too_long", edit(fresh, decoding={"temperature": 0.2, "seed": "s" * 101, "pinned": True}), "file"),
        ("temperature_string", edit(fresh, decoding={"temperature": "hot", "seed": 1, "pinned": True}), "file"),
        ("pinned_null", edit(fresh, decoding={"temperature": 0.2, "seed": 1, "pinned": None}), "file"),
        ("decoding_extra", edit(fresh, decoding={"temperature": 0.2, "seed": 1, "pinned": True, "top_p": 1}), "file"),
        ("cost_without_source", edit(fresh, usage={**fresh["usage"], "costSource": "unavailable"}), "file"),
        ("cost_source_without_cost", edit(fresh, usage={**fresh["usage"], "costUsd": None}), "file"),
        ("cost_negative", edit(fresh, usage={**fresh["usage"], "costUsd": -1}), "file"),
        ("usage_extra_key", edit(fresh, usage={**fresh["usage"], "reasoningTokens": 5}), "file"),
        ("usage_tokens_negative", edit(fresh, usage={**fresh["usage"], "inputTokens": -5}), "file"),
        ("usage_is_list", edit(fresh, usage=[]), "file"),
        ("repeat_zero", edit(fresh, repeat=0), "file"),
        ("repeat_bool", edit(fresh, repeat=True), "file"),
        ("repeat_float", edit(fresh, repeat=50.0), "file"),
        ("wallms_negative", edit(fresh, wallMs=-1), "file"),
        ("latency_class_invalid", edit(fresh, latencyClass="warm"), "file"),
        ("normalizer_null", edit(fresh, normalizerRan=None), "file"),
        ("tool_claims_without_tools", edit(fresh, toolCallCorrect=True), "file"),
        ("tool_using_without_verdict", edit(fresh, toolUsing=True), "file"),
        ("arm_id_array", edit(fresh, armId=["candidate"]), "file"),
        ("case_id_object", edit(fresh, caseId={"id": quality["caseId"]}), "file"),
        ("arm_id_number", edit(fresh, armId=7), "file"),
        (
            "lone_surrogate",
            json.dumps(_reseal_ascii(fresh, {"temperature": 0.2, "seed": "\ud800", "pinned": True})),
            "file",
        ),
        ("temperature_huge_int", edit(fresh, decoding={"temperature": 10**400, "seed": 1, "pinned": True}), "file"),
        ("cost_huge_int", edit(fresh, usage={**fresh["usage"], "costUsd": 10**400}), "file"),
        (
            "deeply_nested",
            text(fresh).replace('"usage": ', '"usage": ' + "[" * 100000 + "]" * 100000 + ', "u2": ', 1),
            "file",
        ),
        ("not_json_file", "this is not json", "file"),
        ("stdin_nope", "nope", "stdin"),
        ("stdin_empty_object", "{}", "stdin"),
        ("stdin_array", "[]", "stdin"),
        ("receipt_file_missing", None, "missing"),
    ]
    return [{"name": name, "receipt": body, "via": via} for name, body, via in probes]


_DROP = object()


def _reseal_ascii(source: dict, decoding: dict) -> dict:
    """A receipt whose seed is a lone surrogate; sealing it cannot be done in UTF-8, so keep the old id."""
    receipt = copy.deepcopy(source)
    receipt["decoding"] = decoding
    return receipt


def campaign_probes(raw: dict) -> list[dict[str, Any]]:
    def variant(change: Callable[[dict], Any]) -> str:
        value = copy.deepcopy(raw)
        result = change(value)
        return json.dumps(result if result is not None else value, ensure_ascii=False)

    def setter(path: list[Any], value: Any) -> Callable[[dict], None]:
        def apply(target: dict) -> None:
            for key in path[:-1]:
                target = target[key]
            if value is _DROP:
                del target[path[-1]]
            else:
                target[path[-1]] = value

        return apply

    thresholds = ["thresholds"]
    probes = [
        ("campaign_ok", variant(lambda v: None)),
        ("quality_repetitions_5", variant(setter(thresholds + ["qualityRepetitions"], 5))),
        ("kill_repetitions_string", variant(setter(thresholds + ["killRepetitions"], "3"))),
        ("containment_minimum_149", variant(setter(thresholds + ["containmentMinimum"], 149))),
        ("containment_minimum_10001", variant(setter(thresholds + ["containmentMinimum"], 10001))),
        ("validity_lower_int_1", variant(setter(thresholds + ["validityLower"], 1))),
        ("validity_lower_zero", variant(setter(thresholds + ["validityLower"], 0))),
        ("recall_delta_above_one", variant(setter(thresholds + ["recallDelta"], 1.5))),
        ("recall_delta_bool", variant(setter(thresholds + ["recallDelta"], True))),
        ("recall_delta_huge_int", variant(setter(thresholds + ["recallDelta"], 10**400))),
        ("fpr_epsilon_infinite", variant(setter(thresholds + ["fprEpsilon"], 1e999))),
        ("thresholds_extra", variant(setter(thresholds + ["extra"], 1))),
        ("schema_version_float", variant(setter(["schemaVersion"], 1.0))),
        ("schema_version_2", variant(setter(["schemaVersion"], 2))),
        ("schema_version_bool", variant(setter(["schemaVersion"], True))),
        ("campaign_is_array", "[]"),
        ("campaign_missing_key", variant(setter(["transportPairs"], _DROP))),
        ("campaign_extra_key", variant(setter(["notes"], "x"))),
        ("campaign_id_blank", variant(setter(["campaignId"], "   "))),
        ("campaign_id_501", variant(setter(["campaignId"], "c" * 501))),
        ("campaign_id_padded", variant(setter(["campaignId"], "  padded-id  "))),
        ("baseline_maker", variant(setter(["baseline", "role"], "maker"))),
        ("baseline_role_invalid", variant(setter(["baseline", "role"], "boss"))),
        ("baseline_extra_key", variant(setter(["baseline", "extra"], "x"))),
        ("candidates_empty", variant(setter(["candidates"], []))),
        ("candidates_33", variant(lambda v: v.__setitem__("candidates", [arm(f"c{i}") for i in range(33)]))),
        ("duplicate_arm", variant(lambda v: v["candidates"].append(dict(v["candidates"][0])))),
        ("arm_same_as_baseline", variant(setter(["candidates", 0, "armId"], "codex-baseline"))),
        ("case_kind_invalid", variant(setter(["cases", 0, "kind"], "weird"))),
        ("defect_case_without_defects", variant(setter(["cases", 0, "expectedDefects"], []))),
        (
            "clean_case_with_defects",
            variant(
                lambda v: next(x for x in v["cases"] if x["kind"] == "clean").__setitem__("expectedDefects", ["d"])
            ),
        ),
        ("expected_defects_duplicate", variant(setter(["cases", 0, "expectedDefects"], ["a", "a"]))),
        ("expected_defects_not_list", variant(setter(["cases", 0, "expectedDefects"], "a"))),
        ("duplicate_case_id", variant(lambda v: v["cases"].append(dict(v["cases"][0])))),
        (
            "no_kill_cases",
            variant(lambda v: v.__setitem__("cases", [x for x in v["cases"] if x["kind"] != "kill_path"])),
        ),
        ("cases_empty", variant(setter(["cases"], []))),
        (
            "transport_pair_to_baseline",
            variant(setter(["transportPairs"], [{"leftArmId": "candidate", "rightArmId": "codex-baseline"}])),
        ),
        (
            "transport_pair_same_arm",
            variant(setter(["transportPairs"], [{"leftArmId": "candidate", "rightArmId": "candidate"}])),
        ),
        ("transport_pair_not_object", variant(setter(["transportPairs"], ["candidate"]))),
        ("nan_in_campaign", variant(lambda v: None).replace('"validityLower": 0.98', '"validityLower": NaN')),
        ("campaign_not_json", "{not json"),
        ("campaign_missing_file", None),
    ]
    return [{"name": name, "campaign": body} for name, body in probes]


def ledger_probes(raw: dict, base: list[dict]) -> list[dict[str, Any]]:
    c = parse_campaign(raw)
    lines = [canonical_text(item) for item in base]
    rerun_original = base[0]
    rerun = make_receipt(c, rerun_original["armId"], rerun_original["caseId"], 60, rerunOf=rerun_original["receiptId"])
    extra = make_receipt(c, "candidate", next(i for i in base if i["caseKind"] == "clean")["caseId"], 61)
    joined = "\n".join(lines)
    probes = [
        (
            "nan_line",
            "\n".join(lines[:5] + [lines[5].replace('"wallMs":', '"wallMs":NaN,"zz":', 1)] + lines[6:]) + "\n",
            None,
        ),
        ("duplicated_line", "\n".join(lines[:8] + [lines[3]] + lines[8:]) + "\n", extra),
        ("rerun_before_original", "\n".join([canonical_text(rerun)] + lines) + "\n", None),
        ("rerun_after_original", "\n".join(lines + [canonical_text(rerun)]) + "\n", None),
        ("torn_partial_tail", joined + "\n" + canonical_text(extra)[:37], extra),
        ("complete_tail_without_newline", joined, extra),
        ("glued_line", joined + "\n" + canonical_text(extra)[:37] + canonical_text(rerun) + "\n", None),
        ("blank_lines", "\n\n" + "\n  \n".join(lines) + "\n\n", extra),
        ("crlf_lines", "\r\n".join(lines) + "\r\n", extra),
        ("bom_first_line", "\ufeff" + joined + "\n", None),
        ("invalid_utf8_line", None, None),
        ("line_is_array", joined + "\n[]\n", None),
        ("line_is_number", joined + "\n42\n", None),
    ]
    out = []
    for name, body, append in probes:
        if name == "invalid_utf8_line":
            data = (joined + "\n").encode("utf-8") + b"\xff\xfe broken\n"
        else:
            data = body.encode("utf-8")
        out.append({"name": name, "ledger_b64": _b64(data), "append": json.dumps(append) if append else None})
    return out


def _b64(data: bytes) -> str:
    import base64

    return base64.b64encode(gzip.compress(data, mtime=0)).decode("ascii")


# --------------------------------------------------------------------------


def _sha(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None


def build(reference: Reference) -> None:
    if OUT.exists():
        shutil.rmtree(OUT)
    (OUT / "summaries").mkdir(parents=True)
    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        for name, maker in SUMMARY_SCENARIOS.items():
            raw, receipts = maker()
            work = scratch / name
            work.mkdir()
            (work / "campaign.json").write_text(json.dumps(raw, ensure_ascii=False), encoding="utf-8")
            ledger = _jsonl(receipts)
            (work / "receipts.jsonl").write_bytes(ledger)
            result = reference.run(
                "summarize", "--campaign", "campaign.json", "--ledger", "receipts.jsonl", "--json", cwd=work
            )
            folder = OUT / "summaries" / name
            _write_case_dir(folder, raw, ledger)
            _dump(folder / "reference.json", result)
            print(f"summary {name}: {len(receipts)} receipts, exit {result['returncode']}")
        # Empty (missing) ledger.
        raw, _ = scenario_passing()
        work = scratch / "empty"
        work.mkdir()
        (work / "campaign.json").write_text(json.dumps(raw), encoding="utf-8")
        result = reference.run(
            "summarize", "--campaign", "campaign.json", "--ledger", "absent.jsonl", "--json", cwd=work
        )
        _write_case_dir(OUT / "summaries" / "empty", raw, None)
        _dump(OUT / "summaries" / "empty" / "reference.json", result)

        # Appends, one reference process per receipt.
        for name, maker, limit in (("legacy", scenario_legacy, None), ("passing_head", scenario_passing, 40)):
            raw, receipts = maker()
            receipts = receipts[:limit] if limit else receipts
            work = scratch / f"append-{name}"
            work.mkdir()
            (work / "campaign.json").write_text(json.dumps(raw, ensure_ascii=False), encoding="utf-8")
            outputs = []
            for receipt in receipts + receipts[:2]:  # the last two are idempotent repeats
                result = reference.run(
                    "append",
                    "--campaign",
                    "campaign.json",
                    "--ledger",
                    "ledger.jsonl",
                    stdin=json.dumps(receipt, ensure_ascii=False).encode("utf-8"),
                    cwd=work,
                )
                outputs.append(result)
            folder = OUT / "appends" / name
            _write_case_dir(folder, raw, _jsonl(receipts))
            _dump(
                folder / "reference.json",
                {
                    "outputs": outputs,
                    "ledgerSha256": _sha(work / "ledger.jsonl"),
                    "ledgerMode": oct((work / "ledger.jsonl").stat().st_mode & 0o777),
                    "lockMode": oct((work / "ledger.jsonl.lock").stat().st_mode & 0o777),
                },
            )
            print(f"appends {name}: {len(outputs)} runs")

        # Single-shot probes against a small valid ledger.
        raw, receipts = scenario_passing()
        base = [item for item in receipts if item["repeat"] <= 2]
        cases: dict[str, Any] = {
            "campaign": raw,
            "base_ledger_b64": _b64(_jsonl(base)),
            "receipts": [],
            "campaigns": [],
            "ledgers": [],
        }
        for probe in receipt_probes(raw, base):
            work = scratch / f"r-{probe['name']}"
            work.mkdir()
            (work / "campaign.json").write_text(json.dumps(raw), encoding="utf-8")
            (work / "ledger.jsonl").write_bytes(_jsonl(base))
            before = _sha(work / "ledger.jsonl")
            if probe["via"] == "stdin":
                result = reference.run(
                    "append",
                    "--campaign",
                    "campaign.json",
                    "--ledger",
                    "ledger.jsonl",
                    stdin=probe["receipt"].encode("utf-8"),
                    cwd=work,
                )
            else:
                if probe["via"] == "file":
                    (work / "receipt.json").write_text(probe["receipt"], encoding="utf-8", errors="surrogatepass")
                result = reference.run(
                    "append",
                    "--campaign",
                    "campaign.json",
                    "--ledger",
                    "ledger.jsonl",
                    "--receipt",
                    "receipt.json",
                    cwd=work,
                )
            result["ledgerChanged"] = _sha(work / "ledger.jsonl") != before
            cases["receipts"].append({**probe, "reference": result})
        for probe in campaign_probes(raw):
            work = scratch / f"c-{probe['name']}"
            work.mkdir()
            if probe["campaign"] is not None:
                (work / "campaign.json").write_text(probe["campaign"], encoding="utf-8")
            result = reference.run(
                "summarize", "--campaign", "campaign.json", "--ledger", "none.jsonl", "--json", cwd=work
            )
            with_ledger = None
            if probe["campaign"] is not None:
                (work / "ledger.jsonl").write_bytes(_jsonl(base))
                with_ledger = reference.run(
                    "summarize", "--campaign", "campaign.json", "--ledger", "ledger.jsonl", "--json", cwd=work
                )
            cases["campaigns"].append({**probe, "reference": result, "withLedger": with_ledger})
        for probe in ledger_probes(raw, base):
            work = scratch / f"l-{probe['name']}"
            work.mkdir()
            (work / "campaign.json").write_text(json.dumps(raw), encoding="utf-8")
            import base64

            data = gzip.decompress(base64.b64decode(probe["ledger_b64"]))
            (work / "ledger.jsonl").write_bytes(data)
            result = reference.run(
                "summarize", "--campaign", "campaign.json", "--ledger", "ledger.jsonl", "--json", cwd=work
            )
            appended = None
            if probe["append"] is not None:
                appended = reference.run(
                    "append",
                    "--campaign",
                    "campaign.json",
                    "--ledger",
                    "ledger.jsonl",
                    stdin=probe["append"].encode("utf-8"),
                    cwd=work,
                )
            cases["ledgers"].append({**probe, "reference": result, "referenceAppend": appended})
        with gzip.GzipFile(OUT / "cases.json.gz", "wb", mtime=0) as handle:
            handle.write((json.dumps(cases, ensure_ascii=True, indent=0, sort_keys=True) + "\n").encode("ascii"))
        print(
            f"cases: {len(cases['receipts'])} receipts, {len(cases['campaigns'])} campaigns, "
            f"{len(cases['ledgers'])} ledgers"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", type=Path, default=DEFAULT_REFERENCE)
    args = parser.parse_args()
    if not args.reference.is_file():
        print(f"reference tool not found: {args.reference}", file=sys.stderr)
        return 2
    build(Reference(args.reference))
    return 0


if __name__ == "__main__":
    sys.exit(main())
