"""Exact (Clopper-Pearson) binomial bounds and the factorised Bonferroni paired rule, written once.

For ``x`` successes in ``n`` trials and a tail probability ``t`` per side:

* lower bound ``L = B^-1(t; x, n - x + 1)`` (``0.0`` when ``x == 0``),
* upper bound ``U = 1 - B^-1(t; n - x, x + 1)`` (``1.0`` when ``x == n``),

where ``B^-1`` is the inverse regularized incomplete beta function
(``scipy.special.betaincinv``).  :func:`cp_lower` / :func:`cp_upper` evaluate them over arrays in
one of two precisions:

* ``exact=False`` (gate feasibility, power, operating characteristics): scipy's quantile as is,
  the upper bound as ``B^-1(1 - t; x + 1, n - x)``;
* ``exact=True`` (the ledger's admission numbers): closed forms at ``x == 0`` and ``x == n``, and
  otherwise the quantile refined by Newton steps on ``scipy.special.betainc`` (a log-space
  density), which brings the bound to within ~1e-16 of the exact value for every ``n`` up to
  10^6 and beyond; the test suite checks 1e-12 against a 50-digit evaluation of the binomial tails.

:func:`clopper_pearson` is the scalar ledger interval over them.  ``sides="two"`` puts
``(1 - confidence) / 2`` in each tail; ``sides="one"`` puts ``1 - confidence`` in each tail and still
returns both bounds, each of which is then a one-sided bound at ``confidence``.  This matches the
upstream ledger tool, whose bisection over ``comb(n, k) * p**k`` overflows once ``n`` reaches about
1,030.

:func:`factorised_bounds` is the upstream ``paired_exact_factorized_bonferroni.v1`` rule (the
difference ``q * (2 theta - 1)`` bounded factor by factor); :func:`paired_difference` is the ledger's
paired interval over it (:func:`counted_difference` from the counts alone).  :func:`ledger_bounds`
computes the bounds a ledger summary asked for while it counted (``analyze/ledger/bounds.py``).
:func:`fewest_trials` is the one search for "how many trials does a bound need when nothing fails".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from generator.model.ledger import PAIRED_METHOD

__all__ = [
    "BinomialInterval",
    "PAIRED_METHOD",
    "clopper_pearson",
    "combine_lower",
    "combine_upper",
    "counted_difference",
    "cp_lower",
    "cp_upper",
    "factorised_bounds",
    "fewest_trials",
    "ledger_bounds",
    "minimum_trials_all_successes",
    "paired_difference",
    "tail_probability",
]

Floats = NDArray[np.float64]


@dataclass(frozen=True)
class BinomialInterval:
    """Clopper-Pearson bounds; both are ``None`` when the counts are impossible."""

    lower: float | None
    upper: float | None
    confidence: float
    method: str = "clopper_pearson"

    def as_dict(self) -> dict[str, Any]:
        return {"lower": self.lower, "upper": self.upper, "confidence": self.confidence, "method": self.method}


def tail_probability(confidence: float, sides: str = "two") -> float:
    """Probability left outside each bound (computed exactly as upstream does)."""
    if sides not in ("one", "two"):
        raise ValueError("sides must be 'one' or 'two'")
    outside = 1 - confidence
    return outside / 2 if sides == "two" else outside


# --------------------------------------------------------------------------- the bounds


def _polished_quantile(tail: float, a: float, b: float) -> float:
    """``p`` with ``I_p(a, b) == tail``: scipy's inverse plus guarded Newton steps."""
    p = float(special.betaincinv(a, b, tail))
    if not 0.0 < p < 1.0:
        return p
    log_norm = float(special.betaln(a, b))
    for _ in range(3):
        miss = float(special.betainc(a, b, p)) - tail
        if miss == 0.0:
            break
        log_density = (a - 1.0) * math.log(p) + (b - 1.0) * math.log1p(-p) - log_norm
        if log_density < -700.0:
            break
        step = miss / math.exp(log_density)
        candidate = p - step
        if not 0.0 < candidate < 1.0:
            break
        # Keep the step only when it brings the tail probability closer.
        if abs(float(special.betainc(a, b, candidate)) - tail) > abs(miss):
            break
        p = candidate
        if abs(step) <= 4e-17 * max(p, 1e-300):
            break
    return p


