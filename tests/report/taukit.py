"""A generated look-alike of tau-bench airline (50 tasks x 4 trials, gpt-4o tool-calling): Comet reports
whose per-task pass counts give the published pass^1..4 (0.420, 0.273, 0.220, 0.200) by hand.

Passes per task (n = 4): 10 tasks pass 4 times, 4 tasks 3 times, 10 tasks twice, 12 tasks once, 14 never.
Unbiased pass^k = mean over tasks of C(c, k) / C(4, k):
  k=1: (10*4 + 4*3 + 10*2 + 12*1) / (50*4) = 84/200 = 0.42
  k=2: (10*6 + 4*3 + 10*1) / (50*6)         = 82/300 = 0.27333...
  k=3: (10*4 + 4*1) / (50*4)                 = 44/200 = 0.22
  k=4: 10/50                                  = 0.2
pass@k = mean of 1 - C(4-c, k)/C(4, k): 0.42, 0.56667, 0.66, 0.72; Comet's pass^k (every repetition
passed) = 10/50 = 0.2 at every k.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

TREATMENT = "gpt4o_tc_airline"
PASSES = [4] * 10 + [3] * 4 + [2] * 10 + [1] * 12 + [0] * 14  # one entry per task, 50 tasks...
random.Random(28).shuffle(PASSES)  # ...in no particular order of names, as real tasks are
PASS_POW_K = {1: 84 / 200, 2: 82 / 300, 3: 44 / 200, 4: 10 / 50}
PASS_AT_K = {1: 0.42, 2: (14 + 10 * 5 / 6 + 12 * 0.5) / 50, 3: (24 + 12 * 0.75) / 50, 4: 36 / 50}


def write_tau(root: Path, *, drop: tuple[tuple[int, int], ...] = ()) -> Path:
    """``root/<TREATMENT>/reports/airlineNNN-<TREATMENT>-rR.json``; *drop*: (task index, rep) never written.

    A failed run fails the check ``r_actions=0`` (a task that passes sometimes) or ``r_outputs=0`` (a task
    that never passes), as the real files name them; each run reports its turns and tool calls
    (``events_summary``)."""
    folder = root / TREATMENT
    reports = folder / "reports"
    reports.mkdir(parents=True)
    for index, passes in enumerate(PASSES):
        task = f"airline{index:03d}"
        for rep in range(1, 5):
            if (index, rep) in drop:
                continue
            passed = rep <= passes
            report = {
                "name": f"{task}-{TREATMENT}-r{rep}",
                "task": task,
                "treatment": TREATMENT,
                "rep": rep,
                "passed": passed,
                "checks_failed": [] if passed else ["r_actions=0" if passes else "r_outputs=0"],
                "events_summary": {"turns": 10 + rep, "tool_calls": rep},
            }
            (reports / f"{task}-{TREATMENT}-r{rep}.json").write_text(json.dumps(report), encoding="utf-8")
    return folder
