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
from dataclasses import dataclass
from statistics import fmean
from typing import Any, NamedTuple

from generator.read.comet.telemetry import is_number

Telemetry = Mapping[str, Any] | None


class Metric(NamedTuple):
    """One efficiency row: what it is called, where it comes from, how it is printed."""

    label: str
    key: str  # telemetry field
    kind: str  # count | seconds | tokens | usd | percent


# Report order: effort first, then time, tokens, money and context.
METRICS = (
    Metric(label="Model starts/resumes", key="subject_invocations", kind="count"),
    Metric(label="Agent turns", key="num_turns", kind="count"),
    Metric(label="Tool calls", key="tool_calls", kind="count"),
    Metric(label="Wall duration", key="duration_seconds", kind="seconds"),
    Metric(label="Non-cache input tokens", key="input_tokens", kind="tokens"),
    Metric(label="Output tokens", key="output_tokens", kind="tokens"),
    Metric(label="Cache-read input tokens", key="cache_read_input_tokens", kind="tokens"),
    Metric(label="Total tokens incl. cache", key="total_tokens", kind="tokens"),
    Metric(label="Model cost", key="total_cost_usd", kind="usd"),
    Metric(label="Peak context input", key="peak_context_input_tokens", kind="tokens"),
    Metric(label="P95 context input", key="p95_context_input_tokens", kind="tokens"),
    Metric(label="Peak context occupancy", key="peak_context_occupancy_pct", kind="percent"),
)


@dataclass(frozen=True)
class DurationSummary:
    matched: int
    covered: int
    total_seconds: float | None
    average_seconds: float | None
    missing: tuple[tuple[str, int], ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "matched": self.matched,
            "covered": self.covered,
            "total_seconds": self.total_seconds,
            "average_seconds": self.average_seconds,
            "missing": [{"task": task, "rep": rep} for task, rep in self.missing],
        }


def duration_summary(keys: Sequence[tuple[str, int]], telemetry: Sequence[Telemetry]) -> DurationSummary:
    """Duration coverage of one side over the matched pairs (same order as ``keys``)."""
    values: list[float] = []
    missing: list[tuple[str, int]] = []
    for key, events in zip(keys, telemetry, strict=True):
        value = events.get("duration_seconds") if events is not None else None
        if is_number(value):
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


@dataclass(frozen=True)
class EfficiencyRow:
    key: str
    label: str
    kind: str
    complete: int
    selected: int
    candidate_average: float | None
    baseline_average: float | None

    @property
    def delta_pct(self) -> float | None:
        """(baseline - candidate) / baseline * 100: positive means the candidate used less."""
        if self.candidate_average is None or self.baseline_average in (None, 0):
            return None
        return (self.baseline_average - self.candidate_average) / self.baseline_average * 100  # type: ignore[operator]

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "label": self.label,
            "kind": self.kind,
            "complete": self.complete,
            "candidate_average": self.candidate_average,
            "baseline_average": self.baseline_average,
            "delta_pct": self.delta_pct,
        }


@dataclass(frozen=True)
class EfficiencyTable:
    pairs: int
    rows: tuple[EfficiencyRow, ...]

    def to_json(self) -> dict[str, Any]:
        return {"pairs": self.pairs, "rows": [row.to_json() for row in self.rows]}


def _value(events: Mapping[str, Any], key: str) -> float | None:
    value = events.get(key)
    return float(value) if is_number(value) else None


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
