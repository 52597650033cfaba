"""Paired comparisons over strictly matched (task, repetition) pairs.

Pure functions.  Inputs are per-task lists of per-repetition booleans for the
candidate and the baseline; pair i of task t is the same (task, rep) on both
sides.  A *win* is a pair where only the candidate passed, a *loss* a pair where
only the baseline passed.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np

from generator.analyze.stats.dist import binom_cdf, binom_pmf, binom_sf, norm_ppf
from generator.analyze.stats.intervals import t_interval
from generator.model.stats import (
    ClusteredDifference,
    DesignEffect,
    Interval,
    McNemarTest,
    Outcomes,
    PairedCounts,
    SignFlipTest,
    WinLossTie,
)

__all__ = [
    "ClusteredDifference",
    "DesignEffect",
    "McNemarTest",
    "Outcomes",
    "PairedCounts",
    "SignFlipTest",
    "WinLossTie",
    "clustered_difference",
    "clustered_difference_sums",
    "count_arrays",
    "design_effect",
    "design_effect_sums",
    "mcnemar_test",
    "pair_outcomes",
    "sign_flip_test",
    "sign_flip_test_counts",
    "win_loss_tie",
]

#: Seed of the Monte Carlo fallback of the sign-flip test (fixed so rebuilding
#: the site gives the same numbers).
SIGN_FLIP_SEED = 20240606
SIGN_FLIP_DRAWS = 20_000
_ENUMERATE_MAX_TASKS = 16
_DP_MAX_WORK = 60_000_000
_DP_MAX_SUPPORT = 4_000_001


def named_tasks(outcomes: Outcomes) -> tuple[tuple[str, ...], tuple[Sequence[bool], ...]]:
    """Task names and outcome lists in a fixed order (sorted names for mappings)."""
    if isinstance(outcomes, Mapping):
        names = tuple(sorted(outcomes, key=str))
        return tuple(str(n) for n in names), tuple(outcomes[n] for n in names)
    seq = tuple(outcomes)
    return tuple(str(i) for i in range(len(seq))), seq


def count_arrays(counts: PairedCounts) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(reps, wins, losses) as int arrays, tasks with no pairs dropped."""
    r = np.asarray(counts.reps, dtype=np.int64)
    w = np.asarray(counts.wins, dtype=np.int64)
    l = np.asarray(counts.losses, dtype=np.int64)
    keep = r > 0
    return r[keep], w[keep], l[keep]


def pair_outcomes(candidate: Outcomes, baseline: Outcomes) -> PairedCounts:
    """Count wins, losses and ties per task over strictly matched pairs.

    Both sides must hold the same tasks (same names for mappings, same length for
    sequences) and the same number of repetitions per task; anything else is a
    caller error (``ValueError``), because unmatched pairs must be dropped before
    statistics are computed.
    """
    c_names, c_lists = named_tasks(candidate)
    b_names, b_lists = named_tasks(baseline)
    if c_names != b_names:
        raise ValueError("candidate and baseline must cover the same tasks (strictly matched pairs)")
    reps, wins, losses, both = [], [], [], []
    for name, cs, bs in zip(c_names, c_lists, b_lists, strict=True):
        if len(cs) != len(bs):
            raise ValueError(f"task {name!r}: candidate and baseline differ in repetition count")
        c = np.fromiter((bool(v) for v in cs), dtype=bool, count=len(cs))
        b = np.fromiter((bool(v) for v in bs), dtype=bool, count=len(bs))
        reps.append(len(cs))
        wins.append(int(np.count_nonzero(c & ~b)))
        losses.append(int(np.count_nonzero(b & ~c)))
        both.append(int(np.count_nonzero(c & b)))
    return PairedCounts(c_names, tuple(reps), tuple(wins), tuple(losses), tuple(both))


# --------------------------------------------------------------------------- wins / losses / ties


