"""Slim copies of valid receipts: what the summary, the extended analyses and ``verify`` read, shared.

A parsed receipt holds about thirty fields, most of them strings and small objects that repeat
across the ledger (arm and case ids, defect lists, decodings, kill controls, digests).
:class:`Slimmer` keeps, per receipt, only the fields the analyses read, and one shared object for
each repeated value, so 10^5 receipts fit in a small fraction of the memory the parsed ledger
would take.  Values are equal to the parsed ones (same types, same JSON): the analyses give the
same results on a slim receipt.  The shared objects must be treated as read-only, as all receipts are.
"""

from __future__ import annotations

from typing import Any

import orjson

from generator.analyze.ledger.arms import VARYING, Row, receipt_rows
from generator.model.ledger import Campaign

__all__ = ["DROPPED_FIELDS", "Slimmer", "SummaryRows"]

#: Fields checked against the campaign and never read afterwards.
DROPPED_FIELDS = frozenset({"campaignDigest", "campaignId", "corpusVersion", "promptEnvelopeVersion"})

_SHARED_TEXT = ("armId", "caseId", "caseKind", "latencyClass", "executionDigest")
_SHARED_OBJECTS = ("usage", "decoding", "killControl")


def _key(value: Any) -> bytes | None:
    """Equal exactly when the JSON values are identical, types included (``1``, ``1.0`` and ``true``
    differ, and so do ``0.0`` and ``-0.0``); key order counts too.  ``None``: do not share."""
    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError:
        return None


class Slimmer:
    """``slimmer(receipt)`` -> the same dict, slimmed in place (it must be a valid receipt that
    nothing else holds): the dropped fields removed, repeated values replaced by one shared object.
    With ``campaign``, ``expectedDefects`` becomes the campaign case's own list (a valid receipt's
    list equals it)."""

    def __init__(self, campaign: Campaign | None = None) -> None:
        self._cases = campaign.cases if campaign is not None else None
        self._text: dict[str, str] = {}
        self._lists: dict[tuple[str, ...], list[str]] = {}
        self._objects: dict[bytes, Any] = {}

    def __call__(self, receipt: dict[str, Any]) -> dict[str, Any]:
        for key in DROPPED_FIELDS:
            receipt.pop(key, None)
        text = self._text
        for key in _SHARED_TEXT:
            value = receipt.get(key)
            if type(value) is str:
                receipt[key] = text.setdefault(value, value)
        case = self._cases.get(receipt["caseId"]) if self._cases is not None else None
        if case is not None and receipt["expectedDefects"] == case["expectedDefects"]:
            receipt["expectedDefects"] = case["expectedDefects"]
        for key in ("expectedDefects", "detectedDefects") if case is None else ("detectedDefects",):
            value = receipt.get(key)
            if type(value) is list and all(type(item) is str for item in value):
                receipt[key] = self._lists.setdefault(tuple(value), value)
        objects = self._objects
        for key in _SHARED_OBJECTS:
            value = receipt.get(key)
            if value is not None:
                found = _key(value)
                if found is not None:
                    receipt[key] = objects.setdefault(found, value)
        return receipt

    def vary(
        self, kept: dict[str, Any], receipt_id: str, repeat: int, usage: Any, usage_bytes: bytes, wall_ms: int
    ) -> dict[str, Any]:
        """``self(receipt)`` for a receipt that differs from the one ``kept`` was slimmed from only in
        these four fields (``usage_bytes``: the usage's orjson bytes; see ``templates.py``)."""
        slim = kept.copy()
        slim["receiptId"], slim["repeat"], slim["wallMs"] = receipt_id, repeat, wall_ms
        slim["usage"] = self.shared_usage(usage, usage_bytes)
        return slim

    def shared_usage(self, usage: Any, usage_bytes: bytes) -> Any:
        """The one object kept for a usage value whose orjson bytes are ``usage_bytes``."""
        return None if usage is None else self._objects.setdefault(usage_bytes, usage)


class SummaryRows:
    """``keep`` for a summary that reads nothing but rows (``arms.ROW_FIELDS``): the row of each
    slimmed receipt (a quarter of the slim receipt's memory, and no second pass to make it).  A
    repeat of another receipt's bytes (``vary``) is that receipt's row with the three fields of it
    that may change put in."""

    def __init__(self, campaign: Campaign | None = None) -> None:
        self._slim = Slimmer(campaign)

    def __call__(self, receipt: dict[str, Any]) -> Row:
        return receipt_rows([self._slim(receipt)])[0]

    def vary(self, kept: Row, _receipt_id: str, repeat: int, usage: Any, usage_bytes: bytes, wall_ms: int) -> Row:
        if usage is not None:
            usage = self._slim.shared_usage(usage, usage_bytes)
        return kept[:VARYING] + (repeat, wall_ms, usage)
