#!/usr/bin/env python3
"""Write the bundled example leaderboard under ``examples/leaderboard/``.

Four look-alike systems on the eight example tasks x 4 repetitions, one Comet
experiment folder each (expected case matrix, v2 manifests, Claude stream-json
stdout, so cost and duration are re-derived), written with the helpers of
``scripts/make_examples.py``.  Deterministic (fixed seed).  Planted: ``agent-a``
passes almost everything, ``agent-b`` (the baseline) and ``agent-c`` have the
same pass rates, ``agent-d`` is weak; ``agent-c`` misses one repetition, so its
coverage is below 100% and its run accuracy is undefined; ``agent-e`` ran one
task only, so it shares fewer than two tasks with every other system: it is
*not comparable* with them (never grouped, tiered or ranked against them).

Run ``python scripts/make_example_leaderboard.py`` from the project root after
``scripts/make_examples.py`` (it needs ``examples/tasks``).
"""

from __future__ import annotations

import random
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import make_examples as mx  # noqa: E402

OUT = mx.EXAMPLES / "leaderboard"
REPS = (1, 2, 3, 4)
# (folder, treatment, pass probability per task in TASK_SPECS order)
SYSTEMS = (
    ("agent-a", "LB_AGENT_A", (1.0, 0.95, 0.95, 0.9, 1.0, 0.95, 0.9, 1.0)),
    ("agent-b", "LB_AGENT_B", (0.5, 0.3, 0.7, 0.4, 0.8, 0.5, 0.4, 0.9)),
    ("agent-c", "LB_AGENT_C", (0.5, 0.3, 0.7, 0.4, 0.8, 0.5, 0.4, 0.9)),
    ("agent-d", "LB_AGENT_D", (0.1, 0.0, 0.2, 0.1, 0.3, 0.1, 0.0, 0.2)),
    ("agent-e", "LB_AGENT_E", (0.9, None, None, None, None, None, None, None)),  # one task: not comparable
)
MISSING = ("agent-c", "csv-dedupe", 4)  # listed in the matrix, never reported


def main() -> int:
    if not mx.TASKS.is_dir():
        print("examples/tasks is missing: run scripts/make_examples.py first", file=sys.stderr)
        return 2
    if OUT.exists():
        shutil.rmtree(OUT)
    rng = random.Random(20260812)
    tasks = list(mx.TASK_SPECS)
    manifests = {task: mx.v2_manifest(task) for task in tasks}
    for folder, treatment, rates in SYSTEMS:
        exp = OUT / folder
        ran = [task for task, rate in zip(tasks, rates, strict=True) if rate is not None]
        cases = [(task, treatment, rep) for task in ran for rep in REPS]
        mx.write_json(exp / "expected-case-matrix.json", mx.matrix_payload(cases))
        for task, rate in zip(tasks, rates, strict=True):
            if rate is None:
                continue
            for rep in REPS:
                passed = rng.random() < rate
                if (folder, task, rep) == MISSING:
                    continue
                mx.write_run(exp, task, treatment, rep, passed, rng, manifest=manifests[task])
    count = sum(1 for _ in OUT.rglob("*.json"))
    print(f"wrote {len(SYSTEMS)} systems ({count} JSON files) under examples/leaderboard/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
