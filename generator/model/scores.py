"""Score-valued metrics (issue 29): each run's score as a number, and the typed results of
``metric: mean`` and of a log's other scorers.

A run's *score* is the number its harness gave it: an Inspect scorer's value as Inspect's own
``value_to_float`` reads it (C = 1, P = 0.5, I = N = 0, numbers as they are), a records file's
mapped score, a Harbor reward.  A format that records only pass or fail (Comet, SWE-bench, a
records file with a ``passed`` field and no score) scores 1 for a pass and 0 for a fail, so its
mean is its pass@1.  An imported run that has no number (an errored run counted as a failure by
``errors_as_failures``) has none here; ``metric: mean`` then fails closed
(:func:`generator.analyze.comparison.scores.score_section`), never coerces.

Effects of ``metric: mean`` are stated in *points*: the difference of mean scores x 100, as a
pass-rate difference is stated in percentage points.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from generator.model.common import is_number
from generator.model.runs import RunRecord
from generator.model.stats import (
    ClusteredDifference,
    ExperimentComparison,
    MetricEstimate,
    PowerAnalysis,
    SignFlipTest,
    Verdict,
    WinLossTie,
    as_json,
)

__all__ = [
    "DEFAULT_METRIC",
    "METRICS",
    "SCORERS_KEY",
    "SCORE_KEY",
    "ScoreMetric",
    "ScoreComparison",
    "ScoreSection",
    "ScorerMeans",
    "check_metric",
    "deciding_scorer",
    "deciding_verdict",
    "run_score",
    "scorer_values",
]

ScoreMetric = Literal["pass@k", "mean"]
#: ``pass@k``: pass / fail at the threshold decides (the default); ``mean``: the task-macro mean score.
METRICS: Final[tuple[ScoreMetric, ...]] = ("pass@k", "mean")
DEFAULT_METRIC: Final[ScoreMetric] = "pass@k"

#: An imported run's report key for its deciding score as a number (None: the run has no number).
SCORE_KEY: Final = "score_number"
#: An imported run's report key for every scorer's value as a number, by scorer name (Inspect).
SCORERS_KEY: Final = "scorer_numbers"


def check_metric(value: object) -> ScoreMetric:
    """``value`` as a metric name; ValueError naming the choices otherwise."""
    for metric in METRICS:
        if value == metric:
            return metric
    raise ValueError(f"metric must be one of {', '.join(METRICS)}, not {value!r}")


def run_score(record: RunRecord) -> float | None:
    """The run's deciding score as a number: what its harness scored, else 1 for a pass and 0 for a fail."""
    report = record.report
    if SCORE_KEY in report:
        value = report[SCORE_KEY]
        return float(value) if is_number(value) else None
    return 1.0 if record.passed else 0.0


def deciding_scorer(record: RunRecord) -> str | None:
    """The name of the scorer whose value decided the run (Inspect), or None."""
    held: Any = record.report.get("score")
    name = held.get("scorer") if isinstance(held, dict) else None
    return name if isinstance(name, str) else None


def scorer_values(record: RunRecord) -> Mapping[str, float | None]:
    """Every scorer's value for the run as a number (None where a scorer gave none); empty when the
    format records one score only."""
    held: Any = record.report.get(SCORERS_KEY)
    if not isinstance(held, dict):
        return {}
    return {str(name): float(value) if is_number(value) else None for name, value in held.items()}


@dataclass(frozen=True)
class ScorerMeans:
    """One scorer over the strictly matched pairs: each side's task-macro mean of its numeric values.

    ``pairs``/``tasks``: the matched pairs (and their tasks) where both sides have a number from this
    scorer; ``missing``: matched pairs left out because a side has none.  Only the ``deciding``
    scorer decides pass or the verdict; the others are shown beside it.
    """

    scorer: str
    deciding: bool
    candidate: float | None
    baseline: float | None
    tasks: int
    pairs: int
    missing: int

    @property
    def difference(self) -> float | None:
        if self.candidate is None or self.baseline is None:
            return None
        return self.candidate - self.baseline

    def to_json(self) -> dict[str, Any]:
        return {
            "scorer": self.scorer,
            "deciding": self.deciding,
            "candidate_mean": self.candidate,
            "baseline_mean": self.baseline,
            "difference": self.difference,
            "tasks": self.tasks,
            "pairs": self.pairs,
            "pairs_without_value": self.missing,
        }


@dataclass(frozen=True)
class ScoreComparison:
    """``metric: mean``: both sides' task-macro mean score with intervals, and the paired rule on the
    per-task mean differences (the same rule, interval and sign-flip test as pass@1's verdict)."""

    scorer: str | None
    candidate: MetricEstimate
    baseline: MetricEstimate
    runs: WinLossTie
    tasks: WinLossTie
    difference: ClusteredDifference
    sign_flip: SignFlipTest
    power: PowerAnalysis
    verdict: Verdict
    warnings: tuple[str, ...]

    @property
    def pairs(self) -> int:
        return self.difference.pairs

    def to_json(self) -> dict[str, Any]:
        out = as_json(self)
        assert isinstance(out, dict)
        return out


@dataclass(frozen=True)
class ScoreSection:
    """What a comparison shows of scores: which metric decides, the ``metric: mean`` statistics, and
    every scorer's means (when the logs have several).  Absent from a pass@k comparison of one scorer."""

    metric: ScoreMetric
    scorer: str | None
    comparison: ScoreComparison | None  # metric mean
    scorers: tuple[ScorerMeans, ...] = ()  # deciding first, then the others by name

    @property
    def others(self) -> tuple[ScorerMeans, ...]:
        return tuple(item for item in self.scorers if not item.deciding)

    def to_json(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "scorer": self.scorer,
            "mean": self.comparison.to_json() if self.comparison is not None else None,
            "scorers": [item.to_json() for item in self.scorers],
        }


def deciding_verdict(statistics: ExperimentComparison | None, scores: ScoreSection | None) -> Verdict | None:
    """The verdict that decides a comparison: the mean score's under ``metric: mean``, else pass@1's;
    None without matched pairs."""
    if statistics is None or not statistics.pairs:
        return None
    if scores is not None and scores.comparison is not None:
        return scores.comparison.verdict
    return statistics.verdict
