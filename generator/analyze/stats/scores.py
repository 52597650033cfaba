"""``metric: mean`` (issue 29): the task-macro mean score of each side and the paired rule on it.

Pure functions over per-task lists of per-repetition scores in [0, 1] over strictly matched pairs
(pair i of task t is the same (task, repetition) on both sides).  A side's mean is the mean over a
task's repetitions, then over tasks, with the t interval over tasks and the betting interval
(:mod:`.intervals`).  The verdict is the site's one rule (:mod:`.rule`, :func:`.verdict.experiment_verdict`):
the task-clustered t interval over the per-task mean differences excludes 0 and the sign-flip test over
tasks has p < alpha; its MDE and "would need about N tasks" come from the same rule's bootstrap, which
works on the real-valued differences (the pass / fail floor applies only when every score is 0 or 1).
Effects are in points: the difference of mean scores x 100.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from generator.analyze.stats.intervals import betting_interval, t_interval
from generator.analyze.stats.paired import clustered_difference_sums, sign_flip_test_counts
from generator.analyze.stats.power import minimum_detectable_score_effect
from generator.analyze.stats.rule import PairedScores, paired_scores
from generator.analyze.stats.verdict import experiment_verdict
from generator.model.scores import ScoreComparison
from generator.model.stats import (
    ClusteredDifference,
    Interval,
    MetricEstimate,
    PowerAnalysis,
    SignFlipTest,
    WinLossTie,
)

__all__ = ["POINTS", "PairedScoreTests", "paired_score_tests", "score_comparison", "side_mean"]

#: The unit of a ``metric: mean`` effect: the difference of mean scores x 100.
POINTS = "points"
#: Below this many tasks the t interval is flagged as approximate (as for pass@k).
FEW_TASKS = 30
_MEAN_METHOD = "task-macro mean score: the mean over a task's repetitions, then over tasks"


def side_mean(
    task_means: Sequence[float], total_tasks: int, confidence: float = 0.95, names: Sequence[str] | None = None
) -> MetricEstimate:
    """One side's task-macro mean score with the t interval over tasks (clipped to [0, 1]) and the
    betting interval, from per-task means; ``names`` (the tasks) order the betting interval by a keyed
    hash (:func:`.intervals.betting_order`)."""
    values = np.asarray(task_means, dtype=float)
    T = int(values.size)
    if T == 0:
        note = "undefined: no task has a matched pair"
        iv = Interval(None, None, None, confidence, "t interval over per-task values", note)
        bet = Interval(None, None, None, confidence, "Waudby-Smith-Ramdas betting interval", note)
        return MetricEstimate("mean", "mean score", 1, None, 0, total_tasks, iv, bet, True, note, _MEAN_METHOD)
    few = T < FEW_TASKS
    warning = (
        f"only {T} task(s): the t interval is approximate; the betting interval is valid at any task count"
        if few
        else None
    )
    return MetricEstimate(
        "mean",
        "mean score",
        1,
        statistics.fmean(values.tolist()),
        T,
        total_tasks,
        t_interval(values, confidence),
        betting_interval(values, confidence, names=names),
        few,
        warning,
        _MEAN_METHOD,
    )


def _win_loss(
    candidate: Mapping[str, Sequence[float]], baseline: Mapping[str, Sequence[float]]
) -> tuple[WinLossTie, WinLossTie]:
    """(over runs, over tasks): a run wins when its score is higher; a task when its mean score is."""
    names = sorted(candidate)
    diffs = [c - b for name in names for c, b in zip(candidate[name], baseline[name], strict=True)]
    task_diffs = [
        statistics.fmean(candidate[name]) - statistics.fmean(baseline[name]) for name in names if candidate[name]
    ]
    runs = WinLossTie(
        "runs",
        sum(1 for d in diffs if d > 0),
        sum(1 for d in diffs if d < 0),
        sum(1 for d in diffs if d == 0),
        None,
        None,
        "counts over matched (task, repetition) pairs: win = the candidate's score is higher",
    )
    tasks = WinLossTie(
        "tasks",
        sum(1 for d in task_diffs if d > 0),
        sum(1 for d in task_diffs if d < 0),
        sum(1 for d in task_diffs if d == 0),
        None,
        None,
        "counts over tasks: win = the candidate's mean score on the task's matched pairs is higher",
    )
    return runs, tasks


@dataclass(frozen=True)
class PairedScoreTests:
    """The paired statistics of real-valued scores over strictly matched pairs: the one place where
    ``metric: mean`` turns per-task score lists into the rule's inputs (comparisons and leaderboards).

    ``difference``: the task-clustered difference (t interval over per-task mean differences);
    ``sign_flip``: the sign-flip test over tasks; ``scores``: the per-task mean differences for the
    rule's MDE and "would need N tasks"; ``within``: the mean over tasks with two or more pairs of the
    sample variance of their per-pair differences (sigma_w^2), or None.
    """

    scores: PairedScores
    difference: ClusteredDifference
    sign_flip: SignFlipTest
    within: float | None
    #: per task (the order of ``scores.tasks``): pairs, sum of per-pair differences, sum of their squares
    sums: tuple[np.ndarray, np.ndarray, np.ndarray]
    what: str

    def difference_at(self, confidence: float) -> ClusteredDifference:
        """The task-clustered difference at another confidence (a simultaneous interval)."""
        return clustered_difference_sums(*self.sums, confidence, self.what)

    def power(self, *, alpha: float = 0.05, power: float = 0.8) -> PowerAnalysis:
        """The rule's MDE at ``power`` (:func:`.power.minimum_detectable_score_effect`)."""
        return minimum_detectable_score_effect(self.scores, self.within, alpha=alpha, power=power)


