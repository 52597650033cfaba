"""Multiplicity corrections for a family of p-values: Holm, Benjamini-Hochberg, none.

Holm (1979) is hand-written (eight lines; scipy has no Holm, and statsmodels,
which has both, pulls pandas and patsy into the runtime -- it is used by the tests
only, to check these against ``statsmodels.stats.multitest.multipletests``).
Benjamini-Hochberg comes from ``scipy.stats.false_discovery_control``, imported only when asked for
(``scipy.stats`` takes about a second to import; nothing else of a leaderboard needs it).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from generator.model.leaderboard import CORRECTION_NAMES, Correction

__all__ = ["CORRECTION_NAMES", "adjust", "holm"]


def holm(p_values: Sequence[float]) -> tuple[float, ...]:
    """Holm-adjusted p-values: max over j <= i of min(1, (m - j + 1) p_(j)), in input order."""
    p = np.asarray(p_values, dtype=float)
    m = p.size
    if m == 0:
        return ()
    order = np.argsort(p, kind="stable")
    stepped = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = stepped
    return tuple(float(x) for x in out)


def adjust(p_values: Sequence[float], correction: Correction) -> tuple[float, ...]:
    """Adjusted p-values of one family; reject where the adjusted value is below alpha."""
    p = [float(x) for x in p_values]
    if any(not 0.0 <= x <= 1.0 for x in p):
        raise ValueError("p-values must lie in [0, 1]")
    if not p or correction == "none":
        return tuple(p)
    if correction == "holm":
        return holm(p)
    if correction == "bh":
        from scipy import stats

        return tuple(float(x) for x in stats.false_discovery_control(np.asarray(p), method="bh"))
    raise ValueError(f"unknown correction {correction!r}")
