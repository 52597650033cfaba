"""The comparison rule on per-task scores in [0, 1], and a minimum detectable effect that holds for it.

This is the decision of the comparison pages (:func:`generator.analyze.stats.verdict.experiment_verdict`)
and of the leaderboard (``generator.analyze.leaderboard.board``), on real-valued scores: a
difference is called only when the task-clustered (1 - alpha) t interval over the per-task mean
differences excludes 0 (:func:`generator.analyze.stats.intervals.t_interval`, clipped to [-1, 1],
as :func:`generator.analyze.stats.paired.clustered_difference` does) *and* the sign-flip test over
tasks has p < alpha (:func:`generator.analyze.stats.paired.sign_flip_test_counts`).  Pass/fail
scores give exactly the site's numbers; partial credit works because both tests only need the
per-task mean differences (kept as exact fractions when the scores are simple fractions, so the
sign-flip test stays exact; otherwise its seeded Monte Carlo form is used).

The minimum detectable effect (:func:`minimum_detectable_difference`) is computed for this
two-condition rule, not for the interval alone: see its docstring.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from generator.analyze.stats.dist import norm_ppf, t_ppf
from generator.analyze.stats.intervals import t_interval
from generator.analyze.stats.paired import sign_flip_test_counts

__all__ = [
    "MIN_SHARED_TASKS",
    "PairedScores",
    "RuleResult",
    "decide",
    "minimum_detectable_difference",
    "paired_scores",
    "tasks_needed",
]

#: The site's rule has no verdict below two shared tasks: the task-clustered interval is undefined.
MIN_SHARED_TASKS = 2
MAX_TASKS = 100_000
MAX_REPS = 10_000
#: Scores that are fractions with a denominator up to this are kept exact (0.5, 0.25, 2/3, ...).
_MAX_DENOMINATOR = 1_000
#: Other real scores are rounded to multiples of 2^-20 (the sign-flip test then runs by Monte Carlo).
_QUANTUM = 2**20
_DRAWS = 4_000
_FEW_VALUES = 64
_INDEX_BUDGET = 600_000
#: Beyond this many tasks (with many distinct differences) the MDE uses the rule's threshold at the
#: observed variance plus z_power standard errors instead of a bootstrap (the spread of s^2 vanishes).
_LARGE_N = 5_000
#: :func:`tasks_needed` searches no further.
MAX_TASKS_NEEDED = 10_000_000

BETTER = "better"
WORSE = "worse"
NOT_DISTINGUISHABLE = "not distinguishable"
NO_VERDICT = "no verdict"


@dataclass(frozen=True)
class PairedScores:
    """Shared tasks (sorted), and per task the mean difference as ``numerators / denominators``."""

    tasks: tuple[str, ...]
    numerators: np.ndarray
    denominators: np.ndarray
    pairs: int
    #: every score was 0 or 1 (pass / fail): a true difference X then has per-task variance >= X(1 - X)/R
    binary: bool = False

    @property
    def differences(self) -> np.ndarray:
        return self.numerators / self.denominators if self.tasks else np.zeros(0)


@dataclass(frozen=True)
class RuleResult:
    """One application of the rule at level ``alpha``."""

    outcome: str
    difference: float | None
    interval: tuple[float, float] | None
    p_value: float | None
    tasks: int
    pairs: int
    alpha: float


def _scores(name: str, values: object) -> list[float]:
    task = name if len(name) <= 60 else name[:57] + "..."  # messages stay short (repr keeps them one line)
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise ValueError(f"task {task!r}: scores must be a sequence of numbers in [0, 1]")
    if len(values) > MAX_REPS:
        raise ValueError(f"task {task!r}: more than {MAX_REPS:,} repetitions")
    try:
        out = [float(v) for v in values]
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"task {task!r}: scores must be numbers in [0, 1]") from None
    if not all(0.0 <= x <= 1.0 for x in out):  # NaN fails the comparison too
        raise ValueError(f"task {task!r}: scores must be numbers in [0, 1]")
    return out


def _check_side(side: object, name: str) -> Mapping[str, Sequence[float]]:
    if not isinstance(side, Mapping):
        raise ValueError(f"{name} must map task names to per-repetition scores")
    if len(side) > MAX_TASKS:
        raise ValueError(f"{name}: more than {MAX_TASKS:,} tasks")
    if any(not isinstance(k, str) for k in side):
        raise ValueError(f"{name}: task names must be strings")
    return side


def _exact(x: float) -> Fraction | None:
    f = Fraction(x).limit_denominator(_MAX_DENOMINATOR)
    return f if abs(float(f) - x) <= 1e-12 else None


def paired_scores(candidate: Mapping[str, Sequence[float]], baseline: Mapping[str, Sequence[float]]) -> PairedScores:
    """Per shared task, the mean of candidate - baseline over the repetition indices both have.

    Tasks present on one side only, and tasks with no repetition on either side, are left out.
    """
    cand, base = _check_side(candidate, "candidate"), _check_side(baseline, "baseline")
    names = sorted(set(cand) & set(base))
    rows: list[tuple[str, list[float], list[float]]] = []
    for name in names:
        c, b = _scores(name, cand[name]), _scores(name, base[name])
        n = min(len(c), len(b))
        if n:
            rows.append((name, c[:n], b[:n]))
    tasks = tuple(name for name, _c, _b in rows)
    pairs = sum(len(c) for _n, c, _b in rows)
    if all(x in (0.0, 1.0) for _n, c, b in rows for x in (*c, *b)):  # pass / fail: (wins - losses) / reps
        num = np.asarray([round(sum(c) - sum(b)) for _n, c, b in rows], dtype=np.int64)
        den = np.asarray([len(c) for _n, c, _b in rows], dtype=np.int64)
        return PairedScores(tasks, num, den, pairs, binary=True)
    fractions: list[Fraction] = []
    for _n, c, b in rows:
        parts = [_exact(x) for x in (*c, *b)]
        exact = [f for f in parts if f is not None]
        if len(exact) < len(parts):
            break
        fractions.append((sum(exact[: len(c)], Fraction(0)) - sum(exact[len(c) :], Fraction(0))) / len(c))
    else:
        num = np.asarray([f.numerator for f in fractions], dtype=np.int64)
        den = np.asarray([f.denominator for f in fractions], dtype=np.int64)
        return PairedScores(tasks, num, den, pairs)
    d = np.asarray([(math.fsum(c) - math.fsum(b)) / len(c) for _n, c, b in rows])
    num = np.clip(np.round(d * _QUANTUM), -_QUANTUM, _QUANTUM).astype(np.int64)
    return PairedScores(tasks, num, np.full(num.shape, _QUANTUM, dtype=np.int64), pairs)


def decide(scores: PairedScores, alpha: float = 0.05) -> RuleResult:
    """The rule at level ``alpha``: better / worse / not distinguishable, or no verdict below two tasks."""
    if not 0.0 < alpha < 1.0:
        raise ValueError("alpha must lie strictly between 0 and 1")
    T = len(scores.tasks)
    d = scores.differences
    if T < MIN_SHARED_TASKS:
        diff = float(d.mean()) if T else None
        return RuleResult(NO_VERDICT, diff, None, None, T, scores.pairs, alpha)
    iv = t_interval(d, 1.0 - alpha, clip=(-1.0, 1.0))
    p = sign_flip_test_counts(scores.numerators, scores.denominators).p_value
    assert iv.lower is not None and iv.upper is not None and iv.estimate is not None
    outcome = NOT_DISTINGUISHABLE
    if p < alpha and iv.lower > 0.0:
        outcome = BETTER
    elif p < alpha and iv.upper < 0.0:
        outcome = WORSE
    return RuleResult(outcome, iv.estimate, (iv.lower, iv.upper), p, T, scores.pairs, alpha)


# --------------------------------------------------------------------------- minimum detectable effect


def _seed(scores: PairedScores) -> int:
    h = hashlib.blake2b(digest_size=8)
    h.update(np.ascontiguousarray(scores.numerators, dtype="<i8").tobytes())
    h.update(np.ascontiguousarray(scores.denominators, dtype="<i8").tobytes())
    return int.from_bytes(h.digest(), "little")


def _lattice_step(scores: PairedScores) -> float:
    """Half the spacing of the sign-flip statistic's lattice, as a sum of differences (continuity correction)."""
    if int(scores.denominators.max()) >= _QUANTUM:
        return 0.0
    L = math.lcm(*(int(x) for x in np.unique(scores.denominators)))
    scaled = [abs(int(n)) * (L // int(q)) for n, q in zip(scores.numerators, scores.denominators, strict=True)]
    g = math.gcd(*scaled)
    return g / L if g else 1.0 / L


def _thresholds(
    e: np.ndarray, n: int, alpha: float, cc: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Per bootstrap sample of ``n`` tasks from ``e``, the smallest shift of the mean the rule calls better (worse)."""
    T = e.size
    values, freq = np.unique(e, return_counts=True)
    if values.size <= _FEW_VALUES:  # a bootstrap of tasks, by value (pass/fail scores: few distinct values)
        counts = rng.multinomial(n, freq / T, size=_DRAWS).astype(float)
        m = counts @ values / n
        sum_sq = counts @ (values * values)
    else:  # a bootstrap of tasks, by index
        sample = e[rng.integers(0, T, size=(max(1_000, min(_DRAWS, _INDEX_BUDGET // n)), n))]
        m = sample.mean(axis=1)
        sum_sq = np.einsum("ij,ij->i", sample, sample)
    s2 = np.maximum(sum_sq - n * m * m, 0.0) / (n - 1)
    x = _rule_threshold(s2, n, alpha, cc)
    return x - m, x + m


def _rule_threshold(s2: np.ndarray, n: int, alpha: float, cc: float) -> np.ndarray:
    """The smallest |mean| the rule rejects at, given the sample variance ``s2`` of ``n`` per-task differences."""
    t_crit = t_ppf(1.0 - alpha / 2.0, n - 1)
    x_t = t_crit * np.sqrt(s2 / n)  # interval: |mean| > t sd / sqrt(n)
    # sign-flip, normal form with continuity correction: n x - cc > z sqrt((n-1) s^2 + n x^2)
    z2 = norm_ppf(1.0 - alpha / 2.0) ** 2
    a = n * n - z2 * n
    c = cc * cc - z2 * (n - 1) * s2
    x_f = (2 * n * cc + np.sqrt(np.maximum(4 * n * n * cc * cc - 4 * a * c, 0.0))) / (2 * a)
    out: np.ndarray = np.maximum(x_t, x_f)
    return out


def _centred(scores: PairedScores) -> np.ndarray:
    """The per-task differences centred, scaled by sqrt(T / (T - 1)) so that resamples keep the sample variance."""
    d = scores.differences
    T = d.size
    out: np.ndarray = (d - d.mean()) * math.sqrt(T / (T - 1))
    return out


def _mde_at(
    e: np.ndarray, n: int, alpha: float, power: float, cc: float, seed: int, binary_reps: float | None
) -> float:
    """The ``power`` quantile of the rule's thresholds over samples of ``n`` tasks (see the MDE's docstring)."""
    if e.size > _FEW_VALUES and n > _LARGE_N:  # many tasks: the bootstrap spread of s^2 is negligible
        s = float(np.sqrt(np.mean(e * e)))
        x = float(_rule_threshold(np.asarray([s * s]), n, alpha, cc)[0])
        mde = x + norm_ppf(power) * s / math.sqrt(n)
    else:
        up, down = _thresholds(e, n, alpha, cc, np.random.default_rng([seed, n]))
        mde = max(float(np.quantile(up, power)), float(np.quantile(down, power)))
    if binary_reps is not None:
        # a true difference X cannot have per-task variance below X(1 - X)/R
        k = (t_ppf(1.0 - alpha / 2.0, n - 1) + norm_ppf(power)) ** 2
        mde = max(mde, k / (k + n * binary_reps))
    return mde


def minimum_detectable_difference(scores: PairedScores, *, alpha: float = 0.05, power: float = 0.8) -> float | None:
    """Smallest true task-macro difference the rule of :func:`decide` calls with probability ``power``.

    Method (deterministic: the seed is a hash of the data): the observed per-task differences are
    centred (and scaled by sqrt(T / (T - 1)), so that resamples keep the sample variance), tasks are
    resampled with replacement (4,000 bootstrap draws of the task population; at least 1,000 for many
    distinct real-valued differences) and every resample is shifted by a candidate effect delta. A shift
    leaves the spread unchanged, so for each resample the smallest delta the rule rejects at is found in
    closed form for both conditions: the t interval (Student t, T - 1 df) and the sign-flip test, whose
    randomisation distribution is taken in its normal form with variance sum d_t^2 and a continuity
    correction of half its lattice step (the discreteness of few tasks and few repetitions). The MDE is
    the ``power`` quantile of those thresholds, the larger of the two directions. For pass / fail
    scores it is at least the difference whose least possible per-task variance, X(1 - X)/R, makes it
    detectable: K / (K + T R) with K = (t + z_power)^2 (all pairs tied would otherwise promise any
    difference). Beyond 5,000 tasks with many distinct differences, the bootstrap is replaced by the
    threshold at the observed variance plus z_power standard errors. ``None`` when fewer
    than two tasks are shared, when the sign-flip test cannot reach ``alpha`` with this many tasks
    (2^(1-T) >= alpha), or when no difference up to 1 is detected with that probability.
    ``make calibrate`` measures the power actually reached at this MDE.
    """
    _check_power(power)
    T = len(scores.tasks)
    if T < MIN_SHARED_TASKS or 2.0 ** (1 - T) >= alpha:
        return None
    reps = float(scores.denominators.mean()) if scores.binary else None
    mde = _mde_at(_centred(scores), T, alpha, power, _lattice_step(scores), _seed(scores), reps)
    if not math.isfinite(mde) or mde > 1.0:
        return None
    return max(mde, 0.0)


def _check_power(power: float) -> None:
    if not 0.0 < power < 1.0:
        raise ValueError("power must lie strictly between 0 and 1")


def tasks_needed(
    scores: PairedScores,
    difference: float,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    variance_scale: float = 1.0,
) -> int | None:
    """About how many tasks the rule of :func:`decide` needs to call a true ``difference`` with probability ``power``.

    The smallest n whose MDE (:func:`minimum_detectable_difference`'s method with samples of n tasks
    drawn from the observed centred per-task differences, scaled by ``sqrt(variance_scale)`` for
    another number of repetitions) is at most ``|difference|``; found by bisection, deterministic.
    ``None`` for a zero difference, fewer than two observed tasks, or more than :data:`MAX_TASKS_NEEDED`.
    """
    _check_power(power)
    x = abs(float(difference))
    T = len(scores.tasks)
    if not 0.0 < x <= 1.0 or T < MIN_SHARED_TASKS or variance_scale <= 0.0:
        return None
    e = _centred(scores) * math.sqrt(variance_scale)
    same_design = variance_scale == 1.0
    cc = _lattice_step(scores) if same_design else 0.0
    reps = float(scores.denominators.mean()) / variance_scale if scores.binary else None
    seed = _seed(scores)
    low = MIN_SHARED_TASKS
    while 2.0 ** (1 - low) >= alpha:  # below this the sign-flip test cannot reach alpha at all
        low += 1

    def detects(n: int) -> bool:
        return _mde_at(e, n, alpha, power, cc, seed, reps) <= x

    high = low
    while not detects(high):
        if high >= MAX_TASKS_NEEDED:
            return None
        low, high = high + 1, min(MAX_TASKS_NEEDED, high * 2)
    while low < high:  # the smallest n in [low, high] that detects (high does)
        mid = (low + high) // 2
        if detects(mid):
            high = mid
        else:
            low = mid + 1
    return high
