"""Campaign manifests: validation (first failure wins), normalization and the two envelope digests.

:func:`parse_campaign` returns a :class:`~generator.model.ledger.Campaign` holding the normalized
manifest and its ``campaign1:`` digest; :func:`execution_digest` checks the private live-runner
state against the campaign and addresses it (``execution1:``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from generator.analyze.ledger.shapes import finite_number, is_int, need_fields, need_text, version_is
from generator.model.ledger import (
    ARM_FIELDS,
    CAMPAIGN_FIELDS,
    CASE_FIELDS,
    CASE_KINDS,
    COUNT_THRESHOLDS,
    EXECUTION_STATE_FIELDS,
    PAIR_FIELDS,
    RATE_THRESHOLDS,
    REPETITION_FLOORS,
    ROLES,
    THRESHOLD_FIELDS,
    Campaign,
    LedgerDataError,
    address,
)

__all__ = ["campaign_digest", "execution_digest", "normalize_manifest", "parse_campaign"]


def _normalize_arm(value: Any, label: str) -> dict[str, Any]:
    arm = dict(need_fields(value, ARM_FIELDS, label))
    for key in ARM_FIELDS:
        arm[key] = need_text(arm[key], f"{label}.{key}")
    if arm["role"] not in ROLES:
        raise LedgerDataError(f"{label}.role must be reviewer or maker")
    return arm


def _normalize_case(value: Any, label: str) -> dict[str, Any]:
    need_fields(value, CASE_FIELDS, label)
    case_id = need_text(value["caseId"], label + ".caseId")
    kind = value["kind"]
    if not isinstance(kind, str) or kind not in CASE_KINDS:
        raise LedgerDataError(f"{label}.kind is invalid")
    listed = value["expectedDefects"]
    if not isinstance(listed, list) or len(listed) > 64:
        raise LedgerDataError(f"{label}.expectedDefects must be a string array")
    defects = [need_text(item, label + ".expectedDefects[]") for item in listed]
    if len(defects) != len(set(defects)):
        raise LedgerDataError(f"{label}.expectedDefects must be unique")
    if bool(defects) != (kind == "defect"):
        raise LedgerDataError(f"{label} expected defects disagree with case kind")
    return {"caseId": case_id, "kind": kind, "expectedDefects": defects}


def _normalize_pairs(
    value: Any, arms: Mapping[str, Mapping[str, Any]], candidate_ids: set[str]
) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise LedgerDataError("campaign.transportPairs must be an array")
    if len(value) > 32:
        raise LedgerDataError("campaign.transportPairs exceeds 32 pairs")
    pairs = []
    for position, item in enumerate(value):
        need_fields(item, PAIR_FIELDS, f"campaign.transportPairs[{position}]")
        left = need_text(item["leftArmId"], "transportPair.leftArmId")
        right = need_text(item["rightArmId"], "transportPair.rightArmId")
        if left == right or not {left, right} <= candidate_ids:
            raise LedgerDataError("transport pairs must name two distinct candidate arms")
        a, b = arms[left], arms[right]
        same_model = all(a[key] == b[key] for key in ("backend", "model", "effort", "role"))
        if not same_model or a["transport"] == b["transport"]:
            raise LedgerDataError("transport pair must isolate transport over one backend/model/effort/role")
        pairs.append({"leftArmId": left, "rightArmId": right})
    return pairs


def _normalize_rate(value: Any, label: str, zero_allowed: bool) -> float:
    finite = finite_number(value)
    if finite is False:
        raise LedgerDataError(f"{label} must be a number")
    interval = "[0,1]" if zero_allowed else "(0,1]"
    if finite is None or value < 0 or value > 1 or (value == 0 and not zero_allowed):
        raise LedgerDataError(f"{label} must be in {interval}")
    return float(value)


def _normalize_thresholds(value: Any) -> dict[str, Any]:
    thresholds = dict(need_fields(value, THRESHOLD_FIELDS, "campaign.thresholds"))
    for key in RATE_THRESHOLDS:
        thresholds[key] = _normalize_rate(thresholds[key], f"campaign.thresholds.{key}", key != "validityLower")
    for key in COUNT_THRESHOLDS:
        number = thresholds[key]
        if not is_int(number) or not 1 <= number <= 10000:
            raise LedgerDataError(f"campaign.thresholds.{key} must be a positive integer")
    if any(thresholds[key] < floor for key, floor in REPETITION_FLOORS.items()):
        raise LedgerDataError("campaign thresholds may not weaken RFC v6.1 repetition floors")
    return thresholds


def normalize_manifest(value: Any) -> dict[str, Any]:
    """Validate a campaign manifest and return its normalized form (first failure wins)."""
    need_fields(value, CAMPAIGN_FIELDS, "campaign")
    if not version_is(value["schemaVersion"], 1):
        raise LedgerDataError("campaign.schemaVersion must be 1")
    out = dict(value)
    for key in ("campaignId", "corpusVersion", "promptEnvelopeVersion"):
        out[key] = need_text(value[key], f"campaign.{key}")
    baseline = _normalize_arm(value["baseline"], "campaign.baseline")
    if baseline["role"] != "reviewer":
        raise LedgerDataError("campaign.baseline must be the current reviewer baseline")
    listed = value["candidates"]
    if not isinstance(listed, list) or not listed:
        raise LedgerDataError("campaign.candidates must be a non-empty array")
    if len(listed) > 32:
        raise LedgerDataError("campaign.candidates exceeds 32 arms")
    candidates = [_normalize_arm(item, f"campaign.candidates[{i}]") for i, item in enumerate(listed)]
    every_arm = [baseline, *candidates]
    arms = {arm["armId"]: arm for arm in every_arm}
    if len(arms) != len(every_arm):
        raise LedgerDataError("campaign armId values must be unique")
    listed = value["cases"]
    if not isinstance(listed, list) or not listed:
        raise LedgerDataError("campaign.cases must be a non-empty array")
    if len(listed) > 1000:
        raise LedgerDataError("campaign.cases exceeds 1000 cases")
    cases = [_normalize_case(item, f"campaign.cases[{i}]") for i, item in enumerate(listed)]
    if len({case["caseId"] for case in cases}) != len(cases):
        raise LedgerDataError("campaign caseId values must be unique")
    if {case["kind"] for case in cases} != set(CASE_KINDS):
        raise LedgerDataError("campaign must include defect, clean, and kill_path cases")
    candidate_ids = {arm["armId"] for arm in candidates}
    out["baseline"] = baseline
    out["candidates"] = candidates
    out["cases"] = cases
    out["transportPairs"] = _normalize_pairs(value["transportPairs"], arms, candidate_ids)
    out["thresholds"] = _normalize_thresholds(value["thresholds"])
    return out


def parse_campaign(value: Any) -> Campaign:
    """Validate a parsed manifest and compute its ``campaign1:`` digest once."""
    manifest = normalize_manifest(value)
    try:
        digest, problem = address("campaign1:", manifest), None
    except LedgerDataError as exc:
        digest, problem = None, f"campaign cannot be addressed: {exc}"
    arms = {arm["armId"]: arm for arm in [manifest["baseline"], *manifest["candidates"]]}
    cases = {case["caseId"]: case for case in manifest["cases"]}
    return Campaign(raw=value, manifest=manifest, digest=digest, digest_problem=problem, arms=arms, cases=cases)


def campaign_digest(manifest: Any) -> str:
    """``campaign1:`` of a raw or normalized manifest (normalizing is idempotent)."""
    if isinstance(manifest, Campaign):
        return manifest.require_digest()
    return address("campaign1:", normalize_manifest(manifest))


def execution_digest(state: Any, campaign: Campaign | Mapping[str, Any]) -> str:
    """``execution1:`` of the private live-runner state, checked against the campaign."""
    parsed = campaign if isinstance(campaign, Campaign) else parse_campaign(campaign)
    manifest = parsed.manifest
    need_fields(state, EXECUTION_STATE_FIELDS, "campaign state")
    if not version_is(state["schemaVersion"], 1):
        raise LedgerDataError("campaign state.schemaVersion must be 1")
    normalized = dict(state)
    for key in EXECUTION_STATE_FIELDS[1:]:
        normalized[key] = need_text(state[key], f"campaign state.{key}")
    candidates = manifest["candidates"]
    if len(candidates) != 1 or candidates[0]["armId"] != "candidate":
        raise LedgerDataError("live campaign requires exactly one candidate arm named candidate")
    only = candidates[0]
    agrees = (
        normalized["campaignId"] == manifest["campaignId"]
        and normalized["corpusVersion"] == manifest["corpusVersion"]
        and only["backend"] == "http_openai_compat"
        and normalized["candidateModel"] == only["model"]
        and normalized["candidateTransport"] == only["transport"]
    )
    if not agrees:
        raise LedgerDataError("campaign state candidate identity drifted from the frozen manifest")
    return address("execution1:", normalized)
