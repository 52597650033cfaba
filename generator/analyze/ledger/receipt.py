"""One receipt against its campaign: :func:`check_receipt`, in the upstream order with the upstream messages."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from generator.analyze.ledger.shapes import finite_number, is_bool_or_null, is_int, need_fields, need_text, version_is
from generator.model.ledger import (
    BENCH_ID,
    CAMPAIGN_ID,
    COST_SOURCES,
    DECODING_FIELDS,
    EXECUTION_ID,
    KILL_CANON,
    KILL_CONTROL_FIELDS,
    LATENCY_CLASSES,
    RECEIPT_FIELDS_V1,
    RECEIPT_FIELDS_V2,
    TOKEN_FIELDS,
    USAGE_FIELDS,
    Campaign,
    LedgerDataError,
    canonical_text,
    receipt_id,
)

__all__ = ["check_receipt", "seal_receipt"]


def _json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "a JSON array"
    return "a JSON object" if isinstance(value, dict) else "not a string"


def _spliced_id(receipt: Mapping[str, Any], canonical: str | bytes | None) -> str | None:
    """``receipt_id`` from the receipt's own canonical text, without serializing it again.

    In canonical JSON the top-level member ``"receiptId":"...",`` appears
    verbatim (strings escape their quotes, so it cannot hide inside one);
    the bytes before and after it are exactly the canonical text of the rest.
    Only used when the member occurs once; otherwise the caller recomputes.
    """
    claimed = receipt.get("receiptId")
    if canonical is None or not isinstance(claimed, str):
        return None
    quoted = f'"{claimed}"' if BENCH_ID.fullmatch(claimed) else canonical_text(claimed)
    try:
        member = ('"receiptId":' + quoted + ",").encode("utf-8")
        blob = canonical.encode("utf-8") if isinstance(canonical, str) else canonical
    except UnicodeEncodeError:
        return None
    at = blob.find(member)
    if at < 0 or blob.find(member, at + 1) >= 0:
        return None
    hasher = hashlib.sha256(blob[:at])
    hasher.update(blob[at + len(member) :])
    return "bench1:" + hasher.hexdigest()


def _check_identity(
    receipt: Mapping[str, Any], campaign: Campaign, version: Any, canonical: str | bytes | None
) -> None:
    claimed = receipt["receiptId"]
    if _spliced_id(receipt, canonical) != claimed and receipt_id(receipt) != claimed:
        raise LedgerDataError("benchmark receiptId does not match its canonical content")
    if version_is(version, 2):
        claimed = receipt["campaignDigest"]
        if not isinstance(claimed, str) or not CAMPAIGN_ID.fullmatch(claimed) or claimed != campaign.require_digest():
            raise LedgerDataError("benchmark receipt campaignDigest mismatches frozen campaign content")
        execution = receipt["executionDigest"]
        if not isinstance(execution, str) or not EXECUTION_ID.fullmatch(execution):
            raise LedgerDataError("benchmark receipt executionDigest is invalid")
    manifest = campaign.manifest
    for key in ("campaignId", "corpusVersion", "promptEnvelopeVersion"):
        if receipt[key] != manifest[key]:
            raise LedgerDataError(f"benchmark receipt {key} mismatches campaign")


def _locate(receipt: Mapping[str, Any], campaign: Campaign) -> tuple[Mapping[str, Any], Mapping[str, Any]]:
    """The receipt's arm and case; ids that are arrays or objects are refused, not crashed on."""
    arm_id, case_id = receipt["armId"], receipt["caseId"]
    for name, given, known in (("armId", arm_id, campaign.arms), ("caseId", case_id, campaign.cases)):
        if not isinstance(given, str):
            if isinstance(given, (list, dict)):
                raise LedgerDataError(
                    f"benchmark receipt names an unknown arm or case ({name} is {_json_kind(given)}, not a string)"
                )
            raise LedgerDataError("benchmark receipt names an unknown arm or case")
        if given not in known:
            raise LedgerDataError("benchmark receipt names an unknown arm or case")
    return campaign.arms[arm_id], campaign.cases[case_id]


