"""t, betting (WSR), Tango and reference-rule intervals."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, stats

from generator.analyze.stats.intervals import (
    betting_interval,
    reference_paired_bounds,
    t_interval,
    tango_interval,
)
from tests.support.hypo import examples

Z975 = stats.norm.ppf(0.975)

# --------------------------------------------------------------------------- t interval


def test_t_interval_matches_scipy_unclipped():
    x = np.random.default_rng(3).normal(0.2, 1.0, 25)
    iv = t_interval(x, 0.9, clip=None)
    ref = stats.t.interval(0.9, len(x) - 1, loc=x.mean(), scale=stats.sem(x))
    assert (iv.lower, iv.upper) == pytest.approx(ref, rel=1e-12)
    assert iv.estimate == pytest.approx(x.mean())


def test_t_interval_small_inputs():
    assert t_interval([], 0.95).estimate is None
    one = t_interval([0.4], 0.95)
    assert one.estimate == 0.4 and not one.defined
    with pytest.raises(ValueError):
        t_interval([0.1, 0.2], 1.0)


@given(st.lists(st.floats(0, 1), min_size=2, max_size=60))
def test_t_interval_contains_mean_and_stays_in_range(xs):
    iv = t_interval(xs, 0.95)
    assert 0.0 <= iv.lower <= iv.estimate + 1e-12 and iv.estimate - 1e-12 <= iv.upper <= 1.0


# --------------------------------------------------------------------------- betting (WSR)


def wsr_capital_grid(x, alpha, grid, c=0.5):
    """Independent loop implementation of the hedged capital; returns accepted grid points."""
    n = len(x)
    mus, sig2 = [], []
    s, ss = 0.0, 0.0
    for t, xi in enumerate(x, start=1):
        s += xi
        mu_t = (0.5 + s) / (t + 1)
        ss += (xi - mu_t) ** 2
        mus.append(mu_t)
        sig2.append((0.25 + ss) / (t + 1))
    lam = [math.sqrt(2 * math.log(2 / alpha) / (n * (0.25 if t == 0 else sig2[t - 1]))) for t in range(n)]
    accepted = []
    for m in grid:
        kp = km = 1.0
        best_p = best_m = 1.0
        for t in range(n):
            lp = lam[t] if m == 0 else min(lam[t], c / m)
            lm = lam[t] if m == 1 else min(lam[t], c / (1 - m))
            kp *= 1 + lp * (x[t] - m)
            km *= 1 - lm * (x[t] - m)
            best_p, best_m = max(best_p, kp), max(best_m, km)
        if max(best_p, best_m) / 2 < 1 / alpha:
            accepted.append(m)
    return accepted


@pytest.mark.parametrize("seed,n", [(1, 8), (2, 25), (3, 60)])
def test_betting_interval_agrees_with_independent_grid_evaluation(seed, n):
    x = list(np.random.default_rng(seed).beta(0.4, 0.6, n))
    grid = np.linspace(0, 1, 2001)
    acc = wsr_capital_grid(x, 0.05, grid)
    iv = betting_interval(x, 0.95)
    h = grid[1] - grid[0]
    assert iv.lower == pytest.approx(min(acc), abs=h)
    assert iv.upper == pytest.approx(max(acc), abs=h)
    # every accepted grid point is inside the reported interval (it is rounded outward)
    assert iv.lower <= min(acc) and max(acc) <= iv.upper


def test_betting_interval_all_zero_and_one_value():
    iv = betting_interval([0.0] * 12)
    assert iv.lower == 0.0 and 0.0 < iv.upper < 1.0
    grid = np.linspace(0, 1, 4001)
    assert iv.upper == pytest.approx(max(wsr_capital_grid([0.0] * 12, 0.05, grid)), abs=grid[1])
    single = betting_interval([0.7])
    assert (single.lower, single.upper) == (0.0, 1.0)
    assert betting_interval([]).estimate is None
    with pytest.raises(ValueError):
        betting_interval([0.5, 1.2])


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=40))
def test_betting_interval_symmetry_and_range(xs):
    iv = betting_interval(xs)
    mirrored = betting_interval([1 - v for v in xs])
    assert 0.0 <= iv.lower <= iv.upper <= 1.0
    assert mirrored.lower == pytest.approx(1 - iv.upper, abs=1e-9)
    assert mirrored.upper == pytest.approx(1 - iv.lower, abs=1e-9)


def test_betting_interval_is_valid_where_t_undercovers():
    # Skewed task population, 10 tasks, pass^3 from 5 reps (the spec's hard case).
    rng = np.random.default_rng(2024)
    p = rng.beta(0.3, 0.7, 200_000)
    truth = float(np.mean(p**3))
    cover_bet = cover_t = 0
    reps = 300
    for _ in range(reps):
        pt = rng.beta(0.3, 0.7, 10)
        c = rng.binomial(5, pt)
        vals = [math.comb(int(ci), 3) / math.comb(5, 3) for ci in c]
        b = betting_interval(vals)
        t = t_interval(vals)
        cover_bet += b.lower <= truth <= b.upper
        cover_t += t.defined and t.lower <= truth <= t.upper
    assert cover_bet / reps >= 0.97
    assert cover_t / reps < 0.93  # the t interval under-covers here, as the spec reports


def test_betting_width_relative_to_t_is_moderate():
    rng = np.random.default_rng(5)
    ratios = []
    for _ in range(60):
        vals = rng.binomial(5, rng.beta(0.5, 0.5, 50)) / 5
        b, t = betting_interval(vals), t_interval(vals)
        ratios.append((b.upper - b.lower) / (t.upper - t.lower))
    assert 1.05 < float(np.mean(ratios)) < 1.7


# --------------------------------------------------------------------------- Tango


def test_tango_published_worked_example():
    # Bentur et al. example via Fagerland, Lydersen & Laake (2014): b = 1, c = 7, n = 21.
    iv = tango_interval(1, 7, 21)
    assert iv.estimate == pytest.approx(-6 / 21)
    assert iv.lower == pytest.approx(-0.517, abs=5e-4)
    assert iv.upper == pytest.approx(-0.026, abs=5e-4)


def tango_score_independent(b, c, n, d):
    # written from Tango (1998) eq. for the constrained MLE, independently of the module
    a_ = 2 * n
    b_ = -b - c + (2 * n - b + c) * d
    c_ = -c * d * (1 - d)
    p21 = (-b_ + math.sqrt(b_ * b_ - 4 * a_ * c_)) / (2 * a_)
    return (b - c - n * d) / math.sqrt(n * (2 * p21 + d * (1 - d)))


@pytest.mark.parametrize("b,c,n", [(3, 9, 40), (12, 4, 30), (5, 5, 100), (1, 0, 10), (40, 35, 500)])
def test_tango_endpoints_solve_the_score_equation(b, c, n):
    iv = tango_interval(b, c, n)
    if iv.lower > -1:
        assert tango_score_independent(b, c, n, iv.lower) == pytest.approx(Z975, abs=1e-7)
    if iv.upper < 1:
        assert tango_score_independent(b, c, n, iv.upper) == pytest.approx(-Z975, abs=1e-7)


def test_tango_zero_discordant_closed_form():
    for n in (1, 10, 72, 10**5):
        iv = tango_interval(0, 0, n)
        half = Z975**2 / (n + Z975**2)
        assert iv.estimate == 0.0
        assert iv.lower == pytest.approx(-half, rel=1e-8) and iv.upper == pytest.approx(half, rel=1e-8)


def test_tango_extremes_and_large_n():
    iv = tango_interval(0, 50, 50)
    assert iv.lower == -1.0 and iv.upper < -0.8
    assert tango_interval(50, 0, 50).upper == 1.0
    # n = 10^5: Tango approaches the Wald interval
    b, c, n = 6000, 5400, 10**5
    d = (b - c) / n
    se = math.sqrt(((b + c) / n - d * d) / n)
    big = tango_interval(b, c, n)
    assert big.lower == pytest.approx(d - Z975 * se, abs=2e-5)
    assert big.upper == pytest.approx(d + Z975 * se, abs=2e-5)
    assert tango_interval(0, 0, 0).lower is None
    with pytest.raises(ValueError):
        tango_interval(5, 6, 10)


@given(st.integers(1, 300).flatmap(lambda n: st.tuples(st.integers(0, n), st.integers(0, n), st.just(n))))
def test_tango_properties(bcn):
    b, c, n = bcn
    if b + c > n:
        c = n - b
    iv = tango_interval(b, c, n)
    assert -1.0 <= iv.lower <= iv.estimate <= iv.upper <= 1.0
    sw = tango_interval(c, b, n)  # swapping the sides mirrors the interval
    assert sw.lower == pytest.approx(-iv.upper, abs=1e-9) and sw.upper == pytest.approx(-iv.lower, abs=1e-9)
    if b + c < n:  # one more win moves both bounds up
        more = tango_interval(b + 1, c, n)
        assert more.lower >= iv.lower - 1e-9 and more.upper >= iv.upper - 1e-9


# --------------------------------------------------------------------------- reference paired rule


def cp_by_bisection(x, n, tail):
    """Clopper-Pearson one-tail bounds by root finding on scipy's binomial CDF (independent of beta quantiles)."""
    lo = 0.0 if x == 0 else optimize.brentq(lambda p: stats.binom.sf(x - 1, n, p) - tail, 1e-300, 1, xtol=1e-15)
    hi = 1.0 if x == n else optimize.brentq(lambda p: stats.binom.cdf(x, n, p) - tail, 0, 1, xtol=1e-15)
    return lo, hi


