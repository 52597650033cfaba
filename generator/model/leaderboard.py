"""One leaderboard of many systems on the same tasks, as typed data.

:class:`LeaderboardInputs` says which systems to rank (each an input, a treatment, a
label and its input format) and how to read and test them;
:class:`LeaderboardResult` is everything ``generator.pipelines.leaderboard``
computed from it, once.  The ``evalsite.leaderboard.v1`` document, the Markdown
report and the site pages are renderings of a result (docs/leaderboard.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal

from generator.model.comparison import Issue
from generator.model.formats import FORMATS, ImportOptions
from generator.model.logs import SideLogs
from generator.model.scores import DEFAULT_METRIC, ScoreMetric
from generator.model.stats import (
    ClusteredDifference,
    Interval,
    MacroSummary,
    MetricEstimate,
    PowerAnalysis,
    SignFlipTest,
)

__all__ = [
    "CORRECTIONS",
    "CORRECTION_NAMES",
    "DEFAULT_ALPHA",
    "LEADERBOARD_SCHEMA",
    "RANKED_BY",
    "SYSTEM_FORMATS",
    "TIER_RULE",
    "BaselineComparison",
    "Correction",
    "LeaderboardInputs",
    "LeaderboardResult",
    "PairComparison",
    "RunAccuracy",
    "SystemResult",
    "SystemRun",
    "SystemSpec",
    "Telemetry",
    "check_alpha",
    "check_correction",
]

LEADERBOARD_SCHEMA: Final = "evalsite.leaderboard.v1"
Correction = Literal["holm", "bh", "none"]
CORRECTIONS: Final[tuple[Correction, ...]] = ("holm", "bh", "none")
DEFAULT_ALPHA: Final = 0.05
CORRECTION_NAMES: Final = {
    "holm": "Holm step-down (family-wise error rate)",
    "bh": "Benjamini-Hochberg (false discovery rate)",
    "none": "no correction",
}
TIER_RULE: Final = (
    "Tiers, greedy from the top of the ranking: a system joins the current tier while its adjusted pairwise "
    "test against the tier's leader is not significant; otherwise (or when the two share fewer than two "
    "tasks) it leads the next tier. Tiers are a summary: two members of one tier may still differ."
)
GROUPS_RULE: Final = (
    "Groups are exact: two systems share a group letter exactly when the corrected all-pairs test does not "
    "tell them apart and they share at least two tasks (each group is a largest set of systems no two of "
    "which are told apart). Systems that share fewer than two tasks are not comparable: never grouped together."
)
#: What a board's metric ranks by, as its pages and report name it (``metric: mean``: issue 29).
RANKED_BY: Final[Mapping[ScoreMetric, str]] = {"pass@k": "pass@1", "mean": "mean score"}
#: Input formats a system can be read from (the importers add more; one reading function dispatches).
SYSTEM_FORMATS: Final = FORMATS  # every importer a comparison side has (docs/importers.md)


def check_alpha(value: object) -> float:
    """alpha as a float in (0, 0.5]; raises ValueError otherwise."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 < float(value) <= 0.5:
        raise ValueError(f"alpha must be a number in (0, 0.5], not {value!r}")
    return float(value)


def check_correction(value: object) -> Correction:
    for name in CORRECTIONS:
        if value == name:
            return name
    raise ValueError(f"correction must be one of {', '.join(CORRECTIONS)}, not {value!r}")


@dataclass(frozen=True)
class SystemSpec:
    label: str
    experiment: Path
    treatment: str
    format: str = "comet"


@dataclass(frozen=True)
class LeaderboardInputs:
    systems: tuple[SystemSpec, ...]
    baseline: str | None = None  # a system label; None: no baseline column
    tasks_dir: Path | None = None
    ks: tuple[int, ...] = (1,)
    alpha: float = DEFAULT_ALPHA
    correction: Correction = "holm"
    rebase_artifacts: bool = False
    # how imported systems decide pass and exclusion (pass_threshold, scorer, errors_as_failures)
    import_options: ImportOptions = ImportOptions()
    # what ranks and decides: pass@k (task-macro pass@1) or mean (the task-macro mean score, issue 29)
    metric: ScoreMetric = DEFAULT_METRIC


@dataclass(frozen=True)
class SystemRun:
    """One run of a system as the leaderboard shows it (aligned or not)."""

    task: str
    rep: int
    file: str
    passed: bool
    checks_failed: tuple[str, ...]
    aligned: bool  # counted in the system's metrics
    quality: str  # status/reason_code
    manifest: str  # manifest source, or "invalid"
    duration_seconds: float | None  # aligned runs only, from the system's source (``SystemResult.duration``)
    cost_usd: float | None
    score: float | None = None  # metric mean: the aligned run's score in [0, 1] (None otherwise)


@dataclass(frozen=True)
class RunAccuracy:
    """The benchmark's own statistic: mean of per-run accuracies and its standard error.

    Defined only when every common task has the same R aligned repetitions with the
    same repetition numbers (R complete runs); ``stderr`` needs R >= 2.
    """

    runs: int
    accuracies: tuple[float, ...]  # one per repetition number, in rep order
    mean: float | None
    stderr: float | None
    note: str | None
    method: str = (
        "mean of per-run accuracies (run r = repetition r of every task); standard error = sample standard "
        "deviation of the R run accuracies / sqrt(R)"
    )


