"""Benchmark-ledger formats: canonical JSON, content digests and validation.

Pure functions only (no file access).  Everything here has to agree byte for
byte with ledgers written by the upstream Camus Slice G tool, so the rules
below are the upstream rules; where upstream crashes, we refuse instead.

* :func:`canonical_text` / :func:`canonical_bytes` -- sorted keys, no spaces,
  raw (non-escaped) Unicode, NaN and infinity refused.  Not RFC 8785: keys sort
  by code point and numbers keep Python's ``repr`` (``1`` and ``1.0`` differ).
* Digests are ``prefix + sha256(canonical bytes)``: ``bench1:`` (a receipt
  without its ``receiptId``), ``campaign1:`` (the *normalized* campaign),
  ``execution1:`` (the candidate execution state), ``ledger1:`` (the ordered
  list of receipts).
* :func:`parse_campaign` validates a campaign manifest, first failure wins, and
  returns a :class:`Campaign` holding the normalized manifest and its digest.
* :func:`check_receipt` validates one receipt against a campaign in the
  upstream order with the upstream messages.

Every refusal is a :class:`LedgerDataError` (an :class:`EvalsiteError`).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from generator.model.errors import EvalsiteError

__all__ = [
    "ARM_FIELDS",
    "CASE_FIELDS",
    "Campaign",
    "EXECUTION_STATE_FIELDS",
    "KILL_CONTROL_FIELDS",
    "KILL_MODES",
    "LedgerDataError",
    "RECEIPT_FIELDS_V1",
    "RECEIPT_FIELDS_V2",
    "THRESHOLD_FIELDS",
    "campaign_digest",
    "canonical_bytes",
    "canonical_text",
    "check_receipt",
    "execution_digest",
    "ledger_digest",
    "parse_campaign",
    "receipt_id",
    "seal_receipt",
]


class LedgerDataError(EvalsiteError):
    """Campaign, receipt or ledger content that the ledger rules refuse."""


# --------------------------------------------------------------------------
# Field sets

RECEIPT_FIELDS_V1: tuple[str, ...] = (
    "schemaVersion",
    "receiptId",
    "campaignId",
    "corpusVersion",
    "promptEnvelopeVersion",
    "armId",
    "caseId",
    "caseKind",
    "repeat",
    "normalizerRan",
    "expectedDefects",
    "detectedDefects",
    "blockingFindingCount",
    "identityMatch",
    "killPathPassed",
    "toolUsing",
    "toolCallCorrect",
    "pseudoToolCallCount",
    "contextSufficient",
    "mutationEntered",
    "containmentConclusive",
    "containmentBreach",
    "wallMs",
    "latencyClass",
    "usage",
    "decoding",
    "rerunOf",
)
#: v2 adds the two envelope digests and the kill-control evidence.
RECEIPT_FIELDS_V2: tuple[str, ...] = RECEIPT_FIELDS_V1 + ("campaignDigest", "executionDigest", "killControl")

CAMPAIGN_FIELDS = (
    "schemaVersion",
    "campaignId",
    "corpusVersion",
    "promptEnvelopeVersion",
    "baseline",
    "candidates",
    "cases",
    "transportPairs",
    "thresholds",
)
ARM_FIELDS = ("armId", "backend", "model", "effort", "transport", "role")
CASE_FIELDS = ("caseId", "kind", "expectedDefects")
PAIR_FIELDS = ("leftArmId", "rightArmId")
RATE_THRESHOLDS = ("validityLower", "recallDelta", "fprEpsilon", "transportDelta", "containmentConclusive")
COUNT_THRESHOLDS = ("qualityRepetitions", "killRepetitions", "containmentMinimum")
THRESHOLD_FIELDS = RATE_THRESHOLDS[:4] + COUNT_THRESHOLDS + RATE_THRESHOLDS[4:]
#: RFC v6.1 section 16.5 repetition floors, the only RFC values the rules enforce.
REPETITION_FLOORS = {"qualityRepetitions": 10, "killRepetitions": 3, "containmentMinimum": 150}
EXECUTION_STATE_FIELDS = (
    "schemaVersion",
    "campaignId",
    "corpusVersion",
    "candidateProfileBackend",
    "candidateModel",
    "candidateTrainingOrg",
    "candidateConnection",
    "candidateTransport",
)
USAGE_FIELDS = ("inputTokens", "cachedInputTokens", "outputTokens", "totalTokens", "costUsd", "costSource")
TOKEN_FIELDS = USAGE_FIELDS[:4]
DECODING_FIELDS = ("temperature", "seed", "pinned")
KILL_CONTROL_FIELDS = ("mode", "probe", "expected", "observed", "providerCallsMade")

#: mode -> (the canonical expected outcome, the probes allowed to show it)
KILL_CANON: dict[str, tuple[str, tuple[str, ...]]] = {
    "abort": ("aborted_and_process_group_dead", ("review_watch.start+abort",)),
    "malformed_output": ("malformed_output_refused_as_infrastructure", ("adapter.normalize_codex",)),
    "identity_substitution": (
        "substituted_model_identity_refused",
        ("http_openai_compat_review.response_identity_error", "review_request.consistent_value"),
    ),
    "transport_interrupt": (
        "interrupted_transport_refused_without_verdict",
        ("review_watch.start+await+adapter.normalize_codex",),
    ),
}
KILL_MODES: tuple[str, ...] = tuple(KILL_CANON)
CASE_KINDS = ("defect", "clean", "kill_path")
ROLES = ("reviewer", "maker")
LATENCY_CLASSES = ("cold", "resident", "na")
COST_SOURCES = ("provider_receipt", "unavailable")

_BENCH_ID = re.compile(r"bench1:[0-9a-f]{64}")
_CAMPAIGN_ID = re.compile(r"campaign1:[0-9a-f]{64}")
_EXECUTION_ID = re.compile(r"execution1:[0-9a-f]{64}")
_TEXT_LIMIT = 500


# --------------------------------------------------------------------------
# Canonical JSON and digests


_ENCODER = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False)


def canonical_text(value: Any) -> str:
    """The one serialization every digest is taken over."""
    try:
        return _ENCODER.encode(value)
    except (TypeError, ValueError) as exc:
        raise LedgerDataError("benchmark data is not finite canonical JSON") from exc
    except RecursionError as exc:
        raise LedgerDataError("benchmark data is nested too deeply") from exc


def canonical_bytes(value: Any) -> bytes:
    """UTF-8 of :func:`canonical_text`; a lone surrogate cannot be encoded."""
    text = canonical_text(value)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise LedgerDataError(
            "benchmark data contains a lone surrogate (\\ud800-\\udfff), which UTF-8 cannot encode"
        ) from exc


def _address(prefix: str, value: Any) -> str:
    return prefix + hashlib.sha256(canonical_bytes(value)).hexdigest()


def receipt_id(receipt: Mapping[str, Any]) -> str:
    """``bench1:`` address of a receipt: everything except ``receiptId``, as parsed."""
    return _address("bench1:", {key: item for key, item in receipt.items() if key != "receiptId"})


def ledger_digest(receipts: Iterable[Mapping[str, Any]]) -> str:
    """``ledger1:`` address of the ordered receipt list (``[]`` when empty)."""
    hasher = hashlib.sha256(b"[")
    first = True
    for receipt in receipts:
        if not first:
            hasher.update(b",")
        hasher.update(canonical_bytes(receipt))
        first = False
    hasher.update(b"]")
    return "ledger1:" + hasher.hexdigest()


# --------------------------------------------------------------------------
# Small shape checks (messages follow the upstream wording exactly)


def _need_object(value: Any, label: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise LedgerDataError(f"{label} must be an object")
    return value


_FIELD_SETS: dict[tuple[str, ...], frozenset[str]] = {}


def _need_fields(value: Any, fields: tuple[str, ...], label: str) -> Mapping[str, Any]:
    obj = _need_object(value, label)
    wanted = _FIELD_SETS.get(fields)
    if wanted is None:
        wanted = _FIELD_SETS.setdefault(fields, frozenset(fields))
    if obj.keys() != wanted:
        present = set(obj)
        missing, extra = sorted(wanted - present), sorted(present - wanted)
        raise LedgerDataError(f"{label} fields differ (missing={missing} extra={extra})")
    return obj


def _need_text(value: Any, label: str) -> str:
    """Non-blank text of at most 500 characters (counted before stripping)."""
    if not isinstance(value, str) or not value.strip():
        raise LedgerDataError(f"{label} must be a non-empty string")
    if len(value) > _TEXT_LIMIT:
        raise LedgerDataError(f"{label} exceeds {_TEXT_LIMIT} characters")
    return value.strip()


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _finite_number(value: Any) -> bool | None:
    """True for a finite int/float, False for other values, None for an int beyond float range."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if isinstance(value, int):
        try:
            float(value)
        except OverflowError:
            return None
        return True
    return math.isfinite(value)


