"""Confidence intervals over plain numbers.

Pure functions: no I/O, no printing, no randomness.  Every result carries the
name of its method so the site can print it next to the number.

* :func:`t_interval` -- Student t interval for a mean over units (tasks).
* :func:`betting_interval` -- Waudby-Smith & Ramdas (2024) betting interval
  for the mean of values in [0, 1]; valid at every sample size.
* :func:`tango_interval` -- Tango (1998) asymptotic score interval for the
  difference of two paired proportions.
* :func:`reference_paired_bounds` -- the ledger reference's factorised
  Bonferroni bounds, recomputed with beta quantiles (for operating
  characteristics; the admission gate itself is computed elsewhere).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence

import numpy as np

from generator.analyze.stats.binomial import factorised_bounds
from generator.analyze.stats.dist import brentq, norm_ppf, t_ppf
from generator.model.stats import REFERENCE_PAIRED_LABEL, Interval, ReferenceBounds

__all__ = [
    "REFERENCE_PAIRED_LABEL",
    "Interval",
    "ReferenceBounds",
    "betting_interval",
    "betting_order",
    "reference_paired_bounds",
    "tango_interval",
    "t_interval",
]


def _check_confidence(confidence: float) -> float:
    confidence = float(confidence)
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence!r}")
    return confidence


# --------------------------------------------------------------------------- t interval


def t_interval(
    values: Sequence[float] | np.ndarray,
    confidence: float = 0.95,
    *,
    clip: tuple[float, float] | None = (0.0, 1.0),
    unit: str = "tasks",
) -> Interval:
    """Two-sided Student t interval for the mean of ``values``.

    mean +- t_{T-1, 1-alpha/2} * sd / sqrt(T) with the sample sd (ddof = 1), then
    clipped to ``clip`` (pass ``None`` for no clipping).  With fewer than two
    values the interval is undefined (``None`` bounds).
    """
    confidence = _check_confidence(confidence)
    x = np.asarray(values, dtype=float)
    n = x.size
    lo_clip, hi_clip = clip if clip is not None else (-math.inf, math.inf)
    method = f"t interval over per-{unit[:-1] if unit.endswith('s') else unit} values"
    method += f" (Student t, {n - 1} df)" if n >= 2 else ""
    if clip is not None:
        method += f", clipped to [{clip[0]:g}, {clip[1]:g}]"
    if n == 0:
        return Interval(None, None, None, confidence, method, note=f"undefined: no {unit}")
    mean = float(x.mean())
    if n == 1:
        return Interval(mean, None, None, confidence, method, note=f"undefined: one {unit[:-1]} has no spread")
    sd = float(x.std(ddof=1))
    half = t_ppf(0.5 + confidence / 2.0, n - 1) * sd / math.sqrt(n)
    lower = max(lo_clip, mean - half)
    upper = min(hi_clip, mean + half)
    note = None
    if sd == 0.0:
        note = f"degenerate: all {n} {unit} have the same value, so the spread estimate is zero"
    return Interval(mean, lower, upper, confidence, method, note=note)


# --------------------------------------------------------------------------- betting (WSR)

_BISECT_TOL = 1e-10


#: The key of the betting interval's task order (:func:`betting_order`).
BETTING_ORDER_KEY = b"evalsite betting order v1\x00"


def betting_order(names: Sequence[str]) -> list[int]:
    """The positions of ``names`` in the betting interval's order: by the SHA-256 of a fixed key and the
    name (ties, which need equal names, by position).

    The interval is valid only when the order of the values does not depend on the outcomes.  Names
    are fixed before any outcome, but their sorted order can follow difficulty (``easy-01``,
    ``hard-01``, or tasks numbered by a benchmark's own difficulty); a keyed hash of each name keeps
    the order fixed in advance while scrambling any structure the names carry.
    """

    def key(index: int) -> bytes:
        return hashlib.sha256(BETTING_ORDER_KEY + names[index].encode("utf-8", "surrogatepass")).digest()

    return sorted(range(len(names)), key=lambda index: (key(index), index))


def betting_interval(
    values: Sequence[float] | np.ndarray,
    confidence: float = 0.95,
    *,
    truncation: float = 0.5,
    names: Sequence[str] | None = None,
) -> Interval:
    """Waudby-Smith & Ramdas betting interval for the mean of values in [0, 1].

    Deterministic; depends on the order of ``values``.  With ``names`` (one per value: the tasks)
    the values are taken in :func:`betting_order`, a keyed hash of the names fixed before any
    outcome; without, in the order given (the caller's order must not depend on the outcomes).

    Construction (WSR 2024, hedged capital process with predictable plug-in bets):

    * mu_t = (1/2 + sum_{i<=t} x_i) / (t + 1),
      s2_t = (1/4 + sum_{i<=t} (x_i - mu_i)^2) / (t + 1), s2_0 = 1/4;
    * lambda_t = sqrt(2 log(2/alpha) / (T * s2_{t-1})) (fixed-sample tuning);
    * for a candidate mean m, lambda+_t = min(lambda_t, c/m) and
      lambda-_t = min(lambda_t, c/(1-m)) with c = ``truncation`` (1/2);
    * K+_t(m) = prod_{i<=t} (1 + lambda+_i (x_i - m)),
      K-_t(m) = prod_{i<=t} (1 - lambda-_i (x_i - m));
    * hedged capital max(K+/2, K-/2); m is rejected when it reaches 1/alpha at any
      t <= T, i.e. when max_t K+_t(m) >= 2/alpha or max_t K-_t(m) >= 2/alpha.

    max(K+/2, K-/2) <= K+/2 + K-/2, a non-negative martingale with initial value 1
    under mean m, so by Ville's inequality the rejection has probability <= alpha
    and the interval has coverage >= confidence for every T.  K+ is non-increasing
    and K- non-decreasing in m, so the accepted set is an interval; each endpoint is
    found by bisection to 1e-10 and reported on the rejected side (rounded outward).
    """
    confidence = _check_confidence(confidence)
    if not 0.0 < truncation < 1.0:
        raise ValueError("truncation must lie in (0, 1)")
    x = np.asarray(values, dtype=float)
    if names is not None:
        if len(names) != x.size:
            raise ValueError("betting_interval needs one name per value")
        x = x[np.asarray(betting_order(names), dtype=np.int64)] if x.size else x
    order = "tasks in the order of a keyed hash of their names" if names is not None else "values in the order given"
    method = (
        "Waudby-Smith-Ramdas betting interval (hedged capital, predictable plug-in bets, "
        f"c = {truncation:g}; valid at every sample size; {order})"
    )
    if x.size == 0:
        return Interval(None, None, None, confidence, method, note="undefined: no values")
    if np.any(~np.isfinite(x)) or np.any(x < 0.0) or np.any(x > 1.0):
        raise ValueError("betting_interval needs values in [0, 1]")
    alpha = 1.0 - confidence
    n = x.size
    t = np.arange(1, n + 1, dtype=float)
    mu = (0.5 + np.cumsum(x)) / (t + 1.0)
    s2 = (0.25 + np.cumsum((x - mu) ** 2)) / (t + 1.0)
    s2_prev = np.concatenate(([0.25], s2[:-1]))
    lam = np.sqrt(2.0 * math.log(2.0 / alpha) / (n * s2_prev))
    threshold = math.log(2.0 / alpha)
    c = truncation

    def log_cap_plus(m: float) -> float:
        bet = lam if m <= 0.0 else np.minimum(lam, c / m)
        return float(np.max(np.cumsum(np.log1p(bet * (x - m)))))

    def log_cap_minus(m: float) -> float:
        bet = lam if m >= 1.0 else np.minimum(lam, c / (1.0 - m))
        return float(np.max(np.cumsum(np.log1p(-bet * (x - m)))))

    # Lower endpoint: K+ is non-increasing in m and K+(1) <= 1, so m = 1 is accepted.
    lower = 0.0 if log_cap_plus(0.0) < threshold else _last_true(lambda m: log_cap_plus(m) >= threshold)
    # Upper endpoint: K- is non-decreasing in m and K-(0) <= 1.
    upper = 1.0 if log_cap_minus(1.0) < threshold else _first_true(lambda m: log_cap_minus(m) >= threshold)
    note = None
    if lower > upper:  # empty confidence set (probability <= alpha); report the hull
        lower, upper = upper, lower
        note = "the betting confidence set was empty; the crossing points are shown"
    return Interval(float(x.mean()), lower, upper, confidence, method, note=note)


# --------------------------------------------------------------------------- Tango


def _tango_score(b: int, c: int, n: int, d0: float) -> float:
    """Tango's score statistic T(d0); decreasing in d0."""
    w = -b - c + (2 * n - b + c) * d0
    disc = w * w + 8.0 * n * c * d0 * (1.0 - d0)
    p21 = (math.sqrt(max(disc, 0.0)) - w) / (4.0 * n)
    var = n * (2.0 * p21 + d0 * (1.0 - d0))
    num = b - c - n * d0
    if var <= 1e-300:
        if abs(num) <= 1e-12 * max(1, n):
            return 0.0
        return math.copysign(1e12, num)
    return min(1e12, max(-1e12, num / math.sqrt(var)))


def tango_interval(wins: int, losses: int, pairs: int, confidence: float = 0.95) -> Interval:
    """Tango (1998) asymptotic score interval for a paired difference of proportions.

    ``wins`` = pairs where only the candidate succeeded (b), ``losses`` = pairs
    where only the baseline succeeded (c), ``pairs`` = all matched pairs (n).  The
    estimate is (b - c) / n.  The interval is {d0 : |T(d0)| <= z_{1-alpha/2}} with
    T(d0) = (b - c - n d0) / sqrt(n (2 p21(d0) + d0 (1 - d0))) and p21(d0) the
    restricted maximum-likelihood estimate of the loss cell; endpoints by Brent's
    method to 1e-12.
    """
    confidence = _check_confidence(confidence)
    b, c, n = int(wins), int(losses), int(pairs)
    if b < 0 or c < 0 or b + c > n:
        raise ValueError("need 0 <= wins, losses and wins + losses <= pairs")
    method = f"Tango score interval (paired proportions), {confidence:.0%} two-sided"
    if n == 0:
        return Interval(None, None, None, confidence, method, note="undefined: no pairs")
    z = norm_ppf(0.5 + confidence / 2.0)
    est = (b - c) / n
    if _tango_score(b, c, n, -1.0) <= z:
        lower = -1.0
    else:
        lower = brentq(lambda d: _tango_score(b, c, n, d) - z, -1.0, est, xtol=1e-13)
    if _tango_score(b, c, n, 1.0) >= -z:
        upper = 1.0
    else:
        upper = brentq(lambda d: _tango_score(b, c, n, d) + z, est, 1.0, xtol=1e-13)
    return Interval(est, float(lower), float(upper), confidence, method)


# --------------------------------------------------------------------------- bisection


def _last_true(holds: Callable[[float], bool]) -> float:
    """For ``holds`` true on [0, t] and false above: t, from below, by bisection on [0, 1]."""
    lo, hi = 0.0, 1.0
    while hi - lo > _BISECT_TOL:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if holds(mid) else (lo, mid)
    return lo


def _first_true(holds: Callable[[float], bool]) -> float:
    """For ``holds`` false below t and true on [t, 1]: t, from above, by bisection on [0, 1]."""
    return 1.0 - _last_true(lambda m: holds(1.0 - m))


# --------------------------------------------------------------------------- reference paired rule


def _reference_bounds_arrays(
    w: np.ndarray, d: np.ndarray, n: np.ndarray | int, tail: float = 0.025
) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised reference (lower, upper) for wins ``w`` among ``d`` discordant of ``n``."""
    lower, upper, _factors = factorised_bounds(w, d, n, tail)
    return lower, upper


def reference_paired_bounds(wins: int, losses: int, pairs: int) -> ReferenceBounds:
    """The reference's factorised bounds: q = D/n and theta = wins/D, each CP at a 2.5% tail.

    lower = (q_lo if 2 theta_lo - 1 >= 0 else q_hi)(2 theta_lo - 1) and
    upper = (q_hi if 2 theta_hi - 1 >= 0 else q_lo)(2 theta_hi - 1)
    (:func:`generator.analyze.stats.binomial.factorised_bounds`).
    """
    w, l, n = int(wins), int(losses), int(pairs)
    if n <= 0 or w < 0 or l < 0 or w + l > n:
        return ReferenceBounds(w, l, n, None, None, None, None, None, None, None)
    lower, upper, (q_lo, q_hi, th_lo, th_hi) = factorised_bounds(np.array([w]), np.array([w + l]), n)
    return ReferenceBounds(
        w,
        l,
        n,
        (w - l) / n,
        float(lower[0]),
        float(upper[0]),
        float(q_lo[0]),
        float(q_hi[0]),
        float(th_lo[0]),
        float(th_hi[0]),
    )