@dataclass(frozen=True)
class Telemetry:
    """Mean of one telemetry field over a system's aligned runs that have it: re-derived from raw stdout
    when any aligned run has a re-derived value, else as the harness reported it (``source`` says which)."""

    field: str
    mean: float | None
    runs_with_value: int
    aligned_runs: int
    source: str | None = None  # generator.model.price.DERIVED | REPORTED | None (no value)


@dataclass(frozen=True)
class SystemResult:
    label: str
    treatment: str
    experiment: str  # folder name only
    format: str
    reports: int  # reports of the treatment, aligned or not
    expected_keys: int  # the common expected (task, rep) keys
    aligned_keys: int  # of those, this system's runs that verified
    issues: tuple[Issue, ...]
    skipped: tuple[tuple[str, str], ...]  # (report file, reason)
    outcomes: Mapping[str, tuple[bool, ...]]  # task -> aligned outcomes in rep order
    reps: Mapping[str, tuple[int, ...]]  # task -> the aligned repetition numbers
    runs: tuple[SystemRun, ...]
    macro: tuple[MacroSummary, ...]  # one per k
    run_accuracy: RunAccuracy
    cost: Telemetry
    duration: Telemetry
    rank: int = 0
    tier: int = 0
    logs: SideLogs | None = None  # an imported system's logs and their run status (model/logs.py)
    # metric mean (issue 29): the task-macro mean score with its t and betting intervals, and each task's
    # mean score over its aligned runs; None and empty for a pass@k board
    mean: MetricEstimate | None = None
    task_means: Mapping[str, float] = field(default_factory=dict)

    @property
    def run_status(self) -> str | None:
        """One sentence when the system's run did not finish (cancelled, error, started); else None."""
        if self.logs is None:
            return None
        subject = f"The run of system {self.label!r}"
        return self.logs.status_sentence("system", subject=subject, covers="the leaderboard")

    @property
    def coverage(self) -> float | None:
        return self.aligned_keys / self.expected_keys if self.expected_keys else None

    @property
    def pass_at_1(self) -> float | None:
        return self.macro[0].pass_at_k.estimate if self.macro and self.macro[0].k == 1 else None

    @property
    def ranked_estimate(self) -> MetricEstimate | None:
        """What the board ranks the system by: its mean score (metric mean), else its task-macro pass@1."""
        if self.mean is not None:
            return self.mean
        return self.macro[0].pass_at_k if self.macro and self.macro[0].k == 1 else None

    @property
    def ranked_value(self) -> float | None:
        estimate = self.ranked_estimate
        return estimate.estimate if estimate is not None else None


@dataclass(frozen=True)
class PairComparison:
    """System ``a`` minus system ``b`` over the keys both have (strictly aligned)."""

    a: str
    b: str
    pairs: int
    tasks: int
    issue_counts: Mapping[str, int]  # the pair alignment's issues, by reason
    # (task, pairs, a's sum, b's sum): passes (pass@k), or scores (metric mean: floats)
    per_task: tuple[tuple[str, int, float, float], ...]
    difference: ClusteredDifference  # 95% task-clustered, in the board's metric
    sign_flip: SignFlipTest
    p_adjusted: float  # within the family of all pairs, with the leaderboard's correction
    distinguishable: bool  # p_adjusted < alpha


@dataclass(frozen=True)
class BaselineComparison:
    """One system against the baseline: the family of (systems - 1) tests."""

    label: str
    pair: PairComparison  # a = the system, b = the baseline
    p_adjusted: float  # within the baseline family
    simultaneous: Interval  # simultaneous-coverage interval for the difference
    power: PowerAnalysis | None
    outcome: str  # better | worse | not distinguishable
    sentence: str


@dataclass(frozen=True)
class LeaderboardResult:
    inputs: LeaderboardInputs
    ks: tuple[int, ...]
    alpha: float
    correction: Correction
    tasks: tuple[str, ...]
    expected_keys: int
    systems: tuple[SystemResult, ...]  # ranked: task-macro pass@1 (metric mean: mean score), best first
    baseline: str | None
    against_baseline: tuple[BaselineComparison, ...]  # ranking order, baseline left out
    pairs: tuple[PairComparison, ...]  # every unordered pair, a ranked above b
    tiers: tuple[tuple[str, ...], ...]
    frontier_field: str | None  # total_cost_usd | duration_seconds | None (no telemetry)
    frontier: tuple[str, ...]  # labels on the Pareto frontier of that field vs pass@1
    # Sound groups (issue 25): each system's labels ("a", "b", ...); two systems share a label exactly
    # when the corrected all-pairs test does not distinguish them and they share at least two tasks.
    groups: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    not_comparable: tuple[tuple[str, str], ...] = ()  # pairs sharing fewer than two tasks: never grouped
    metric: ScoreMetric = DEFAULT_METRIC  # what ranks and what the pairs' differences are in

    @property
    def ranked_by(self) -> str:
        """The metric's name on pages and in the report: "pass@1" or "mean score"."""
        return RANKED_BY[self.metric]

    @property
    def run_status(self) -> tuple[str, ...]:
        """The sentence of each system (in ranking order) whose run did not finish."""
        return tuple(s.run_status for s in self.systems if s.run_status is not None)

    def system(self, label: str) -> SystemResult:
        for system in self.systems:
            if system.label == label:
                return system
        raise KeyError(label)

    def pair(self, a: str, b: str) -> PairComparison:
        for pair in self.pairs:
            if (pair.a, pair.b) == (a, b) or (pair.a, pair.b) == (b, a):
                return pair
        raise KeyError((a, b))
