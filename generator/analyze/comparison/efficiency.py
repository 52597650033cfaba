"""Duration coverage and paired efficiency, from re-derived telemetry only.

Telemetry comes from raw stdout (see :mod:`generator.read.comet.telemetry`); stored
report numbers are never mixed in.  A run without usable raw stdout is
*missing coverage*, listed by (task, rep), and never averaged as zero.

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
from generator.model.comparison import METRICS, DurationSummary, EfficiencyRow, EfficiencyTable, Metric
from generator.model.runs import Key, Telemetry

__all__ = [
    "METRICS",
    "DurationSummary",
    "EfficiencyRow",
    "EfficiencyTable",
    "Metric",
    "Telemetry",
    "duration_summary",
    "efficiency_table",
]


def duration_summary(keys: Sequence[Key], telemetry: Sequence[Telemetry]) -> DurationSummary:
    """Duration coverage of one side over the matched pairs (same order as ``keys``)."""
    values: list[float] = []
    missing: list[Key] = []
    for key, events in zip(keys, telemetry, strict=True):
        value: Any = events.get("duration_seconds") if events is not None else None
        if is_json_number(value):
            values.append(float(value))
        else:
            missing.append(key)
    return DurationSummary(
        matched=len(keys),
        covered=len(values),
        total_seconds=sum(values) if values else None,
        average_seconds=fmean(values) if values else None,
        missing=tuple(missing),
    )


def _value(events: Mapping[str, Any], key: str) -> float | None:
    value: Any = events.get(key)
    return float(value) if is_json_number(value) else None


def efficiency_table(selected: Sequence[tuple[Telemetry, Telemetry]]) -> EfficiencyTable:
    """Average each metric over the pairs where both sides have it."""
    rows = []
    for label, key, kind in METRICS:
        both: list[tuple[float, float]] = []
        for candidate, baseline in selected:
            if candidate is None or baseline is None:
                continue
            a, b = _value(candidate, key), _value(baseline, key)
            if a is not None and b is not None:
                both.append((a, b))
        rows.append(
            EfficiencyRow(
                key=key,
                label=label,
                kind=kind,
                complete=len(both),
                selected=len(selected),
                candidate_average=fmean(a for a, _ in both) if both else None,
                baseline_average=fmean(b for _, b in both) if both else None,
            )
        )
    return EfficiencyTable(len(selected), tuple(rows))
