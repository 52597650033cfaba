"""pass@k / pass^k estimators and the task macro, against exact rational arithmetic and scipy."""

from fractions import Fraction
from math import comb, prod

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from generator.analyze.stats.experiment import (
    FEW_TASKS,
    pass_at_k,
    pass_pow_k_observed,
    pass_pow_k_unbiased,
    task_macro,
    task_macro_from_counts,
)


def exact_pass_at_k(n, c, k):
    # product form of Chen et al. 2021, in exact rationals
    return 1 - prod((Fraction(1) - Fraction(k, i) for i in range(n - c + 1, n + 1)), start=Fraction(1))


def exact_pass_pow_k(n, c, k):
    return prod((Fraction(c - i, n - i) for i in range(k)), start=Fraction(1))


@pytest.mark.parametrize("n", [1, 2, 3, 5, 10, 17])
def test_estimators_match_product_forms_exactly(n):
    for c in range(n + 1):
        for k in range(1, n + 1):
            assert pass_at_k(n, c, k) == float(exact_pass_at_k(n, c, k))
            assert pass_pow_k_unbiased(n, c, k) == float(exact_pass_pow_k(n, c, k))
            assert pass_pow_k_observed(n, c, k) == (1.0 if c == n else 0.0)


def test_reference_examples_from_comet_spec():
    assert pass_at_k(3, 1, 1) == pytest.approx(1 / 3)
    assert pass_at_k(3, 1, 2) == pytest.approx(2 / 3)
    assert pass_at_k(48, 24, 3) == pytest.approx(0.8830, abs=5e-5)
    assert pass_at_k(3, 3, 2) == 1.0 and pass_pow_k_observed(3, 3, 2) == 1.0
    assert pass_at_k(3, 0, 2) == 0.0 and pass_pow_k_observed(3, 0, 2) == 0.0


def test_k_larger_than_n_is_undefined_not_zero_or_one():
    # Chen's numpy snippet would return 1.0 here even with c = 0.
    for fn in (pass_at_k, pass_pow_k_observed, pass_pow_k_unbiased):
        assert fn(3, 0, 4) is None
        assert fn(3, 3, 4) is None
        assert fn(0, 0, 1) is None


def test_invalid_counts_raise():
    with pytest.raises(ValueError):
        pass_at_k(3, 4, 1)
    with pytest.raises(ValueError):
        pass_at_k(3, 1, 0)


@pytest.mark.parametrize("n,k", [(5, 1), (5, 3), (10, 4), (7, 7)])
@pytest.mark.parametrize("p", [0.05, 0.3, 0.77])
def test_unbiasedness_by_exact_expectation_over_binomial(n, k, p):
    pmf = stats.binom.pmf(np.arange(n + 1), n, p)
    e_at = sum(pmf[c] * pass_at_k(n, c, k) for c in range(n + 1))
    e_pow = sum(pmf[c] * pass_pow_k_unbiased(n, c, k) for c in range(n + 1))
    e_obs = sum(pmf[c] * pass_pow_k_observed(n, c, k) for c in range(n + 1))
    assert e_at == pytest.approx(1 - (1 - p) ** k, abs=1e-12)
    assert e_pow == pytest.approx(p**k, abs=1e-12)
    # the reference's all-observed pass^k estimates p^n, not p^k
    assert e_obs == pytest.approx(p**n, abs=1e-12)


def test_n_ten_to_the_five():
    n = 10**5
    for c, k in [(50_000, 5), (1, 3), (n - 1, 10), (n, 2), (0, 7)]:
        assert pass_at_k(n, c, k) == pytest.approx(float(exact_pass_at_k_via_comb(n, c, k)), rel=1e-15)
        assert pass_pow_k_unbiased(n, c, k) == pytest.approx(float(Fraction(comb(c, k), comb(n, k))), rel=1e-15)
    # tiny values survive (no cancellation): 1 - C(n-1, 1)/C(n, 1) = 1/n
    assert pass_at_k(n, 1, 1) == 1 / n


def exact_pass_at_k_via_comb(n, c, k):
    return 1 - Fraction(comb(n - c, k), comb(n, k))


@given(st.integers(1, 40).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))))
def test_monotone_in_k_and_observed_below_unbiased(nc):
    n, c = nc
    at = [pass_at_k(n, c, k) for k in range(1, n + 1)]
    pw = [pass_pow_k_unbiased(n, c, k) for k in range(1, n + 1)]
    assert all(a <= b + 1e-15 for a, b in zip(at, at[1:], strict=False))
    assert all(a >= b - 1e-15 for a, b in zip(pw, pw[1:], strict=False))
    for k in range(1, n + 1):
        assert pass_pow_k_observed(n, c, k) <= pass_pow_k_unbiased(n, c, k) + 1e-15
        assert 0.0 <= pass_at_k(n, c, k) <= 1.0


