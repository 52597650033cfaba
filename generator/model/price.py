"""What a comparison's decision costs: cost and duration per run of both sides, and their paired difference.

``generator.analyze.comparison.price.price_facts`` computes a :class:`Price` once per comparison
(docs/statistics.md, "Cost and duration beside the verdict"); the verdict box, the build summary and
the ``price`` entry of the ``evalsite.comparison.v1`` document show it.  Which runs count: every
strictly matched run of each side (the pairs the verdict weighs, passed or not).  A run without a
value is missing, never zero.  Each side's values come from one source: re-derived from raw stdout
when any of its counted runs has a re-derived value, else as the harness reported them
(:data:`REPORTED`), and the source is said beside the number.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from generator.model.common import Side
from generator.model.comparison import REPORTED_SOURCE_LABEL
from generator.model.stats import Interval, as_json

__all__ = ["DERIVED", "PRICED", "REPORTED", "Price", "PricedQuantity", "SideLevel"]

#: The two sources of a value: re-derived from the run's raw stdout, or as the harness reported it.
DERIVED: Final = "re-derived from raw stdout"
REPORTED: Final = REPORTED_SOURCE_LABEL

#: The quantities priced, in the order they are shown: (telemetry field, label, kind).
PRICED: Final = (("total_cost_usd", "Cost", "usd"), ("duration_seconds", "Duration", "seconds"))


@dataclass(frozen=True, slots=True)
class SideLevel:
    """One side's level of one quantity over its counted runs."""

    source: str | None  # DERIVED | REPORTED | None (no counted run has a value)
    runs: int  # the side's counted runs (strictly matched)
    with_value: int  # of those, runs with a value (from ``source``)
    total: float | None  # sum over the runs with a value
    passes: int  # runs with a value that passed

    @property
    def missing(self) -> int:
        """Counted runs without a value (not zero: left out of every mean)."""
        return self.runs - self.with_value

    @property
    def mean(self) -> float | None:
        """Per run: the total over the runs with a value / how many they are."""
        return None if self.total is None or not self.with_value else self.total / self.with_value

    @property
    def per_solved(self) -> float | None:
        """Per solved task (a run that passed): the total over the runs with a value / their passes."""
        return None if self.total is None or not self.passes else self.total / self.passes

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "runs": self.runs,
            "with_value": self.with_value,
            "missing": self.missing,
            "total": self.total,
            "passes": self.passes,
            "per_run": self.mean,
            "per_solved_task": self.per_solved,
        }


@dataclass(frozen=True, slots=True)
class PricedQuantity:
    """Cost or duration of both sides and the paired per-task difference (candidate − baseline)."""

    key: str  # the telemetry field: total_cost_usd | duration_seconds
    label: str  # Cost | Duration
    kind: str  # usd | seconds
    candidate: SideLevel
    baseline: SideLevel
    pairs: int  # matched pairs with a value on both sides
    tasks: int  # tasks with at least one such pair
    # the mean over those tasks of each task's mean paired difference, with its task-clustered t interval
    difference: Interval

    def side(self, side: Side) -> SideLevel:
        return self.candidate if side == "candidate" else self.baseline

    @property
    def relative(self) -> float | None:
        """Candidate per run / baseline per run − 1 ("−84%": the candidate costs 84% less); None when undefined."""
        a, b = self.candidate.mean, self.baseline.mean
        return None if a is None or b is None or b == 0 else a / b - 1

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "kind": self.kind,
            "candidate": self.candidate.to_json(),
            "baseline": self.baseline.to_json(),
            "paired": {"pairs": self.pairs, "tasks": self.tasks, "difference": as_json(self.difference)},
            "relative": self.relative,
        }


@dataclass(frozen=True, slots=True)
class Price:
    """Cost and duration of a comparison (only the quantities some counted run has a value of)."""

    quantities: tuple[PricedQuantity, ...] = ()

    def of(self, key: str) -> PricedQuantity | None:
        return next((q for q in self.quantities if q.key == key), None)

    def to_json(self) -> dict[str, Any]:
        return {q.key: q.to_json() for q in self.quantities}
