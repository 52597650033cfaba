"""The few scipy functions the statistics use, equal bit for bit to ``scipy.stats``'s and ``scipy.optimize``'s.

Importing ``scipy.stats`` costs about a second and a half and ``scipy.optimize`` about half a
second (they pull in ``scipy.linalg``, ``scipy.sparse``, ``scipy.spatial`` and ``scipy.fft``), two
to three times what ``scipy.special`` costs, yet the statistics need only five quantile and tail
functions of three distributions and one root finder.  ``scipy.stats`` computes each of those
functions by one ufunc of ``scipy.special`` wrapped in argument checks; this module calls the same
ufuncs with the same checks:

* ``t.ppf(q, df)`` is ``special.stdtrit(df, q)`` (``df > 0``; ``-inf``/``+inf`` at ``q`` = 0/1);
* ``norm.ppf(q)`` is ``special.ndtri(q)`` (``-inf``/``+inf`` at ``q`` = 0/1);
* ``binom.pmf/cdf/sf/ppf/isf`` are the Boost-based ufuncs ``scipy.special._ufuncs._binom_*``
  (private names, in ``scipy.special`` since scipy 1.14).  Where they are missing (an older or
  a future scipy) the functions fall back to ``scipy.stats.binom`` itself: the same numbers,
  only slower to import.  ``tests/stats/test_stats_dist.py`` holds every function here to
  ``scipy.stats`` on edge cases and generated arguments, and fails if the fast route is lost.

:func:`brentq` is ``scipy.optimize.brentq`` at its default ``rtol`` and ``maxiter``: the same
compiled routine (the small extension ``scipy/optimize/_zeros``, which imports nothing), loaded
from its file without running ``scipy/optimize/__init__.py`` (:func:`brentq_extension`); the NaN
check of scipy's wrapper is repeated here.  Where the file cannot be loaded, ``scipy.optimize.brentq`` itself is called.

Like ``scipy.stats``, out-of-domain arguments give ``nan`` (never an exception); the continuous
quantiles return Python floats, the binomial functions arrays (0-d for scalar arguments).
"""

from __future__ import annotations

import functools
import importlib.machinery
import importlib.util
import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

__all__ = ["brentq", "binom_cdf", "binom_isf", "binom_pmf", "binom_ppf", "binom_sf", "norm_ppf", "t_ppf"]

try:  # scipy >= 1.14: the ufuncs scipy.stats.binom calls, importable without scipy.stats
    from scipy.special._ufuncs import (
        _binom_cdf,
        _binom_isf,
        _binom_pmf,
        _binom_ppf,
        _binom_sf,
    )

    FAST_BINOMIAL = True
except ImportError:  # pragma: no cover - exercised only on a scipy without them
    FAST_BINOMIAL = False

Array = NDArray[np.float64]


def _quantile(q: float, value: Callable[[float], Any]) -> float:
    """``scipy.stats``' continuous ppf (loc 0, scale 1) around ``value(q)`` for q in (0, 1)."""
    if 0.0 < q < 1.0:
        return float(value(q) * 1.0 + 0.0)  # scipy's ``_ppf * scale + loc``: turns -0.0 into 0.0
    if q == 0.0:
        return -math.inf
    return math.inf if q == 1.0 else math.nan


def t_ppf(q: float, df: float) -> float:
    """Student t quantile, as ``scipy.stats.t.ppf(q, df)``."""
    q, df = float(q), float(df)
    if not df > 0.0:  # scipy's argument check (also false for nan)
        return math.nan
    return _quantile(q, lambda x: special.stdtrit(np.float64(df), np.float64(x)))


def norm_ppf(q: float) -> float:
    """Standard normal quantile, as ``scipy.stats.norm.ppf(q)``."""
    return _quantile(float(q), lambda x: special.ndtri(np.float64(x)))


# --------------------------------------------------------------------------- binomial


def _valid(n: NDArray[Any], p: NDArray[Any]) -> NDArray[np.bool_]:
    """``binom._argcheck``: ``n`` a non-negative whole number, ``p`` in [0, 1]."""
    return np.asarray((n >= 0) & (n == np.round(n)) & (p >= 0) & (p <= 1))


def _apply(ufunc: Any, cond: NDArray[np.bool_], out: Array, *args: NDArray[Any]) -> Array:
    """``out`` with ``ufunc`` of ``args`` (broadcast) put where ``cond`` holds, clipped to [0, 1]."""
    if cond.any():
        chosen = [np.broadcast_to(a, cond.shape)[cond] for a in args]
        out[cond] = np.clip(ufunc(*chosen), 0, 1)
    return out


def _scipy_stats(method: str, *args: ArrayLike) -> Array:
    from scipy import stats

    return np.asarray(getattr(stats.binom, method)(*args))


def binom_pmf(k: ArrayLike, n: ArrayLike, p: ArrayLike) -> Array:
    """Binomial probability mass, as ``scipy.stats.binom.pmf(k, n, p)``."""
    if not FAST_BINOMIAL:
        return _scipy_stats("pmf", k, n, p)
    k_, n_, p_ = np.asarray(k), np.asarray(n), np.asarray(p)
    valid = _valid(n_, p_)
    cond = np.asarray(valid & (k_ >= 0) & (k_ <= n_) & (np.floor(k_) == k_))
    out = np.zeros(cond.shape)
    out[np.broadcast_to(~valid | np.isnan(k_), cond.shape)] = np.nan
    return _apply(_binom_pmf, cond, out, k_, n_, p_)


