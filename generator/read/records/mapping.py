"""The records format's field mapping: checking it, its presets, and reading one field of a record.

A field's value is found by a dotted path (``doc.id``, ``tokenUsage.prompt``, ``resps.0``): the
whole path is first tried as one key (a CSV column may be named ``metrics.acc``), then it is
followed key by key (a whole number indexes a list).  Several paths are tried in order and the
first one present wins; a value that is ``null`` or an empty text counts as absent.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from generator.model.records import RECORD_FIELDS, RECORD_PRESETS, RecordsMapping

__all__ = [
    "Fields",
    "effective_fields",
    "field_value",
    "parse_mapping",
    "path_value",
    "to_bool",
    "to_number",
]

MAX_PATH_CHARS = 200
MAX_PATHS = 8
_MAPPING_KEYS = {"fields", "preset", "metric"}

#: Where each field is when nothing maps it.
DEFAULTS: Final[dict[str, tuple[str, ...]]] = {
    "task": ("task",),
    "repetition": ("repetition", "rep"),
    "passed": ("passed",),
    "score": ("score",),
    "case_hash": ("case_hash",),
    "status": ("status",),
    "error": ("error",),
    "cost": ("cost",),
    "duration": ("duration",),
    "duration_ms": ("duration_ms",),
    "input_tokens": ("input_tokens",),
    "output_tokens": ("output_tokens",),
    "total_tokens": ("total_tokens",),
    "transcript": ("transcript",),
    "treatment": (),
}

#: Each preset's paths over the defaults (the schema sources are named in docs/importers.md).
PRESETS: Final[dict[str, dict[str, tuple[str, ...]]]] = {
    # lm-evaluation-harness ``samples_<task>_<date>.jsonl`` (lm_eval/evaluator.py, evaluation_tracker.py);
    # the score is the chosen metric's value (``metric:``), found by the reader.
    "lm-eval": {
        "task": ("doc_id",),
        "repetition": (),
        "passed": (),
        "score": (),
        "case_hash": ("doc_hash",),
        "status": (),
        "error": (),
    },
    # promptfoo ``EvaluateResult`` (``promptfoo eval -o results.json``: ``results.results[]``, or ``.jsonl``).
    # ``testIdx`` is no case id (``--repeat`` gives each repetition its own), so the reader names a test
    # without a description by its vars, hashes its vars and assertions, and orders repetitions by testIdx.
    "promptfoo": {
        "task": ("testCase.description", "description"),
        "repetition": (),
        "passed": ("success",),
        "score": ("score",),
        "case_hash": (),
        "status": ("failureReason",),
        "error": ("error",),
        "cost": ("cost",),
        "duration": (),
        "duration_ms": ("latencyMs",),
        "input_tokens": ("tokenUsage.prompt",),
        "output_tokens": ("tokenUsage.completion",),
        "total_tokens": ("tokenUsage.total",),
        "transcript": (),
        "treatment": ("provider.label", "provider.id", "provider"),
    },
}

#: Status values that mark a run errored (compared case-insensitively); promptfoo's
#: ``failureReason`` 2 is its ``ERROR`` (1 is a failed assertion: a scored failure).
ERROR_STATUSES: Final[dict[str | None, frozenset[Any]]] = {
    None: frozenset({"error", "errored"}),
    "lm-eval": frozenset(),
    "promptfoo": frozenset({2, "2"}),
}

_TRUE = frozenset({"true", "yes", "pass", "passed", "1"})
_FALSE = frozenset({"false", "no", "fail", "failed", "0"})


@dataclass(frozen=True)
class Fields:
    """A side's effective mapping: the paths of every field, the preset, the metric and filter."""

    paths: Mapping[str, tuple[str, ...]]
    preset: str | None
    metric: str | None
    filter: str | None
    error_statuses: frozenset[Any]


