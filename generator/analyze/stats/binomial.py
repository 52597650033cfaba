"""Exact (Clopper-Pearson) binomial intervals from beta quantiles.

For ``x`` successes in ``n`` trials and a tail probability ``t`` per side:

* lower bound ``L = B^-1(t; x, n - x + 1)`` (``0.0`` when ``x == 0``),
* upper bound ``U = 1 - B^-1(t; n - x, x + 1)`` (``1.0`` when ``x == n``),

where ``B^-1`` is the inverse regularized incomplete beta function
(``scipy.special.betaincinv``).  The quantile is then refined by Newton steps
on ``scipy.special.betainc`` (a log-space density), which brings the bound to
within ~1e-16 of the exact value for every ``n`` up to 10^6 and beyond; the
test suite checks 1e-12 against a 50-digit evaluation of the binomial tails.

``sides="two"`` puts ``(1 - confidence) / 2`` in each tail; ``sides="one"``
puts ``1 - confidence`` in each tail and still returns both bounds, each of
which is then a one-sided bound at ``confidence``.  This matches the upstream
ledger tool, whose bisection over ``comb(n, k) * p**k`` overflows once ``n``
reaches about 1,030.

The paired difference :func:`paired_difference` is the upstream
``paired_exact_factorized_bonferroni.v1`` interval evaluated with these bounds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "BinomialInterval",
    "PAIRED_METHOD",
    "clopper_pearson",
    "minimum_trials_all_successes",
    "paired_difference",
    "tail_probability",
]

PAIRED_METHOD = "paired_exact_factorized_bonferroni.v1"


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


def _polished_quantile(tail: float, a: float, b: float) -> float:
    """``p`` with ``I_p(a, b) == tail``: scipy's inverse plus guarded Newton steps."""
    from scipy.special import betainc, betaincinv, betaln

    p = float(betaincinv(a, b, tail))
    if not 0.0 < p < 1.0:
        return p
    log_norm = float(betaln(a, b))
    for _ in range(3):
        miss = float(betainc(a, b, p)) - tail
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
        if abs(float(betainc(a, b, candidate)) - tail) > abs(miss):
            break
        p = candidate
        if abs(step) <= 4e-17 * max(p, 1e-300):
            break
    return p


def clopper_pearson(successes: int, total: int, confidence: float = 0.95, sides: str = "two") -> BinomialInterval:
    """Exact binomial interval for ``successes`` out of ``total``."""
    tail = tail_probability(confidence, sides)
    if total < 1 or successes < 0 or successes > total:
        return BinomialInterval(None, None, confidence)
    if successes == 0:
        lower = 0.0
    elif successes == total:
        # Closed form: P(X = n) = p**n.
        lower = math.exp(math.log(tail) / total)
    else:
        lower = _polished_quantile(tail, successes, total - successes + 1)
    if successes == total:
        upper = 1.0
    elif successes == 0:
        upper = -math.expm1(math.log(tail) / total)
    else:
        upper = 1.0 - _polished_quantile(tail, total - successes, successes + 1)
    return BinomialInterval(lower, upper, confidence)


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
    n = max(1, math.ceil(math.log(tail) / math.log(bound)) - 2)
    while clopper_pearson(n, n, confidence, sides).lower < bound:  # type: ignore[operator]
        n += 1
    return n


def _factor_bounds(events: int, trials: int, confidence: float, sides: str) -> tuple[float, float]:
    interval = clopper_pearson(events, trials, confidence, sides)
    assert interval.lower is not None and interval.upper is not None
    return interval.lower, interval.upper


def paired_difference(candidate: Sequence[bool], baseline: Sequence[bool], mode: str = "one_sided") -> dict[str, Any]:
    """Conservative interval for P(candidate only) - P(baseline only) over paired outcomes.

    The difference factors as ``q * (2 * theta - 1)`` with ``q`` the discordance
    rate and ``theta`` the share of discordant pairs the candidate wins.  Each
    factor gets an exact bound with a 2.5% tail; combining them (Bonferroni)
    gives one-sided 95% bounds, or a joint 90% interval.  ``one_sided`` and
    ``transport_90`` therefore produce the same numbers and differ only in the
    confidence they report.
    """
    pairs = len(candidate)
    if pairs == 0 or pairs != len(baseline):
        return {"lower": None, "upper": None, "pairs": pairs, "method": PAIRED_METHOD}
    wins = sum(1 for c, b in zip(candidate, baseline) if c and not b)
    losses = sum(1 for c, b in zip(candidate, baseline) if b and not c)
    discordant = wins + losses
    if mode == "one_sided":
        factor_confidence, sides, reported = 0.975, "one", 0.95
    elif mode == "transport_90":
        factor_confidence, sides, reported = 0.95, "two", 0.90
    else:
        raise ValueError("unknown paired interval mode")
    q_low, q_high = _factor_bounds(discordant, pairs, factor_confidence, sides)
    if discordant:
        theta_low, theta_high = _factor_bounds(wins, discordant, factor_confidence, sides)
    else:
        theta_low, theta_high = 0.0, 1.0
    low_scale = 2 * theta_low - 1
    high_scale = 2 * theta_high - 1
    # Pick the q bound that makes each end as extreme as it can be.
    lower = (q_low if low_scale >= 0 else q_high) * low_scale
    upper = (q_high if high_scale >= 0 else q_low) * high_scale
    return {
        "lower": lower,
        "upper": upper,
        "confidence": reported,
        "pairs": pairs,
        "candidateWins": wins,
        "candidateLosses": losses,
        "discordant": discordant,
        "method": PAIRED_METHOD,
    }