def paired_score_tests(
    candidate: Mapping[str, Sequence[float]],
    baseline: Mapping[str, Sequence[float]],
    confidence: float,
    what: str,
) -> PairedScoreTests:
    """:class:`PairedScoreTests` of per-task score lists (the same tasks, the same number of scores
    per task, every score in [0, 1]: ValueError otherwise); ``what`` names the difference."""
    if sorted(candidate) != sorted(baseline) or any(len(candidate[t]) != len(baseline[t]) for t in candidate):
        raise ValueError("candidate and baseline must hold the same tasks and repetitions (strictly matched pairs)")
    scores = paired_scores(candidate, baseline)  # checks every score is a number in [0, 1]
    names = list(scores.tasks)
    sizes = np.asarray([len(candidate[name]) for name in names], dtype=float)
    pair_diffs = [np.asarray(candidate[n], dtype=float) - np.asarray(baseline[n], dtype=float) for n in names]
    sums = np.asarray([float(d.sum()) for d in pair_diffs])
    squares = np.asarray([float(np.dot(d, d)) for d in pair_diffs])
    difference = clustered_difference_sums(sizes, sums, squares, confidence, what)
    flip = sign_flip_test_counts(scores.numerators, scores.denominators)
    multi = [d for d in pair_diffs if d.size >= 2]
    within = statistics.fmean(float(d.var(ddof=1)) for d in multi) if multi else None
    return PairedScoreTests(scores, difference, flip, within, (sizes, sums, squares), what)


def score_comparison(
    candidate: Mapping[str, Sequence[float]],
    baseline: Mapping[str, Sequence[float]],
    *,
    scorer: str | None,
    total_tasks: int,
    confidence: float = 0.95,
    alpha: float = 0.05,
    power: float = 0.8,
) -> ScoreComparison:
    """Both sides' task-macro mean score and the paired verdict on it.

    ``candidate`` and ``baseline`` hold the same tasks with the same number of scores per task (a
    caller error otherwise: ``ValueError``); every score must lie in [0, 1].
    """
    what = "difference in mean score (candidate - baseline)" + (f", scorer {scorer}" if scorer else "")
    tests = paired_score_tests(candidate, baseline, confidence, what)
    scores, difference, flip = tests.scores, tests.difference, tests.sign_flip
    pw = tests.power(alpha=alpha, power=power)
    verdict = experiment_verdict(difference, flip, pw, alpha=alpha, scores=scores, unit=POINTS)
    runs, tasks = _win_loss(candidate, baseline)
    warnings = []
    if difference.tasks < FEW_TASKS:
        warnings.append(
            f"only {difference.tasks} task(s) with matched pairs: t intervals over tasks are approximate; "
            "prefer the betting intervals and the exact sign-flip test"
        )
    if not flip.exact:
        warnings.append("the sign-flip test ran by Monte Carlo (many distinct real-valued differences)")
    means = {
        side: [statistics.fmean(values[name]) for name in scores.tasks]
        for side, values in (("c", candidate), ("b", baseline))
    }
    return ScoreComparison(
        scorer=scorer,
        candidate=side_mean(means["c"], total_tasks, confidence, scores.tasks),
        baseline=side_mean(means["b"], total_tasks, confidence, scores.tasks),
        runs=runs,
        tasks=tasks,
        difference=difference,
        sign_flip=flip,
        power=pw,
        verdict=verdict,
        warnings=tuple(warnings),
    )