@pytest.mark.parametrize("w,l,n", [(5, 2, 40), (0, 3, 20), (7, 7, 30), (12, 0, 12), (100, 62, 5000)])
def test_reference_bounds_follow_the_factorised_formula(w, l, n):
    r = reference_paired_bounds(w, l, n)
    d = w + l
    q_lo, q_hi = cp_by_bisection(d, n, 0.025)
    th_lo, th_hi = cp_by_bisection(w, d, 0.025) if d else (0.0, 1.0)
    low = (q_lo if 2 * th_lo - 1 >= 0 else q_hi) * (2 * th_lo - 1)
    up = (q_hi if 2 * th_hi - 1 >= 0 else q_lo) * (2 * th_hi - 1)
    assert r.lower == pytest.approx(low, abs=1e-9) and r.upper == pytest.approx(up, abs=1e-9)
    assert r.lower <= r.estimate <= r.upper
    assert "identical" in r.method and "independent" in r.method


def test_reference_bounds_with_no_discordant_pairs():
    for n in (70, 72, 1030, 10**5):
        r = reference_paired_bounds(0, 0, n)
        assert r.upper == pytest.approx(1 - 0.025 ** (1 / n), rel=1e-12)
        assert r.lower == -r.upper
    assert reference_paired_bounds(0, 0, 70).upper > 0.05 > reference_paired_bounds(0, 0, 72).upper
    assert reference_paired_bounds(1, 0, 0).lower is None