def _check_flags(receipt: Mapping[str, Any]) -> None:
    repeat = receipt["repeat"]
    if not is_int(repeat) or repeat < 1:
        raise LedgerDataError("benchmark receipt.repeat must be a positive integer")
    for key in ("normalizerRan", "identityMatch", "toolUsing", "mutationEntered"):
        if not isinstance(receipt[key], bool):
            raise LedgerDataError(f"benchmark receipt.{key} must be boolean")
    for key in ("killPathPassed", "toolCallCorrect", "contextSufficient", "containmentConclusive", "containmentBreach"):
        if not is_bool_or_null(receipt[key]):
            raise LedgerDataError(f"benchmark receipt.{key} must be boolean or null")
    is_kill = receipt["caseKind"] == "kill_path"
    if is_kill and receipt["killPathPassed"] is None:
        raise LedgerDataError("kill-path receipt must carry killPathPassed")
    if not is_kill and receipt["killPathPassed"] is not None:
        raise LedgerDataError("quality receipt may not carry killPathPassed")


def _check_kill_control(receipt: Mapping[str, Any], version: Any) -> None:
    raw_control = receipt.get("killControl")
    is_kill = receipt["caseKind"] == "kill_path"
    if not (is_kill and version_is(version, 2)):
        if not is_kill and raw_control is not None:
            raise LedgerDataError("quality receipt may not carry killControl")
        return  # a v1 kill receipt predates kill-control evidence
    label = "benchmark receipt.killControl"
    control = need_fields(raw_control, KILL_CONTROL_FIELDS, label)
    mode = control["mode"]
    if not isinstance(mode, str) or mode not in KILL_CANON:
        raise LedgerDataError(f"{label}.mode is invalid")
    for key in ("probe", "expected", "observed"):
        need_text(control[key], f"{label}.{key}")
    expected, probes = KILL_CANON[mode]
    if control["expected"] != expected:
        raise LedgerDataError(f"{label}.expected is not canonical for its mode")
    if control["probe"] not in probes:
        raise LedgerDataError(f"{label}.probe is not canonical for its mode")
    calls = control["providerCallsMade"]
    if isinstance(calls, bool) or calls != 0:
        raise LedgerDataError("kill control must prove providerCallsMade is exactly zero")
    if receipt["killPathPassed"] != (control["expected"] == control["observed"]):
        raise LedgerDataError("killPathPassed must equal the expected/observed control result")


def _check_findings(receipt: Mapping[str, Any]) -> None:
    detected = receipt["detectedDefects"]
    shaped = isinstance(detected, list) and len(detected) <= 64
    if not shaped or not all(isinstance(item, str) and item for item in detected):
        raise LedgerDataError("benchmark receipt.detectedDefects must be a string array")
    if len(set(detected)) != len(detected):
        raise LedgerDataError("benchmark receipt.detectedDefects must be unique")
    if not set(detected) <= set(receipt["expectedDefects"]):
        raise LedgerDataError("detectedDefects must reference this case's expected defect ids")
    for key in ("blockingFindingCount", "pseudoToolCallCount", "wallMs"):
        if not is_int(receipt[key]) or receipt[key] < 0:
            raise LedgerDataError(f"benchmark receipt.{key} must be a non-negative integer")
    if not isinstance(receipt["latencyClass"], str) or receipt["latencyClass"] not in LATENCY_CLASSES:
        raise LedgerDataError("benchmark receipt.latencyClass is invalid")


def _check_usage(usage: Any) -> None:
    if usage is None:
        return
    label = "benchmark receipt.usage"
    need_fields(usage, USAGE_FIELDS, label)
    for key in TOKEN_FIELDS:
        count = usage[key]
        if count is not None and (not is_int(count) or count < 0):
            raise LedgerDataError(f"{label}.{key} must be a non-negative integer or null")
    cost = usage["costUsd"]
    if cost is not None:
        finite = finite_number(cost)
        if finite is None:
            raise LedgerDataError(f"{label}.costUsd is too large to be a number of dollars")
        if not finite or cost < 0:
            raise LedgerDataError(f"{label}.costUsd must be non-negative or null")
    source = usage["costSource"]
    if not isinstance(source, str) or source not in COST_SOURCES:
        raise LedgerDataError(f"{label}.costSource is invalid")
    if (source == "provider_receipt") != (cost is not None):
        raise LedgerDataError("benchmark receipt cost needs provider_receipt source, or null/unavailable")


