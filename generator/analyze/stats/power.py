"""Power, minimum detectable effects and the ledger gate's operating characteristic.

Pure functions.  Two families:

* experiment comparisons -- the power of the verdict's own rule (task-clustered
  interval and sign-flip test; :mod:`generator.analyze.stats.rule`);
* ledger admission gates -- the *exact* operating characteristic of the
  reference's factorised Bonferroni rule (trinomial model of the pairs), and the
  question "can this gate pass at all at this sample size?".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

import numpy as np

from generator.analyze.stats.binomial import combine_lower, combine_upper, cp_lower, cp_upper, fewest_trials
from generator.analyze.stats.dist import binom_cdf, binom_isf, binom_pmf, binom_ppf, norm_ppf
from generator.analyze.stats.intervals import _reference_bounds_arrays
from generator.analyze.stats.paired import count_arrays
from generator.analyze.stats.rule import PairedScores, minimum_detectable_difference
from generator.analyze.stats.rule import tasks_needed as rule_tasks_needed
from generator.model.stats import GateFeasibility, GateKind, PairedCounts, PowerAnalysis, RateGateFeasibility

__all__ = [
    "GateFeasibility",
    "GateKind",
    "PowerAnalysis",
    "RateGateFeasibility",
    "attempts_needed_if_all_succeed",
    "gate_feasibility",
    "gate_margin_needed",
    "gate_pairs_needed",
    "gate_pass_probability",
    "minimum_detectable_effect",
    "minimum_detectable_score_effect",
    "noninferiority_pairs_needed",
    "pairs_needed_if_arms_agree",
    "rate_gate_feasibility",
    "scores_of",
    "tasks_needed_for",
]

_GATE_KINDS = ("non_inferiority", "upper_margin", "equivalence")


def _z_total(alpha: float, power: float, sides: int) -> float:
    if not 0.0 < alpha < 1.0 or not 0.0 < power < 1.0 or sides not in (1, 2):
        raise ValueError("need 0 < alpha < 1, 0 < power < 1 and sides in {1, 2}")
    return float(norm_ppf(1.0 - alpha / sides) + norm_ppf(power))


# --------------------------------------------------------------------------- experiments


def scores_of(counts: PairedCounts) -> PairedScores:
    """The per-task mean differences (wins - losses) / reps of matched pass / fail pairs, for the rule."""
    r, w, l = count_arrays(counts)
    keep = r > 0
    num = (w - l)[keep].astype(np.int64)
    den = r[keep].astype(np.int64)
    tasks = tuple(t for t, k in zip(counts.tasks, keep.tolist(), strict=True) if k)
    return PairedScores(tasks, num, den, int(den.sum()), binary=True)


def tasks_needed_for(
    analysis: PowerAnalysis, difference: float, reps: float | None = None, *, scores: PairedScores | None = None
) -> int | None:
    """About how many tasks (at ``reps`` repetitions, default the observed) the rule needs to detect ``difference``.

    :func:`generator.analyze.stats.rule.tasks_needed` on the pairs the analysis was made from (or on
    ``scores``, the per-task mean differences of real-valued scores, for ``metric: mean``); another
    number of repetitions rescales the per-task spread to omega^2 + sigma_w^2 / reps (method of moments).
    """
    if (analysis.counts is None and scores is None) or analysis.tasks < 2:
        return None
    scale = 1.0
    if reps is not None and abs(reps - analysis.reps) > 1e-12:
        now = analysis.variance_of_task_differences
        then = _variance_at(reps, analysis.between_task_variance, analysis.within_task_variance)
        if not now or then is None:
            return None
        scale = then / now
    if scores is None:
        assert analysis.counts is not None
        scores = scores_of(analysis.counts)
    return rule_tasks_needed(scores, difference, alpha=analysis.alpha, power=analysis.power, variance_scale=scale)


def _variance_at(reps: float, omega2: float | None, sigma_w2: float | None) -> float | None:
    if omega2 is not None and sigma_w2 is not None:
        return omega2 + sigma_w2 / reps
    if sigma_w2 is not None:
        return sigma_w2 / reps
    return None


def minimum_detectable_effect(counts: PairedCounts, *, alpha: float = 0.05, power: float = 0.8) -> PowerAnalysis:
    """MDE at ``power`` of the comparison rule (interval *and* sign-flip test) for the observed tasks and repetitions.

    The MDE is :func:`generator.analyze.stats.rule.minimum_detectable_difference` on these pairs (a
    deterministic bootstrap of tasks; ``make calibrate`` measures the power reached at it). The
    variance of the per-task mean differences is also split into between-task (omega^2) and
    within-task (sigma_w^2 / R) parts by the method of moments, so that other repetition counts can
    be planned; with unlimited repetitions the MDE cannot fall below about (z + z) sqrt(omega^2 / T).
    """
    r, w, l = count_arrays(counts)
    T = int(r.size)
    method = _power_method(alpha, power)
    if T == 0:
        return PowerAnalysis(0, 0.0, alpha, power, None, None, None, None, None, method)
    reps = float(r.mean())
    d = (w - l) / r
    s2 = float(d.var(ddof=1)) if T >= 2 else None
    multi = r >= 2
    sigma_w2 = None
    if np.any(multi):
        rm, dm = r[multi], d[multi]
        within = ((w[multi] + l[multi]) - rm * dm * dm) / (rm - 1)
        sigma_w2 = float(within.mean())
    omega2 = max(0.0, s2 - sigma_w2 / reps) if (s2 is not None and sigma_w2 is not None) else None
    mde = minimum_detectable_difference(scores_of(counts), alpha=alpha, power=power)
    mde_inf = _z_total(alpha, power, 2) * math.sqrt(omega2 / T) if omega2 is not None else None
    return PowerAnalysis(T, reps, alpha, power, mde, mde_inf, s2, omega2, sigma_w2, method, counts)


def _power_method(alpha: float, power: float) -> str:
    return (
        f"the verdict's own rule (task-clustered t interval and sign-flip test, two-sided alpha = {alpha:g}) "
        f"at {power:.0%} power: a deterministic bootstrap of the tasks shifted by the difference "
        "(make calibrate measures the power reached)"
    )


def minimum_detectable_score_effect(
    scores: PairedScores, within: float | None, *, alpha: float = 0.05, power: float = 0.8
) -> PowerAnalysis:
    """:func:`minimum_detectable_effect` for real-valued scores (``metric: mean``).

    ``scores``: the per-task mean differences (:func:`generator.analyze.stats.rule.paired_scores`);
    ``within``: the mean over tasks with two or more pairs of the sample variance of their per-pair
    differences (sigma_w^2), or None.  The MDE is the rule's own
    (:func:`generator.analyze.stats.rule.minimum_detectable_difference`), whose pass / fail floor
    applies only when every score is 0 or 1.
    """
    T = len(scores.tasks)
    method = _power_method(alpha, power) + ("" if scores.binary else "; scores real-valued, no pass/fail floor")
    if T == 0:
        return PowerAnalysis(0, 0.0, alpha, power, None, None, None, None, None, method)
    reps = scores.pairs / T
    d = scores.differences
    s2 = float(d.var(ddof=1)) if T >= 2 else None
    omega2 = max(0.0, s2 - within / reps) if (s2 is not None and within is not None) else None
    mde = minimum_detectable_difference(scores, alpha=alpha, power=power)
    mde_inf = _z_total(alpha, power, 2) * math.sqrt(omega2 / T) if omega2 is not None else None
    return PowerAnalysis(T, reps, alpha, power, mde, mde_inf, s2, omega2, within, method)


def noninferiority_pairs_needed(
    discordance: float, margin: float, *, difference: float = 0.0, alpha: float = 0.05, power: float = 0.8
) -> int | None:
    """Normal-formula pairs for a one-sided non-inferiority test of a paired difference.

    n = (z_{1-alpha} + z_power)^2 (q - d^2) / (d + margin)^2  (statistics spec §7.6).
    """
    q, m, dd = float(discordance), float(margin), float(difference)
    if not 0.0 <= q <= 1.0 or m <= 0 or dd + m <= 0 or q - dd * dd < 0:
        return None
    k = _z_total(alpha, power, 1) ** 2
    return max(1, math.ceil(k * (q - dd * dd) / (dd + m) ** 2 - 1e-9))


# --------------------------------------------------------------------------- ledger gates


def _check_gate(kind: str, margin: float) -> None:
    if kind not in _GATE_KINDS:
        raise ValueError(f"gate kind must be one of {_GATE_KINDS}, got {kind!r}")
    if not margin > 0.0:
        raise ValueError("gate margin must be positive")


def _gate_passes(lower: np.ndarray, upper: np.ndarray, kind: str, margin: float) -> np.ndarray:
    if kind == "non_inferiority":
        return lower > -margin
    if kind == "upper_margin":
        return upper <= margin
    return (lower > -margin) & (upper < margin)


def _deciding_bound(lower: np.ndarray, upper: np.ndarray, kind: str) -> np.ndarray:
    if kind == "non_inferiority":
        return lower
    if kind == "upper_margin":
        return upper
    return np.asarray(np.maximum(-lower, upper))


def _agree_bound(n: int) -> float:
    return float(cp_upper(0.0, float(n), 0.025))


def _agree_passes(n: int, kind: str, margin: float) -> bool:
    b = _agree_bound(n)
    return bool(_gate_passes(np.array([-b]), np.array([b]), kind, margin)[0])


def pairs_needed_if_arms_agree(kind: str, margin: float) -> int:
    """Fewest pairs with which the gate passes when no pair is discordant (zero failures)."""
    if margin >= 1.0:
        return 1
    # bound(n) = 1 - 0.025^(1/n) decreases in n; the search fixes the gate's strictness.
    return fewest_trials(lambda n: _agree_passes(n, kind, margin), math.log(0.025), math.log1p(-margin))


def attempts_needed_if_all_succeed(threshold: float, tail: float) -> int:
    """Fewest attempts whose all-success Clopper-Pearson lower bound (one tail ``tail``) reaches ``threshold``."""
    return fewest_trials(
        lambda m: float(cp_lower(float(m), float(m), tail)) >= threshold, math.log(tail), math.log(threshold)
    )


_FEASIBILITY_MAX_D = 20_000


def gate_feasibility(pairs: int, kind: GateKind, margin: float) -> GateFeasibility:
    _check_gate(kind, margin)
    n = int(pairs)
    if n < 1:
        raise ValueError("pairs must be at least 1")
    agree = _agree_bound(n)
    agree_dec = -agree if kind == "non_inferiority" else agree
    agree_ok = _agree_passes(n, kind, margin)
    d = np.arange(0, min(n, _FEASIBILITY_MAX_D) + 1)
    if kind == "non_inferiority":
        w = d // 2  # wins <= losses, most favourable
    elif kind == "upper_margin":
        w = (d + 1) // 2  # wins >= losses (candidate false positives >= baseline's)
    else:
        d = d[d % 2 == 0]
        w = d // 2
    lower, upper = _reference_bounds_arrays(w, d, n)
    dec = _deciding_bound(lower, upper, kind)
    i = int(np.argmax(dec)) if kind == "non_inferiority" else int(np.argmin(dec))
    best = float(dec[i])
    ok_nb = bool(_gate_passes(lower[i : i + 1], upper[i : i + 1], kind, margin)[0])
    min_n = pairs_needed_if_arms_agree(kind, margin)
    label = {
        "non_inferiority": f"lower bound > -{margin:g}",
        "upper_margin": f"upper bound <= {margin:g}",
        "equivalence": f"both bounds within +-{margin:g}",
    }[kind]
    if ok_nb:
        sentence = f"At {n} pairs this gate ({label}) can pass without the candidate being better than the baseline."
    else:
        sentence = (
            f"At {n} pairs this gate ({label}) cannot pass unless the candidate is observably better than "
            f"the baseline: even with no discordant pair the bound is {agree_dec:+.4f}; "
            f"at least {min_n} pairs are needed."
        )
    method = (
        "exact evaluation of the reference rule (Clopper-Pearson by beta quantiles, 2.5% tail per factor) "
        "over every discordant count" + (f" up to {_FEASIBILITY_MAX_D:,}" if n > _FEASIBILITY_MAX_D else "")
    )
    return GateFeasibility(kind, float(margin), n, agree_dec, agree_ok, best, ok_nb, min_n, method, sentence)


def rate_gate_feasibility(attempts: int, threshold: float, confidence: float = 0.95) -> RateGateFeasibility:
    """Gate "two-sided Clopper-Pearson lower bound >= threshold" (structuredOutputValidity).

    The best case is every attempt succeeding: lower = (tail)^(1/n) with tail =
    (1 - confidence)/2.  ``failures_tolerated`` is the largest number of failures
    that still passes (``None`` if even zero fails).
    """
    n = int(attempts)
    if n < 1 or not 0.0 < threshold < 1.0:
        raise ValueError("need attempts >= 1 and 0 < threshold < 1")
    tail = (1.0 - confidence) / 2.0

    def lower_at(failures: int) -> float:
        return float(cp_lower(float(n - failures), float(n), tail))

    best = lower_at(0)
    can = best >= threshold
    tolerated = None
    if can:  # the lower bound decreases with every failure: bisect the last passing count
        lo, hi = 0, n + 1  # lower_at(lo) passes; hi fails (or is past the end)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if lower_at(mid) >= threshold:
                lo = mid
            else:
                hi = mid
        tolerated = lo
    m = attempts_needed_if_all_succeed(threshold, tail)
    if can:
        sentence = f"At {n} attempts the lower bound can reach {threshold:g}; up to {tolerated} failure(s) still pass."
    else:
        sentence = (
            f"At {n} attempts the lower bound cannot reach {threshold:g} even with no failure "
            f"(best {best:.4f}); at least {m} attempts are needed."
        )
    method = (
        f"Clopper-Pearson two-sided {confidence:.0%} lower bound (beta quantiles), exact search over failure counts"
    )
    return RateGateFeasibility(n, float(threshold), best, can, tolerated, m, method, sentence)


def _first_true(pred: Callable[[np.ndarray, np.ndarray], np.ndarray], d: np.ndarray) -> np.ndarray:
    """Smallest w in [0, d] with pred(w, d) true (d + 1 if none); pred monotone in w."""
    lo = np.zeros_like(d)
    hi = d + 1
    while True:
        active = lo < hi
        if not np.any(active):
            return lo
        mid = (lo + hi) // 2
        idx = np.nonzero(active)[0]
        ok = pred(mid[idx], d[idx])
        hi[idx] = np.where(ok, mid[idx], hi[idx])
        lo[idx] = np.where(ok, lo[idx], mid[idx] + 1)


_TAIL_EPS = 1e-13


def gate_pass_probability(pairs: int, p_win: float, p_loss: float, kind: GateKind, margin: float) -> float:
    """Exact probability that the reference rule passes the gate.

    Pairs are i.i.d. win / loss / tie with probabilities (p_win, p_loss, rest):
    D ~ Binomial(n, q) discordant pairs with q = p_win + p_loss, wins | D ~
    Binomial(D, p_win / q).  For each D the rule's bounds are monotone in the
    wins, so the passing wins form an interval found by binary search.  Discordant
    counts with binomial tail probability below 1e-13 are skipped.
    """
    _check_gate(kind, margin)
    n = int(pairs)
    pw, pl = float(p_win), float(p_loss)
    if n < 1 or pw < 0 or pl < 0 or pw + pl > 1 + 1e-12:
        raise ValueError("need pairs >= 1, p_win, p_loss >= 0 and p_win + p_loss <= 1")
    q = min(1.0, pw + pl)
    if q == 0.0:
        return 1.0 if _agree_passes(n, kind, margin) else 0.0
    pi = pw / q
    d_lo = int(binom_ppf(_TAIL_EPS, n, q))
    d_hi = int(binom_isf(_TAIL_EPS, n, q))
    d = np.arange(max(0, d_lo - 1), min(n, d_hi + 1) + 1, dtype=np.int64)
    pmf_d = binom_pmf(d, n, q)
    q_lo = cp_lower(d, np.full(d.shape, n), 0.025)
    q_hi = cp_upper(d, np.full(d.shape, n), 0.025)
    d0 = int(d[0])

    def rows(dd: np.ndarray) -> np.ndarray:
        return dd - d0

    def lower_ok(w: np.ndarray, dd: np.ndarray) -> np.ndarray:
        i = rows(dd)
        return combine_lower(q_lo[i], q_hi[i], cp_lower(w, dd, 0.025)) > -margin

    def upper_fails(w: np.ndarray, dd: np.ndarray) -> np.ndarray:
        i = rows(dd)
        u = combine_upper(q_lo[i], q_hi[i], cp_upper(w, dd, 0.025))
        return u > margin if kind == "upper_margin" else u >= margin

    w_from = np.zeros_like(d)
    w_to = d.copy()  # passing wins: w_from <= w <= w_to
    if kind in ("non_inferiority", "equivalence"):
        w_from = _first_true(lower_ok, d)
    if kind in ("upper_margin", "equivalence"):
        w_to = _first_true(upper_fails, d) - 1
    # P(w_from <= W <= w_to | D)
    cond = binom_cdf(w_to, d, pi) - binom_cdf(w_from - 1, d, pi)
    cond = np.where(w_to >= w_from, cond, 0.0)
    return float(min(1.0, max(0.0, np.dot(pmf_d, cond))))


def _spec_grid(start: int, stop: int) -> Iterator[int]:
    """The statistics spec's n grid: steps of 10 to 200, 25 to 500, 50 to 2000, then +5%."""
    n = 10
    while n <= stop:
        if n >= start:
            yield n
        if n < 200:
            n += 10
        elif n < 500:
            n += 25
        elif n < 2000:
            n += 50
        else:
            n = int(math.ceil(n * 1.05 / 50.0) * 50)