def _tail(ufunc: Any, k: ArrayLike, n: ArrayLike, p: ArrayLike, *, lower: bool) -> Array:
    """``binom.cdf`` (``lower``) or ``binom.sf`` at ``floor(k)``: 1 or 0 outside the support."""
    k_, n_, p_ = np.asarray(k), np.asarray(n), np.asarray(p)
    valid = _valid(n_, p_)
    cond = np.asarray(valid & (k_ >= 0) & (k_ < n_) & np.isfinite(k_))
    out = np.zeros(cond.shape)
    if lower:
        out[np.broadcast_to(k_ >= n_, cond.shape)] = 1.0
    else:
        out[np.broadcast_to(valid & ((k_ < 0) | np.isneginf(k_)), cond.shape)] = 1.0
    out[np.broadcast_to(~valid | np.isnan(k_), cond.shape)] = np.nan
    return _apply(ufunc, cond, out, np.floor(k_), n_, p_)


def binom_cdf(k: ArrayLike, n: ArrayLike, p: ArrayLike) -> Array:
    """Binomial P(X <= k), as ``scipy.stats.binom.cdf(k, n, p)``."""
    return _tail(_binom_cdf, k, n, p, lower=True) if FAST_BINOMIAL else _scipy_stats("cdf", k, n, p)


def binom_sf(k: ArrayLike, n: ArrayLike, p: ArrayLike) -> Array:
    """Binomial P(X > k), as ``scipy.stats.binom.sf(k, n, p)``."""
    return _tail(_binom_sf, k, n, p, lower=False) if FAST_BINOMIAL else _scipy_stats("sf", k, n, p)


def _inverse(ufunc: Any, q: ArrayLike, n: ArrayLike, p: ArrayLike, *, lower: bool) -> Array:
    """``binom.ppf`` (``lower``) or ``binom.isf``: -1 and ``n`` at the ends of (0, 1)."""
    q_, n_, p_ = np.asarray(q), np.asarray(n), np.asarray(p)
    valid = _valid(n_, p_)
    cond = np.asarray(valid & (q_ > 0) & (q_ < 1))
    out = np.full(cond.shape, np.nan)
    below, above = (q_ == 0, q_ == 1) if lower else (q_ == 1, q_ == 0)
    out[np.broadcast_to(below & valid, cond.shape)] = -1.0
    top = np.broadcast_to(above & valid, cond.shape)
    out[top] = np.broadcast_to(n_, cond.shape)[top]
    if cond.any():
        chosen = [np.broadcast_to(a, cond.shape)[cond] for a in (q_, n_, p_)]
        out[cond] = ufunc(*chosen) + 0  # scipy's ``_ppf + loc``
    return out


def binom_ppf(q: ArrayLike, n: ArrayLike, p: ArrayLike) -> Array:
    """Smallest k with P(X <= k) >= q, as ``scipy.stats.binom.ppf(q, n, p)``."""
    return _inverse(_binom_ppf, q, n, p, lower=True) if FAST_BINOMIAL else _scipy_stats("ppf", q, n, p)


def binom_isf(q: ArrayLike, n: ArrayLike, p: ArrayLike) -> Array:
    """Inverse survival function, as ``scipy.stats.binom.isf(q, n, p)``."""
    return _inverse(_binom_isf, q, n, p, lower=False) if FAST_BINOMIAL else _scipy_stats("isf", q, n, p)


# --------------------------------------------------------------------------- root finding

#: ``scipy.optimize.brentq``'s defaults (``_zeros_py._rtol`` = 4 eps, ``_zeros_py._iter``).
BRENTQ_RTOL = 4 * math.ulp(1.0)
BRENTQ_MAXITER = 100


@functools.cache
def brentq_extension() -> Any:
    """scipy's compiled ``optimize/_zeros`` module, loaded once without ``scipy.optimize``, or None.

    It is loaded under a name of its own (``generator.analyze.stats.dist._zeros``: the init function
    goes by the last part), so scipy's own ``scipy.optimize._zeros`` is untouched when something
    imports ``scipy.optimize`` later.
    """
    import scipy

    name = f"{__name__}._zeros"
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        location = f"{scipy.__path__[0]}/optimize/_zeros{suffix}"
        loader = importlib.machinery.ExtensionFileLoader(name, location)
        spec = importlib.util.spec_from_file_location(name, location, loader=loader)
        try:
            assert spec is not None
            module = importlib.util.module_from_spec(spec)
            loader.exec_module(module)
        except (ImportError, OSError):  # not this suffix (or a scipy that builds it differently)
            continue
        return module if callable(getattr(module, "_brentq", None)) else None
    return None


def brentq(f: Callable[[float], float], a: float, b: float, *, xtol: float) -> float:
    """A root of ``f`` in [a, b] (signs differ at the ends), as ``scipy.optimize.brentq(f, a, b, xtol=xtol)``."""
    zeros = brentq_extension()
    if zeros is None:
        from scipy import optimize

        return float(optimize.brentq(f, a, b, xtol=xtol))
    if not xtol > 0:
        raise ValueError(f"xtol too small ({xtol:g} <= 0)")

    def checked(x: float) -> float:
        fx = f(x)
        if math.isnan(fx):
            raise ValueError(f"The function value at x={x} is NaN; solver cannot continue.")
        return fx

    return float(zeros._brentq(checked, a, b, xtol, BRENTQ_RTOL, BRENTQ_MAXITER, (), False, True))