def win_loss_tie(counts: PairedCounts) -> tuple[WinLossTie, WinLossTie]:
    """(over runs, over tasks).  A task wins when its mean difference in pass rate is > 0."""
    w, l, a = sum(counts.wins), sum(counts.losses), sum(counts.both_pass)
    n = counts.pairs
    runs = WinLossTie(
        "runs",
        w,
        l,
        n - w - l,
        a,
        n - w - l - a,
        "counts over matched (task, repetition) pairs: win = only the candidate passed",
    )
    r, wt, lt = count_arrays(counts)
    e = wt - lt
    tasks = WinLossTie(
        "tasks",
        int(np.count_nonzero(e > 0)),
        int(np.count_nonzero(e < 0)),
        int(np.count_nonzero(e == 0)),
        None,
        None,
        "counts over tasks: win = the candidate's pass rate on the task's matched pairs is higher",
    )
    return runs, tasks


# --------------------------------------------------------------------------- design effect


def design_effect(
    sizes: Sequence[int] | np.ndarray, wins: Sequence[int] | np.ndarray, losses: Sequence[int] | np.ndarray
) -> DesignEffect:
    """Design effect of clustering for the pooled difference (W - L) / N.

    Each pair scores +1 (win), -1 (loss) or 0: :func:`design_effect_sums` with per-task sums
    W - L and sums of squares W + L.
    """
    w = np.asarray(wins, dtype=float)
    l = np.asarray(losses, dtype=float)
    return design_effect_sums(sizes, w - l, w + l)


def design_effect_sums(
    sizes: Sequence[int] | np.ndarray, sums: Sequence[float] | np.ndarray, squares: Sequence[float] | np.ndarray
) -> DesignEffect:
    """Design effect of clustering for the pooled mean of per-pair differences s_i (real-valued).

    Per task: its pairs, the sum of their differences and the sum of their squares.  The naive
    SE treats the N pairs as independent: sqrt(s^2 / N) with the sample variance s^2 (ddof = 1).
    The clustered SE is Miller (2024, App. A) with the finite-cluster factor used by Inspect:
    SE^2 = C/(C-1) * (1/N^2) * sum_c (sum_{i in c} (s_i - s_bar))^2.
    DEFF = (SE_cluster / SE_iid)^2.  Undefined (``None``) when either SE is.
    """
    n_c = np.asarray(sizes, dtype=float)
    e = np.asarray(sums, dtype=float)
    sq = np.asarray(squares, dtype=float)
    keep = n_c > 0
    n_c, e, sq = n_c[keep], e[keep], sq[keep]
    C = int(n_c.size)
    N = int(n_c.sum())
    method = (
        "design effect = (clustered SE / naive SE)^2 for the pooled difference; clustered SE per "
        "Miller (2024) App. A with factor C/(C-1); naive SE treats every pair as independent"
    )
    if N == 0:
        return DesignEffect(None, None, None, None, C, N, method)
    mean = float(e.sum() / N)
    se_iid = None
    if N >= 2:
        var = (float(sq.sum()) - N * mean * mean) / (N - 1)
        se_iid = math.sqrt(max(var, 0.0) / N)
    se_cl = None
    if C >= 2:
        dev = e - n_c * mean
        se_cl = math.sqrt(C / (C - 1) * float(np.dot(dev, dev)) / (N * N))
    deff = None
    if se_iid is not None and se_cl is not None and se_iid > 0.0:
        deff = (se_cl / se_iid) ** 2
    return DesignEffect(mean, se_iid, se_cl, deff, C, N, method)


# --------------------------------------------------------------------------- clustered difference


def clustered_difference(counts: PairedCounts, confidence: float = 0.95) -> ClusteredDifference:
    r, w, l = count_arrays(counts)
    return clustered_difference_sums(r, w - l, w + l, confidence, "difference in pass@1 (candidate - baseline)")


