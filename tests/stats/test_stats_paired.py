"""Paired statistics: counts, task-clustered difference, design effect, sign-flip test, McNemar."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from generator.analyze.stats.paired import (
    SIGN_FLIP_SEED,
    PairedCounts,
    clustered_difference,
    design_effect,
    mcnemar_test,
    pair_outcomes,
    sign_flip_test,
    sign_flip_test_counts,
    win_loss_tie,
)
from tests.support.hypo import examples

from .helpers import make_pairs

# --------------------------------------------------------------------------- pairing and counts


def test_pair_outcomes_counts_and_order():
    cand = {"b": [True, False, True], "a": [False, False]}
    base = {"a": [True, False], "b": [True, True, False]}
    pc = pair_outcomes(cand, base)
    assert pc.tasks == ("a", "b")
    assert pc.reps == (2, 3) and pc.wins == (0, 1) and pc.losses == (1, 1) and pc.both_pass == (0, 1)
    assert pc.both_fail == (1, 0)
    runs, tasks = win_loss_tie(pc)
    assert (runs.wins, runs.losses, runs.ties, runs.both_pass, runs.both_fail) == (1, 2, 2, 1, 1)
    assert (tasks.wins, tasks.losses, tasks.ties) == (0, 1, 1)


def test_pair_outcomes_rejects_unmatched_pairs():
    with pytest.raises(ValueError, match="same tasks"):
        pair_outcomes({"a": [True]}, {"b": [True]})
    with pytest.raises(ValueError, match="repetition count"):
        pair_outcomes({"a": [True, False]}, {"a": [True]})
    with pytest.raises(ValueError):
        PairedCounts.from_counts([2], [2], [1])


# --------------------------------------------------------------------------- clustered difference


def test_clustered_difference_matches_scipy_t_on_task_means():
    rng = np.random.default_rng(11)
    cand, base = make_pairs(rng, 40, 6, effect=0.05, spread=0.2)
    pc = pair_outcomes(cand, base)
    d = [np.mean(np.array(cand[t], float) - np.array(base[t], float)) for t in sorted(cand)]
    cd = clustered_difference(pc)
    ci = stats.ttest_1samp(d, 0.0).confidence_interval(0.95)
    assert cd.estimate == pytest.approx(np.mean(d))
    assert (cd.interval.lower, cd.interval.upper) == pytest.approx((ci.low, ci.high), rel=1e-12)
    assert cd.se_cluster == pytest.approx(stats.sem(d))
    # equal repetitions: pooled = task-macro and Miller's clustered SE = the task t SE
    assert cd.pooled_estimate == pytest.approx(cd.estimate)
    assert cd.design_effect == pytest.approx((cd.se_cluster / cd.se_iid) ** 2)
    runs = np.concatenate([np.array(cand[t], float) - np.array(base[t], float) for t in sorted(cand)])
    assert cd.se_iid == pytest.approx(runs.std(ddof=1) / math.sqrt(runs.size))
    z = stats.norm.ppf(0.975)
    assert cd.naive_interval.lower == pytest.approx(runs.mean() - z * cd.se_iid)


def test_design_effect_with_perfectly_correlated_repetitions():
    # every repetition of a task has the same outcome: DEFF = (RT - 1)/(T - 1)
    T, R = 12, 5
    rng = np.random.default_rng(1)
    kind = rng.integers(0, 3, T)  # 0 tie, 1 win, 2 loss
    wins = [R if k == 1 else 0 for k in kind]
    losses = [R if k == 2 else 0 for k in kind]
    de = design_effect([R] * T, wins, losses)
    assert de.design_effect == pytest.approx((R * T - 1) / (T - 1))


def test_design_effect_unequal_cluster_sizes_by_hand():
    sizes, wins, losses = [3, 5, 2], [2, 0, 1], [0, 1, 1]
    scores = [[1, 1, 0], [-1, 0, 0, 0, 0], [1, -1]]
    flat = [s for c in scores for s in c]
    N, C = len(flat), len(scores)
    mean = sum(flat) / N
    se_iid = math.sqrt(np.var(flat, ddof=1) / N)
    se_cl = math.sqrt(C / (C - 1) * sum((sum(c) - len(c) * mean) ** 2 for c in scores) / N**2)
    de = design_effect(sizes, wins, losses)
    assert de.se_iid == pytest.approx(se_iid) and de.se_cluster == pytest.approx(se_cl)
    assert de.design_effect == pytest.approx((se_cl / se_iid) ** 2)


def test_all_ties_and_one_task():
    pc = pair_outcomes({"a": [True, False], "b": [False, True]}, {"a": [True, False], "b": [False, True]})
    cd = clustered_difference(pc)
    assert cd.estimate == 0.0 and cd.design_effect is None and cd.se_iid == 0.0
    assert (cd.interval.lower, cd.interval.upper) == (0.0, 0.0) and "degenerate" in cd.interval.note
    one = clustered_difference(pair_outcomes([[True, True, False]], [[False, True, False]]))
    assert one.estimate == pytest.approx(1 / 3) and not one.interval.defined and one.design_effect is None


@settings(max_examples=examples(30), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4), st.integers(0, 4)), min_size=2, max_size=25))
def test_swapping_sides_negates_difference(rows):
    reps = [w + l + t + 1 for w, l, t in rows]
    a = PairedCounts.from_counts(reps, [w for w, _, _ in rows], [l for _, l, _ in rows])
    b = PairedCounts.from_counts(reps, [l for _, l, _ in rows], [w for w, _, _ in rows])
    x, y = clustered_difference(a), clustered_difference(b)
    assert y.estimate == pytest.approx(-x.estimate, abs=1e-12)
    assert y.interval.lower == pytest.approx(-x.interval.upper, abs=1e-12)
    assert x.interval.lower <= x.estimate <= x.interval.upper
    assert sign_flip_test(a).p_value == pytest.approx(sign_flip_test(b).p_value, abs=1e-12)


# --------------------------------------------------------------------------- sign-flip test


def brute_sign_flip(num, den):
    d = [Fraction(n, q) for n, q in zip(num, den, strict=False)]
    obs = abs(sum(d))
    hits = sum(
        abs(sum(s * x for s, x in zip(signs, d, strict=True))) >= obs
        for signs in itertools.product((1, -1), repeat=len(d))
    )
    return hits / 2 ** len(d)


@pytest.mark.parametrize("seed", range(4))
def test_sign_flip_enumeration_matches_rational_brute_force(seed):
    rng = np.random.default_rng(seed)
    den = rng.integers(1, 7, 11)
    num = [int(rng.integers(-q, q + 1)) for q in den]
    r = sign_flip_test_counts(num, den)
    assert r.exact and "enumerated" in r.method
    assert r.p_value == pytest.approx(brute_sign_flip(num, den), abs=1e-15)


def test_sign_flip_matches_scipy_permutation_test():
    rng = np.random.default_rng(9)
    cand, base = make_pairs(rng, 12, 4, effect=0.15)
    pc = pair_outcomes(cand, base)
    x = np.array([np.mean(cand[t]) for t in sorted(cand)])
    y = np.array([np.mean(base[t]) for t in sorted(base)])
    res = stats.permutation_test(
        (x, y),
        lambda a, b, axis: np.sum(a - b, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=np.inf,
        alternative="two-sided",
    )
    assert sign_flip_test(pc).p_value == pytest.approx(res.pvalue, rel=1e-12)


def numpy_enumeration(num, den):
    """Enumerate all 2^T sign vectors on integer-scaled differences (independent of the module's DP)."""
    L = math.lcm(*map(int, den))
    a = np.array([n * (L // q) for n, q in zip(num, den, strict=False)], dtype=np.int64)
    T = a.size
    total = np.zeros(1, dtype=np.int64)
    for v in a:  # build all 2^T partial sums
        total = np.concatenate([total + v, total - v])
    return np.count_nonzero(np.abs(total) >= abs(a.sum())) / 2.0**T


@pytest.mark.parametrize("seed,equal", [(0, True), (1, True), (2, False), (3, False)])
def test_sign_flip_dynamic_programming_matches_enumeration(seed, equal):
    rng = np.random.default_rng(seed)
    T = 19
    den = np.full(T, 5) if equal else rng.choice([2, 3, 4], T)
    num = np.array([int(rng.integers(-q, q + 1)) for q in den])
    num[0] = max(num[0], 1)  # not all zero
    r = sign_flip_test_counts(num, den)
    assert r.exact and "dynamic programming" in r.method
    assert r.p_value == pytest.approx(numpy_enumeration(num, den), rel=1e-9, abs=1e-15)


def test_sign_flip_closed_forms_and_edges():
    # all tasks favour the candidate by the same amount: only the all-+ and all-- vectors reach it
    for T in (5, 30, 200):
        r = sign_flip_test_counts([3] * T, [10] * T)
        assert r.p_value == pytest.approx(2.0 ** (1 - T), rel=1e-9)
    assert sign_flip_test_counts([0, 0, 0], [4, 4, 4]).p_value == 1.0  # all ties
    assert sign_flip_test_counts([], []).p_value == 1.0
    one = sign_flip_test_counts([2], [3])
    assert one.p_value == 1.0 and one.tasks == 1  # one task: +-d are equally extreme
    with pytest.raises(ValueError):
        sign_flip_test_counts([4], [3])


def test_sign_flip_monte_carlo_fallback_is_seeded_and_close():
    rng = np.random.default_rng(4)
    den = rng.choice([7, 9, 10], 18)
    num = np.array([int(rng.integers(-q, q + 1)) for q in den])
    exact = numpy_enumeration(num, den)
    a = sign_flip_test_counts(num, den, max_work=0)
    b = sign_flip_test_counts(num, den, max_work=0)
    assert not a.exact and f"seed {SIGN_FLIP_SEED}" in a.method and "Monte Carlo" in a.method
    assert a.p_value == b.p_value  # deterministic
    assert a.p_value == pytest.approx(exact, abs=4 * math.sqrt(exact * (1 - exact) / 20_000) + 1e-4)


def test_sign_flip_large_equal_reps_is_exact_and_fast():
    rng = np.random.default_rng(8)
    cand, base = make_pairs(rng, 1000, 10, effect=0.02, spread=0.1)
    r = sign_flip_test(pair_outcomes(cand, base))
    assert r.exact and 0.0 < r.p_value <= 1.0


# --------------------------------------------------------------------------- McNemar


def exact_mcnemar(b, c):
    D = b + c
    if D == 0:
        return 1.0, 1.0
    m = min(b, c)
    tail = sum(Fraction(math.comb(D, i), 2**D) for i in range(m + 1))
    return float(min(1, 2 * tail)), float(min(1, 2 * tail - Fraction(math.comb(D, m), 2**D)))


def test_mcnemar_published_example():
    r = mcnemar_test(1, 7)
    assert r.p_value == pytest.approx(0.0703, abs=5e-5) and r.p_mid == pytest.approx(0.0391, abs=5e-5)


@pytest.mark.parametrize("b,c", [(0, 0), (0, 1), (3, 3), (2, 9), (15, 4), (30, 31), (0, 25)])
def test_mcnemar_against_exact_rationals_and_scipy(b, c):
    r = mcnemar_test(b, c)
    p, mid = exact_mcnemar(b, c)
    assert r.p_value == pytest.approx(p, rel=1e-12) and r.p_mid == pytest.approx(mid, rel=1e-12, abs=1e-15)
    if b + c:
        assert r.p_value == pytest.approx(stats.binomtest(b, b + c, 0.5).pvalue, rel=1e-12)
        assert r.p_candidate_better == pytest.approx(
            stats.binomtest(b, b + c, 0.5, alternative="greater").pvalue, rel=1e-12
        )
        assert r.p_candidate_worse == pytest.approx(
            stats.binomtest(b, b + c, 0.5, alternative="less").pvalue, rel=1e-12
        )


def test_mcnemar_zero_discordant_and_ties():
    z = mcnemar_test(0, 0)
    assert (z.p_value, z.p_mid, z.p_candidate_better, z.p_candidate_worse, z.discordant) == (1.0, 1.0, 1.0, 1.0, 0)
    t = mcnemar_test(12, 12)
    assert t.p_value == 1.0 and t.p_mid == pytest.approx(1.0)


def test_mcnemar_large_n():
    r = mcnemar_test(51_000, 49_000)
    assert r.p_value == pytest.approx(stats.binomtest(51_000, 100_000).pvalue, rel=1e-9)
    assert 0 < r.p_value < 1e-9


@given(st.integers(0, 400), st.integers(0, 400))
def test_mcnemar_properties(b, c):
    r, s = mcnemar_test(b, c), mcnemar_test(c, b)
    assert 0.0 <= r.p_mid <= r.p_value <= 1.0
    assert r.p_value == s.p_value and r.p_candidate_better == pytest.approx(s.p_candidate_worse)