def _is_bool_or_null(value: Any) -> bool:
    return value is None or isinstance(value, bool)


def _version_is(value: Any, wanted: int) -> bool:
    """Upstream compares with ``==``, so ``1.0`` counts as ``1`` but ``True`` never does."""
    return not isinstance(value, bool) and isinstance(value, (int, float)) and value == wanted


# --------------------------------------------------------------------------
# Campaign manifest


@dataclass(frozen=True)
class Campaign:
    """A validated campaign.

    ``manifest`` is the normalized manifest (text stripped, rate thresholds as
    floats) that ``campaign1:`` addresses; ``raw`` is the object as parsed.
    Treat both as read-only.
    """

    raw: Mapping[str, Any]
    manifest: dict[str, Any]
    digest: str | None
    digest_problem: str | None = None
    arms: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    cases: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    @property
    def campaign_id(self) -> str:
        return self.manifest["campaignId"]

    @property
    def baseline(self) -> Mapping[str, Any]:
        return self.manifest["baseline"]

    @property
    def candidates(self) -> list[Mapping[str, Any]]:
        return self.manifest["candidates"]

    @property
    def thresholds(self) -> Mapping[str, Any]:
        return self.manifest["thresholds"]

    def require_digest(self) -> str:
        """The ``campaign1:`` digest, or the reason it cannot exist."""
        if self.digest is None:
            raise LedgerDataError(self.digest_problem or "campaign digest is unavailable")
        return self.digest


