"""metric: mean (issue 29): the task-macro mean score and the paired rule on real-valued scores."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from generator.analyze.stats.experiment import paired_comparison
from generator.analyze.stats.rule import minimum_detectable_difference, paired_scores, tasks_needed
from generator.analyze.stats.scores import score_comparison
from generator.model.stats import BETTER, NOT_DISTINGUISHABLE

CANDIDATE = {"a": [1.0, 0.5], "b": [0.8, 0.8], "c": [0.0, 1.0]}
BASELINE = {"a": [0.5, 0.5], "b": [0.8, 0.0], "c": [0.0, 0.5]}


def test_means_and_intervals_by_hand() -> None:
    result = score_comparison(CANDIDATE, BASELINE, scorer="partial", total_tasks=4)
    # task means: candidate .75 .8 .5, baseline .5 .4 .25; per-task differences .25 .4 .25
    assert math.isclose(result.candidate.estimate or 0, (0.75 + 0.8 + 0.5) / 3)
    assert math.isclose(result.baseline.estimate or 0, (0.5 + 0.4 + 0.25) / 3)
    assert (result.candidate.eligible_tasks, result.candidate.total_tasks) == (3, 4)
    t = float(stats.t.ppf(0.975, 2))
    half = t * math.sqrt(((0.25 - 0.3) ** 2 + (0.4 - 0.3) ** 2 + (0.25 - 0.3) ** 2) / 2) / math.sqrt(3)
    diff = result.difference
    assert math.isclose(diff.estimate or 0, 0.3)
    assert math.isclose(diff.interval.lower or 0, 0.3 - half) and math.isclose(diff.interval.upper or 0, 0.3 + half)
    # pooled over the 6 pair differences .5 0 0 .8 0 .5 (equal repetitions: the macro mean)
    assert math.isclose(diff.pooled_estimate or 0, 1.8 / 6)
    pairs = np.asarray([0.5, 0.0, 0.0, 0.8, 0.0, 0.5])
    assert math.isclose(diff.se_iid or 0, float(pairs.std(ddof=1)) / math.sqrt(6))
    # three tasks, all differences positive: p = 2 / 2^3; the rule cannot reach 0.05 with three tasks
    assert result.sign_flip.p_value == 0.25 and result.sign_flip.exact
    assert result.verdict.outcome == NOT_DISTINGUISHABLE
    assert result.power.mde is None  # 2^(1 - 3) >= alpha: not stated
    assert (result.tasks.wins, result.tasks.losses, result.tasks.ties) == (3, 0, 0)
    assert (result.runs.wins, result.runs.losses, result.runs.ties) == (3, 0, 3)
    assert "scorer partial" in diff.method


def test_candidate_interval_is_the_t_interval_of_task_means() -> None:
    result = score_comparison(CANDIDATE, BASELINE, scorer=None, total_tasks=3)
    means = np.asarray([0.75, 0.8, 0.5])
    half = float(stats.t.ppf(0.975, 2)) * float(means.std(ddof=1)) / math.sqrt(3)
    assert math.isclose(result.candidate.interval.lower or 0, means.mean() - half)
    assert result.candidate.interval.upper == 1.0  # clipped to [0, 1]
    assert result.candidate.betting.lower is not None and result.candidate.betting.lower <= means.mean()


def test_pass_fail_scores_give_exactly_the_pass_at_1_verdict() -> None:
    rng = np.random.default_rng(7)
    cand = {f"t{i:02d}": [bool(x) for x in rng.random(3) < 0.7] for i in range(25)}
    base = {f"t{i:02d}": [bool(x) for x in rng.random(3) < 0.4] for i in range(25)}
    passes = paired_comparison(cand, base)
    mean = score_comparison(
        {t: [float(v) for v in vs] for t, vs in cand.items()},
        {t: [float(v) for v in vs] for t, vs in base.items()},
        scorer=None,
        total_tasks=25,
    )
    a, b = passes.verdict, mean.verdict
    assert (a.outcome, a.p_value, a.mde, a.tasks_needed) == (b.outcome, b.p_value, b.mde, b.tasks_needed)
    assert math.isclose(a.difference or 0, b.difference or 0)
    assert math.isclose(a.lower or 0, b.lower or 0) and math.isclose(a.upper or 0, b.upper or 0)
    assert math.isclose(passes.paired.difference.design_effect or 0, mean.difference.design_effect or 0)
    assert math.isclose(mean.candidate.estimate or 0, passes.candidate[0].pass_at_k.estimate or 0)


def _partial(seed: int, shift: float, tasks: int = 40, reps: int = 3) -> dict[str, list[float]]:
    rng = np.random.default_rng(seed)
    levels = np.asarray([0.0, 0.5, 0.8, 1.0])
    weights = np.asarray([0.25 - shift, 0.25, 0.25, 0.25 + shift])
    return {f"t{i:02d}": [float(x) for x in rng.choice(levels, size=reps, p=weights)] for i in range(tasks)}


def test_partial_credit_verdict_and_its_mde_come_from_the_rule_without_the_pass_fail_floor() -> None:
    cand, base = _partial(1, 0.2), _partial(2, -0.2)
    result = score_comparison(cand, base, scorer="partial", total_tasks=40)
    assert result.verdict.outcome == BETTER
    scores = paired_scores(cand, base)
    assert not scores.binary
    assert result.power.mde == minimum_detectable_difference(scores)
    assert result.power.mde is not None and "no pass/fail floor" in result.power.method
    # the MDE's bootstrap needs no pass/fail value: a few tasks of partial credit get an MDE below the
    # pass/fail floor K / (K + T R) of the same design
    k = (float(stats.t.ppf(0.975, 39)) + float(stats.norm.ppf(0.8))) ** 2
    assert result.power.mde > 0 and result.power.mde != k / (k + 40 * 3)


def test_not_distinguishable_names_the_tasks_the_rule_needs_in_points() -> None:
    cand, base = _partial(3, 0.03), _partial(4, 0.0)
    result = score_comparison(cand, base, scorer=None, total_tasks=40)
    verdict = result.verdict
    assert verdict.outcome == NOT_DISTINGUISHABLE
    assert verdict.tasks_needed == tasks_needed(paired_scores(cand, base), verdict.difference_of_interest or 0)
    assert "points" in verdict.sentence and "percentage" not in verdict.sentence


def test_no_or_one_shared_task_is_no_verdict_never_a_crash() -> None:
    for cand, base in (({}, {}), ({"a": [0.5]}, {"a": [0.8]})):
        result = score_comparison(cand, base, scorer=None, total_tasks=1)
        assert result.verdict.outcome == "no verdict" and result.power.mde is None
        assert result.difference.interval.lower is None