# --------------------------------------------------------------------------- task macro


def test_task_macro_eligibility_and_values():
    outcomes = {
        "b": [True, False, False],
        "a": [True, True, True, True, False],
        "c": [False],
        "d": [],
    }
    m = task_macro(outcomes, 3, total_tasks=6)
    assert m.eligible_tasks == 2 and m.total_tasks == 6
    expected = np.mean([pass_at_k(5, 4, 3), pass_at_k(3, 1, 3)])
    assert m.pass_at_k.estimate == pytest.approx(expected)
    assert m.pass_pow_k_observed.estimate == 0.0
    assert m.pass_pow_k_unbiased.estimate == pytest.approx(np.mean([comb(4, 3) / comb(5, 3), 0.0]))
    assert m.pass_at_k.few_tasks and "2 eligible" in m.pass_at_k.warning


def test_task_macro_k_above_every_n_is_undefined():
    m = task_macro([[True, True], [False, True]], 3)
    for metric in m.metrics:
        assert metric.estimate is None and metric.eligible_tasks == 0
        assert metric.interval.lower is None and metric.betting.upper is None
        assert "undefined" in metric.warning


def test_t_interval_over_tasks_matches_scipy():
    rng = np.random.default_rng(7)
    reps = rng.integers(3, 9, 60)
    passes = [int(rng.integers(0, r + 1)) for r in reps]
    m = task_macro_from_counts(reps, passes, 2)
    vals = [pass_at_k(int(r), c, 2) for r, c in zip(reps, passes, strict=False)]
    ci = stats.ttest_1samp(vals, 0.0).confidence_interval(0.95)
    assert m.pass_at_k.interval.lower == pytest.approx(max(0.0, ci.low), rel=1e-12)
    assert m.pass_at_k.interval.upper == pytest.approx(min(1.0, ci.high), rel=1e-12)
    assert not m.pass_at_k.few_tasks and m.pass_at_k.warning is None
    assert m.eligible_tasks == 60


def test_few_tasks_flag_threshold():
    assert task_macro_from_counts([5] * (FEW_TASKS - 1), [2] * (FEW_TASKS - 1), 1).pass_at_k.few_tasks
    assert not task_macro_from_counts([5] * FEW_TASKS, [2] * FEW_TASKS, 1).pass_at_k.few_tasks


def test_interval_is_clipped_to_unit_range():
    # 4 tasks, skewed values: the unclipped t interval runs outside [0, 1]
    m = task_macro_from_counts([5, 5, 5, 5], [5, 0, 0, 0], 1)
    iv = m.pass_at_k.interval
    raw = stats.ttest_1samp([1.0, 0, 0, 0], 0.0).confidence_interval()
    assert raw.low < 0.0 and raw.high > 1.0  # both ends needed clipping
    assert (iv.lower, iv.upper) == (0.0, 1.0)
    m = task_macro_from_counts([5] * 6, [5, 0, 0, 0, 0, 0], 1)
    raw = stats.ttest_1samp([1.0, 0, 0, 0, 0, 0], 0.0).confidence_interval()
    assert m.pass_at_k.interval.lower == 0.0 and m.pass_at_k.interval.upper == pytest.approx(raw.high)


def test_all_pass_and_all_fail():
    up = task_macro_from_counts([4] * 40, [4] * 40, 2)
    down = task_macro_from_counts([4] * 40, [0] * 40, 2)
    for metric in up.metrics:
        assert metric.estimate == 1.0 and metric.interval.lower == 1.0 and metric.interval.upper == 1.0
        assert "degenerate" in metric.interval.note
        assert metric.betting.upper == 1.0 and metric.betting.lower < 1.0
    for metric in down.metrics:
        assert metric.estimate == 0.0 and metric.interval.upper == 0.0
        assert metric.betting.lower == 0.0 and metric.betting.upper > 0.0


def test_one_task():
    m = task_macro({"only": [True, False, True]}, 1)
    assert m.pass_at_k.estimate == pytest.approx(2 / 3)
    assert m.pass_at_k.interval.lower is None and "one task" in m.pass_at_k.interval.note
    assert m.pass_at_k.betting.lower == 0.0 and m.pass_at_k.betting.upper == 1.0


def test_method_names_are_carried():
    m = task_macro_from_counts([5] * 3, [1, 2, 3], 2)
    assert "Chen" in m.pass_at_k.method
    assert "p^n" in m.pass_pow_k_observed.method
    assert "Yao" in m.pass_pow_k_unbiased.method
    assert "Student t" in m.pass_at_k.interval.method
    assert "Waudby-Smith" in m.pass_at_k.betting.method
