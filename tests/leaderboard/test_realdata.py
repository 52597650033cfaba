"""The benchmark's statistic against the published Terminal-Bench 1.0 per-run accuracies.

Reads ``../shared/realdata/terminal-bench-1`` when present (never copied into the repository) and
skips otherwise.  The published leaderboard value of a system is the mean of the ``accuracy`` of
its submitted runs (``results.json``) with the standard error sd / sqrt(R).  Seven systems submit
five runs: mean and standard error reproduce.  The two Orchestrator systems submit one run with
``n_attempts = 5``: the mean reproduces, but there is only one published run, so its run-to-run
standard error does not exist upstream; evalsite's repetitions are the five attempts, and its
standard error is over attempts, not runs.
"""

from __future__ import annotations

import gzip
import json
import statistics
from pathlib import Path

import pytest

from generator.model.leaderboard import LeaderboardInputs, SystemSpec
from generator.pipelines.leaderboard import compute_leaderboard

SHARED = Path(__file__).resolve().parents[3] / "shared" / "realdata"
TB = SHARED / "terminal-bench-1"

pytestmark = pytest.mark.skipif(not (TB / "experiments").is_dir(), reason="../shared/realdata is not present")


def _published(raw: Path) -> list[float]:
    files = sorted(p for p in raw.rglob("*results.json.gz"))
    return [float(json.loads(gzip.decompress(p.read_bytes()))["accuracy"]) for p in files]


@pytest.mark.slow
def test_run_accuracy_reproduces_the_published_leaderboard() -> None:
    folders = sorted(p for p in (TB / "experiments").iterdir() if p.is_dir())
    assert len(folders) == 9
    result = compute_leaderboard(LeaderboardInputs(tuple(SystemSpec(p.name, p, p.name) for p in folders)))
    reproduced, single_run = [], []
    for folder in folders:
        meta = json.loads((folder / "experiment_meta.json").read_text(encoding="utf-8"))
        runs = _published(SHARED / meta["raw_dir"])
        system = result.system(folder.name)
        assert system.coverage == 1.0 and system.run_accuracy.runs == 5
        assert system.run_accuracy.mean == pytest.approx(statistics.fmean(runs), abs=1e-12)
        if len(runs) == 5:
            assert system.run_accuracy.accuracies == pytest.approx(tuple(runs), abs=1e-12)
            assert system.run_accuracy.stderr == pytest.approx(statistics.stdev(runs) / 5**0.5, abs=1e-12)
            reproduced.append(folder.name)
        else:
            assert len(runs) == 1  # one run of 5 attempts: no published run-to-run standard error
            single_run.append(folder.name)
    assert sorted(single_run) == ["orchestrator_qwen3coder", "orchestrator_sonnet4"]
    assert len(reproduced) == 7
