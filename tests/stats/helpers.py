"""Synthetic data for the statistics tests."""

import numpy as np


def make_pairs(rng, tasks, reps, p_base=None, effect=0.0, spread=0.0):
    """Matched outcomes: (candidate, baseline) dicts task -> list of bools."""
    if p_base is None:
        p_base = rng.beta(0.7, 0.7, tasks)
    eff = effect + spread * rng.standard_normal(tasks)
    cand, base = {}, {}
    for i in range(tasks):
        name = f"task-{i:05d}"
        pc = float(np.clip(p_base[i] + eff[i], 0.0, 1.0))
        cand[name] = [bool(v) for v in rng.random(reps) < pc]
        base[name] = [bool(v) for v in rng.random(reps) < p_base[i]]
    return cand, base
