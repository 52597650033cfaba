"""Synthetic campaigns and receipts (for tests, benchmarks and example data).

Deterministic builders only -- no randomness, no clock.  ``make_campaign``
returns a raw manifest; ``make_receipt`` returns a sealed receipt whose fields
default to "the reviewer ran, found exactly the expected defects, reported its
identity honestly" and can be overridden one by one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from generator.analyze.ledger.schema import KILL_CANON, KILL_MODES, Campaign, receipt_id

__all__ = ["DEFAULT_EXECUTION", "arm", "full_grid", "make_campaign", "make_receipt", "realistic_fields", "unit"]

DEFAULT_EXECUTION = "execution1:" + "e" * 64

DEFAULT_THRESHOLDS: dict[str, Any] = {
    "validityLower": 0.98,
    "recallDelta": 0.10,
    "fprEpsilon": 0.05,
    "transportDelta": 0.03,
    "qualityRepetitions": 10,
    "killRepetitions": 3,
    "containmentMinimum": 150,
    "containmentConclusive": 0.98,
}

KILL_CASE_NAMES = ("kill-abort", "kill-malformed-output", "kill-identity-substitution", "kill-transport-interrupt")


def arm(
    arm_id: str,
    *,
    backend: str = "http_openai_compat",
    model: str = "open-model-1",
    effort: str = "high",
    transport: str = "loopback",
    role: str = "reviewer",
) -> dict[str, str]:
    return {"armId": arm_id, "backend": backend, "model": model, "effort": effort, "transport": transport, "role": role}


def _names(prefix: str, given: int | Sequence[str]) -> list[str]:
    return [f"{prefix}-{i + 1:02d}" for i in range(given)] if isinstance(given, int) else list(given)


def make_campaign(
    *,
    campaign_id: str = "synthetic-campaign",
    defect_cases: int | Sequence[str] = 4,
    clean_cases: int | Sequence[str] = 2,
    kill_cases: int = 4,
    defects_per_case: int = 1,
    baseline: Mapping[str, str] | None = None,
    candidates: Sequence[Mapping[str, str]] | None = None,
    transport_pairs: Sequence[tuple[str, str]] = (),
    thresholds: Mapping[str, Any] | None = None,
    corpus_version: str = "corpus1:" + "c" * 64,
    prompt_envelope: str = "camus-review-prompt-rc1-light",
) -> dict[str, Any]:
    """A raw campaign manifest; kill case ``i`` is meant for mode ``KILL_MODES[i % 4]``."""
    defect_ids = _names("defect", defect_cases)
    clean_ids = _names("clean", clean_cases)
    cases: list[dict[str, Any]] = []
    for case_id in defect_ids:
        expected = [case_id] if defects_per_case == 1 else [f"{case_id}#{k + 1}" for k in range(defects_per_case)]
        cases.append({"caseId": case_id, "kind": "defect", "expectedDefects": expected})
    cases.extend({"caseId": case_id, "kind": "clean", "expectedDefects": []} for case_id in clean_ids)
    for i in range(kill_cases):
        name = KILL_CASE_NAMES[i] if i < len(KILL_CASE_NAMES) else f"kill-extra-{i + 1:02d}"
        cases.append({"caseId": name, "kind": "kill_path", "expectedDefects": []})
    return {
        "schemaVersion": 1,
        "campaignId": campaign_id,
        "corpusVersion": corpus_version,
        "promptEnvelopeVersion": prompt_envelope,
        "baseline": dict(
            baseline or arm("codex-baseline", backend="codex", model="gpt-5-codex", transport="cli_detached_configured")
        ),
        "candidates": [dict(item) for item in (candidates or [arm("candidate")])],
        "cases": cases,
        "transportPairs": [{"leftArmId": left, "rightArmId": right} for left, right in transport_pairs],
        "thresholds": {**DEFAULT_THRESHOLDS, **(thresholds or {})},
    }


def kill_mode_for(campaign: Campaign, case_id: str) -> str:
    kill_ids = [case["caseId"] for case in campaign.manifest["cases"] if case["kind"] == "kill_path"]
    return KILL_MODES[kill_ids.index(case_id) % len(KILL_MODES)]


def make_receipt(
    campaign: Campaign, arm_id: str, case_id: str, repeat: int, *, version: int = 2, **fields: Any
) -> dict[str, Any]:
    """A sealed receipt; keyword arguments override any field (``receiptId`` is always recomputed)."""
    manifest = campaign.manifest
    case = campaign.cases[case_id]
    kind = case["kind"]
    expected = list(case["expectedDefects"])
    detected = list(fields.get("detectedDefects", expected))
    body: dict[str, Any] = {
        "schemaVersion": version,
        "campaignId": manifest["campaignId"],
        "corpusVersion": manifest["corpusVersion"],
        "promptEnvelopeVersion": manifest["promptEnvelopeVersion"],
        "armId": arm_id,
        "caseId": case_id,
        "caseKind": kind,
        "repeat": repeat,
        "normalizerRan": kind != "kill_path",
        "expectedDefects": expected,
        "detectedDefects": detected,
        "blockingFindingCount": len(detected),
        "identityMatch": True,
        "killPathPassed": True if kind == "kill_path" else None,
        "toolUsing": False,
        "toolCallCorrect": None,
        "pseudoToolCallCount": 0,
        "contextSufficient": None,
        "mutationEntered": False,
        "containmentConclusive": None,
        "containmentBreach": None,
        "wallMs": 1000 + 10 * repeat,
        "latencyClass": "na",
        "usage": None,
        "decoding": {"temperature": None, "seed": None, "pinned": False},
        "rerunOf": None,
    }
    if version == 2:
        body["campaignDigest"] = campaign.require_digest()
        body["executionDigest"] = DEFAULT_EXECUTION
        body["killControl"] = None
        if kind == "kill_path":
            mode = fields.pop("killMode", None) or kill_mode_for(campaign, case_id)
            expected_text, probes = KILL_CANON[mode]
            body["killControl"] = {
                "mode": mode,
                "probe": probes[0],
                "expected": expected_text,
                "observed": expected_text,
                "providerCallsMade": 0,
            }
    fields.pop("killMode", None)
    body.update(fields)
    derive_verdict = kind == "kill_path" and version == 2 and "killPathPassed" not in fields
    if derive_verdict and isinstance(body["killControl"], dict):
        control = body["killControl"]
        body["killPathPassed"] = control.get("expected") == control.get("observed")
    body.pop("receiptId", None)
    body["receiptId"] = receipt_id(body)
    return body


def full_grid(
    campaign: Campaign,
    arm_ids: Iterable[str],
    *,
    quality_repeats: int | None = None,
    kill_repeats: int | None = None,
    **fields: Any,
) -> list[dict[str, Any]]:
    """Receipts for every (arm, case, repeat) the thresholds ask for, arm by arm."""
    quality = quality_repeats or campaign.thresholds["qualityRepetitions"]
    kill = kill_repeats or campaign.thresholds["killRepetitions"]
    out = []
    for arm_id in arm_ids:
        for case in campaign.manifest["cases"]:
            count = kill if case["kind"] == "kill_path" else quality
            for repeat in range(1, count + 1):
                out.append(make_receipt(campaign, arm_id, case["caseId"], repeat, **fields))
    return out


def unit(*parts: Any) -> float:
    """A deterministic number in [0, 1) derived from ``parts`` (a stand-in for a seeded RNG)."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode("utf-8")).digest()
    return int.from_bytes(digest[:7], "big") / float(1 << 56)


