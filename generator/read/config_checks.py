"""The site config's value checks: each value checked, or one ``site config: <where>: <problem>`` line.

Shared by every kind of entry in :mod:`generator.read.config` (the names keep their leading
underscore there: they are that module's helpers, kept here so that it stays one screenful per kind).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from generator.model.common import is_slug
from generator.model.errors import EvalsiteError
from generator.model.scores import ScoreMetric, check_metric

__all__ = [
    "MAX_K",
    "_bool",
    "_choice",
    "_entry_id",
    "_fail",
    "_keys",
    "_ks",
    "_list",
    "_metric",
    "_path",
    "_text",
    "_threshold",
]

MAX_K = 10_000


def _fail(where: str, problem: str) -> EvalsiteError:
    return EvalsiteError(f"site config: {where}: {problem}")


def _keys(value: Any, allowed: set[str], required: set[str], where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _fail(where, "must be a mapping")
    unknown = sorted(str(k) for k in value if k not in allowed)
    if unknown:
        raise _fail(where, f"unknown key(s) {', '.join(unknown)} (allowed: {', '.join(sorted(allowed))})")
    missing = sorted(k for k in required if k not in value)
    if missing:
        raise _fail(where, f"missing key(s) {', '.join(missing)}")
    return value


def _text(value: Any, where: str, *, max_len: int = 500) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _fail(where, "must be a non-empty string")
    if "\x00" in value:
        raise _fail(where, "must not contain a NUL character")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise _fail(where, "must be valid Unicode text (it holds a lone surrogate)") from None
    if len(value) > max_len or "\n" in value.strip():
        raise _fail(where, f"must be one line of at most {max_len} characters")
    return value.strip()


def _bool(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise _fail(where, "must be true or false")
    return value


def _choice(value: Any, where: str, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise _fail(where, f"must be one of: {', '.join(choices)}")
    return value


def _path(value: Any, base: Path, where: str, *, kind: str) -> Path:
    text = _text(value, where, max_len=4096)
    path = (base / text).resolve() if not Path(text).is_absolute() else Path(text).resolve()
    if kind == "experiment" and path.is_file():
        from generator.read.formats import file_hint  # the readers' own tests, only on this error path

        raise _fail(where, f"{text!r} is a file, not a folder{file_hint(path)}")
    if kind in ("dir", "experiment") and not path.is_dir():
        raise _fail(where, f"{text!r} is not an existing folder")
    if kind == "file" and not path.is_file():
        raise _fail(where, f"{text!r} is not an existing file")
    if kind == "any" and not (path.is_file() or path.is_dir()):
        raise _fail(where, f"{text!r} is not an existing file or folder")
    return path


def _ks(value: Any, where: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not value:
        raise _fail(where, "must be a non-empty list of integers >= 1")
    for k in value:
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
            raise _fail(where, f"bad k {k!r}: every k must be an integer from 1 to {MAX_K}")
    return tuple(sorted(set(value)))


def _threshold(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value or abs(value) == float("inf"):
        raise _fail(where, "must be a finite number")
    return float(value)


def _entry_id(value: Any, where: str, seen: dict[str, str]) -> str:
    if not is_slug(value) or not isinstance(value, str):
        raise _fail(where, f"id {value!r} is not a slug (lower-case a-z, 0-9 and '-', 1-64 characters)")
    if value in seen:
        raise _fail(where, f"duplicate id {value!r} (already used by {seen[value]})")
    seen[value] = where
    return value


def _list(value: Any, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise _fail(where, "must be a list")
    return value


def _metric(value: Any, where: str) -> ScoreMetric:
    """``metric``: pass@k or mean (issue 29)."""
    try:
        return check_metric(value)
    except ValueError as error:
        raise _fail(where, str(error)) from None
