"""``analyze/stats/dist.py`` returns what ``scipy.stats`` and ``scipy.optimize`` return, bit for bit.

The module calls scipy's own ufuncs (two of them private) and scipy's compiled Brent solver without
importing ``scipy.stats`` or ``scipy.optimize``.  These tests hold every function to its public
twin on the edges of its domain and on generated arguments, so a scipy upgrade that changes either
side (a renamed private ufunc, a new branch in ``t._ppf``, another solver) fails here, loudly.
"""

from __future__ import annotations

import itertools
import math
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, stats

from generator.analyze.stats import dist
from generator.analyze.stats.intervals import _tango_score, tango_interval
from tests.support.hypo import examples


def _bits(value: Any) -> tuple[tuple[int, ...], bytes]:
    array = np.asarray(value, dtype=np.float64)
    return array.shape, array.tobytes()


def assert_same(ours: Any, theirs: Any) -> None:
    """Equal shapes and equal bits (so -0.0 differs from 0.0, and nan equals nan)."""
    assert _bits(ours) == _bits(theirs), (ours, theirs)


def assert_same_call(ours: Callable[..., Any], theirs: Callable[..., Any], *args: Any) -> None:
    """The same bits, or the same exception: scipy's boost raises OverflowError for some subnormal
    ``p`` (``binom.pmf(1, 2, 1.1e-308)``, found in CI), and the fast route must do as scipy does."""

    def outcome(function: Callable[..., Any]) -> tuple[Any, type[BaseException] | None]:
        try:
            return _bits(function(*args)), None
        except ArithmeticError as error:
            return None, type(error)

    assert outcome(ours) == outcome(theirs), args


BINOMIAL: list[tuple[Callable[..., Any], Callable[..., Any]]] = [
    (dist.binom_pmf, stats.binom.pmf),
    (dist.binom_cdf, stats.binom.cdf),
    (dist.binom_sf, stats.binom.sf),
]
INVERSE: list[tuple[Callable[..., Any], Callable[..., Any]]] = [
    (dist.binom_ppf, stats.binom.ppf),
    (dist.binom_isf, stats.binom.isf),
]
# n = 0, negative, fractional and nan n; p at 0, 1/2, 1, outside [0, 1] and nan; large n
NS = [0, 1, 2, 7, 100, 10**6, 2.5, -1, math.nan]
PS = [0.0, 0.5, 1.0, 0.3, 1e-12, 1 - 1e-12, -0.1, 1.1, math.nan]
KS = [-2, -1, 0, 1, 3, 7, 99, 100, 101, 10**6, 2.5, math.inf, -math.inf, math.nan]
QS = [0.0, 1.0, 0.5, 1e-300, 1e-12, 0.025, 0.975, 1 - 1e-12, -0.1, 1.1, math.nan]


def test_the_fast_routes_are_taken() -> None:
    """The private ufuncs and the compiled solver load: without them the module falls back to scipy."""
    assert dist.FAST_BINOMIAL
    assert dist.brentq_extension() is not None


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_binomial_edges_match_scipy() -> None:
    for (ours, theirs), (k, n, p) in itertools.product(BINOMIAL, itertools.product(KS, NS, PS)):
        assert_same(ours(k, n, p), theirs(k, n, p))
    for (ours, theirs), (q, n, p) in itertools.product(INVERSE, itertools.product(QS, NS, PS)):
        assert_same(ours(q, n, p), theirs(q, n, p))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_binomial_does_as_scipy_where_boost_gives_up() -> None:
    """Cases CI's property test found: a subnormal ``p`` (scipy raises) and a tiny ``q`` at a ``p``
    near 1 (scipy warns and answers)."""
    for ours, theirs in BINOMIAL:
        assert_same_call(ours, theirs, np.array([1]), 2, 1.1125369292536007e-308)
    for ours, theirs in INVERSE:
        for n in (102, 107):
            assert_same_call(ours, theirs, np.array([5.713503814637998e-136, 5e-324]), n, 0.99999)


probabilities = st.one_of(st.sampled_from([0.0, 0.5, 1.0]), st.floats(0.0, 1.0))


# scipy.stats warns as the fast route does where boost's discrete quantile cannot bracket a root
# (q of 1e-136 at p = 0.99999, found in CI), with the same values: the claim is about the values.
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@settings(max_examples=examples(300))
@given(n=st.integers(0, 5000), p=probabilities, data=st.data())
def test_binomial_matches_scipy_on_arrays(n: int, p: float, data: st.DataObject) -> None:
    """Arrays broadcast against scalars and against arrays, as ``paired.py`` and ``power.py`` call them."""
    k = np.array(data.draw(st.lists(st.integers(-3, n + 3), min_size=1, max_size=8)))
    trials = np.array(data.draw(st.lists(st.integers(0, n), min_size=len(k), max_size=len(k))))
    for ours, theirs in BINOMIAL:
        assert_same_call(ours, theirs, k, n, p)
        assert_same_call(ours, theirs, k, trials, p)
    q = np.array(data.draw(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=4)))
    for ours, theirs in INVERSE:
        assert_same_call(ours, theirs, q, n, p)
        assert_same_call(ours, theirs, q[0], n, p)


def test_quantile_edges_match_scipy() -> None:
    for q in [*QS, 0.5]:
        assert_same(dist.norm_ppf(q), stats.norm.ppf(q))
        for df in [1, 2, 3, 10, 10**6, 1e20, math.inf, 0.5, 0, -1, math.nan]:
            assert_same(dist.t_ppf(q, df), stats.t.ppf(q, df))


