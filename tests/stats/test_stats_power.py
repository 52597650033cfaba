"""Power, MDE, and the reference gate's exact operating characteristic and feasibility."""

import math

import numpy as np
import pytest
from scipy import stats

from generator.analyze.stats.intervals import _reference_bounds_arrays, reference_paired_bounds
from generator.analyze.stats.paired import PairedCounts
from generator.analyze.stats.power import (
    gate_feasibility,
    gate_margin_needed,
    gate_pairs_needed,
    gate_pass_probability,
    minimum_detectable_effect,
    noninferiority_pairs_needed,
    rate_gate_feasibility,
    scores_of,
    tasks_needed_for,
)
from generator.analyze.stats.rule import decide, minimum_detectable_difference
from generator.model.stats import as_json
from tests.support.hypo import examples

K80 = (stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) ** 2

# --------------------------------------------------------------------------- experiments


def test_mde_is_the_rules_mde_and_variance_split():
    reps = [4] * 8
    wins = [2, 0, 1, 3, 0, 1, 2, 1]
    losses = [0, 1, 1, 0, 2, 0, 0, 1]
    counts = PairedCounts.from_counts(reps, wins, losses)
    pw = minimum_detectable_effect(counts)
    d = np.array([(w - l) / 4 for w, l in zip(wins, losses, strict=True)])
    s2 = d.var(ddof=1)
    runs = [np.array([1] * w + [-1] * l + [0] * (4 - w - l), float) for w, l in zip(wins, losses, strict=True)]
    within = np.mean([r.var(ddof=1) for r in runs])
    assert pw.variance_of_task_differences == pytest.approx(s2)
    assert pw.within_task_variance == pytest.approx(within)
    assert pw.between_task_variance == pytest.approx(max(0.0, s2 - within / 4))
    assert pw.mde == minimum_detectable_difference(scores_of(counts))
    # the rule needs both the t interval and the sign-flip test: never below the t-based normal MDE
    t80 = (stats.t.ppf(0.975, 7) + stats.norm.ppf(0.8)) * math.sqrt(s2 / 8)
    assert pw.mde > 0.9 * t80
    assert "counts" not in as_json(pw)  # the pairs are kept for planning, never exported


def test_mde_floor_when_every_pair_ties():
    pw = minimum_detectable_effect(PairedCounts.from_counts([10] * 50, [0] * 50, [0] * 50))
    assert pw.variance_of_task_differences == 0.0
    k = (stats.t.ppf(0.975, 49) + stats.norm.ppf(0.8)) ** 2
    assert pw.mde == pytest.approx(k / (k + 500))  # the least variance X(1-X)/R a true difference X creates


def _experiment(rng, p, reps, shift=0.0):
    """Per task, `reps` pass/fail runs at probability p_t (+ shift), as counts against a baseline at p_t."""
    c = rng.random((p.size, reps)) < np.clip(p + shift, 0, 1)[:, None]
    b = rng.random((p.size, reps)) < p[:, None]
    return PairedCounts.from_counts([reps] * p.size, (c & ~b).sum(1), (~c & b).sum(1), (c & b).sum(1))


def test_the_rule_reaches_about_its_stated_power_at_the_mde():
    """Seeded simulation: at the MDE reported for one experiment, new experiments are called ~80% of the time."""
    rng = np.random.default_rng(11)
    p = rng.uniform(0.2, 0.7, 60)
    mde = minimum_detectable_effect(_experiment(rng, p, 3)).mde
    called = 0
    sims = examples(400)
    for _ in range(sims):
        counts = _experiment(rng, p, 3, mde)
        called += decide(scores_of(counts)).outcome == "better"
    assert 0.8 - 4 * math.sqrt(0.16 / sims) - 0.06 < called / sims < 0.8 + 4 * math.sqrt(0.16 / sims) + 0.06