def test_betting_order_is_a_keyed_hash_of_the_names_fixed_before_outcomes():
    from generator.analyze.stats.intervals import betting_order

    names = [f"task-{i:03d}" for i in range(50)]
    order = betting_order(names)
    assert sorted(order) == list(range(50)) and order != list(range(50))  # a permutation, not name order
    backwards = list(reversed(names))
    assert [backwards[i] for i in betting_order(backwards)] == [names[i] for i in order]  # from the names only
    x = [i / 49 for i in range(50)]
    by_name = betting_interval([x[i] for i in order], 0.95)
    assert betting_interval(x, 0.95, names=names).lower == by_name.lower  # the values taken in that order
    with pytest.raises(ValueError, match="one name per value"):
        betting_interval(x, 0.95, names=names[:-1])


def test_names_that_sort_with_the_outcome_no_longer_exclude_the_estimate():
    """Tasks named easiest first (every pass sorts before every failure): taken in name order, the
    betting interval excluded its own point estimate ([0.80, 0.84] around 0.42); by the keyed hash of
    the names it holds it, and so does the site's task macro."""
    from generator.analyze.stats.experiment import task_macro

    names = [f"task-{i:03d}" for i in range(100)]
    x = [1.0 if i < 42 else 0.0 for i in range(100)]
    old = betting_interval(x, 0.95)  # the order given: name order
    assert old.lower is not None and old.lower > 0.42 + 0.3
    new = betting_interval(x, 0.95, names=names)
    assert new.lower is not None and new.upper is not None and new.lower < 0.42 < new.upper
    assert "keyed hash" in new.method
    macro = task_macro({name: [bool(v)] for name, v in zip(names, x, strict=True)}, 1)
    assert macro.pass_at_k.betting == new