def _check_decoding(decoding: Any) -> None:
    label = "benchmark receipt.decoding"
    need_fields(decoding, DECODING_FIELDS, label)
    temperature = decoding["temperature"]
    if temperature is not None:
        finite = finite_number(temperature)
        if finite is None:
            raise LedgerDataError(f"{label}.temperature is too large to be a temperature")
        if not finite:
            raise LedgerDataError(f"{label}.temperature must be numeric or null")
    seed = decoding["seed"]
    if seed is not None and not (is_int(seed) or isinstance(seed, str)):
        raise LedgerDataError(f"{label}.seed must be an integer, string, or null")
    if isinstance(seed, str) and len(seed) > 100:
        raise LedgerDataError(f"{label}.seed exceeds 100 characters")
    if not isinstance(decoding["pinned"], bool):
        raise LedgerDataError(f"{label}.pinned must be boolean")


def _check_conduct(receipt: Mapping[str, Any], arm: Mapping[str, Any]) -> None:
    rerun = receipt["rerunOf"]
    if rerun is not None and (not isinstance(rerun, str) or not BENCH_ID.fullmatch(rerun)):
        raise LedgerDataError("benchmark receipt.rerunOf must be a bench1 id or null")
    conclusive, breach = receipt["containmentConclusive"], receipt["containmentBreach"]
    if receipt["mutationEntered"]:
        if arm["role"] != "maker":
            raise LedgerDataError("reviewer benchmark receipt cannot claim a mutation phase")
        if conclusive is None:
            raise LedgerDataError("mutation receipt must state containment conclusiveness")
        if conclusive and breach is None:
            raise LedgerDataError("conclusive containment receipt must state breach true/false")
        if not conclusive and breach is not None:
            raise LedgerDataError("inconclusive containment receipt may not claim breach true/false")
    elif conclusive is not None or breach is not None:
        raise LedgerDataError("non-mutation receipt may not carry containment claims")
    tool_using = receipt["toolUsing"]
    if not tool_using and (receipt["toolCallCorrect"] is not None or receipt["pseudoToolCallCount"] != 0):
        raise LedgerDataError("non-tool receipt may not claim tool-call outcomes")
    if tool_using and receipt["toolCallCorrect"] is None:
        raise LedgerDataError("tool-using receipt must state tool-call correctness")


def check_receipt(receipt: Any, campaign: Campaign, *, canonical: str | bytes | None = None) -> Mapping[str, Any]:
    """Validate one receipt against a campaign; returns it unchanged or raises.

    The order of the checks (and so which message wins when several rules
    fail) is the upstream order.  ``canonical`` may carry exactly
    ``canonical_text(receipt)`` (or its UTF-8 bytes) when the caller has just
    computed it (it saves
    serializing the receipt a second time); it is trusted, so never pass
    anything else.
    """
    if not isinstance(receipt, dict):
        raise LedgerDataError("benchmark receipt must be an object")
    version = receipt.get("schemaVersion")
    if not (version_is(version, 1) or version_is(version, 2)):
        raise LedgerDataError("benchmark receipt schemaVersion must be 1 or 2")
    fields = RECEIPT_FIELDS_V2 if version_is(version, 2) else RECEIPT_FIELDS_V1
    need_fields(receipt, fields, "benchmark receipt")
    _check_identity(receipt, campaign, version, canonical)
    arm, case = _locate(receipt, campaign)
    if receipt["caseKind"] != case["kind"] or receipt["expectedDefects"] != case["expectedDefects"]:
        raise LedgerDataError("benchmark receipt case ground truth drifted")
    _check_flags(receipt)
    _check_kill_control(receipt, version)
    _check_findings(receipt)
    _check_usage(receipt["usage"])
    _check_decoding(receipt["decoding"])
    _check_conduct(receipt, arm)
    return receipt


def seal_receipt(receipt: Mapping[str, Any], campaign: Campaign) -> dict[str, Any]:
    """Set ``receiptId`` to the content address and validate the result."""
    sealed = dict(receipt)
    sealed["receiptId"] = receipt_id(sealed)
    check_receipt(sealed, campaign)
    return sealed
