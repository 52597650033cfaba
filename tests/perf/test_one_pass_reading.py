"""Reading each Comet run once (report and raw stdout together, in the pool) changes nothing.

``compare`` reads a Comet pair in one pass: every report with its raw stdout, in batches whose
folders are looked at once before and once after (``safe_io.batched_reads``).  The comparison must
be the one of the two-pass reading (all reports, then the paired runs' raw stdout, each file with
its own checks), with the same first error, and a batched read must refuse what a single read
refuses, with the same words.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bench.bench_compare import BASELINE, CANDIDATE, make_synthetic_pair
from generator.model.comparison import ComparisonInputs
from generator.model.errors import EvalsiteError
from generator.pipelines import compare
from generator.pipelines.compare import report_text
from generator.read import safe_io
from generator.read.safe_io import Refusal, batched_reads, read_contained


@pytest.fixture
def hostile(tmp_path: Path) -> ComparisonInputs:
    candidate, baseline = make_synthetic_pair(tmp_path, tasks=7, reps=3, stdout_bytes=1_500, seed=5)
    raw = sorted((candidate / "raw").iterdir())
    raw[0].unlink()  # absent (and unpaired: its baseline report is removed below)
    raw[10].unlink()  # absent
    raw[1].write_text('{"type": "result", "num_turns": 1e999}\n')  # rejected telemetry
    raw[2].write_text('{"type": "user"}\n')  # no result event
    raw[3].unlink()
    raw[3].symlink_to(raw[4])  # a link: refused
    raw[5].unlink()
    os.mkfifo(raw[5])  # a FIFO where a run's stdout is named: refused, never waited on
    (raw[6]).write_bytes(b'\xff{"type": "result", "num_turns": 2}\n{"type":"result","num_turns":3}\n')
    reports = sorted((candidate / "reports").iterdir())
    reports[7].write_text("{not json")  # a skipped report
    other = json.loads(reports[8].read_text())
    other["name"] = "task-0002-OTHER-r3"
    reports[8].write_text(json.dumps(other))  # another treatment's report
    os.unlink(sorted((baseline / "reports").iterdir())[0])  # an unpaired candidate run
    (baseline / "raw" / "stray_stdout.json").write_text("{}")
    return ComparisonInputs(candidate, CANDIDATE, baseline, BASELINE)


def _two_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compare, "_load_comet_pair", lambda inputs, manifest_for: None)


@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize("rebase", [False, True])
def test_one_pass_and_two_pass_readings_are_identical(
    hostile: ComparisonInputs, monkeypatch: pytest.MonkeyPatch, workers: str, rebase: bool
) -> None:
    inputs = ComparisonInputs(hostile.candidate_dir, CANDIDATE, hostile.baseline_dir, BASELINE, rebase_artifacts=rebase)
    monkeypatch.setenv("EVALSITE_WORKERS", workers)
    one_pass = {format: report_text(inputs, format) for format in ("json", "markdown")}  # type: ignore[arg-type]
    _two_pass(monkeypatch)
    two_pass = {format: report_text(inputs, format) for format in ("json", "markdown")}  # type: ignore[arg-type]
    assert one_pass == two_pass
    document = json.loads(one_pass["json"])
    statuses = {run["artifact"] for run in document["runs"]}
    assert {"absent", "rejected", "no-result-event", "verified", "not-read"} <= statuses
    assert "report is not valid JSON" in one_pass["json"]


def _error(inputs: ComparisonInputs) -> str:
    with pytest.raises(EvalsiteError) as caught:
        report_text(inputs, "json")
    return str(caught.value)


@pytest.mark.parametrize("broken", ["candidate", "baseline", "both", "baseline-reports-link"])
def test_the_first_error_is_the_two_pass_reading_s(
    hostile: ComparisonInputs, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, broken: str
) -> None:
    candidate, baseline = hostile.candidate_dir, hostile.baseline_dir
    if broken in ("candidate", "both"):
        candidate = tmp_path / "no-such-candidate"
    if broken in ("baseline", "both"):
        baseline = tmp_path / "no-such-baseline"
    if broken == "baseline-reports-link":
        (baseline / "reports").rename(tmp_path / "elsewhere")
        (baseline / "reports").symlink_to(tmp_path / "elsewhere")
    inputs = ComparisonInputs(candidate, CANDIDATE, baseline, BASELINE)
    one_pass = _error(inputs)
    _two_pass(monkeypatch)
    assert _error(inputs) == one_pass


def test_a_candidate_fallback_error_comes_before_a_missing_baseline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    candidate, _baseline = make_synthetic_pair(tmp_path, tasks=2, reps=1, stdout_bytes=500, seed=2)
    for report in (candidate / "reports").iterdir():
        data = json.loads(report.read_text())
        del data["events_summary"]["case_manifest"]  # every run needs its task's fallback manifest
        report.write_text(json.dumps(data))

    def failing(task: str, tasks_dir: object, eval_root: object) -> object:
        raise EvalsiteError(f"cannot hash the tasks tree of {task}")

    monkeypatch.setattr(compare, "fallback_manifest", failing)
    inputs = ComparisonInputs(candidate, CANDIDATE, tmp_path / "missing", BASELINE)
    one_pass = _error(inputs)
    assert one_pass == "cannot hash the tasks tree of task-0000"
    _two_pass(monkeypatch)
    assert _error(inputs) == one_pass


# --------------------------------------------------------------------------- batched reads


def _both(path: Path, root: Path, max_bytes: int = 1 << 20) -> tuple[object, object]:
    alone = read_contained(str(path), str(root), max_bytes=max_bytes, root_is_resolved=True)
    with batched_reads() as batch:
        batched = read_contained(str(path), str(root), max_bytes=max_bytes, root_is_resolved=True)
    assert batch.unchanged
    return alone, batched


def test_a_batched_read_refuses_what_a_single_read_refuses(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    (root / "raw").mkdir()
    plain = root / "raw" / "plain.json"
    plain.write_text('{"a": 1}\n')
    (root / "raw" / "link.json").symlink_to(plain)
    os.mkfifo(root / "raw" / "fifo.json")
    (root / "raw" / "big.json").write_bytes(b"x" * 100)
    (root / "real").mkdir()
    (root / "real" / "inner.json").write_text("{}")
    (root / "via").symlink_to(root / "real")
    (root / "raw" / "folder.json").mkdir()
    cases = [
        (plain, 1 << 20),
        (root / "raw" / "link.json", 1 << 20),
        (root / "raw" / "fifo.json", 1 << 20),
        (root / "raw" / "big.json", 99),
        (root / "raw" / "big.json", 100),
        (root / "raw" / "missing.json", 1 << 20),
        (root / "via" / "inner.json", 1 << 20),
        (root / "raw" / "folder.json", 1 << 20),
        (tmp_path.parent / "outside.json", 1 << 20),
    ]
    for path, cap in cases:
        alone, batched = _both(path, root, cap)
        assert batched == alone, path.name
    assert _both(plain, root)[1] == b'{"a": 1}\n'
    assert isinstance(_both(root / "raw" / "link.json", root)[1], Refusal)


def test_a_folder_changed_during_a_batch_is_reported(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    (root / "raw").mkdir()
    (root / "raw" / "a.json").write_text("{}")
    with batched_reads() as batch:
        assert read_contained(str(root / "raw" / "a.json"), str(root), max_bytes=100, root_is_resolved=True) == b"{}"
        (root / "raw" / "b.json").write_text("{}")  # the folder is not as it was looked at
    assert not batch.unchanged
    with batched_reads() as batch:
        read_contained(str(root / "raw" / "a.json"), str(root), max_bytes=100, root_is_resolved=True)
    assert batch.unchanged


def test_a_batch_looks_at_each_folder_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path.resolve()
    (root / "raw").mkdir()
    for index in range(20):
        (root / "raw" / f"{index}.json").write_text("{}")
    looked: list[str] = []
    real_lstat = os.lstat

    def counting(path: str, *args: object, **kwargs: object) -> os.stat_result:
        looked.append(str(path))
        return real_lstat(path)

    monkeypatch.setattr(safe_io.os, "lstat", counting)
    with batched_reads() as batch:
        for index in range(20):
            read_contained(str(root / "raw" / f"{index}.json"), str(root), max_bytes=100, root_is_resolved=True)
    assert batch.unchanged
    assert len(looked) == 4  # the root and raw/, before and after: no look per file


# --------------------------------------------------------------------------- what workers send back


def test_packed_telemetry_and_summaries_cross_processes_unchanged() -> None:
    import pickle

    from generator.model.packed import TelemetryValues
    from generator.model.runs import TELEMETRY_FIELDS, report_summary

    for telemetry in (
        {name: index for index, name in enumerate(TELEMETRY_FIELDS)},
        {"num_turns": 2**70, "total_cost_usd": 0.5},  # does not pack: kept as a tuple
        {"duration_seconds": -0.0, "tool_calls": None},
    ):
        values = TelemetryValues(telemetry)
        back = pickle.loads(pickle.dumps(values))
        assert type(back) is TelemetryValues
        assert [(k, type(v), v) for k, v in back.items()] == [(k, type(v), v) for k, v in values.items()]
    summary = report_summary(
        {"name": "t-X-r1", "rep": 1, "passed": True, "checks_failed": ["a"], "events_summary": {"turns": 3}}
    )
    back_summary = pickle.loads(pickle.dumps(summary))
    assert dict(back_summary) == dict(summary) and list(back_summary) == list(summary)
