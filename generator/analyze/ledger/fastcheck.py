"""The common receipt, checked and serialized in one pass: a conservative fast path in front of
:func:`generator.analyze.ledger.receipt.check_receipt`.

:func:`fast_canonical` returns the receipt's canonical bytes (exactly
``canonical_text(receipt).encode("utf-8")``) when the receipt has the usual shape -- schema version
the integer 2, every field of its exact type, every rule of ``check_receipt`` satisfied -- and
``None`` otherwise.  ``None`` means only "not decided here": the caller then runs the full
validator, so every refusal keeps its upstream message and order.  The fast path never accepts a
receipt the full validator refuses (``tests/ledger/test_ledger_fastcheck.py`` checks this on
mutated receipts).

Why orjson's bytes are the canonical bytes here: with sorted keys (all ASCII field names, at every
level, because the field sets are checked exactly), orjson writes strings exactly as
``json.dumps(..., ensure_ascii=False)`` does (checked for every code point), integers in decimal
(refusing those beyond 64 bits, which sends the receipt to the full path), and the two floats a
receipt may hold (``decoding.temperature``, ``usage.costUsd``) are accepted only when their text
equals Python's ``repr``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import orjson

from generator.model.ledger import (
    BENCH_ID,
    COST_SOURCES,
    DECODING_FIELDS,
    EXECUTION_ID,
    KILL_CANON,
    KILL_CONTROL_FIELDS,
    LATENCY_CLASSES,
    RECEIPT_FIELDS_V2,
    TEXT_LIMIT,
    USAGE_FIELDS,
    Campaign,
)

__all__ = ["USAGE_SORTED", "V2_SORTED", "FastChecker", "usage_ok"]

_V2 = frozenset(RECEIPT_FIELDS_V2)
_USAGE = frozenset(USAGE_FIELDS)
_DECODING = frozenset(DECODING_FIELDS)
_KILL = frozenset(KILL_CONTROL_FIELDS)
# Field names in canonical order: an object whose keys come in this order serializes canonically
# without sorting (orjson keeps insertion order, which is the order of the parsed text).
_V2_SORTED = tuple(sorted(RECEIPT_FIELDS_V2))
V2_SORTED = _V2_SORTED
_USAGE_SORTED = tuple(sorted(USAGE_FIELDS))
USAGE_SORTED = _USAGE_SORTED
_DECODING_SORTED = tuple(sorted(DECODING_FIELDS))
_KILL_SORTED = tuple(sorted(KILL_CONTROL_FIELDS))
_TOKENS = USAGE_FIELDS[:4]
_LATENCY = frozenset(LATENCY_CLASSES)
_COSTS = frozenset(COST_SOURCES)
_BOOL_OR_NULL = ("killPathPassed", "toolCallCorrect", "contextSufficient", "containmentConclusive", "containmentBreach")
_BOOLS = ("normalizerRan", "identityMatch", "toolUsing", "mutationEntered")
_COUNTS = ("blockingFindingCount", "pseudoToolCallCount", "wallMs")
_INT_LIMIT = 1 << 53  # exactly representable as a float: no overflow, no surprise anywhere downstream
_SORT = orjson.OPT_SORT_KEYS


def _count(value: Any) -> bool:
    return type(value) is int and 0 <= value < _INT_LIMIT


def _plain_float(value: Any) -> bool:
    """A finite float whose orjson text is Python's ``repr`` (what canonical JSON writes)."""
    try:
        return orjson.dumps(value) == repr(value).encode("ascii")
    except orjson.JSONEncodeError:
        return False


def _number(value: Any) -> bool:
    kind = type(value)
    if kind is int:
        return bool(-_INT_LIMIT < value < _INT_LIMIT)
    return kind is float and _plain_float(value)


def usage_ok(usage: Any) -> bool:
    """The usage rules of the fast path (``None`` or a usage object of the exact shape)."""
    if usage is None:
        return True
    if type(usage) is not dict or usage.keys() != _USAGE:
        return False
    for key in _TOKENS:
        count = usage[key]
        if count is not None and not _count(count):
            return False
    cost = usage["costUsd"]
    if cost is not None and (not _number(cost) or cost < 0):
        return False
    source = usage["costSource"]
    if type(source) is not str or source not in _COSTS:
        return False
    return (source == "provider_receipt") == (cost is not None)


