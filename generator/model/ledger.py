"""The benchmark ledger's formats, written once: field sets, canonical JSON, digests, shared types.

Pure definitions (no file access, no validation).  Everything here has to agree byte for byte with
ledgers written by the upstream Camus Slice G tool:

* :func:`canonical_text` / :func:`canonical_bytes` -- sorted keys, no spaces, raw (non-escaped)
  Unicode, NaN and infinity refused.  Not RFC 8785: keys sort by code point and numbers keep
  Python's ``repr`` (``1`` and ``1.0`` differ).
* Digests are ``prefix + sha256(canonical bytes)``: ``bench1:`` (a receipt without its
  ``receiptId``), ``campaign1:`` (the *normalized* campaign), ``execution1:`` (the candidate
  execution state), ``ledger1:`` (the ordered list of receipts).
* :class:`Campaign` -- a validated campaign (``generator.analyze.ledger.campaign`` builds it).
* :class:`LedgerEntry`, :class:`LedgerProblem`, :class:`LedgerCheck` -- what reading parses and
  what the whole-ledger checks find.
* The kill-control modes, the admission conditions and their order.

Validation lives in ``generator.analyze.ledger``; every refusal is a :class:`LedgerDataError`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, cast

from generator.model.errors import EvalsiteError

__all__ = [
    "ARM_FIELDS",
    "BENCH_ID",
    "CAMPAIGN_ID",
    "CASE_FIELDS",
    "CONDITIONS",
    "CONDITION_ORDER",
    "Campaign",
    "ELIGIBLE",
    "EXECUTION_ID",
    "EXECUTION_STATE_FIELDS",
    "KILL_CANON",
    "KILL_CONTROL_FIELDS",
    "KILL_MODES",
    "LedgerCheck",
    "LedgerDataError",
    "LedgerEntry",
    "LedgerProblem",
    "NOT_ADMITTED",
    "PAIRED_METHOD",
    "RECEIPT_FIELDS_V1",
    "ReceiptCheck",
    "RECEIPT_FIELDS_V2",
    "THRESHOLD_FIELDS",
    "TOKEN_FIELDS",
    "UNREADABLE",
    "address",
    "canonical_bytes",
    "canonical_text",
    "ledger_digest",
    "receipt_id",
    "run_key",
]


class LedgerDataError(EvalsiteError):
    """Campaign, receipt or ledger content that the ledger rules refuse."""


# --------------------------------------------------------------------------
# Field sets

# A v1 receipt's fields, grouped by what they record, in the format's order (rerunOf last).
_RECEIPT_IDENTITY = ("schemaVersion", "receiptId", "campaignId", "corpusVersion", "promptEnvelopeVersion")
_RECEIPT_CELL = ("armId", "caseId", "caseKind", "repeat")
_RECEIPT_FINDINGS = ("normalizerRan", "expectedDefects", "detectedDefects", "blockingFindingCount")
_RECEIPT_CONDUCT = (
    "identityMatch",
    "killPathPassed",
    "toolUsing",
    "toolCallCorrect",
    "pseudoToolCallCount",
    "contextSufficient",
    "mutationEntered",
    "containmentConclusive",
    "containmentBreach",
)
_RECEIPT_COST = ("wallMs", "latencyClass", "usage", "decoding")
RECEIPT_FIELDS_V1: tuple[str, ...] = (
    _RECEIPT_IDENTITY + _RECEIPT_CELL + _RECEIPT_FINDINGS + _RECEIPT_CONDUCT + _RECEIPT_COST + ("rerunOf",)
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

BENCH_ID: Final = re.compile(r"bench1:[0-9a-f]{64}")
CAMPAIGN_ID: Final = re.compile(r"campaign1:[0-9a-f]{64}")
EXECUTION_ID: Final = re.compile(r"execution1:[0-9a-f]{64}")
TEXT_LIMIT: Final = 500

#: The nine admission conditions of a candidate row, in the order they are judged and shown.
CONDITIONS: Final[tuple[tuple[str, str], ...]] = (
    ("evidenceEnvelope", "Evidence envelope"),
    ("coverage", "Coverage"),
    ("structuredOutputValidity", "Structured-output validity"),
    ("recallNonInferior", "Recall non-inferior"),
    ("falsePositiveMargin", "False-positive margin"),
    ("identityHonesty", "Identity honesty"),
    ("killPaths", "Kill paths"),
    ("containment", "Containment"),
    ("transportEquivalence", "Transport equivalence"),
)
CONDITION_ORDER: Final[tuple[str, ...]] = tuple(key for key, _label in CONDITIONS)
ELIGIBLE: Final = "eligible_for_human_admission"
NOT_ADMITTED: Final = "not_admitted"

#: The upstream paired interval (factorised Bonferroni over exact binomial bounds).
PAIRED_METHOD: Final = "paired_exact_factorized_bonferroni.v1"


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


def address(prefix: str, value: Any) -> str:
    return prefix + hashlib.sha256(canonical_bytes(value)).hexdigest()


def receipt_id(receipt: Mapping[str, Any]) -> str:
    """``bench1:`` address of a receipt: everything except ``receiptId``, as parsed."""
    return address("bench1:", {key: item for key, item in receipt.items() if key != "receiptId"})


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
# Shared types


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
        return cast(str, self.manifest["campaignId"])

    @property
    def baseline(self) -> Mapping[str, Any]:
        return cast("Mapping[str, Any]", self.manifest["baseline"])

    @property
    def candidates(self) -> list[Mapping[str, Any]]:
        return cast("list[Mapping[str, Any]]", self.manifest["candidates"])

    @property
    def thresholds(self) -> Mapping[str, Any]:
        return cast("Mapping[str, Any]", self.manifest["thresholds"])

    def require_digest(self) -> str:
        """The ``campaign1:`` digest, or the reason it cannot exist."""
        if self.digest is None:
            raise LedgerDataError(self.digest_problem or "campaign digest is unavailable")
        return self.digest


def run_key(receipt: Mapping[str, Any]) -> tuple[str, str, int]:
    """The (arm, case, repeat) cell a receipt occupies; at most one receipt per key."""
    return (receipt["armId"], receipt["caseId"], receipt["repeat"])


@dataclass(frozen=True)
class LedgerEntry:
    """One non-blank ledger line that parsed as JSON."""

    line: int
    value: Any


#: The problems the reader finds in a line before any receipt rule runs (an unreadable line).
UNREADABLE: Final = frozenset({"not_utf8", "not_json", "torn_tail", "too_long"})


@dataclass(frozen=True)
class LedgerProblem:
    """Something that makes a ledger unsound.

    ``kind`` is one of ``not_utf8``, ``not_json``, ``torn_tail``, ``too_long``
    (a line longer than a receipt can be), ``invalid``, ``duplicate_id``,
    ``duplicate_run``, ``bad_rerun``.  ``message`` is one
    line without paths; ``line`` is 1-based; ``other_line`` names the earlier
    line a duplicate repeats.
    """

    kind: str
    line: int
    message: str
    other_line: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "line": self.line, "message": self.message, "otherLine": self.other_line}


@dataclass(frozen=True)
class LedgerCheck:
    """Outcome of :func:`check_entries`: the valid receipts and every problem."""

    valid: tuple[LedgerEntry, ...]
    problems: tuple[LedgerProblem, ...]
    reruns: tuple[tuple[int, int], ...]  # (rerun line, original line)
    ledger_digest: str | None = None  # ``ledger1:`` over every entry; None if one cannot be serialized

    @property
    def sound(self) -> bool:
        return not self.problems


#: Validates one receipt against a campaign (raises :class:`LedgerDataError`); the writer takes one
#: (``generator.analyze.ledger.receipt.check_receipt``) so that it never imports the rules itself.
ReceiptCheck = Callable[[Any, Campaign], object]