def clustered_difference_sums(
    sizes: np.ndarray, sums: np.ndarray, squares: np.ndarray, confidence: float, what: str
) -> ClusteredDifference:
    """The task-clustered difference from per-task pairs, sums of differences and sums of their squares
    (tasks with pairs only): the t interval over per-task mean differences, the pooled estimate with
    its naive run-level interval and the design effect.  ``what`` names the difference."""
    r = np.asarray(sizes)
    d = sums / r if r.size else np.zeros(0)
    interval = t_interval(d, confidence, clip=(-1.0, 1.0))
    interval = Interval(
        interval.estimate,
        interval.lower,
        interval.upper,
        confidence,
        "task-clustered t interval over per-task mean differences"
        + (f" (Student t, {d.size - 1} df)" if d.size >= 2 else ""),
        interval.note,
    )
    deff = design_effect_sums(r, sums, squares)
    z = norm_ppf(0.5 + confidence / 2.0)
    naive_method = "naive run-level Wald interval (treats every matched pair as independent)"
    if deff.se_iid is None or deff.estimate is None:
        naive = Interval(deff.estimate, None, None, confidence, naive_method, note="undefined: fewer than two pairs")
    else:
        naive = Interval(
            deff.estimate,
            max(-1.0, deff.estimate - z * deff.se_iid),
            min(1.0, deff.estimate + z * deff.se_iid),
            confidence,
            naive_method,
        )
    se_cluster = float(d.std(ddof=1) / math.sqrt(d.size)) if d.size >= 2 else None
    return ClusteredDifference(
        estimate=float(d.mean()) if d.size else None,
        interval=interval,
        pooled_estimate=deff.estimate,
        naive_interval=naive,
        se_cluster=se_cluster,
        se_iid=deff.se_iid,
        design_effect=deff.design_effect,
        tasks=int(d.size),
        pairs=int(r.sum()),
        method=what + ", task-macro; " + deff.method,
    )


# --------------------------------------------------------------------------- sign-flip test


def sign_flip_test(counts: PairedCounts) -> SignFlipTest:
    r, w, l = count_arrays(counts)
    return sign_flip_test_counts(w - l, r)