def realistic_fields(
    arm_id: str,
    case_id: str,
    repeat: int,
    *,
    base_ms: int = 9000,
    usd_per_1k_tokens: float | None = 0.0025,
    temperature: float | None = 0.2,
    seed: int | str | None = 7,
    pinned: bool = True,
) -> dict[str, Any]:
    """Plausible latency, usage and decoding fields for one attempt, fixed by its coordinates.

    The first repeat of a cell is a cold start, later ones resident; token
    counts vary around 9k input / 1.2k output; about one attempt in eight
    does not report cached tokens.  ``usd_per_1k_tokens=None`` means the
    provider reports no cost.
    """
    jitter = unit(arm_id, case_id, repeat, "wall")
    cold = repeat == 1
    wall = int(base_ms * (1.6 if cold else 1.0) * (0.7 + 0.6 * jitter))
    input_tokens = 7000 + int(4000 * unit(arm_id, case_id, repeat, "in"))
    output_tokens = 600 + int(1200 * unit(arm_id, case_id, repeat, "out"))
    cached = None if unit(arm_id, case_id, repeat, "cache") < 0.125 else int(input_tokens * 0.4)
    total = input_tokens + output_tokens
    cost = None if usd_per_1k_tokens is None else round(total / 1000 * usd_per_1k_tokens, 6)
    return {
        "wallMs": wall,
        "latencyClass": "cold" if cold else "resident",
        "usage": {
            "inputTokens": input_tokens,
            "cachedInputTokens": cached,
            "outputTokens": output_tokens,
            "totalTokens": total,
            "costUsd": cost,
            "costSource": "unavailable" if cost is None else "provider_receipt",
        },
        "decoding": {"temperature": temperature, "seed": seed, "pinned": pinned},
    }
