"""Duration coverage and paired efficiency: re-derived telemetry, and reported numbers apart.

Telemetry comes from raw stdout (see :mod:`generator.read.comet.telemetry`); stored
report numbers are never mixed in.  A run without usable raw stdout is
*missing coverage*, listed by (task, rep), and never averaged as zero.

What a harness reported (``Artifact.reported``) is summarised separately and labelled: a
reported duration covers a run only where no re-derived duration exists, a reported efficiency
row averages only pairs the re-derived row does not cover, and a run carrying both values that
differ (by more than :data:`TOLERANCE`, relative) is counted as a disagreement; the re-derived
value wins.

Paired efficiency compares the two sides over the same pairs.  A pair counts
for a metric only when both sides have telemetry and a number for it.  The
primary view is the *strict-success intersection* (both sides passed), so an
unfinished run's low spend is never mistaken for efficiency.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence
from statistics import fmean
from typing import Any

from generator.model.common import is_json_number
from generator.model.comparison import (
    METRICS,
    REPORTED_METRICS,
    Disagreement,
    DurationSummary,
    EfficiencyRow,
    EfficiencyTable,
    Metric,
    ReportedDuration,
)
from generator.model.packed import TelemetryValues
from generator.model.runs import Key, Telemetry

#: Relative difference above which a reported value disagrees with the re-derived one.
TOLERANCE = 0.01

__all__ = [
    "METRICS",
    "DurationSummary",
    "EfficiencyRow",
    "EfficiencyTable",
    "Metric",
    "TOLERANCE",
    "Telemetry",
    "disagrees",
    "duration_summary",
    "efficiency_table",
    "telemetry_numbers",
]


def disagrees(derived: float, reported: float) -> bool:
    """True when the two values differ by more than :data:`TOLERANCE` of the larger one."""
    return abs(derived - reported) > TOLERANCE * max(abs(derived), abs(reported), 1e-12)


def duration_summary(
    keys: Sequence[Key], telemetry: Sequence[Telemetry], reported: Sequence[Telemetry] | None = None
) -> DurationSummary:
    """Duration coverage of one side over the matched pairs (same order as ``keys``)."""
    values: list[float] = []
    missing: list[Key] = []
    stated: list[float] = []
    differing: list[Disagreement] = []
    for index, (key, events) in enumerate(zip(keys, telemetry, strict=True)):
        value: Any = events.get("duration_seconds") if events is not None else None
        said = _value(reported[index], "duration_seconds") if reported and reported[index] is not None else None
        if is_json_number(value):
            values.append(float(value))
            if said is not None and disagrees(float(value), said):
                differing.append(Disagreement(key[0], key[1], "duration_seconds", float(value), said))
        else:
            missing.append(key)
            if said is not None:
                stated.append(said)
    return DurationSummary(
        matched=len(keys),
        covered=len(values),
        total_seconds=sum(values) if values else None,
        average_seconds=fmean(values) if values else None,
        missing=tuple(missing),
        reported=ReportedDuration(
            covered=len(stated),
            total_seconds=sum(stated) if stated else None,
            average_seconds=fmean(stated) if stated else None,
            disagreements=tuple(differing),
        ),
    )


def _value(events: Mapping[str, Any] | None, key: str) -> float | None:
    if events is None:
        return None
    value: Any = events.get(key)
    return float(value) if is_json_number(value) else None


def _row(
    metric: Metric, candidate: array[float], baseline: array[float], selected: int, disagreements: int = 0
) -> EfficiencyRow:
    return EfficiencyRow(
        key=metric.key,
        label=metric.label,
        kind=metric.kind,
        complete=len(candidate),
        selected=selected,
        candidate_average=_average(candidate),
        baseline_average=_average(baseline),
        disagreements=disagreements,
    )


_NUMBER_TYPES = (int, float)


def telemetry_numbers(events: Mapping[str, Any] | None, keys: tuple[str, ...]) -> tuple[float | None, ...] | None:
    """``_value(events, key)`` of every key at once (None for no telemetry): each run is read once,
    not once per metric; packed telemetry is unpacked in one call."""
    if events is None:
        return None
    if type(events) is TelemetryValues:
        return events.numbers(keys)
    out: list[float | None] = []
    for key in keys:
        value = events.get(key)
        out.append(float(value) if isinstance(value, _NUMBER_TYPES) and not isinstance(value, bool) else None)
    return tuple(out)


def _column(rows: Sequence[tuple[float | None, ...] | None], position: int) -> list[float | None]:
    return [None if row is None else row[position] for row in rows]


def _disagreeing(derived: Sequence[float | None], said: Sequence[float | None]) -> int:
    return sum(1 for a, b in zip(derived, said, strict=True) if a is not None and b is not None and disagrees(a, b))


#: Pairs whose numbers are unpacked at a time (the tables never hold every pair's numbers).
_CHUNK = 1024


def _average(values: array[float]) -> float | None:
    return fmean(values) if values else None  # fmean is fsum / n: exact, so order and chunks do not matter


def efficiency_table(
    selected: Sequence[tuple[Telemetry, Telemetry]], reported: Sequence[tuple[Telemetry, Telemetry]] | None = None
) -> EfficiencyTable:
    """Average each metric over the pairs where both sides have it; reported numbers in their own rows.

    Each run's numbers are read once (not once per metric), a chunk of pairs at a time; the
    values averaged are kept packed (8 bytes each), so the memory used stays small.
    """
    count = len(selected)
    keys = tuple(metric.key for metric in METRICS)
    stated_keys = tuple(metric.key for metric in REPORTED_METRICS)
    derived_position = {key: position for position, key in enumerate(keys)}
    # per metric: the averaged values of each side, how many runs disagree, and one byte per pair,
    # 1 where the re-derived row covers it (a set per metric would hold an int object per pair)
    derived: list[tuple[array[float], array[float]]] = [(array("d"), array("d")) for _ in METRICS]
    differing = [0] * len(METRICS)
    covered = [bytearray(count) for _ in METRICS]
    said: list[tuple[array[float], array[float]]] = [(array("d"), array("d")) for _ in REPORTED_METRICS]
    seen = [False] * len(REPORTED_METRICS)
    for start in range(0, count, _CHUNK):
        chunk = selected[start : start + _CHUNK]
        candidates = [telemetry_numbers(candidate, keys) for candidate, _ in chunk]
        baselines = [telemetry_numbers(baseline, keys) for _, baseline in chunk]
        stated_a: list[tuple[float | None, ...] | None] = []
        stated_b: list[tuple[float | None, ...] | None] = []
        if reported is not None:
            stated_chunk = reported[start : start + _CHUNK]
            stated_a = [telemetry_numbers(candidate, stated_keys) for candidate, _ in stated_chunk]
            stated_b = [telemetry_numbers(baseline, stated_keys) for _, baseline in stated_chunk]
        any_stated = any(row is not None for row in stated_a) or any(row is not None for row in stated_b)
        for position, key in enumerate(keys):
            a_column, b_column = _column(candidates, position), _column(baselines, position)
            if any_stated:
                at = stated_keys.index(key)
                differing[position] += _disagreeing(a_column, _column(stated_a, at))
                differing[position] += _disagreeing(b_column, _column(stated_b, at))
            covers, (a_values, b_values) = covered[position], derived[position]
            for offset, (a, b) in enumerate(zip(a_column, b_column, strict=True)):
                if a is not None and b is not None:  # both sides have telemetry and this number
                    a_values.append(a)
                    b_values.append(b)
                    covers[start + offset] = 1
        if not any_stated:
            continue
        for position, key in enumerate(stated_keys):
            a_column, b_column = _column(stated_a, position), _column(stated_b, position)
            seen[position] = (
                seen[position] or any(v is not None for v in a_column) or any(v is not None for v in b_column)
            )
            taken = covered[derived_position[key]] if key in derived_position else None
            a_values, b_values = said[position]
            for offset, (a, b) in enumerate(zip(a_column, b_column, strict=True)):
                if a is not None and b is not None and not (taken is not None and taken[start + offset]):
                    a_values.append(a)
                    b_values.append(b)
    rows = tuple(
        _row(metric, *derived[position], count, differing[position]) for position, metric in enumerate(METRICS)
    )
    reported_rows: tuple[EfficiencyRow, ...] = ()
    if reported is not None:
        reported_rows = tuple(
            _row(metric, *said[position], count) for position, metric in enumerate(REPORTED_METRICS) if seen[position]
        )
    return EfficiencyTable(count, rows, reported_rows)
