"""Reading raw stdout in a process pool gives the same comparison as reading it in one process."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from bench.bench_compare import BASELINE, CANDIDATE, make_synthetic_pair
from generator.model.comparison import ComparisonInputs
from generator.pipelines import compare
from generator.pipelines.compare import report_text


@pytest.fixture
def pair(tmp_path: Path) -> ComparisonInputs:
    candidate, baseline = make_synthetic_pair(tmp_path, tasks=9, reps=3, stdout_bytes=2_000, seed=3)
    raw = sorted((candidate / "raw").iterdir())
    raw[0].unlink()  # an absent artifact
    raw[1].write_text('{"type": "result", "num_turns": 1e999}\n')  # rejected telemetry
    raw[2].write_text('{"type": "user"}\n')  # no result event
    return ComparisonInputs(candidate, CANDIDATE, baseline, BASELINE)


def test_pool_and_serial_documents_are_identical(pair: ComparisonInputs, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVALSITE_WORKERS", "1")
    for format in ("json", "markdown"):
        serial = report_text(pair, format)  # type: ignore[arg-type]
        monkeypatch.setenv("EVALSITE_WORKERS", "2")
        pooled = report_text(pair, format)  # type: ignore[arg-type]
        monkeypatch.setenv("EVALSITE_WORKERS", "1")
        assert pooled == serial
    assert '"rejected"' in report_text(pair, "json")  # the hostile runs are in the document


def test_the_pool_really_runs_in_other_processes(
    pair: ComparisonInputs, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    log = tmp_path / "pids.txt"
    original = compare._read_reports_task

    def spy(plans: object, task: tuple[int, int, int]) -> object:
        with open(log, "a") as handle:  # the workers' memory is their own: they report through a file
            handle.write(f"{os.getpid()}\n")
        return original(plans, task)  # type: ignore[arg-type]

    monkeypatch.setattr(compare, "_read_reports_task", spy)
    monkeypatch.setenv("EVALSITE_WORKERS", "2")
    report_text(pair, "json")
    pids = {int(line) for line in log.read_text().split()}
    assert pids and os.getpid() not in pids  # forked workers did the reading


def test_small_inputs_stay_in_one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EVALSITE_WORKERS", raising=False)
    assert compare._workers(compare.POOL_MIN_RUNS - 1) == 1
    monkeypatch.setenv("EVALSITE_WORKERS", "1")
    assert compare._workers(10**6) == 1


def test_telemetry_a_log_reports_is_not_sent_to_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inspect logs report their telemetry (no file to read per run): no pool, however many runs."""
    monkeypatch.delenv("EVALSITE_WORKERS", raising=False)
    monkeypatch.setattr(compare, "POOL_MIN_RUNS", 1)
    asked: list[int] = []
    real = compare.parallel.ordered_map

    def spy(function: Any, shared: Any, tasks: Any, processes: int) -> Any:
        asked.append(processes)
        return real(function, shared, tasks, processes)

    monkeypatch.setattr(compare.parallel, "ordered_map", spy)
    examples = Path(__file__).resolve().parents[2] / "examples" / "inspect"
    inputs = ComparisonInputs(
        examples / "candidate.eval",
        "candidate-solver",
        examples / "baseline.eval",
        "baseline-solver",
        candidate_format="inspect",
        baseline_format="inspect",
    )
    assert '"reported"' in report_text(inputs, "json")  # the telemetry as the logs report it
    assert asked == [1]
    assert compare._workers(1) > 1 or len(os.sched_getaffinity(0)) == 1  # a file read per run would pool