def _paths(value: Any, where: str) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not 1 <= len(items) <= MAX_PATHS:
        raise ValueError(f"{where}: must be a dotted path or a list of 1 to {MAX_PATHS} of them")
    for item in items:
        if not isinstance(item, str) or not item.strip() or len(item) > MAX_PATH_CHARS:
            raise ValueError(f"{where}: each path must be a non-empty text of at most {MAX_PATH_CHARS} characters")
        if "\x00" in item or not item.isprintable():
            raise ValueError(f"{where}: a path must be printable text")
    return tuple(item.strip() for item in items)


def parse_mapping(data: Any, where: str) -> RecordsMapping:
    """A side's ``fields:``/``preset:``/``metric:`` checked; a ValueError names the problem."""
    if not isinstance(data, dict):
        raise ValueError(f"{where}: must be a mapping")
    unknown = sorted(str(key) for key in data if key not in _MAPPING_KEYS)
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {', '.join(unknown)} (allowed: {', '.join(sorted(_MAPPING_KEYS))})")
    preset = data.get("preset")
    if preset is not None and preset not in RECORD_PRESETS:
        raise ValueError(f"{where} preset: {preset!r} is not one of {', '.join(RECORD_PRESETS)}")
    metric = data.get("metric")
    if metric is not None:
        if not isinstance(metric, str) or not metric.strip() or len(metric) > MAX_PATH_CHARS or "\x00" in metric:
            raise ValueError(f"{where} metric: must be a non-empty text of at most {MAX_PATH_CHARS} characters")
        if preset != "lm-eval":
            raise ValueError(f"{where} metric: only the lm-eval preset has metrics (map 'score' to a path instead)")
        metric = metric.strip()
    fields = data.get("fields") or {}
    if not isinstance(fields, dict):
        raise ValueError(f"{where} fields: must be a mapping of field: path")
    bad = sorted(str(key) for key in fields if key not in RECORD_FIELDS)
    if bad:
        raise ValueError(f"{where} fields: unknown field(s) {', '.join(bad)} (allowed: {', '.join(RECORD_FIELDS)})")
    pairs = tuple((name, _paths(fields[name], f"{where} fields.{name}")) for name in RECORD_FIELDS if name in fields)
    return RecordsMapping(fields=pairs, preset=preset, metric=metric)


def effective_fields(mapping: RecordsMapping | None) -> Fields:
    """The paths of every field: the defaults, then the preset's, then the mapping's own."""
    mapping = mapping or RecordsMapping()
    paths = dict(DEFAULTS)
    paths.update(PRESETS.get(mapping.preset or "", {}))
    paths.update(dict(mapping.fields))
    metric, _, chosen = (mapping.metric or "").partition(",")
    return Fields(paths, mapping.preset, metric or None, chosen.strip() or None, ERROR_STATUSES[mapping.preset])


def _step(value: Any, key: str) -> tuple[bool, Any]:
    if isinstance(value, dict):
        return (key in value), value.get(key)
    if isinstance(value, list) and key.isascii() and key.isdigit() and int(key) < len(value):
        return True, value[int(key)]
    return False, None


def path_value(record: Mapping[str, Any], path: str) -> Any:
    """The value at one dotted path of a record, or None."""
    value: Any = record.get(path)
    if value is not None or "." not in path or path in record:
        return value
    value = record
    for key in path.split("."):
        found, value = _step(value, key)
        if not found:
            return None
    return value


def field_value(record: Mapping[str, Any], fields: Fields, name: str) -> tuple[str, Any] | None:
    """(the path that held it, the value) of one field, or None when no path holds a value."""
    for path in fields.paths.get(name, ()):
        value = path_value(record, path)
        if value is not None and value != "":
            return path, value
    return None


def to_bool(value: Any) -> bool | None:
    """A pass/fail value: a boolean, 0 or 1, or a text such as ``true``/``pass``/``no``; else None."""
    if isinstance(value, bool):
        return value
    if type(value) in (int, float) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        text = value.strip().lower()
        return True if text in _TRUE else False if text in _FALSE else None
    return None


def to_number(value: Any) -> float | None:
    """A finite number (not a boolean), or a text that is one (CSV cells are texts); else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return float(value) if abs(value) < 2**63 else None
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, str) and len(value) <= 64:
        try:
            number = float(value.strip())
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None
