"""pass@k and pass^k, per task and as a task macro average.

For a task with ``n`` aligned repetitions of which ``c`` passed:

* ``pass@k`` is the unbiased HumanEval estimator ``1 - C(n-c, k) / C(n, k)``;
* ``pass^k`` (Comet's "reliability floor") is 1 when every repetition passed,
  else 0 — it does not depend on k;
* ``pass^k unbiased`` is ``C(c, k) / C(n, k)``, the unbiased estimate of the
  chance that k fresh repetitions all pass.  It is reported under its own name
  so the two pass^k are never confused.

The task macro averages each task's value over the tasks with at least k
repetitions.  k is never lowered for a task that has fewer: the task drops out
of that k's coverage instead, and with no eligible task the value is
undefined (``None``), never 0 or 1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import comb
from statistics import fmean

from generator.model.comparison import MacroMetrics, normalize_ks, parse_ks

__all__ = ["MacroMetrics", "normalize_ks", "parse_ks", "pass_at_k", "pass_pow_k", "pass_pow_k_unbiased", "task_macro"]


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k for one task; requires ``1 <= k <= n``.

    Evaluated as Comet evaluates it (``1 - a/b`` in floating point), so the
    comparison's metrics equal Comet's bit for bit; the statistics module has a
    correctly rounded variant for its intervals.
    """
    if n - c < k:
        return 1.0
    return 1 - comb(n - c, k) / comb(n, k)


def pass_pow_k(n: int, c: int) -> float:
    """1.0 when every observed repetition passed, else 0.0."""
    return 1.0 if c >= n else 0.0


def pass_pow_k_unbiased(n: int, c: int, k: int) -> float:
    """Unbiased estimate of P(k fresh repetitions all pass); requires ``1 <= k <= n``."""
    return comb(c, k) / comb(n, k)


def task_macro(
    results_by_task: Mapping[str, Sequence[bool]],
    ks: Sequence[int],
    *,
    total_tasks: int,
) -> dict[int, MacroMetrics]:
    """Macro-averaged metrics for each k over the tasks with at least k results."""
    counts = [(len(values), sum(1 for value in values if value)) for values in results_by_task.values()]
    output: dict[int, MacroMetrics] = {}
    for k in ks:
        eligible = [(n, c) for n, c in counts if n >= k]
        if not eligible:
            output[k] = MacroMetrics(k, None, None, None, 0, total_tasks)
            continue
        output[k] = MacroMetrics(
            k=k,
            pass_at_k=fmean(pass_at_k(n, c, k) for n, c in eligible),
            pass_pow_k=fmean(pass_pow_k(n, c) for n, c in eligible),
            pass_pow_k_unbiased=fmean(pass_pow_k_unbiased(n, c, k) for n, c in eligible),
            eligible_tasks=len(eligible),
            total_tasks=total_tasks,
        )
    return output
