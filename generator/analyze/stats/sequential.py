"""A regression gate over a build history with a false-alarm rate stated for the whole history.

Every build i >= 1 is compared with the *first* build (the fixed reference) by the comparison rule
of :mod:`generator.analyze.stats.rule` (task-clustered interval and sign-flip test over tasks) at
level alpha_i = alpha * 6 / (pi^2 i^2).  Because sum over i >= 1 of 6 / (pi^2 i^2) = 1, the
union bound gives, for an unlimited sequence of builds of an unchanged system,

    P(any build is ever flagged, regression or improvement) <= sum_i alpha_i = alpha,

whatever the dependence between the comparisons (they share the reference build).  Each single
comparison is valid at its level because a rebuilt unchanged system's runs are exchangeable with the
reference's, task by task (the sign-flip test's null).  The gate spends its alpha early: the first
builds are tested at 3.0%, 0.76%, 0.34%, ...; a large drop is still caught late (a 15-point drop at
80 tasks x 5 repetitions, ``make calibrate`` measures the delay).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from generator.analyze.stats.rule import BETTER, WORSE, RuleResult, decide, paired_scores

__all__ = ["IMPROVEMENT", "REGRESSION", "HistoryStep", "history", "level"]

REGRESSION = "regression"
IMPROVEMENT = "improvement"
MAX_BUILDS = 10_000


@dataclass(frozen=True)
class HistoryStep:
    """Build ``index`` against build 0 at level ``alpha_spent``; ``flag`` is None for build 0."""

    index: int
    flag: str | None
    alpha_spent: float
    comparison: RuleResult | None


def level(i: int, alpha: float) -> float:
    """alpha_i = alpha * 6 / (pi^2 i^2) for build i >= 1 (the levels sum to alpha)."""
    if i < 1:
        raise ValueError("build index must be at least 1")
    return alpha * 6.0 / (math.pi**2 * i * i)


def history(builds: Sequence[Mapping[str, Sequence[float]]], *, alpha: float = 0.05) -> tuple[HistoryStep, ...]:
    """Flag regressions and improvements over ``builds`` (oldest first); see the module docstring."""
    if isinstance(builds, Mapping) or not isinstance(builds, Sequence):
        raise ValueError("builds must be a sequence of {task: scores}, oldest first")
    if len(builds) > MAX_BUILDS:
        raise ValueError(f"more than {MAX_BUILDS:,} builds")
    if not 0.0 < alpha < 1.0:
        raise ValueError("alpha must lie strictly between 0 and 1")
    if not builds:
        return ()
    reference = builds[0]
    paired_scores(reference, reference)  # validate build 0 even when it is the only one
    steps = [HistoryStep(0, None, 0.0, None)]
    for i in range(1, len(builds)):
        a_i = level(i, alpha)
        result = decide(paired_scores(builds[i], reference), a_i)
        flag = {WORSE: REGRESSION, BETTER: IMPROVEMENT}.get(result.outcome)
        steps.append(HistoryStep(i, flag, a_i, result))
    return tuple(steps)
