"""A regression gate over a build history with a false-alarm rate stated for the whole history.

Every build is compared with a fixed *reference* build (the first one; after an improvement, the
improved build, so that the gate then guards the new level) by the comparison rule of
:mod:`generator.analyze.stats.rule` (task-clustered interval and sign-flip test over tasks); the
i-th build after the reference is tested at level alpha_i = alpha * 6 / (pi^2 i^2).  Because
sum over i >= 1 of 6 / (pi^2 i^2) = 1, the union bound gives, for an unlimited sequence of builds
of a system unchanged since its reference,

    P(any build is ever flagged, regression or improvement) <= sum_i alpha_i = alpha,

whatever the dependence between the comparisons (they share the reference build).  Each single
comparison is valid at its level because a rebuilt unchanged system's runs are exchangeable with the
reference's, task by task (the sign-flip test's null).  The gate spends its alpha early: the first
builds are tested at 3.0%, 0.76%, 0.34%, ...; a large drop is still caught late (a 15-point drop at
80 tasks x 5 repetitions, ``make calibrate`` measures the delay).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from generator.analyze.stats.rule import BETTER, NOT_DISTINGUISHABLE, WORSE, RuleResult, decide, paired_scores

__all__ = ["IMPROVEMENT", "REGRESSION", "HistoryStep", "gate", "history", "level"]

REGRESSION = "regression"
IMPROVEMENT = "improvement"
MAX_BUILDS = 10_000


@dataclass(frozen=True)
class HistoryStep:
    """Build ``index`` against build ``reference`` at level ``alpha_spent``; ``flag`` is None for build 0."""

    index: int
    flag: str | None
    alpha_spent: float
    comparison: RuleResult | None
    reference: int = 0


def level(i: int, alpha: float) -> float:
    """alpha_i = alpha * 6 / (pi^2 i^2) for build i >= 1 (the levels sum to alpha)."""
    if i < 1:
        raise ValueError("build index must be at least 1")
    return alpha * 6.0 / (math.pi**2 * i * i)


def gate(
    count: int, compare: Callable[[int, int, float], RuleResult | None], *, alpha: float = 0.05
) -> list[HistoryStep]:
    """The gate over builds 0 .. count - 1: ``compare(i, reference, level)`` applies the rule (None: not compared).

    A build that could not be compared spends no alpha and keeps the reference. An improvement
    becomes the reference of the builds after it (the levels start again at alpha_1); a regression
    does not, so it stays flagged in every later build until the level comes back (rerunning a
    failed build cannot make the gate pass).
    """
    if not 0.0 < alpha < 1.0:
        raise ValueError("alpha must lie strictly between 0 and 1")
    steps = [HistoryStep(0, None, 0.0, None, 0)] if count else []
    reference, since = 0, 0
    for i in range(1, count):
        a_i = level(since + 1, alpha)
        result = compare(i, reference, a_i)
        if result is None or result.outcome not in (BETTER, WORSE, NOT_DISTINGUISHABLE):
            steps.append(HistoryStep(i, None, 0.0, result, reference))
            continue
        flag = {WORSE: REGRESSION, BETTER: IMPROVEMENT}.get(result.outcome)
        steps.append(HistoryStep(i, flag, a_i, result, reference))
        since += 1
        if flag == IMPROVEMENT:
            reference, since = i, 0
    return steps


def history(builds: Sequence[Mapping[str, Sequence[float]]], *, alpha: float = 0.05) -> tuple[HistoryStep, ...]:
    """Flag regressions and improvements over ``builds`` (oldest first); see the module docstring."""
    if isinstance(builds, Mapping) or not isinstance(builds, Sequence):
        raise ValueError("builds must be a sequence of {task: scores}, oldest first")
    if len(builds) > MAX_BUILDS:
        raise ValueError(f"more than {MAX_BUILDS:,} builds")
    if not 0.0 < alpha < 1.0:
        raise ValueError("alpha must lie strictly between 0 and 1")
    if builds:
        paired_scores(builds[0], builds[0])  # validate build 0 even when it is the only one
    return tuple(gate(len(builds), lambda i, ref, a_i: decide(paired_scores(builds[i], builds[ref]), a_i), alpha=alpha))
