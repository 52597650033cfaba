"""Statistics for experiment comparisons and ledger gates (issue 6): public entry points.

Pure functions over plain numbers; no I/O, no printing, no unseeded randomness.
Every result is a frozen dataclass carrying the name of its method.

Experiments (per-task lists of per-repetition booleans over strictly matched pairs):

* :func:`pass_at_k`, :func:`pass_pow_k_observed`, :func:`pass_pow_k_unbiased` -- one task.
* :func:`task_macro` -- one side, one k: the three task-macro metrics with a t
  interval over tasks and the betting interval.
* :func:`paired_comparison` -- both sides for every k, the paired statistics,
  the minimum detectable effect and the verdict.

Ledgers (per-case lists of (candidate, baseline) outcome pairs):

* :func:`annotate_ledger_gate` -- Tango interval, exact McNemar, design effect by
  case, and why the reference gate passed or failed.
* :func:`gate_feasibility`, :func:`rate_gate_feasibility` -- "can this gate ever pass
  at this sample size?", exactly.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from functools import lru_cache

import numpy as np

from generator.analyze.comparison import passk
from generator.analyze.stats.intervals import (
    betting_interval,
    reference_paired_bounds,
    t_interval,
    tango_interval,
)
from generator.analyze.stats.paired import (
    clustered_difference,
    design_effect,
    mcnemar_test,
    named_tasks,
    pair_outcomes,
    sign_flip_test,
    sign_flip_test_counts,
    win_loss_tie,
)
from generator.analyze.stats.power import (
    gate_feasibility,
    gate_margin_needed,
    gate_pairs_needed,
    gate_pass_probability,
    minimum_detectable_effect,
    noninferiority_pairs_needed,
    rate_gate_feasibility,
    tasks_needed_for,
)
from generator.analyze.stats.verdict import diagnose_gate, experiment_verdict
from generator.model.stats import (
    REFERENCE_PAIRED_LABEL,
    ClusteredDifference,
    DesignEffect,
    ExperimentComparison,
    GateDiagnosis,
    GateFeasibility,
    GateKind,
    Interval,
    LedgerGateAnnotation,
    MacroSummary,
    McNemarTest,
    MetricEstimate,
    Outcomes,
    PairedCounts,
    PairedSummary,
    PowerAnalysis,
    RateGateFeasibility,
    ReferenceBounds,
    SignFlipTest,
    Verdict,
    WinLossTie,
    as_json,
)

__all__ = [
    "as_json",
    "ClusteredDifference",
    "DesignEffect",
    "ExperimentComparison",
    "GateDiagnosis",
    "GateFeasibility",
    "GateKind",
    "Interval",
    "LedgerGateAnnotation",
    "MacroSummary",
    "McNemarTest",
    "MetricEstimate",
    "PairedCounts",
    "PairedSummary",
    "PowerAnalysis",
    "RateGateFeasibility",
    "ReferenceBounds",
    "SignFlipTest",
    "Verdict",
    "WinLossTie",
    "annotate_ledger_gate",
    "betting_interval",
    "clustered_difference",
    "design_effect",
    "diagnose_gate",
    "experiment_verdict",
    "gate_feasibility",
    "gate_margin_needed",
    "gate_pairs_needed",
    "gate_pass_probability",
    "mcnemar_test",
    "minimum_detectable_effect",
    "noninferiority_pairs_needed",
    "pair_outcomes",
    "paired_comparison",
    "pass_at_k",
    "pass_pow_k_observed",
    "pass_pow_k_unbiased",
    "rate_gate_feasibility",
    "reference_paired_bounds",
    "sign_flip_test",
    "sign_flip_test_counts",
    "t_interval",
    "tango_interval",
    "task_macro",
    "task_macro_from_counts",
    "tasks_needed_for",
    "win_loss_tie",
]


#: Below this many eligible tasks the t interval is flagged as approximate.
FEW_TASKS = 30


# --------------------------------------------------------------------------- one task


def _check_nck(n: int, c: int, k: int) -> tuple[int, int, int]:
    n, c, k = int(n), int(c), int(k)
    if n < 0 or not 0 <= c <= n:
        raise ValueError(f"need 0 <= passes <= repetitions, got c={c}, n={n}")
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    return n, c, k


@lru_cache(maxsize=4096)
def pass_at_k(n: int, c: int, k: int) -> float | None:
    """Unbiased pass@k (Chen et al. 2021): 1 - C(n-c, k) / C(n, k); ``None`` when k > n.

    Correctly rounded ((C(n,k) - C(n-c,k)) / C(n,k) in exact integers), unlike
    :func:`generator.analyze.comparison.passk.pass_at_k`, which keeps Comet's floating-point
    evaluation so that the comparison's reference metrics match Comet bit for bit.
    """
    n, c, k = _check_nck(n, c, k)
    if k > n:
        return None
    total = math.comb(n, k)
    return (total - math.comb(n - c, k)) / total


@lru_cache(maxsize=4096)
def pass_pow_k_observed(n: int, c: int, k: int) -> float | None:
    """pass^k as the Comet reference defines it: 1 if every observed repetition passed.

    Independent of k (its expectation is p^n, not p^k); ``None`` when k > n.
    """
    n, c, k = _check_nck(n, c, k)
    return None if k > n else passk.pass_pow_k(n, c)


@lru_cache(maxsize=4096)
def pass_pow_k_unbiased(n: int, c: int, k: int) -> float | None:
    """Unbiased pass^k (Yao et al. 2024): C(c, k) / C(n, k); ``None`` when k > n."""
    n, c, k = _check_nck(n, c, k)
    return None if k > n else passk.pass_pow_k_unbiased(n, c, k)


_METRICS = (
    (
        "pass_at_k",
        "pass@{k}",
        pass_at_k,
        "task-macro unbiased pass@k (Chen et al. 2021: 1 - C(n-c,k)/C(n,k)), mean over tasks with n >= k",
    ),
    (
        "pass_pow_k_observed",
        "pass^{k} (all observed repetitions passed)",
        pass_pow_k_observed,
        "task-macro pass^k as the reference defines it: 1 when every observed repetition passed "
        "(expectation p^n, depends on n: compare only at equal repetitions), mean over tasks with n >= k",
    ),
    (
        "pass_pow_k_unbiased",
        "pass^{k} (unbiased)",
        pass_pow_k_unbiased,
        "task-macro unbiased pass^k (Yao et al. 2024: C(c,k)/C(n,k)), mean over tasks with n >= k",
    ),
)


# --------------------------------------------------------------------------- task macro


def task_macro_from_counts(
    reps: Sequence[int],
    passes: Sequence[int],
    k: int,
    *,
    total_tasks: int | None = None,
    confidence: float = 0.95,
    names: Sequence[str] | None = None,
) -> MacroSummary:
    """Task-macro metrics from per-task (repetitions, passes); ``names`` (the tasks) order the betting
    interval by a keyed hash (:func:`.intervals.betting_order`), else it takes the order given."""
    reps_t = tuple(int(r) for r in reps)
    passes_t = tuple(int(c) for c in passes)
    if len(reps_t) != len(passes_t):
        raise ValueError("reps and passes differ in length")
    k = int(k)
    if k < 1:
        raise ValueError("k must be at least 1")
    total = len(reps_t) if total_tasks is None else int(total_tasks)
    if total < len(reps_t):
        raise ValueError("total_tasks is smaller than the number of tasks given")
    if names is not None and len(names) != len(reps_t):
        raise ValueError("names and reps differ in length")
    eligible = [(n, c) for n, c in zip(reps_t, passes_t, strict=True) if n >= k]
    kept = None if names is None else [name for name, n in zip(names, reps_t, strict=True) if n >= k]
    T = len(eligible)
    out = []
    for key, label, fn, method in _METRICS:
        values = np.fromiter((fn(n, c, k) for n, c in eligible), dtype=float, count=T)
        lab = label.format(k=k)
        if T == 0:
            note = f"undefined: no task has at least {k} repetitions"
            iv = Interval(None, None, None, confidence, "t interval over per-task values", note)
            bet = Interval(None, None, None, confidence, "Waudby-Smith-Ramdas betting interval", note)
            out.append(MetricEstimate(key, lab, k, None, 0, total, iv, bet, True, note, method))
            continue
        iv = t_interval(values, confidence)
        bet = betting_interval(values, confidence, names=kept)
        few = T < FEW_TASKS
        warning = None
        if few:
            warning = (
                f"only {T} eligible task(s): the t interval is approximate and may under-cover by 5-20 points"
                + (" (worst for pass^k with k >= 3)" if key != "pass_at_k" else "")
                + "; the betting interval is valid at any task count"
            )
        out.append(
            MetricEstimate(key, lab, k, statistics.fmean(values.tolist()), T, total, iv, bet, few, warning, method)
        )
    return MacroSummary(k, T, total, out[0], out[1], out[2])


def task_macro(outcomes: Outcomes, k: int, *, total_tasks: int | None = None, confidence: float = 0.95) -> MacroSummary:
    """Task-macro pass@k, pass^k (all observed) and unbiased pass^k for one side.

    ``outcomes``: task -> per-repetition booleans or a sequence of such lists (the betting
    interval takes the tasks in a keyed-hash order of their names, or of their positions).
    ``total_tasks`` (default: the tasks given) is reported as the denominator of
    the eligibility count, e.g. tasks expected but never observed.
    """
    names, lists = named_tasks(outcomes)
    reps = [len(v) for v in lists]
    passes = [sum(1 for x in v if x) for v in lists]
    return task_macro_from_counts(reps, passes, k, total_tasks=total_tasks, confidence=confidence, names=names)


# --------------------------------------------------------------------------- comparisons


def paired_comparison(
    candidate: Outcomes,
    baseline: Outcomes,
    ks: Sequence[int] = (1,),
    *,
    total_tasks: int | None = None,
    confidence: float = 0.95,
    alpha: float = 0.05,
    power: float = 0.8,
    difference_of_interest: float | None = None,
) -> ExperimentComparison:
    """Everything the comparison page shows, from strictly matched pairs.

    ``candidate`` and ``baseline`` must hold the same tasks with the same number
    of repetitions per task (pair i of task t is the same (task, rep) on both sides).
    """
    counts = pair_outcomes(candidate, baseline)
    ks_t = tuple(sorted({int(k) for k in ks}))
    if not ks_t or ks_t[0] < 1:
        raise ValueError("ks must hold at least one k >= 1")
    reps = counts.reps
    cand_pass = tuple(w + a for w, a in zip(counts.wins, counts.both_pass, strict=True))
    base_pass = tuple(lo + a for lo, a in zip(counts.losses, counts.both_pass, strict=True))
    names = counts.tasks
    cand = tuple(
        task_macro_from_counts(reps, cand_pass, k, total_tasks=total_tasks, confidence=confidence, names=names)
        for k in ks_t
    )
    base = tuple(
        task_macro_from_counts(reps, base_pass, k, total_tasks=total_tasks, confidence=confidence, names=names)
        for k in ks_t
    )
    runs, tasks = win_loss_tie(counts)
    diff = clustered_difference(counts, confidence)
    flip = sign_flip_test(counts)
    mcn = mcnemar_test(runs.wins, runs.losses)
    tango = (
        tango_interval(runs.wins, runs.losses, counts.pairs, confidence)
        if counts.pairs
        else Interval(None, None, None, confidence, "Tango score interval (paired proportions)", "undefined: no pairs")
    )
    pw = minimum_detectable_effect(counts, alpha=alpha, power=power)
    verdict = experiment_verdict(diff, flip, pw, alpha=alpha, difference_of_interest=difference_of_interest)
    warnings = []
    if diff.tasks < FEW_TASKS:
        warnings.append(
            f"only {diff.tasks} task(s) with matched pairs: t intervals over tasks are approximate; "
            "prefer the betting intervals and the exact sign-flip test"
        )
    if diff.design_effect is not None and diff.design_effect > 2.0:
        warnings.append(
            f"design effect {diff.design_effect:.2f}: repetitions of a task are strongly correlated, so "
            "run-level intervals (naive, Tango, McNemar) are too narrow for the task population"
        )
    if len(set(r for r in reps if r > 0)) > 1:
        warnings.append("tasks differ in repetition count: pass^k (all observed) is comparable only at equal n")
    return ExperimentComparison(
        ks_t, cand, base, PairedSummary(runs, tasks, diff, flip, mcn, tango), pw, verdict, tuple(warnings)
    )


# --------------------------------------------------------------------------- ledgers


def annotate_ledger_gate(
    pairs_by_case: Mapping[str, Sequence[tuple[bool, bool]]],
    *,
    kind: GateKind,
    margin: float,
    passed: bool | None = None,
    power: float = 0.8,
) -> LedgerGateAnnotation:
    """Annotate one gate from per-case (candidate, baseline) outcome pairs.

    For the false-positive gate the outcome is "had a blocking false positive",
    so a *win* (candidate only) is a candidate-only false positive, and the gate is
    ``kind="upper_margin"`` with ``margin`` = fprEpsilon.  For recall the outcome is
    "detected" and ``kind="non_inferiority"`` with ``margin`` = recallDelta;
    transport equivalence is ``kind="equivalence"`` with margin delta_t.
    ``passed`` (the ledger's own condition) overrides the recomputed decision.
    """
    names = sorted(pairs_by_case, key=str)
    sizes, wins, losses = [], [], []
    for name in names:
        pairs = pairs_by_case[name]
        w = sum(1 for c, b in pairs if c and not b)
        l = sum(1 for c, b in pairs if b and not c)
        sizes.append(len(pairs))
        wins.append(w)
        losses.append(l)
    n, W, L = sum(sizes), sum(wins), sum(losses)
    ref = reference_paired_bounds(W, L, n)
    tango = (
        tango_interval(W, L, n, 0.90)
        if n
        else Interval(None, None, None, 0.90, "Tango score interval", "undefined: no pairs")
    )
    if n:
        tango = Interval(
            tango.estimate,
            tango.lower,
            tango.upper,
            0.90,
            "Tango score interval, 90% two-sided (each bound a nominal 95% one-sided bound, the gate's level); "
            "pairs treated as independent",
        )
    return LedgerGateAnnotation(
        kind=kind,
        margin=float(margin),
        cases=len(names),
        pairs=n,
        wins=W,
        losses=L,
        ties=n - W - L,
        reference=ref,
        reference_label=REFERENCE_PAIRED_LABEL,
        tango=tango,
        mcnemar=mcnemar_test(W, L),
        clustering=design_effect(sizes, wins, losses),
        diagnosis=diagnose_gate(ref, kind, margin, passed=passed, power=power),
    )