def gate_pairs_needed(
    discordance: float,
    kind: GateKind,
    margin: float,
    *,
    difference: float = 0.0,
    power: float = 0.8,
    max_pairs: int = 200_000,
) -> int | None:
    """First n on the spec's grid where the reference rule passes with probability >= ``power``.

    True difference ``difference`` with discordance q: p_win = (q + d)/2,
    p_loss = (q - d)/2.  The search starts at half the normal-formula size (the
    reference rule is never less conservative than the normal formula).
    ``None`` when ``max_pairs`` is not enough.
    """
    _check_gate(kind, margin)
    q, dd = float(discordance), float(difference)
    pw, pl = (q + dd) / 2.0, (q - dd) / 2.0
    if pw < 0 or pl < 0 or q > 1:
        raise ValueError("need |difference| <= discordance <= 1")
    eff_margin = margin if kind != "equivalence" else margin - abs(dd)
    if kind == "upper_margin":
        approx = noninferiority_pairs_needed(q, margin, difference=-dd) if margin - dd > 0 else None
    else:
        approx = noninferiority_pairs_needed(q, eff_margin, difference=0.0) if eff_margin > 0 else None
    start = 1 if approx is None else approx // 2
    for n in _spec_grid(start, max_pairs):
        if gate_pass_probability(n, pw, pl, kind, margin) >= power:
            return n
    return None


def gate_margin_needed(
    pairs: int, discordance: float, kind: GateKind, *, power: float = 0.8, tol: float = 1e-4
) -> float:
    """Smallest margin the reference rule passes with probability >= ``power`` at true difference 0.

    Bisection on the margin (pass probability grows with it), reported rounded up
    to ``tol``.
    """
    n, q = int(pairs), float(discordance)
    lo, hi = 0.0, 2.0
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if gate_pass_probability(n, q / 2.0, q / 2.0, kind, mid) >= power:
            hi = mid
        else:
            lo = mid
    return hi
