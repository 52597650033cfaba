"""Small generated Comet experiments for the build-history tests.

``write_build(root, candidate)`` (re)writes ``root/cand`` and ``root/base`` from per-task pass
counts (three repetitions per task; the baseline is fixed) and a one-comparison site config with a
history file; ``build(root, *extra)`` runs ``evalsite build`` and returns (exit, stdout, stderr).
``built(root, steps, env)`` makes the folder of a sequence of builds once, for a module fixture; each
test then starts from ``copy_into(folder, tmp_path)``, the same files a test that built them would have.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "compare"))

from comet_fixtures import BASE, CAND, write_run  # noqa: E402

from tests.support.cli import Result, evalsite  # noqa: E402

REPS = 3
TASKS = [f"task-{i:02d}" for i in range(30)]
BASELINE = [REPS if i % 2 == 0 else 0 for i in range(30)]  # 15 of 30 tasks pass every run

# Candidate pass counts per task for the build scenarios (30 tasks: enough for the regression gate,
# which tests the j-th build after its reference at 2.5% * 6 / (pi^2 j^2) per side).
START = [3] * 15 + [0] * 15  # 0.5
IMPROVED = [3] * 30  # 15 tasks start passing: an improvement, the new reference
DIP = [2] + [3] * 29  # one run of one task fails: inside the noise
REGRESSED = [0] * 12 + [3] * 18  # twelve tasks stop passing: a regression against IMPROVED
LATER = [3] * 29 + [2]


def write_side(folder: Path, treatment: str, passes: list[int]) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    for task, count in zip(TASKS, passes, strict=True):
        for rep in range(1, REPS + 1):
            write_run(folder, task, treatment, rep, rep <= count)


def write_build(root: Path, candidate: list[int], *, base_url: str | None = None) -> Path:
    write_side(root / "cand", CAND, candidate)
    if not (root / "base").exists():
        write_side(root / "base", BASE, BASELINE)
    config = root / "site.yaml"
    config.write_text(
        # no run or pair pages: the history records and links what the comparison found, never a
        # transcript (tests/transcripts holds those); without them a build takes about half the time
        "title: history\nhistory: history.jsonl\ntranscripts: false\n"
        + (f"base_url: {base_url}\n" if base_url else "")
        + "comparisons:\n  - id: a\n    title: Candidate vs baseline\n"
        f"    candidate: {{experiment: cand, treatment: {CAND}}}\n"
        f"    baseline: {{experiment: base, treatment: {BASE}}}\n",
        encoding="utf-8",
    )
    return config


def build(root: Path, *extra: str) -> Result:
    return evalsite("build", "--config", str(root / "site.yaml"), "--out", str(root / "out"), *extra)


def cli(*args: str) -> Result:
    return evalsite(*args)


def built(root: Path, steps: Sequence[tuple[list[int], tuple[str, ...]]], env: Mapping[str, str]) -> Path:
    """*root* after ``write_build(root, candidate); build(root, *extra)`` for each step, with *env* set
    (each build must succeed).  Module fixtures make it once; tests change only copies of it."""
    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        for candidate, extra in steps:
            write_build(root, candidate)
            code, _, err = build(root, *extra)
            assert code == 0, err
    return root


def copy_into(folder: Path, root: Path) -> Path:
    """*root* (a test's empty ``tmp_path``) made a copy of *folder* (links kept, times too); its history."""
    shutil.copytree(folder, root, symlinks=True, dirs_exist_ok=True)
    return root / "history.jsonl"