class FastChecker:
    """The fast path for one campaign (the campaign's facts looked up once)."""

    def __init__(self, campaign: Campaign) -> None:
        manifest = campaign.manifest
        self.enabled = campaign.digest is not None and all(
            type(manifest.get(key)) is str for key in ("campaignId", "corpusVersion", "promptEnvelopeVersion")
        )
        self.digest = campaign.digest
        self.identity = (
            manifest.get("campaignId"),
            manifest.get("corpusVersion"),
            manifest.get("promptEnvelopeVersion"),
        )
        self.arms = campaign.arms
        self.cases = campaign.cases
        self._executions: set[str] = set()

    def canonical(self, receipt: Any) -> bytes | None:  # noqa: C901 - inlined checks, 10^5 receipts a verify
        """The canonical bytes of a valid common-shape receipt, or ``None`` (undecided)."""
        if not self.enabled or type(receipt) is not dict:
            return None
        r = receipt
        ordered = tuple(r) == _V2_SORTED
        if not ordered and r.keys() != _V2:
            return None
        version = r["schemaVersion"]
        if type(version) is not int or version != 2:
            return None
        rid = r["receiptId"]
        if type(rid) is not str or len(rid) != 71 or not BENCH_ID.fullmatch(rid):
            return None
        if r["campaignDigest"] != self.digest or type(r["campaignDigest"]) is not str:
            return None
        execution = r["executionDigest"]
        if type(execution) is not str:
            return None
        if execution not in self._executions:
            if not EXECUTION_ID.fullmatch(execution):
                return None
            self._executions.add(execution)
        campaign_id, corpus, envelope = self.identity
        if r["campaignId"] != campaign_id or r["corpusVersion"] != corpus or r["promptEnvelopeVersion"] != envelope:
            return None
        for key in ("campaignId", "corpusVersion", "promptEnvelopeVersion"):
            if type(r[key]) is not str:
                return None
        arm_id, case_id = r["armId"], r["caseId"]
        if type(arm_id) is not str or type(case_id) is not str:
            return None
        arm = self.arms.get(arm_id)
        case = self.cases.get(case_id)
        if arm is None or case is None:
            return None
        kind = r["caseKind"]
        if type(kind) is not str or kind != case["kind"]:
            return None
        expected = r["expectedDefects"]
        if type(expected) is not list or expected != case["expectedDefects"]:
            return None
        if not self._flags(r, kind) or not self._kill_control(r, kind):
            return None
        if not self._findings(r, expected) or not usage_ok(r["usage"]) or not self._decoding(r["decoding"]):
            return None
        if not self._conduct(r, arm):
            return None
        if ordered:
            usage, decoding, control = r["usage"], r["decoding"], r["killControl"]
            ordered = (
                tuple(decoding) == _DECODING_SORTED
                and (usage is None or tuple(usage) == _USAGE_SORTED)
                and (control is None or tuple(control) == _KILL_SORTED)
            )
        try:
            blob = orjson.dumps(r) if ordered else orjson.dumps(r, option=_SORT)
        except orjson.JSONEncodeError:
            return None
        # The content address: the canonical bytes without the receiptId member.
        member = b'"receiptId":"' + rid.encode("ascii") + b'",'
        at = blob.find(member)
        if at < 0 or blob.find(member, at + 1) >= 0:
            return None
        hasher = hashlib.sha256(blob[:at])
        hasher.update(blob[at + len(member) :])
        if "bench1:" + hasher.hexdigest() != rid:
            return None
        return blob

    @staticmethod
    def _flags(r: Mapping[str, Any], kind: str) -> bool:
        repeat = r["repeat"]
        if type(repeat) is not int or not 1 <= repeat < _INT_LIMIT:
            return False
        for key in _BOOLS:
            if r[key] is not True and r[key] is not False:
                return False
        for key in _BOOL_OR_NULL:
            value = r[key]
            if value is not None and value is not True and value is not False:
                return False
        passed = r["killPathPassed"]
        return (passed is not None) if kind == "kill_path" else (passed is None)

    @staticmethod
    def _kill_control(r: Mapping[str, Any], kind: str) -> bool:
        control = r["killControl"]
        if kind != "kill_path":
            return control is None
        if type(control) is not dict or control.keys() != _KILL:
            return False
        mode = control["mode"]
        if type(mode) is not str or mode not in KILL_CANON:
            return False
        for key in ("probe", "expected", "observed"):
            text = control[key]
            if type(text) is not str or not text.strip() or len(text) > TEXT_LIMIT:
                return False
        expected, probes = KILL_CANON[mode]
        if control["expected"] != expected or control["probe"] not in probes:
            return False
        calls = control["providerCallsMade"]
        if type(calls) is not int or calls != 0:
            return False
        return bool(r["killPathPassed"] == (control["expected"] == control["observed"]))

    @staticmethod
    def _findings(r: Mapping[str, Any], expected: list[Any]) -> bool:
        detected = r["detectedDefects"]
        if type(detected) is not list or len(detected) > 64:
            return False
        for item in detected:
            if type(item) is not str or not item:
                return False
        if len(detected) > 1 and len(set(detected)) != len(detected):
            return False
        if detected and not set(detected) <= set(expected):
            return False
        for key in _COUNTS:
            if not _count(r[key]):
                return False
        latency = r["latencyClass"]
        return type(latency) is str and latency in _LATENCY

    def _decoding(self, decoding: Any) -> bool:
        if type(decoding) is not dict or decoding.keys() != _DECODING:
            return False
        temperature, seed, pinned = decoding["temperature"], decoding["seed"], decoding["pinned"]
        if temperature is not None and not _number(temperature):
            return False
        kind = type(seed)
        if seed is not None and not (
            (kind is int and -_INT_LIMIT < seed < _INT_LIMIT) or (kind is str and len(seed) <= 100)
        ):
            return False
        return pinned is True or pinned is False

    @staticmethod
    def _conduct(r: Mapping[str, Any], arm: Mapping[str, Any]) -> bool:
        rerun = r["rerunOf"]
        if rerun is not None and (type(rerun) is not str or not BENCH_ID.fullmatch(rerun)):
            return False
        conclusive, breach = r["containmentConclusive"], r["containmentBreach"]
        if r["mutationEntered"]:
            if arm["role"] != "maker" or conclusive is None:
                return False
            if conclusive and breach is None:
                return False
            if not conclusive and breach is not None:
                return False
        elif conclusive is not None or breach is not None:
            return False
        if not r["toolUsing"]:
            return r["toolCallCorrect"] is None and r["pseudoToolCallCount"] == 0
        return r["toolCallCorrect"] is not None
