"""Cost and duration beside the verdict: both sides' levels and their paired difference (issue 28).

Pure functions.  The runs counted are the strictly matched pairs, every one (passed or not): the
runs the verdict weighs.  A side's values of a field come from one source (:func:`side_values`):
re-derived from raw stdout when any of its counted runs has a re-derived value, else what the
harness reported; a run without a value in that source is missing (counted and said), never 0.

* per run: the mean over the side's runs with a value;
* per solved task: the total over the side's runs with a value / how many of those runs passed;
* the paired difference: for each task, the mean of (candidate − baseline) over its pairs with a
  value on both sides; their mean over tasks with the task-clustered Student t interval
  (:func:`generator.analyze.stats.intervals.t_interval`, unclipped), as the verdict's pass@1
  difference is (``generator.analyze.stats.paired.clustered_difference``).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Mapping, Sequence

from generator.analyze.comparison.efficiency import telemetry_numbers
from generator.analyze.stats.intervals import t_interval
from generator.model.common import SIDES, Side
from generator.model.comparison import Pair
from generator.model.packed import LazySequence
from generator.model.price import DERIVED, PRICED, REPORTED, Price, PricedQuantity, SideLevel
from generator.model.runs import Telemetry
from generator.model.stats import Interval

__all__ = ["PAIRED_METHOD", "price_facts", "side_values"]

PAIRED_METHOD = "task-clustered t interval over per-task mean paired differences"
_KEYS = tuple(key for key, _label, _kind in PRICED)


def _present(value: float | None) -> bool:
    return value is not None and value == value  # None, and NaN (a packed column's gap), are no value


def side_values(
    derived: Sequence[float | None], reported: Sequence[float | None]
) -> tuple[str | None, Sequence[float | None]]:
    """One side's values of one field, run by run, and their source: the re-derived values when any
    run has one, else the reported ones when any run has one, else (None, the re-derived gaps).  A gap
    is None or NaN."""
    if any(_present(value) for value in derived):
        return DERIVED, derived
    if any(_present(value) for value in reported):
        return REPORTED, reported
    return None, derived


def _columns(rows: Sequence[Telemetry]) -> list[array[float]]:
    """Each priced field's value of every run, packed (NaN where the run has no number): 8 bytes a run."""
    columns = [array("d") for _ in _KEYS]
    for row in rows:
        values = telemetry_numbers(row, _KEYS)
        for position, column in enumerate(columns):
            value = None if values is None else values[position]
            column.append(math.nan if value is None else value)
    return columns


def _level(source: str | None, values: Sequence[float | None], passed: Sequence[int]) -> SideLevel:
    present = [value for value in values if value is not None and _present(value)]
    return SideLevel(
        source=source,
        runs=len(values),
        with_value=len(present),
        total=math.fsum(present) if present else None,
        passes=sum(1 for value, ok in zip(values, passed, strict=True) if ok and _present(value)),
    )


def _difference(
    tasks: Sequence[str], candidate: Sequence[float | None], baseline: Sequence[float | None], confidence: float
) -> tuple[int, int, Interval]:
    """(pairs with both values, tasks with such a pair, the task-clustered interval of the mean difference)."""
    by_task: dict[str, list[float]] = {}
    for task, a, b in zip(tasks, candidate, baseline, strict=True):
        if a is not None and b is not None and _present(a) and _present(b):
            by_task.setdefault(task, []).append(a - b)
    means = [math.fsum(values) / len(values) for values in by_task.values()]
    interval = t_interval(means, confidence, clip=None, unit="tasks")
    method = PAIRED_METHOD + (f" (Student t, {len(means) - 1} df)" if len(means) >= 2 else "")
    interval = Interval(interval.estimate, interval.lower, interval.upper, confidence, method, interval.note)
    return sum(len(values) for values in by_task.values()), len(means), interval


def price_facts(
    pairs: Sequence[Pair],
    telemetry: Mapping[Side, Sequence[Telemetry]],
    reported: Mapping[Side, Sequence[Telemetry]],
    confidence: float = 0.95,
) -> Price:
    """Cost and duration of both sides over the matched ``pairs`` (telemetry in pair order); a
    quantity no counted run of either side has a value of is left out."""
    tasks = LazySequence(lambda index: pairs[index].task, range(len(pairs)))
    passed = {side: bytes(pair.side(side).passed for pair in pairs) for side in SIDES}
    derived = {side: _columns(telemetry[side]) for side in SIDES}
    stated = {side: _columns(reported[side]) for side in SIDES}
    quantities = []
    for position, (key, label, kind) in enumerate(PRICED):
        chosen = {side: side_values(derived[side][position], stated[side][position]) for side in SIDES}
        if all(source is None for source, _values in chosen.values()):
            continue
        levels = {side: _level(*chosen[side], passed[side]) for side in SIDES}
        count, with_pairs, interval = _difference(tasks, chosen["candidate"][1], chosen["baseline"][1], confidence)
        quantities.append(
            PricedQuantity(key, label, kind, levels["candidate"], levels["baseline"], count, with_pairs, interval)
        )
    return Price(tuple(quantities))