@settings(max_examples=examples(300))
@given(q=st.floats(0.0, 1.0), df=st.one_of(st.integers(1, 10**7), st.floats(1e-3, 1e9)))
def test_quantiles_match_scipy(q: float, df: float) -> None:
    assert_same(dist.norm_ppf(q), stats.norm.ppf(q))
    assert_same(dist.t_ppf(q, df), stats.t.ppf(q, df))
    assert isinstance(dist.t_ppf(q, df), float) and isinstance(dist.norm_ppf(q), float)


@settings(max_examples=examples(300))
@given(data=st.data(), n=st.integers(1, 5000), confidence=st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_brentq_matches_scipy_on_tango_endpoints(data: st.DataObject, n: int, confidence: float) -> None:
    """The solver where the statistics use it (the Tango interval's endpoints), root for root."""
    b = data.draw(st.integers(0, n))
    c = data.draw(st.integers(0, n - b))
    z = dist.norm_ppf(0.5 + confidence / 2.0)
    est = (b - c) / n
    roots = []
    if _tango_score(b, c, n, -1.0) > z:
        low = dist.brentq(lambda d: _tango_score(b, c, n, d) - z, -1.0, est, xtol=1e-13)
        assert_same(low, optimize.brentq(lambda d: _tango_score(b, c, n, d) - z, -1.0, est, xtol=1e-13))
        roots.append(low)
    if _tango_score(b, c, n, 1.0) < -z:
        high = dist.brentq(lambda d: _tango_score(b, c, n, d) + z, est, 1.0, xtol=1e-13)
        assert_same(high, optimize.brentq(lambda d: _tango_score(b, c, n, d) + z, est, 1.0, xtol=1e-13))
        roots.append(high)
    interval = tango_interval(b, c, n, confidence)
    assert [x for x in (interval.lower, interval.upper) if x not in (-1.0, 1.0)] == roots


@settings(max_examples=examples(200))
@given(a=st.floats(-10, 10), width=st.floats(1e-6, 50), xtol=st.sampled_from([1e-13, 2e-12, 1e-6]))
def test_brentq_matches_scipy_on_cubics(a: float, width: float, xtol: float) -> None:
    """Any bracket: a cubic's root, including brackets whose end is the root."""
    root = a + width / 3

    def f(x: float) -> float:
        return (x - root) ** 3 + 0.5 * (x - root)

    assert_same(dist.brentq(f, a, a + width, xtol=xtol), optimize.brentq(f, a, a + width, xtol=xtol))
    assert_same(dist.brentq(f, root, a + width, xtol=xtol), optimize.brentq(f, root, a + width, xtol=xtol))


def test_brentq_fails_as_scipy_does() -> None:
    """No sign change, NaN values and a zero tolerance raise what scipy raises."""
    for call in (dist.brentq, optimize.brentq):
        with pytest.raises(ValueError, match="different signs"):
            call(lambda x: x * x + 1.0, -1.0, 1.0, xtol=1e-12)
        with pytest.raises(ValueError, match="NaN"):
            call(lambda x: math.nan if x > 0 else -1.0, -1.0, 1.0, xtol=1e-12)
        with pytest.raises(ValueError, match="xtol too small"):
            call(lambda x: x, -1.0, 1.0, xtol=0.0)


def test_defaults_are_scipys() -> None:
    from scipy.optimize import _zeros_py

    assert (dist.BRENTQ_RTOL, dist.BRENTQ_MAXITER) == (_zeros_py._rtol, _zeros_py._iter)


def test_the_solver_loads_without_scipy_optimize() -> None:
    """In a fresh interpreter: the solver works, and neither scipy.optimize nor scipy.stats is imported."""
    probe = (
        "import sys\n"
        "from generator.analyze.stats import dist\n"
        "root = dist.brentq(lambda x: x * x - 2.0, 0.0, 2.0, xtol=1e-13)\n"
        "names = ('scipy.optimize', 'scipy.optimize._zeros', 'scipy.stats')\n"
        "print(repr(root), sorted(m for m in names if m in sys.modules))\n"
        "import scipy.optimize\n"  # and scipy.optimize still imports afterwards, with its own solver
        "print(repr(scipy.optimize.brentq(lambda x: x * x - 2.0, 0.0, 2.0, xtol=1e-13)))\n"
        "print(scipy.optimize._zeros.__name__, dist.brentq_extension().__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split("\n")
    expected = repr(optimize.brentq(lambda x: x * x - 2.0, 0.0, 2.0, xtol=1e-13))
    assert out[0] == f"{expected} []"
    assert out[1] == expected
    assert out[2] == "scipy.optimize._zeros generator.analyze.stats.dist._zeros"


def test_without_the_fast_routes_scipy_itself_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    """An older or newer scipy without them: the same numbers, from scipy.stats and scipy.optimize."""
    monkeypatch.setattr(dist, "FAST_BINOMIAL", False)
    monkeypatch.setattr(dist, "brentq_extension", lambda: None)
    k, q = np.arange(-1, 12), np.array([0.0, 0.01, 0.5, 1.0])
    for ours, theirs in BINOMIAL:
        assert_same(ours(k, 10, 0.3), theirs(k, 10, 0.3))
    for ours, theirs in INVERSE:
        assert_same(ours(q, 10, 0.3), theirs(q, 10, 0.3))

    def cube(x: float) -> float:
        return x**3 - 2.0

    assert_same(dist.brentq(cube, 0.0, 2.0, xtol=1e-13), optimize.brentq(cube, 0.0, 2.0, xtol=1e-13))