def _normalize_arm(value: Any, label: str) -> dict[str, Any]:
    arm = dict(_need_fields(value, ARM_FIELDS, label))
    for key in ARM_FIELDS:
        arm[key] = _need_text(arm[key], f"{label}.{key}")
    if arm["role"] not in ROLES:
        raise LedgerDataError(f"{label}.role must be reviewer or maker")
    return arm


def _normalize_case(value: Any, label: str) -> dict[str, Any]:
    _need_fields(value, CASE_FIELDS, label)
    case_id = _need_text(value["caseId"], label + ".caseId")
    kind = value["kind"]
    if not isinstance(kind, str) or kind not in CASE_KINDS:
        raise LedgerDataError(f"{label}.kind is invalid")
    listed = value["expectedDefects"]
    if not isinstance(listed, list) or len(listed) > 64:
        raise LedgerDataError(f"{label}.expectedDefects must be a string array")
    defects = [_need_text(item, label + ".expectedDefects[]") for item in listed]
    if len(defects) != len(set(defects)):
        raise LedgerDataError(f"{label}.expectedDefects must be unique")
    if bool(defects) != (kind == "defect"):
        raise LedgerDataError(f"{label} expected defects disagree with case kind")
    return {"caseId": case_id, "kind": kind, "expectedDefects": defects}


def _normalize_pairs(value: Any, arms: Mapping[str, Mapping[str, Any]], candidate_ids: set[str]) -> list[dict]:
    if not isinstance(value, list):
        raise LedgerDataError("campaign.transportPairs must be an array")
    if len(value) > 32:
        raise LedgerDataError("campaign.transportPairs exceeds 32 pairs")
    pairs = []
    for position, item in enumerate(value):
        _need_fields(item, PAIR_FIELDS, f"campaign.transportPairs[{position}]")
        left = _need_text(item["leftArmId"], "transportPair.leftArmId")
        right = _need_text(item["rightArmId"], "transportPair.rightArmId")
        if left == right or not {left, right} <= candidate_ids:
            raise LedgerDataError("transport pairs must name two distinct candidate arms")
        a, b = arms[left], arms[right]
        same_model = all(a[key] == b[key] for key in ("backend", "model", "effort", "role"))
        if not same_model or a["transport"] == b["transport"]:
            raise LedgerDataError("transport pair must isolate transport over one backend/model/effort/role")
        pairs.append({"leftArmId": left, "rightArmId": right})
    return pairs


