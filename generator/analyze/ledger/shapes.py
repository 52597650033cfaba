"""Small shape checks shared by the campaign and receipt rules (messages follow the upstream wording)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from generator.model.ledger import TEXT_LIMIT, LedgerDataError

__all__ = [
    "finite_number",
    "is_bool_or_null",
    "is_int",
    "need_fields",
    "need_object",
    "need_text",
    "version_is",
]


def need_object(value: Any, label: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise LedgerDataError(f"{label} must be an object")
    return value


FIELD_SETS: dict[tuple[str, ...], frozenset[str]] = {}


def need_fields(value: Any, fields: tuple[str, ...], label: str) -> Mapping[str, Any]:
    obj = need_object(value, label)
    wanted = FIELD_SETS.get(fields)
    if wanted is None:
        wanted = FIELD_SETS.setdefault(fields, frozenset(fields))
    if obj.keys() != wanted:
        present = set(obj)
        missing, extra = sorted(wanted - present), sorted(present - wanted)
        raise LedgerDataError(f"{label} fields differ (missing={missing} extra={extra})")
    return obj


def need_text(value: Any, label: str) -> str:
    """Non-blank text of at most 500 characters (counted before stripping)."""
    if not isinstance(value, str) or not value.strip():
        raise LedgerDataError(f"{label} must be a non-empty string")
    if len(value) > TEXT_LIMIT:
        raise LedgerDataError(f"{label} exceeds {TEXT_LIMIT} characters")
    return value.strip()


def is_int(value: Any) -> bool:
    kind = type(value)
    return kind is int or (kind is not bool and isinstance(value, int))


def finite_number(value: Any) -> bool | None:
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


def is_bool_or_null(value: Any) -> bool:
    return value is None or isinstance(value, bool)


def version_is(value: Any, wanted: int) -> bool:
    """Upstream compares with ``==``, so ``1.0`` counts as ``1`` but ``True`` never does."""
    kind = type(value)
    if kind is int or kind is float:  # the usual case, decided without isinstance
        return bool(value == wanted)
    return not isinstance(value, bool) and isinstance(value, (int, float)) and value == wanted