def sign_flip_test_counts(
    numerators: Sequence[int] | np.ndarray,
    denominators: Sequence[int] | np.ndarray,
    *,
    max_work: int = _DP_MAX_WORK,
) -> SignFlipTest:
    """Sign-flip test on d_t = numerators[t] / denominators[t] (integers).

    * T <= 16: full enumeration of the 2^T sign vectors.
    * otherwise, when the differences scaled by L = lcm(denominators) give a small
      enough integer support: the exact null distribution by dynamic programming
      (tasks with equal |scaled difference| are grouped; each group contributes a
      scaled binomial).  Exact up to floating-point rounding of the probabilities.
    * otherwise: Monte Carlo with 20,000 sign vectors and a fixed seed,
      p = (1 + #{|S| >= |s_obs|}) / (B + 1); the method string says so.
    """
    num = np.asarray(numerators, dtype=np.int64)
    den = np.asarray(denominators, dtype=np.int64)
    if num.shape != den.shape or np.any(den <= 0) or np.any(np.abs(num) > den):
        raise ValueError("need |numerator| <= denominator and denominator >= 1 for every task")
    T = int(num.size)
    d = num / den if T else np.zeros(0)
    stat = float(abs(d.sum())) if T else 0.0
    base = "sign-flip randomisation test over tasks, two-sided"
    if T == 0 or not np.any(num):
        return SignFlipTest(stat, 1.0, T, True, base + " (exact: every difference is zero)")
    L = math.lcm(*(int(x) for x in np.unique(den)))
    scaled = [int(n) * (L // int(q)) for n, q in zip(num.tolist(), den.tolist(), strict=True)]
    obs = abs(sum(scaled))
    total = sum(abs(s) for s in scaled)
    if T <= _ENUMERATE_MAX_TASKS:
        p = _sign_flip_enumerate(scaled, obs)
        return SignFlipTest(stat, p, T, True, base + f" (exact: all 2^{T} sign vectors enumerated)")
    groups = Counter(abs(s) for s in scaled if s != 0)
    support = 2 * total + 1
    work = sum(m + 1 for m in groups.values()) * support
    if support <= _DP_MAX_SUPPORT and work <= max_work:
        p = _sign_flip_dp(groups, total, obs)
        p = min(1.0, max(p, 2.0 ** (1 - T)))
        return SignFlipTest(
            stat,
            p,
            T,
            True,
            base + " (exact null distribution by dynamic programming over integer-scaled differences)",
        )
    p = _sign_flip_monte_carlo(d, stat)
    return SignFlipTest(
        stat,
        p,
        T,
        False,
        base + f" (Monte Carlo: {SIGN_FLIP_DRAWS:,} random sign vectors, seed {SIGN_FLIP_SEED}, "
        "p = (1 + count) / (draws + 1))",
    )


def _sign_flip_enumerate(scaled: list[int], obs: int) -> float:
    T = len(scaled)
    if sum(abs(s) for s in scaled) < 2**62:
        vals = np.asarray(scaled, dtype=np.int64)
        codes = np.arange(2**T, dtype=np.int64)
        bits = ((codes[:, None] >> np.arange(T, dtype=np.int64)) & 1).astype(np.int64)
        sums = (2 * bits - 1) @ vals
        return float(np.count_nonzero(np.abs(sums) >= obs)) / 2.0**T
    count = 0  # pragma: no cover - astronomically large scaled values
    for code in range(2**T):
        s = sum(v if (code >> i) & 1 else -v for i, v in enumerate(scaled))
        count += abs(s) >= obs
    return count / 2.0**T


def _sign_flip_dp(groups: Counter[int], total: int, obs: int) -> float:
    """P(|S| >= obs) for S = sum over groups of v * (2 K_v - m_v), K_v ~ Bin(m_v, 1/2)."""
    size = 2 * total + 1
    dist = np.zeros(size)
    dist[total] = 1.0
    span = 0  # current support is [total - span, total + span]
    for v in sorted(groups):
        m = groups[v]
        pmf = binom_pmf(np.arange(m + 1), m, 0.5)
        new_span = span + v * m
        new = np.zeros(size)
        src = dist[total - span : total + span + 1]
        for j in range(m + 1):
            shift = v * (2 * j - m)
            lo = total - span + shift
            new[lo : lo + src.size] += pmf[j] * src
        dist, span = new, new_span
    values = np.abs(np.arange(size) - total)
    return float(min(1.0, dist[values >= obs].sum()))


def _sign_flip_monte_carlo(d: np.ndarray, stat: float) -> float:
    rng = np.random.default_rng(SIGN_FLIP_SEED)
    count = 0
    chunk = max(1, 2_000_000 // max(1, d.size))
    done = 0
    tol = 1e-9 * max(1.0, stat)
    while done < SIGN_FLIP_DRAWS:
        b = min(chunk, SIGN_FLIP_DRAWS - done)
        signs = rng.integers(0, 2, size=(b, d.size), dtype=np.int8) * 2 - 1
        sums = np.abs(signs @ d)
        count += int(np.count_nonzero(sums >= stat - tol))
        done += b
    return (1 + count) / (SIGN_FLIP_DRAWS + 1)


# --------------------------------------------------------------------------- McNemar


def mcnemar_test(wins: int, losses: int) -> McNemarTest:
    b, c = int(wins), int(losses)
    if b < 0 or c < 0:
        raise ValueError("wins and losses must be non-negative")
    D = b + c
    if D == 0:
        return McNemarTest(b, c, 0, 1.0, 1.0, 1.0, 1.0)
    m = min(b, c)
    cdf_m = float(binom_cdf(m, D, 0.5))
    pmf_m = float(binom_pmf(m, D, 0.5))
    p_two = min(1.0, 2.0 * cdf_m)
    p_mid = min(1.0, 2.0 * cdf_m - pmf_m)
    p_better = float(binom_sf(b - 1, D, 0.5))
    p_worse = float(binom_cdf(b, D, 0.5))
    return McNemarTest(b, c, D, p_two, p_mid, min(1.0, p_better), min(1.0, p_worse))
