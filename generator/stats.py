"""Public statistics API: comparisons, leaderboards and build histories whose conclusions are calibrated.

Scores are given per task as the repetitions' scores in [0, 1] (pass = 1.0, fail = 0.0, partial
credit in between), aligned by task name and repetition index: repetition i of a task on one side
is paired with repetition i of the same task on the other; tasks or repetitions only one side has
are left out.  ``make calibrate`` measures every error rate stated here (docs/statistics.md,
"Calibration")::

    from generator import stats

    d = stats.compare(candidate, baseline)
    d.outcome      # "better" | "worse" | "not distinguishable" | "no verdict"
    d.difference   # task-macro mean, candidate - baseline
    d.interval     # (low, high), 95%
    d.mde          # smallest true difference this same rule detects with probability d.mde_power
    b = stats.leaderboard(systems, correction="holm")
    b.distinguishable(a, c)  # True / False, or None when the two share no task
    b.groups[name]           # frozenset of labels; a and c share one exactly when not distinguishable
    h = stats.history(builds)   # oldest first
    h[i].flag      # for i >= 1: "regression" | "improvement" | None

Bad input raises ``ValueError`` with a one-line message.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields

from generator.analyze.stats.groups import Board, PairResult, board
from generator.analyze.stats.rule import (
    BETTER,
    MIN_SHARED_TASKS,
    NO_VERDICT,
    NOT_DISTINGUISHABLE,
    WORSE,
    RuleResult,
    decide,
    minimum_detectable_difference,
    paired_scores,
)
from generator.analyze.stats.sequential import IMPROVEMENT, REGRESSION, HistoryStep
from generator.analyze.stats.sequential import history as _history
from generator.model.leaderboard import Correction

__all__ = [
    "BETTER",
    "IMPROVEMENT",
    "MIN_SHARED_TASKS",
    "NOT_DISTINGUISHABLE",
    "NO_VERDICT",
    "REGRESSION",
    "WORSE",
    "Board",
    "Decision",
    "HistoryStep",
    "PairResult",
    "compare",
    "history",
    "leaderboard",
]

Scores = Mapping[str, Sequence[float]]


@dataclass(frozen=True)
class Decision(RuleResult):
    """The comparison of one candidate with one baseline.

    ``outcome``: "better" / "worse" when the task-clustered (1 - alpha) t interval over the per-task
    mean differences excludes 0 *and* the sign-flip test over tasks has p < alpha (the comparison
    pages' rule); "not distinguishable" otherwise; "no verdict" with fewer than
    :data:`MIN_SHARED_TASKS` shared tasks.  ``mde``: the smallest true task-macro difference this
    same rule calls with probability ``mde_power`` at this design (None when no difference up to 1
    reaches it, e.g. with five tasks or fewer the sign-flip test can never reach p < 0.05).
    """

    mde: float | None
    mde_power: float


def compare(candidate: Scores, baseline: Scores, *, alpha: float = 0.05, power: float = 0.8) -> Decision:
    """Candidate against baseline over the shared tasks (see :class:`Decision`)."""
    scores = paired_scores(candidate, baseline)
    result = decide(scores, alpha)
    mde = minimum_detectable_difference(scores, alpha=alpha, power=power)
    return Decision(**{f.name: getattr(result, f.name) for f in fields(result)}, mde=mde, mde_power=power)


def leaderboard(systems: Mapping[str, Scores], correction: Correction = "holm", *, alpha: float = 0.05) -> Board:
    """Every pair compared by :func:`compare`'s rule, the family corrected (Holm by default), then grouped.

    ``distinguishable(a, c)`` is True when the corrected test calls a difference, None when the two
    share fewer than :data:`MIN_SHARED_TASKS` tasks (listed in ``not_comparable``).  ``groups[name]``
    holds the labels of the maximal groups of mutually indistinguishable systems it belongs to
    (a, b, c, ... by the best mean score in the group), so two systems share a label exactly when
    ``distinguishable`` is False.  With Holm, the probability that any pair of truly equal systems
    is called distinguishable is at most alpha.  The result does not depend on the mapping's order.
    """
    return board(systems, correction=correction, alpha=alpha)


def history(builds: Sequence[Scores], *, alpha: float = 0.05) -> tuple[HistoryStep, ...]:
    """Regression gate over builds, oldest first; ``h[i].flag`` for i >= 1.

    Build i is compared with the reference build (build 0, or the last improvement) by :func:`compare`'s
    rule at level alpha * 6 / (pi^2 j^2), j counting the builds since the reference.
    Guarantee: for an unchanged system, the probability that *any* build of an unlimited history is
    flagged (regression or improvement) is at most ``alpha`` (union bound; the levels sum to alpha).
    """
    return _history(builds, alpha=alpha)