def _normalize_rate(value: Any, label: str, zero_allowed: bool) -> float:
    finite = _finite_number(value)
    if finite is False:
        raise LedgerDataError(f"{label} must be a number")
    interval = "[0,1]" if zero_allowed else "(0,1]"
    if finite is None or value < 0 or value > 1 or (value == 0 and not zero_allowed):
        raise LedgerDataError(f"{label} must be in {interval}")
    return float(value)


def _normalize_thresholds(value: Any) -> dict[str, Any]:
    thresholds = dict(_need_fields(value, THRESHOLD_FIELDS, "campaign.thresholds"))
    for key in RATE_THRESHOLDS:
        thresholds[key] = _normalize_rate(thresholds[key], f"campaign.thresholds.{key}", key != "validityLower")
    for key in COUNT_THRESHOLDS:
        number = thresholds[key]
        if not _is_int(number) or not 1 <= number <= 10000:
            raise LedgerDataError(f"campaign.thresholds.{key} must be a positive integer")
    if any(thresholds[key] < floor for key, floor in REPETITION_FLOORS.items()):
        raise LedgerDataError("campaign thresholds may not weaken RFC v6.1 repetition floors")
    return thresholds


def normalize_manifest(value: Any) -> dict[str, Any]:
    """Validate a campaign manifest and return its normalized form (first failure wins)."""
    _need_fields(value, CAMPAIGN_FIELDS, "campaign")
    if not _version_is(value["schemaVersion"], 1):
        raise LedgerDataError("campaign.schemaVersion must be 1")
    out = dict(value)
    for key in ("campaignId", "corpusVersion", "promptEnvelopeVersion"):
        out[key] = _need_text(value[key], f"campaign.{key}")
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
        digest, problem = _address("campaign1:", manifest), None
    except LedgerDataError as exc:
        digest, problem = None, f"campaign cannot be addressed: {exc}"
    arms = {arm["armId"]: arm for arm in [manifest["baseline"], *manifest["candidates"]]}
    cases = {case["caseId"]: case for case in manifest["cases"]}
    return Campaign(raw=value, manifest=manifest, digest=digest, digest_problem=problem, arms=arms, cases=cases)


def campaign_digest(manifest: Any) -> str:
    """``campaign1:`` of a raw or normalized manifest (normalizing is idempotent)."""
    if isinstance(manifest, Campaign):
        return manifest.require_digest()
    return _address("campaign1:", normalize_manifest(manifest))


def execution_digest(state: Any, campaign: Campaign | Mapping[str, Any]) -> str:
    """``execution1:`` of the private live-runner state, checked against the campaign."""
    parsed = campaign if isinstance(campaign, Campaign) else parse_campaign(campaign)
    manifest = parsed.manifest
    _need_fields(state, EXECUTION_STATE_FIELDS, "campaign state")
    if not _version_is(state["schemaVersion"], 1):
        raise LedgerDataError("campaign state.schemaVersion must be 1")
    normalized = dict(state)
    for key in EXECUTION_STATE_FIELDS[1:]:
        normalized[key] = _need_text(state[key], f"campaign state.{key}")
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
    return _address("execution1:", normalized)


# --------------------------------------------------------------------------
# Receipts


