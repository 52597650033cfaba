"""Look-alike Comet experiments for leaderboard tests (minimal reports, no raw stdout)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any


def write_system(
    root: Path,
    treatment: str,
    outcomes: dict[str, Sequence[bool]],
    events: Callable[[str, int], dict[str, Any] | None] | None = None,
) -> Path:
    """One experiment folder with ``reports/<task>-<treatment>-r<rep>.json`` per outcome; ``events(task,
    rep)`` is the report's ``events_summary`` (what the harness reported), when given and not None."""
    reports = root / "reports"
    reports.mkdir(parents=True, exist_ok=True)
    for task, values in outcomes.items():
        for rep, passed in enumerate(values, 1):
            report = {
                "name": f"{task}-{treatment}-r{rep}",
                "passed": bool(passed),
                "checks_failed": [] if passed else ["tests_failed"],
            }
            stated = events(task, rep) if events is not None else None
            if stated is not None:
                report["events_summary"] = stated
            (reports / f"{task}-{treatment}-r{rep}.json").write_text(json.dumps(report), encoding="utf-8")
    return root


def draw(rng: random.Random, rates: dict[str, float], reps: int) -> dict[str, list[bool]]:
    return {task: [rng.random() < rate for _ in range(reps)] for task, rate in rates.items()}
