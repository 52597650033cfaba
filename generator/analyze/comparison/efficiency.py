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


def _row(metric: Metric, both: list[tuple[float, float]], selected: int, disagreements: int = 0) -> EfficiencyRow:
    return EfficiencyRow(
        key=metric.key,
        label=metric.label,
        kind=metric.kind,
        complete=len(both),
        selected=selected,
        candidate_average=fmean(a for a, _ in both) if both else None,
        baseline_average=fmean(b for _, b in both) if both else None,
        disagreements=disagreements,
    )


def efficiency_table(
    selected: Sequence[tuple[Telemetry, Telemetry]], reported: Sequence[tuple[Telemetry, Telemetry]] | None = None
) -> EfficiencyTable:
    """Average each metric over the pairs where both sides have it; reported numbers in their own rows."""
    stated = list(reported) if reported is not None else [(None, None)] * len(selected)
    rows = []
    # per metric, one byte per pair: 1 where the re-derived row covers it (a set per metric would
    # hold an int object per pair)
    covered: dict[str, bytearray] = {}
    for metric in METRICS:
        both: list[tuple[float, float]] = []
        differing = 0
        covered[metric.key] = covers = bytearray(len(selected))
        for index, (candidate, baseline) in enumerate(selected):
            a, b = _value(candidate, metric.key), _value(baseline, metric.key)
            for derived, said in ((a, _value(stated[index][0], metric.key)), (b, _value(stated[index][1], metric.key))):
                if derived is not None and said is not None and disagrees(derived, said):
                    differing += 1
            if candidate is None or baseline is None:
                continue
            if a is not None and b is not None:
                both.append((a, b))
                covers[index] = 1
        rows.append(_row(metric, both, len(selected), differing))
    reported_rows = []
    if reported is not None:
        for metric in REPORTED_METRICS:
            pairs: list[tuple[float, float]] = []
            seen = False
            taken = covered.get(metric.key)
            for index, (candidate, baseline) in enumerate(stated):
                a, b = _value(candidate, metric.key), _value(baseline, metric.key)
                seen = seen or a is not None or b is not None
                if a is not None and b is not None and not (taken is not None and index < len(taken) and taken[index]):
                    pairs.append((a, b))
            if seen:
                reported_rows.append(_row(metric, pairs, len(selected)))
    return EfficiencyTable(len(selected), tuple(rows), tuple(reported_rows))
