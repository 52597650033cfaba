"""The results of the statistics (``generator.analyze.stats``), as plain frozen dataclasses.

The analysis computes them once; the JSON document, the Markdown report and
the site pages only read their fields.  Every result carries the name of its
method so it can be printed next to the number.  Nothing here computes.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal

__all__ = [
    "BETTER",
    "NOT_DISTINGUISHABLE",
    "REFERENCE_PAIRED_LABEL",
    "WORSE",
    "ClusteredDifference",
    "DesignEffect",
    "ExperimentComparison",
    "GateDiagnosis",
    "GateFeasibility",
    "GateKind",
    "Interval",
    "LedgerGateAnnotation",
    "MacroSummary",
    "McNemarTest",
    "MetricEstimate",
    "Outcomes",
    "PairedCounts",
    "PairedSummary",
    "PowerAnalysis",
    "RateGateFeasibility",
    "ReferenceBounds",
    "SignFlipTest",
    "Verdict",
    "VerdictOutcome",
    "WinLossTie",
    "as_json",
]

#: Per-task outcomes: a mapping task name -> booleans (tasks taken in sorted
#: name order), or a sequence of boolean sequences (order kept, named "0", "1", ...).
Outcomes = Mapping[str, Sequence[bool]] | Sequence[Sequence[bool]]

#: The three gate shapes of the reference ledger (spec/ledger.md §3.7):
#: ``non_inferiority``  passes when lower > -margin   (recallNonInferior, delta)
#: ``upper_margin``     passes when upper <= margin   (falsePositiveMargin, epsilon)
#: ``equivalence``      passes when lower > -margin and upper < margin (transport, delta_t)
GateKind = Literal["non_inferiority", "upper_margin", "equivalence"]

#: Label for the reference's paired rule (ledger spec, "Paired difference").
REFERENCE_PAIRED_LABEL: Final = (
    "reference paired_exact_factorized_bonferroni.v1: each bound is a >=95% one-sided bound "
    "([lower, upper] jointly >=90%); the one_sided and transport_90 modes give identical numbers; "
    "repeats of one case are treated as independent pairs"
)


def as_json(value: object) -> object:
    """A result as plain JSON values: dataclasses become dicts, tuples lists, NaN/inf null.

    Dataclass fields marked ``metadata={"json": False}`` are left out.
    """
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: as_json(getattr(value, f.name)) for f in dataclasses.fields(value) if f.metadata.get("json", True)
        }
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(key): as_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [as_json(item) for item in value]
    return value


# --------------------------------------------------------------------------- intervals


@dataclass(frozen=True)
class Interval:
    """A point estimate with an interval; ``None`` bounds mean "undefined".

    ``note`` explains an undefined or degenerate interval in one sentence.
    """

    estimate: float | None
    lower: float | None
    upper: float | None
    confidence: float
    method: str
    note: str | None = None

    @property
    def defined(self) -> bool:
        return self.lower is not None and self.upper is not None


@dataclass(frozen=True)
class ReferenceBounds:
    """The reference ledger's paired bounds for d = P(win) - P(loss).

    Recomputed with beta quantiles; the reference itself bisects the binomial
    CDF and agrees to about 1e-15 where it does not overflow.
    """

    wins: int
    losses: int
    pairs: int
    estimate: float | None
    lower: float | None
    upper: float | None
    q_lower: float | None
    q_upper: float | None
    theta_lower: float | None
    theta_upper: float | None
    method: str = REFERENCE_PAIRED_LABEL


# --------------------------------------------------------------------------- paired comparisons


@dataclass(frozen=True)
class PairedCounts:
    """Per-task counts of matched pairs, tasks in a fixed order."""

    tasks: tuple[str, ...]
    reps: tuple[int, ...]
    wins: tuple[int, ...]
    losses: tuple[int, ...]
    both_pass: tuple[int, ...]

    @property
    def both_fail(self) -> tuple[int, ...]:
        return tuple(
            r - w - lo - a for r, w, lo, a in zip(self.reps, self.wins, self.losses, self.both_pass, strict=False)
        )

    @property
    def pairs(self) -> int:
        return sum(self.reps)

    @classmethod
    def from_counts(
        cls,
        reps: Sequence[int],
        wins: Sequence[int],
        losses: Sequence[int],
        both_pass: Sequence[int] | None = None,
        tasks: Sequence[str] | None = None,
    ) -> PairedCounts:
        reps_t, wins_t, losses_t = tuple(map(int, reps)), tuple(map(int, wins)), tuple(map(int, losses))
        bp = tuple(map(int, both_pass)) if both_pass is not None else (0,) * len(reps_t)
        names = tuple(map(str, tasks)) if tasks is not None else tuple(str(i) for i in range(len(reps_t)))
        if not len(names) == len(reps_t) == len(wins_t) == len(losses_t) == len(bp):
            raise ValueError("per-task count sequences differ in length")
        for r, w, lo, a in zip(reps_t, wins_t, losses_t, bp, strict=True):
            if min(r, w, lo, a) < 0 or w + lo + a > r:
                raise ValueError("per-task counts must satisfy 0 <= wins + losses + both_pass <= reps")
        return cls(names, reps_t, wins_t, losses_t, bp)


@dataclass(frozen=True)
class WinLossTie:
    """Wins, losses and ties over one unit ("runs" or "tasks")."""

    unit: str
    wins: int
    losses: int
    ties: int
    both_pass: int | None
    both_fail: int | None
    method: str


@dataclass(frozen=True)
class DesignEffect:
    """Clustered against naive (iid) standard error of a pooled paired difference."""

    estimate: float | None
    se_iid: float | None
    se_cluster: float | None
    design_effect: float | None
    clusters: int
    pairs: int
    method: str


@dataclass(frozen=True)
class ClusteredDifference:
    """Candidate minus baseline pass@1 over matched pairs, clustered by task.

    ``estimate`` is the task-macro difference (mean over tasks of the per-task
    mean difference); ``interval`` the task-cluster t interval.  ``naive_interval``
    is the run-level Wald interval that treats all pairs as independent, and
    ``design_effect`` compares the two variance estimates for the pooled
    difference (identical estimators when every task has the same repetitions).
    """

    estimate: float | None
    interval: Interval
    pooled_estimate: float | None
    naive_interval: Interval
    se_cluster: float | None
    se_iid: float | None
    design_effect: float | None
    tasks: int
    pairs: int
    method: str


@dataclass(frozen=True)
class SignFlipTest:
    """Two-sided sign-flip randomisation test over tasks.

    Statistic |sum_t d_t| with d_t the per-task mean difference; under the sharp
    null that the two arms are exchangeable within every task each d_t is equally
    likely to carry either sign.  p = P(|sum s_t d_t| >= |sum d_t|).
    """

    statistic: float
    p_value: float
    tasks: int
    exact: bool
    method: str


@dataclass(frozen=True)
class McNemarTest:
    """Exact (conditional) McNemar test on discordant run pairs.

    Given D = wins + losses discordant pairs, wins ~ Binomial(D, 1/2) under the
    null of equal pass rates.  ``p_value`` = min(1, 2 P(X <= min(w, l)));
    ``p_mid`` = the mid-p version (half the probability of the observed table);
    ``p_candidate_better`` = P(X >= wins) and ``p_candidate_worse`` = P(X <= wins)
    are the one-sided exact p-values.  All are 1 when D = 0.
    """

    wins: int
    losses: int
    discordant: int
    p_value: float
    p_mid: float
    p_candidate_better: float
    p_candidate_worse: float
    method: str = "exact McNemar test (conditional binomial on discordant pairs), two-sided; mid-p alongside"


# --------------------------------------------------------------------------- power


@dataclass(frozen=True)
class PowerAnalysis:
    """Minimum detectable effect for the task-clustered paired difference in pass@1.

    Variance assumption: the variance of a task's mean difference is the
    observed sample variance of the per-task mean differences (it contains the
    between-task spread of the effect plus the within-task noise at the observed
    number of repetitions), never less than X(1 - X)/R, the least variance any
    true difference X can create with R repetitions per task.  It is split into
    between-task (omega^2) and within-task (sigma_w^2 / R) parts by the method of
    moments so that other repetition counts can be planned
    (``generator.analyze.stats.power.tasks_needed_for``).
    """

    tasks: int
    reps: float
    alpha: float
    power: float
    mde: float | None
    mde_unlimited_reps: float | None
    variance_of_task_differences: float | None
    between_task_variance: float | None
    within_task_variance: float | None
    method: str
    #: the pairs the analysis was made from (for planning other sample sizes); not part of equality
    counts: PairedCounts | None = dataclasses.field(default=None, compare=False, repr=False, metadata={"json": False})


@dataclass(frozen=True)
class GateFeasibility:
    """Can a gate of the reference rule pass at ``pairs`` matched pairs?

    ``bound_if_arms_agree`` is the deciding bound when the two arms agree on every
    pair (no discordant pair, e.g. neither arm ever has a false positive):
    +-(1 - 0.025^(1/n)).  ``best_bound_not_better`` is the most favourable deciding
    bound over every outcome in which the candidate is *not better* than the
    baseline (exact search over the discordant count; for ``equivalence`` the
    half-width max(-lower, upper) with equal wins and losses).  A gate that cannot
    pass then can only be passed by a candidate that is observably better than
    the baseline.  ``min_pairs_if_arms_agree`` is the smallest n at which
    agreement on every pair passes.
    """

    kind: str
    margin: float
    pairs: int
    bound_if_arms_agree: float
    can_pass_if_arms_agree: bool
    best_bound_not_better: float
    can_pass_not_better: bool
    min_pairs_if_arms_agree: int
    method: str
    sentence: str


@dataclass(frozen=True)
class RateGateFeasibility:
    """Can a Clopper-Pearson lower-bound gate (validity) pass at ``attempts``?"""

    attempts: int
    threshold: float
    best_lower_bound: float
    can_pass: bool
    failures_tolerated: int | None
    min_attempts: int
    method: str
    sentence: str


# --------------------------------------------------------------------------- verdicts

VerdictOutcome = Literal["candidate better", "candidate worse", "not distinguishable", "no verdict"]
BETTER: Final = "candidate better"
WORSE: Final = "candidate worse"
NOT_DISTINGUISHABLE: Final = "not distinguishable"
#: Too little to compare (the interval over tasks is undefined): never "not distinguishable", which
#: claims a comparison was made (issue 25).
NO_VERDICT: Final = "no verdict"


@dataclass(frozen=True)
class Verdict:
    """The comparison verdict and the numbers that decided it.

    ``outcome`` is the decision (:data:`BETTER`, :data:`WORSE`, :data:`NOT_DISTINGUISHABLE`, or
    :data:`NO_VERDICT` when the interval over tasks is undefined); ``sentence`` says it in words.
    """

    outcome: VerdictOutcome
    sentence: str
    difference: float | None
    lower: float | None
    upper: float | None
    confidence: float
    p_value: float
    alpha: float
    tasks: int
    mde: float | None
    tasks_needed: int | None
    difference_of_interest: float | None
    reasons: tuple[str, ...]
    method: str


@dataclass(frozen=True)
class GateDiagnosis:
    """Why a reference gate passed or failed.

    ``reason``: "passed"; "cannot pass at this sample size" (no outcome where the
    candidate is not better than the baseline passes at these pairs);
    "candidate worse" (the point estimate itself is beyond the margin; for
    equivalence "difference beyond margin"); "underpowered" (the point estimate
    is within the margin, and at the observed discordance an equally good
    candidate would pass with probability below ``power``); "estimate too close
    to the margin" (the campaign would usually pass an equally good candidate,
    but the observed difference leans towards the margin).  For failed gates the
    exact pass probability at the observed discordance (true difference 0), the
    pairs needed for 80% power and the smallest margin these pairs certify with
    80% power are given.
    """

    kind: str
    margin: float
    passed: bool
    reason: str
    sentence: str
    estimate: float | None
    deciding_bound: float | None
    feasibility: GateFeasibility
    observed_discordance: float | None
    pass_probability_if_equal: float | None
    pairs_needed: int | None
    margin_needed: float | None
    method: str


# --------------------------------------------------------------------------- experiment comparison


@dataclass(frozen=True)
class MetricEstimate:
    """A task-macro metric for one side and one k."""

    key: str
    label: str
    k: int
    estimate: float | None
    eligible_tasks: int
    total_tasks: int
    interval: Interval  # t interval over per-task estimates, clipped to [0, 1]
    betting: Interval  # Waudby-Smith-Ramdas, valid at every task count
    few_tasks: bool
    warning: str | None
    method: str


@dataclass(frozen=True)
class MacroSummary:
    k: int
    eligible_tasks: int
    total_tasks: int
    pass_at_k: MetricEstimate
    pass_pow_k_observed: MetricEstimate
    pass_pow_k_unbiased: MetricEstimate

    @property
    def metrics(self) -> tuple[MetricEstimate, MetricEstimate, MetricEstimate]:
        return (self.pass_at_k, self.pass_pow_k_observed, self.pass_pow_k_unbiased)


@dataclass(frozen=True)
class PairedSummary:
    runs: WinLossTie
    tasks: WinLossTie
    difference: ClusteredDifference
    sign_flip: SignFlipTest
    mcnemar: McNemarTest
    tango: Interval  # on run pairs, 95% two-sided


@dataclass(frozen=True)
class ExperimentComparison:
    ks: tuple[int, ...]
    candidate: tuple[MacroSummary, ...]
    baseline: tuple[MacroSummary, ...]
    paired: PairedSummary
    power: PowerAnalysis
    verdict: Verdict
    warnings: tuple[str, ...]

    @property
    def pairs(self) -> int:
        """How many strictly matched (task, repetition) pairs the statistics are over."""
        return self.paired.difference.pairs


# --------------------------------------------------------------------------- ledger gates


@dataclass(frozen=True)
class LedgerGateAnnotation:
    """Statistics shown next to one reference ledger gate (recall or false-positive difference).

    ``reference`` are the reference rule's bounds recomputed with beta quantiles
    (the admission decision stays the ledger summary's); ``tango`` is the Tango
    score interval at 90% two-sided, so each bound is a nominal 95% one-sided
    bound like the gate's; ``clustering`` the design effect of treating repeats
    (and defects) of one case as independent.
    """

    kind: str
    margin: float
    cases: int
    pairs: int
    wins: int
    losses: int
    ties: int
    reference: ReferenceBounds
    reference_label: str
    tango: Interval
    mcnemar: McNemarTest
    clustering: DesignEffect
    diagnosis: GateDiagnosis
