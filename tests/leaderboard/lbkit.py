"""Look-alike Comet experiments for leaderboard tests (minimal reports, no raw stdout)."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path


def write_system(root: Path, treatment: str, outcomes: dict[str, Sequence[bool]]) -> Path:
    """One experiment folder with ``reports/<task>-<treatment>-r<rep>.json`` per outcome."""
    reports = root / "reports"
    reports.mkdir(parents=True, exist_ok=True)
    for task, values in outcomes.items():
        for rep, passed in enumerate(values, 1):
            report = {
                "name": f"{task}-{treatment}-r{rep}",
                "passed": bool(passed),
                "checks_failed": [] if passed else ["tests_failed"],
            }
            (reports / f"{task}-{treatment}-r{rep}.json").write_text(json.dumps(report), encoding="utf-8")
    return root


def draw(rng: random.Random, rates: dict[str, float], reps: int) -> dict[str, list[bool]]:
    return {task: [rng.random() < rate for _ in range(reps)] for task, rate in rates.items()}
