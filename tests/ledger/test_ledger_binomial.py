"""Clopper-Pearson from beta quantiles, checked against 50-digit evaluations of the binomial tails."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction

import pytest

from generator.analyze.stats.binomial import (
    clopper_pearson,
    minimum_trials_all_successes,
    paired_difference,
    tail_probability,
)

PRECISION = 50


def _bernoulli(count: int) -> list[Fraction]:
    """B_0..B_count (Akiyama-Tanigawa)."""
    row: list[Fraction] = []
    numbers = []
    for m in range(count + 1):
        row.append(Fraction(1, m + 1))
        for j in range(m, 0, -1):
            row[j - 1] = j * (row[j - 1] - row[j])
        numbers.append(row[0])
    return numbers


BERNOULLI = _bernoulli(32)


def _ln_factorial(k: int) -> Decimal:
    """ln(k!) to ~45 digits: exact below 60, Stirling's series above."""
    if k < 60:
        return Decimal(math.factorial(k)).ln()
    z = Decimal(k + 1)
    pi = Decimal("3.14159265358979323846264338327950288419716939937510582097494459")
    total = (z - Decimal("0.5")) * z.ln() - z + (2 * pi).ln() / 2
    for j in range(1, 16):
        b = BERNOULLI[2 * j]
        total += Decimal(b.numerator) / Decimal(b.denominator) / (Decimal(2 * j * (2 * j - 1)) * z ** (2 * j - 1))
    return total


def _term(x: int, n: int, p: Decimal) -> Decimal:
    log_term = _ln_factorial(n) - _ln_factorial(x) - _ln_factorial(n - x) + x * p.ln() + (n - x) * (1 - p).ln()
    return log_term.exp()


def upper_tail(x: int, n: int, p_float: float) -> Decimal:
    """P(X >= x) for X ~ Bin(n, p), summing outward from x until the terms vanish."""
    with localcontext() as ctx:
        ctx.prec = PRECISION
        p = Decimal(p_float)
        ratio = p / (1 - p)
        term, total, k = _term(x, n, p), Decimal(0), x
        while k <= n:
            total += term
            if term < total * Decimal("1e-45"):
                break
            term = term * (n - k) / (k + 1) * ratio
            k += 1
        return +total


def lower_tail(x: int, n: int, p_float: float) -> Decimal:
    """P(X <= x)."""
    with localcontext() as ctx:
        ctx.prec = PRECISION
        p = Decimal(p_float)
        ratio = (1 - p) / p
        term, total, k = _term(x, n, p), Decimal(0), x
        while k >= 0:
            total += term
            if term < total * Decimal("1e-45"):
                break
            term = term * k / (n - k + 1) * ratio
            k -= 1
        return +total


GRID = [
    (1, 2),
    (1, 7),
    (3, 7),
    (6, 7),
    (1, 20),
    (10, 20),
    (19, 20),
    (37, 100),
    (99, 100),
    (1, 1000),
    (500, 1000),
    (995, 1000),
    (515, 1030),
    (1029, 1030),
    (162, 5000),
    (2500, 5000),
    (4999, 5000),
    (1, 10**5),
    (31_337, 10**5),
    (1, 10**6),
    (181_412, 10**6),
    (199_072, 10**6),
    (500_000, 10**6),
    (999_999, 10**6),
]


@pytest.mark.parametrize("confidence,sides", [(0.95, "two"), (0.975, "one"), (0.9, "two")])
@pytest.mark.parametrize("x,n", GRID)
def test_bounds_agree_with_exact_tails_to_1e_12(x, n, confidence, sides):
    tolerance = 1e-12
    tail = Decimal(tail_probability(confidence, sides))
    interval = clopper_pearson(x, n, confidence, sides)
    lower, upper = interval.lower, interval.upper
    assert lower is not None and upper is not None and 0.0 < lower < x / n < upper < 1.0
    # The exact lower bound L solves P_L(X >= x) = tail, increasing in p: bracket it.
    assert upper_tail(x, n, lower - tolerance) < tail < upper_tail(x, n, lower + tolerance)
    # The exact upper bound U solves P_U(X <= x) = tail, decreasing in p.
    assert lower_tail(x, n, upper + tolerance) < tail < lower_tail(x, n, upper - tolerance)