def test_tasks_needed_inverts_the_mde_and_more_reps_never_beat_the_task_floor():
    rng = np.random.default_rng(3)
    T = 200
    strong = rng.random(T) < 0.3  # heterogeneous effects: a third of the tasks differ a lot
    wins = np.where(strong, rng.integers(5, 9, T), rng.integers(0, 2, T))
    losses = np.where(strong, 0, rng.integers(0, 2, T))
    pw = minimum_detectable_effect(PairedCounts.from_counts([10] * T, wins, losses))
    assert pw.between_task_variance > 0.01
    assert abs(tasks_needed_for(pw, pw.mde) - T) <= 0.03 * T  # consistent inversion
    assert tasks_needed_for(pw, 0.05) > tasks_needed_for(pw, 0.10) > tasks_needed_for(pw, 0.20)
    many_reps = tasks_needed_for(pw, 0.05, reps=10**6)
    # more repetitions help, but never below (about) the between-task floor
    assert many_reps < tasks_needed_for(pw, 0.05)
    assert many_reps >= 0.95 * K80 * pw.between_task_variance / 0.0025
    assert pw.mde_unlimited_reps == pytest.approx(math.sqrt(K80 * pw.between_task_variance / T))
    assert pw.mde_unlimited_reps < pw.mde
    assert tasks_needed_for(pw, 0.0) is None


def test_mde_one_task_and_no_tasks():
    one = minimum_detectable_effect(PairedCounts.from_counts([8], [3], [1]))
    assert one.variance_of_task_differences is None and one.mde is None  # the rule has no verdict below 2 tasks
    assert tasks_needed_for(one, 0.1) is None
    none = minimum_detectable_effect(PairedCounts.from_counts([], [], []))
    assert none.mde is None


def test_noninferiority_normal_formula_matches_spec_table():
    table = {(0.1, 0.05): 247, (0.1, 0.10): 62, (0.2, 0.05): 495, (0.2, 0.10): 124, (0.3, 0.05): 742, (0.3, 0.10): 185}
    for (q, m), n in table.items():
        assert abs(noninferiority_pairs_needed(q, m) - n) <= 1  # the spec rounds to nearest, we round up


# --------------------------------------------------------------------------- gate operating characteristic


def brute_pass_probability(n, pw, pl, kind, margin):
    total = 0.0
    for w in range(n + 1):
        for l in range(n - w + 1):
            r = reference_paired_bounds(w, l, n)
            ok = {
                "non_inferiority": r.lower > -margin,
                "upper_margin": r.upper <= margin,
                "equivalence": r.lower > -margin and r.upper < margin,
            }[kind]
            if ok:
                total += stats.multinomial.pmf([w, l, n - w - l], n, [pw, pl, 1 - pw - pl])
    return total


@pytest.mark.parametrize(
    "n,pw,pl,kind,margin",
    [
        (30, 0.1, 0.1, "non_inferiority", 0.2),
        (24, 0.05, 0.15, "upper_margin", 0.25),
        (28, 0.12, 0.08, "equivalence", 0.3),
        (20, 0.3, 0.0, "non_inferiority", 0.05),
    ],
)
def test_pass_probability_matches_brute_force_trinomial_enumeration(n, pw, pl, kind, margin):
    assert gate_pass_probability(n, pw, pl, kind, margin) == pytest.approx(
        brute_pass_probability(n, pw, pl, kind, margin), abs=1e-12
    )


def test_pass_probability_reproduces_spec_decision_study():
    # statistics spec §4 "Decisions": non-inferiority margin 0.10, q = 0.2
    assert gate_pass_probability(50, 0.1, 0.1, "non_inferiority", 0.10) == pytest.approx(0.097, abs=5e-4)
    assert gate_pass_probability(200, 0.1, 0.1, "non_inferiority", 0.10) == pytest.approx(0.658, abs=5e-4)
    assert gate_pass_probability(200, 0.05, 0.15, "non_inferiority", 0.10) == pytest.approx(0.003, abs=5e-4)
    # superiority (lower > 0): power 0.875 at d = +0.10, size 0.017 at d = 0
    assert gate_pass_probability(200, 0.15, 0.05, "non_inferiority", 1e-15) == pytest.approx(0.875, abs=5e-4)
    assert gate_pass_probability(200, 0.1, 0.1, "non_inferiority", 1e-15) == pytest.approx(0.017, abs=5e-4)


def test_pairs_needed_reproduces_spec_table():
    table = {
        (0.1, 0.05): 550,
        (0.1, 0.10): 180,
        (0.2, 0.05): 850,
        (0.2, 0.10): 275,
        (0.3, 0.05): 1200,
        (0.3, 0.10): 350,
    }
    for (q, m), n in table.items():
        assert gate_pairs_needed(q, "non_inferiority", m) == n