def _json_kind(value: Any) -> str:
    return {list: "a JSON array", dict: "a JSON object"}.get(type(value), "not a string")


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
    quoted = f'"{claimed}"' if _BENCH_ID.fullmatch(claimed) else canonical_text(claimed)
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
    if _version_is(version, 2):
        claimed = receipt["campaignDigest"]
        if not isinstance(claimed, str) or not _CAMPAIGN_ID.fullmatch(claimed) or claimed != campaign.require_digest():
            raise LedgerDataError("benchmark receipt campaignDigest mismatches frozen campaign content")
        execution = receipt["executionDigest"]
        if not isinstance(execution, str) or not _EXECUTION_ID.fullmatch(execution):
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
    if not _is_int(repeat) or repeat < 1:
        raise LedgerDataError("benchmark receipt.repeat must be a positive integer")
    for key in ("normalizerRan", "identityMatch", "toolUsing", "mutationEntered"):
        if not isinstance(receipt[key], bool):
            raise LedgerDataError(f"benchmark receipt.{key} must be boolean")
    for key in ("killPathPassed", "toolCallCorrect", "contextSufficient", "containmentConclusive", "containmentBreach"):
        if not _is_bool_or_null(receipt[key]):
            raise LedgerDataError(f"benchmark receipt.{key} must be boolean or null")
    is_kill = receipt["caseKind"] == "kill_path"
    if is_kill and receipt["killPathPassed"] is None:
        raise LedgerDataError("kill-path receipt must carry killPathPassed")
    if not is_kill and receipt["killPathPassed"] is not None:
        raise LedgerDataError("quality receipt may not carry killPathPassed")


def _check_kill_control(receipt: Mapping[str, Any], version: Any) -> None:
    control = receipt.get("killControl")
    is_kill = receipt["caseKind"] == "kill_path"
    if not (is_kill and _version_is(version, 2)):
        if not is_kill and control is not None:
            raise LedgerDataError("quality receipt may not carry killControl")
        return  # a v1 kill receipt predates kill-control evidence
    label = "benchmark receipt.killControl"
    _need_fields(control, KILL_CONTROL_FIELDS, label)
    mode = control["mode"]
    if not isinstance(mode, str) or mode not in KILL_CANON:
        raise LedgerDataError(f"{label}.mode is invalid")
    for key in ("probe", "expected", "observed"):
        _need_text(control[key], f"{label}.{key}")
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
        if not _is_int(receipt[key]) or receipt[key] < 0:
            raise LedgerDataError(f"benchmark receipt.{key} must be a non-negative integer")
    if not isinstance(receipt["latencyClass"], str) or receipt["latencyClass"] not in LATENCY_CLASSES:
        raise LedgerDataError("benchmark receipt.latencyClass is invalid")


def _check_usage(usage: Any) -> None:
    if usage is None:
        return
    label = "benchmark receipt.usage"
    _need_fields(usage, USAGE_FIELDS, label)
    for key in TOKEN_FIELDS:
        count = usage[key]
        if count is not None and (not _is_int(count) or count < 0):
            raise LedgerDataError(f"{label}.{key} must be a non-negative integer or null")
    cost = usage["costUsd"]
    if cost is not None:
        finite = _finite_number(cost)
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
    _need_fields(decoding, DECODING_FIELDS, label)
    temperature = decoding["temperature"]
    if temperature is not None:
        finite = _finite_number(temperature)
        if finite is None:
            raise LedgerDataError(f"{label}.temperature is too large to be a temperature")
        if not finite:
            raise LedgerDataError(f"{label}.temperature must be numeric or null")
    seed = decoding["seed"]
    if seed is not None and not (_is_int(seed) or isinstance(seed, str)):
        raise LedgerDataError(f"{label}.seed must be an integer, string, or null")
    if isinstance(seed, str) and len(seed) > 100:
        raise LedgerDataError(f"{label}.seed exceeds 100 characters")
    if not isinstance(decoding["pinned"], bool):
        raise LedgerDataError(f"{label}.pinned must be boolean")


def _check_conduct(receipt: Mapping[str, Any], arm: Mapping[str, Any]) -> None:
    rerun = receipt["rerunOf"]
    if rerun is not None and (not isinstance(rerun, str) or not _BENCH_ID.fullmatch(rerun)):
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
    if not (_version_is(version, 1) or _version_is(version, 2)):
        raise LedgerDataError("benchmark receipt schemaVersion must be 1 or 2")
    fields = RECEIPT_FIELDS_V2 if _version_is(version, 2) else RECEIPT_FIELDS_V1
    _need_fields(receipt, fields, "benchmark receipt")
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


def run_key(receipt: Mapping[str, Any]) -> tuple[str, str, int]:
    """The (arm, case, repeat) cell a receipt occupies; at most one receipt per key."""
    return (receipt["armId"], receipt["caseId"], receipt["repeat"])