@pytest.mark.parametrize("x,n", [(1, 20), (500, 1000), (2500, 5000), (199_072, 10**6)])
def test_bounds_are_much_tighter_than_required(x, n):
    """After the Newton polish the bounds sit within ~1e-15 of the exact root."""
    tail = Decimal(tail_probability(0.95))
    interval = clopper_pearson(x, n)
    step = max(2e-15, 4 * math.ulp(interval.lower))
    assert upper_tail(x, n, interval.lower - step) < tail < upper_tail(x, n, interval.lower + step)
    step = max(2e-15, 4 * math.ulp(interval.upper))
    assert lower_tail(x, n, interval.upper + step) < tail < lower_tail(x, n, interval.upper - step)


@pytest.mark.parametrize("n", [1, 2, 10, 183, 1030, 10**6])
def test_closed_forms_at_the_edges(n):
    tail = tail_probability(0.95)
    none = clopper_pearson(0, n)
    assert none.lower == 0.0 and none.upper == pytest.approx(1 - tail ** (1 / n), rel=1e-14, abs=1e-16)
    every = clopper_pearson(n, n)
    assert every.upper == 1.0 and every.lower == pytest.approx(tail ** (1 / n), rel=1e-14)


def test_invalid_counts_give_null_bounds():
    for x, n in ((0, 0), (-1, 5), (6, 5)):
        interval = clopper_pearson(x, n)
        assert interval.as_dict() == {"lower": None, "upper": None, "confidence": 0.95, "method": "clopper_pearson"}


def test_symmetry_and_monotonicity():
    for n in (15, 999, 12_345):
        for x in (1, n // 3, n // 2, n - 1):
            a, b = clopper_pearson(x, n), clopper_pearson(n - x, n)
            assert a.lower == pytest.approx(1 - b.upper, abs=2e-15)
            assert clopper_pearson(x + 1, n).lower > a.lower
    assert clopper_pearson(5, 10, 0.99).lower < clopper_pearson(5, 10, 0.95).lower


def test_large_n_is_computed_where_the_reference_overflowed():
    """Bounds around the observed rate for n up to 10**6 (their speed is bench/bench_ledger.py's, not a test's)."""
    for n, xs in ((1030, (1, 515, 1029)), (10**6, range(1, 10**6, 99_991))):
        lowers = []
        for x in xs:
            interval = clopper_pearson(x, n)
            assert interval.lower is not None and interval.upper is not None
            assert 0 < interval.lower < x / n < interval.upper < 1
            lowers.append(interval.lower)
        assert lowers == sorted(lowers)


def test_minimum_trials_match_the_documented_table():
    # validity lower bound >= 0.98 (all successes) needs n >= 183; >= 0.95 needs 72.
    assert minimum_trials_all_successes(0.98) == 183
    assert minimum_trials_all_successes(0.95) == 72
    assert minimum_trials_all_successes(1.0) is None


def test_paired_difference_modes_and_degenerate_inputs():
    c = [True] * 30 + [False] * 10 + [True] * 5
    b = [True] * 30 + [True] * 10 + [False] * 5
    one, ninety = paired_difference(c, b), paired_difference(c, b, mode="transport_90")
    assert (one["lower"], one["upper"]) == (ninety["lower"], ninety["upper"])
    assert (one["confidence"], ninety["confidence"]) == (0.95, 0.9)
    assert (one["candidateWins"], one["candidateLosses"], one["discordant"], one["pairs"]) == (5, 10, 15, 45)
    assert one["lower"] < (5 - 10) / 45 < one["upper"]
    assert paired_difference([], []) == {
        "lower": None,
        "upper": None,
        "pairs": 0,
        "method": "paired_exact_factorized_bonferroni.v1",
    }
    assert "confidence" not in paired_difference([True], [True, False])
    with pytest.raises(ValueError):
        paired_difference([True], [True], mode="bogus")


@pytest.mark.parametrize("pairs,bar,rule", [(72, 0.05, "fpr"), (122, 0.03, "transport"), (36, 0.10, "recall")])
def test_no_discordance_thresholds_from_the_spec(pairs, bar, rule):
    """Smallest pair counts that pass with zero discordant pairs (spec table)."""
    at, below = (
        paired_difference([False] * pairs, [False] * pairs),
        paired_difference([False] * (pairs - 1), [False] * (pairs - 1)),
    )
    if rule == "fpr":
        assert at["upper"] <= bar < below["upper"]
    elif rule == "transport":
        assert -bar < at["lower"] and at["upper"] < bar and not below["upper"] < bar
    else:
        assert at["lower"] > -bar >= below["lower"]