def _exact_lower(x: float, n: float, tail: float) -> float:
    if x == 0:
        return 0.0
    if x == n:
        return math.exp(math.log(tail) / n)  # closed form: P(X = n) = p**n
    return _polished_quantile(tail, x, n - x + 1)


def _exact_upper(x: float, n: float, tail: float) -> float:
    if x == n:
        return 1.0
    if x == 0:
        return -math.expm1(math.log(tail) / n)
    return 1.0 - _polished_quantile(tail, n - x, x + 1)


def _pair(x: ArrayLike, n: ArrayLike) -> tuple[Floats, Floats]:
    xs, ns = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(n, dtype=float))
    return xs, ns


def _each(bound: Callable[[float, float, float], float], x: Floats, n: Floats, tail: float) -> Floats:
    values = [bound(float(a), float(b), tail) for a, b in zip(x.ravel(), n.ravel(), strict=True)]
    return np.asarray(values, dtype=float).reshape(x.shape)


def cp_lower(x: ArrayLike, n: ArrayLike, tail: float, *, exact: bool = False) -> Floats:
    """Clopper-Pearson lower bound at one tail ``tail`` (0 when x = 0), over arrays."""
    xs, ns = _pair(x, n)
    if exact:
        return _each(_exact_lower, xs, ns, tail)
    out = np.zeros(xs.shape)
    some = xs > 0
    if np.any(some):
        out[some] = special.betaincinv(xs[some], ns[some] - xs[some] + 1.0, tail)
    return out


def cp_upper(x: ArrayLike, n: ArrayLike, tail: float, *, exact: bool = False) -> Floats:
    """Clopper-Pearson upper bound at one tail ``tail`` (1 when x = n), over arrays."""
    xs, ns = _pair(x, n)
    if exact:
        return _each(_exact_upper, xs, ns, tail)
    out = np.ones(xs.shape)
    some = xs < ns
    if np.any(some):
        out[some] = special.betaincinv(xs[some] + 1.0, ns[some] - xs[some], 1.0 - tail)
    return out


def clopper_pearson(successes: int, total: int, confidence: float = 0.95, sides: str = "two") -> BinomialInterval:
    """Exact binomial interval for ``successes`` out of ``total`` (the scalar form of the ``exact`` bounds)."""
    tail = tail_probability(confidence, sides)
    if total < 1 or successes < 0 or successes > total:
        return BinomialInterval(None, None, confidence)
    lower = float(cp_lower(successes, total, tail, exact=True))
    upper = float(cp_upper(successes, total, tail, exact=True))
    return BinomialInterval(lower, upper, confidence)


# --------------------------------------------------------------------------- zero failures


def fewest_trials(passes: Callable[[int], bool], log_tail: float, log_bound: float) -> int:
    """The smallest ``n >= 1`` with ``passes(n)``, for a ``passes`` that turns true once and stays true.

    With no failure an exact bound at one tail ``t`` moves like ``t ** (1/n)``, so it reaches
    ``bound`` near ``n = log(t) / log(bound)``: the search starts just below that and steps to the
    first ``n`` that passes.
    """
    n = max(1, math.floor(log_tail / log_bound) - 2)
    while not passes(n):
        n += 1
    while n > 1 and passes(n - 1):
        n -= 1
    return n


def minimum_trials_all_successes(bound: float, confidence: float = 0.95, sides: str = "two") -> int | None:
    """Smallest ``n`` whose all-success lower bound ``tail**(1/n)`` reaches ``bound``.

    Mirror image: the smallest ``n`` whose no-success upper bound is at most
    ``1 - bound``.  ``None`` when no ``n`` can reach it (``bound >= 1``).
    """
    if bound >= 1.0:
        return None
    if bound <= 0.0:
        return 1
    tail = tail_probability(confidence, sides)
    return fewest_trials(lambda n: float(cp_lower(n, n, tail, exact=True)) >= bound, math.log(tail), math.log(bound))


# --------------------------------------------------------------------------- the paired rule


def combine_lower(q_lower: ArrayLike, q_upper: ArrayLike, theta_lower: ArrayLike) -> Floats:
    """Lower bound of ``q (2 theta - 1)``: the q bound that makes it as extreme as it can be."""
    scale = 2.0 * np.asarray(theta_lower, dtype=float) - 1.0
    return np.asarray(np.where(scale >= 0.0, q_lower, q_upper) * scale, dtype=float)