def test_superiority_lower_bound_is_exact_mcnemar_at_2_5_percent():
    # spec: L > 0  <=>  one-sided exact McNemar p < 0.025 (0 mismatches over all small tables)
    for n in list(range(1, 31)) + [60, 97]:
        w, l = np.array([(w, l) for w in range(n + 1) for l in range(n - w + 1)]).T
        lower, _ = _reference_bounds_arrays(w, w + l, n)
        p_greater = stats.binom.sf(w - 1, w + l, 0.5)
        p_greater[w + l == 0] = 1.0
        assert np.array_equal(lower > 0, p_greater < 0.025), n
    # the vectorised path is the public one
    assert reference_paired_bounds(9, 1, 30).lower == _reference_bounds_arrays(np.array([9]), np.array([10]), 30)[0][0]


def test_margin_needed_is_the_80_percent_point():
    m = gate_margin_needed(200, 0.2, "non_inferiority")
    assert gate_pass_probability(200, 0.1, 0.1, "non_inferiority", m) >= 0.8
    assert gate_pass_probability(200, 0.1, 0.1, "non_inferiority", m - 2e-4) < 0.8


# --------------------------------------------------------------------------- feasibility


def test_feasibility_spec_thresholds():
    assert gate_feasibility(10, "upper_margin", 0.05).min_pairs_if_arms_agree == 72
    assert gate_feasibility(10, "equivalence", 0.03).min_pairs_if_arms_agree == 122
    assert gate_feasibility(10, "non_inferiority", 0.10).min_pairs_if_arms_agree == 36


def test_seven_clean_cases_times_ten_can_never_pass_five_point_fpr_margin():
    f = gate_feasibility(70, "upper_margin", 0.05)
    assert not f.can_pass_if_arms_agree and not f.can_pass_not_better
    assert f.bound_if_arms_agree == pytest.approx(1 - 0.025 ** (1 / 70)) and f.bound_if_arms_agree > 0.05
    assert "cannot pass" in f.sentence and "72" in f.sentence
    f72 = gate_feasibility(72, "upper_margin", 0.05)
    assert f72.can_pass_if_arms_agree and f72.can_pass_not_better


@pytest.mark.parametrize("kind,margin", [("upper_margin", 0.08), ("non_inferiority", 0.1), ("equivalence", 0.12)])
def test_best_bound_not_better_is_exact_by_brute_force(kind, margin):
    n = 45
    best = None
    for w in range(n + 1):
        for l in range(n - w + 1):
            r = reference_paired_bounds(w, l, n)
            if kind == "non_inferiority" and w <= l:
                v = r.lower
                best = v if best is None else max(best, v)
            elif kind == "upper_margin" and w >= l:
                v = r.upper
                best = v if best is None else min(best, v)
            elif kind == "equivalence" and w == l:
                v = max(-r.lower, r.upper)
                best = v if best is None else min(best, v)
    assert gate_feasibility(n, kind, margin).best_bound_not_better == pytest.approx(best, abs=1e-14)


def test_fpr_gate_at_70_pairs_can_pass_only_if_candidate_is_better():
    # with 3 baseline-only false positives and none for the candidate the bound drops below 5 points
    assert reference_paired_bounds(0, 3, 70).upper <= 0.05 < reference_paired_bounds(0, 2, 70).upper
    assert reference_paired_bounds(0, 0, 70).upper > 0.05


def test_rate_gate_validity_thresholds_from_spec():
    assert rate_gate_feasibility(10, 0.98).min_attempts == 183
    assert rate_gate_feasibility(10, 0.95).min_attempts == 72
    r = rate_gate_feasibility(210, 0.98)
    assert r.can_pass and r.failures_tolerated == 0
    one_failure = stats.beta.ppf(0.025, 209, 2)
    assert one_failure == pytest.approx(0.9738, abs=1e-4) and one_failure < 0.98
    small = rate_gate_feasibility(100, 0.98)
    assert not small.can_pass and small.best_lower_bound == pytest.approx(0.025 ** (1 / 100))
    assert rate_gate_feasibility(1000, 0.95).failures_tolerated == max(
        f for f in range(60) if stats.beta.ppf(0.025, 1000 - f, f + 1) >= 0.95
    )