def combine_upper(q_lower: ArrayLike, q_upper: ArrayLike, theta_upper: ArrayLike) -> Floats:
    """Upper bound of ``q (2 theta - 1)``."""
    scale = 2.0 * np.asarray(theta_upper, dtype=float) - 1.0
    return np.asarray(np.where(scale >= 0.0, q_upper, q_lower) * scale, dtype=float)


def factorised_bounds(
    wins: ArrayLike, discordant: ArrayLike, pairs: ArrayLike, tail: float = 0.025, *, exact: bool = False
) -> tuple[Floats, Floats, tuple[Floats, Floats, Floats, Floats]]:
    """(lower, upper, (q_lo, q_hi, theta_lo, theta_hi)) of the factorised Bonferroni rule.

    The difference factors as ``q * (2 * theta - 1)`` with ``q = discordant / pairs`` the discordance
    rate and ``theta = wins / discordant`` the share of discordant pairs the candidate wins; each
    factor gets a Clopper-Pearson bound at ``tail`` (theta lies in [0, 1] when nothing is discordant).
    """
    d = np.asarray(discordant, dtype=float)
    n = np.broadcast_to(np.asarray(pairs, dtype=float), d.shape)
    q_lo, q_hi = cp_lower(d, n, tail, exact=exact), cp_upper(d, n, tail, exact=exact)
    th_lo, th_hi = cp_lower(wins, d, tail, exact=exact), cp_upper(wins, d, tail, exact=exact)
    lower = combine_lower(q_lo, q_hi, th_lo)
    upper = combine_upper(q_lo, q_hi, th_hi)
    return lower, upper, (q_lo, q_hi, th_lo, th_hi)


def paired_difference(candidate: Sequence[bool], baseline: Sequence[bool], mode: str = "one_sided") -> dict[str, Any]:
    """Conservative interval for P(candidate only) - P(baseline only) over paired outcomes.

    :func:`counted_difference` of the pairs, the candidate-only and the baseline-only successes.
    """
    pairs = len(candidate)
    if pairs == 0 or pairs != len(baseline):
        return {"lower": None, "upper": None, "pairs": pairs, "method": PAIRED_METHOD}
    wins = sum(1 for c, b in zip(candidate, baseline, strict=True) if c and not b)
    losses = sum(1 for c, b in zip(candidate, baseline, strict=True) if b and not c)
    return counted_difference(pairs, wins, losses, mode)


def counted_difference(pairs: int, wins: int, losses: int, mode: str = "one_sided") -> dict[str, Any]:
    """:func:`paired_difference` of ``pairs`` pairs, ``wins`` candidate-only, ``losses`` baseline-only.

    :func:`factorised_bounds` with the ``exact`` bounds: each factor gets a 2.5% tail; combining
    them (Bonferroni) gives one-sided 95% bounds, or a joint 90% interval.  ``one_sided`` and
    ``transport_90`` therefore produce the same numbers and differ only in the confidence they report.
    """
    if pairs == 0:
        return {"lower": None, "upper": None, "pairs": pairs, "method": PAIRED_METHOD}
    discordant = wins + losses
    if mode == "one_sided":
        factor_confidence, sides, reported = 0.975, "one", 0.95
    elif mode == "transport_90":
        factor_confidence, sides, reported = 0.95, "two", 0.90
    else:
        raise ValueError("unknown paired interval mode")
    tail = tail_probability(factor_confidence, sides)
    lower, upper, _factors = factorised_bounds(wins, discordant, pairs, tail, exact=True)
    return {
        "lower": float(lower),
        "upper": float(upper),
        "confidence": reported,
        "pairs": pairs,
        "candidateWins": wins,
        "candidateLosses": losses,
        "discordant": discordant,
        "method": PAIRED_METHOD,
    }


def ledger_bounds(asks: Sequence[tuple[Any, ...]]) -> list[dict[str, Any]]:
    """The bounds a ledger summary asked for (``analyze/ledger/bounds.py``), one value per ask, in order:
    ``("interval", successes, total)`` -> :func:`clopper_pearson` (two-sided 95%) as a dict,
    ``("paired", pairs, wins, losses, mode)`` -> :func:`counted_difference`."""
    values = []
    for ask in asks:
        if ask[0] == "interval":
            values.append(clopper_pearson(ask[1], ask[2]).as_dict())
        elif ask[0] == "paired":
            values.append(counted_difference(ask[1], ask[2], ask[3], ask[4]))
        else:
            raise ValueError(f"unknown bound {ask[0]!r}")
    return values
