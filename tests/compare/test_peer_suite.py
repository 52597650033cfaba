"""Comet's own strict-comparison tests, ported to evalsite's interfaces.

Each test names the Comet test it ports.  Assertions use the JSON document
where Comet asserted a number, and the Markdown report where the behaviour
is the disclosure itself.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from comet_fixtures import BASE, CAND, v1_manifest, v2_from_v1, write_matrix, write_run

from generator.cli import main
from generator.pipelines.compare import ComparisonInputs, run_comparison
from generator.read.comet.manifest import fallback_manifest


def compare(cand: Path, base: Path, tasks: Path | None = None, ks=(1, 2, 3), **kw):
    return run_comparison(ComparisonInputs(cand, CAND, base, BASE, tasks_dir=tasks, ks=tuple(ks), **kw))


def summary(doc: dict) -> tuple[int, ...]:
    return (
        doc["candidate"]["runs"],
        doc["baseline"]["runs"],
        doc["expected_keys"],
        len(doc["pairs"]),
        len(doc["tasks"]),
        len(doc["issues"]),
    )


def issue_rows(doc: dict) -> list[tuple[str, int, str, str]]:
    return [(i["task"], i["rep"], i["reason"], i["detail"]) for i in doc["issues"]]


# 1
def test_fallback_case_manifest_never_hashes_dotenv_files(tmp_path: Path) -> None:
    task = tmp_path / "tasks" / "task-a"
    task.mkdir(parents=True)
    (task / "task.toml").write_text("x = 1\n")
    (task / "instruction.md").write_text("Do it\n")
    (task / ".envrc").write_text("export TOKEN=one\n")
    first = fallback_manifest("task-a", tmp_path / "tasks", None)
    (task / ".envrc").write_text("export TOKEN=two\n")
    assert fallback_manifest("task-a", tmp_path / "tasks", None).case_hash == first.case_hash
    (task / "instruction.md").write_text("Do it differently\n")
    assert fallback_manifest("task-a", tmp_path / "tasks", None).case_hash != first.case_hash


# 3
def test_expected_matrix_detects_case_missing_from_both_experiments(dirs) -> None:
    cand, base, _ = dirs
    write_run(cand, "task-a", CAND, 1, True)
    write_run(base, "task-a", BASE, 1, True)
    write_matrix(cand, [("task-a", CAND, 1), ("task-b", CAND, 1), ("irrelevant", "CONTROL", 1)])
    write_matrix(base, [("task-a", BASE, 1), ("task-b", BASE, 1)])
    result = compare(cand, base, ks=(1,))
    doc = result.document
    assert summary(doc) == (1, 1, 2, 1, 2, 1)
    assert issue_rows(doc) == [("task-b", 1, "missing-repetition", "missing candidate and baseline run")]
    assert doc["candidate"]["matrix"]["status"] == "report-bound"
    assert doc["baseline"]["matrix"]["status"] == "report-bound"
    assert doc["candidate"]["matrix"]["target_cases"] == 2
    assert "Expected-matrix limitation" not in result.markdown
    assert "| 1 | 1 | 2 | 1 | 2 | 1 |" in result.markdown


# 4
def test_invalid_expected_matrix_fails_closed_instead_of_using_observed_runs(dirs) -> None:
    cand, base, _ = dirs
    write_run(cand, "task-a", CAND, 1, True)
    write_run(base, "task-a", BASE, 1, True)
    path = write_matrix(cand, [("task-a", CAND, 1)])
    write_matrix(base, [("task-a", BASE, 1)])
    forged = json.loads(path.read_text())
    forged["matrix_hash"] = "sha256:" + "0" * 64
    path.write_text(json.dumps(forged))
    result = compare(cand, base, ks=(1,))
    doc = result.document
    assert issue_rows(doc) == [
        ("*", 0, "invalid-expected-case-matrix", "candidate: expected case matrix hash does not match its cases"),
        ("task-a", 1, "expected-matrix-mismatch", "candidate matrix omits case"),
        ("task-a", 1, "unexpected-run", "candidate"),
    ]
    assert doc["pairs"] == []
    assert doc["candidate"]["matrix"]["status"] == "invalid"
    assert doc["metrics"]["candidate"]["1"]["pass_at_k"] is None
    assert doc["metrics"]["candidate"]["1"]["eligible_tasks"] == 0
    assert "Invalid-matrix handling" in result.markdown
    assert "observed reports are excluded" in result.markdown
    assert "N/A (0/1 tasks)" in result.markdown


# 5
def test_historical_reports_disclose_expected_matrix_and_execution_limitations(dirs) -> None:
    cand, base, _ = dirs
    write_run(cand, "task-a", CAND, 1, True)
    write_run(base, "task-a", BASE, 1, True)
    result = compare(cand, base, ks=(1,))
    assert result.document["limitations"]["missing_matrix"] == ["candidate", "baseline"]
    assert result.document["limitations"]["execution_unbound_records"] == 2
    md = result.markdown
    assert "Expected-matrix limitation" in md
    assert "cannot be reconstructed or claimed as historically executed" in md
    assert "Execution-identity limitation: 2 run record(s)" in md
    assert "must not be presented as exact historical execution identity" in md


# 6
def test_v2_run_can_compare_to_v1_by_core_hash_without_claiming_exact_identity(dirs) -> None:
    cand, base, _ = dirs
    write_run(cand, "task-a", CAND, 1, True, manifest=v2_from_v1(v1_manifest("task-a")))
    write_run(base, "task-a", BASE, 1, True)
    result = compare(cand, base, ks=(1,))
    assert summary(result.document) == (1, 1, 1, 1, 1, 0)
    assert result.document["pairs"][0]["case_hash"] == result.document["runs"][0]["manifest"]["core_hash"]
    assert result.document["limitations"]["execution_unbound_records"] == 1
    assert "Execution-identity limitation: 1 run record" in result.markdown


def test_two_v2_runs_pair_on_the_full_case_hash(dirs) -> None:
    cand, base, _ = dirs
    v2 = v2_from_v1(v1_manifest("task-a"))
    write_run(cand, "task-a", CAND, 1, True, manifest=v2)
    write_run(base, "task-a", BASE, 1, True, manifest=v2)
    doc = compare(cand, base, ks=(1,)).document
    assert doc["pairs"][0]["case_hash"] == v2["case_hash"]
    assert doc["limitations"]["execution_unbound_records"] == 0


# 7
def test_task_macro_pass_at_3_does_not_pool_runs_across_tasks(dirs) -> None:
    cand, base, _ = dirs
    for index in range(16):
        task = f"task-{index:02d}"
        for rep in (1, 2, 3):
            write_run(cand, task, CAND, rep, index < 8)
            write_run(base, task, BASE, rep, True)
    result = compare(cand, base)
    metrics = result.document["metrics"]
    assert metrics["candidate"]["3"]["pass_at_k"] == 0.5
    assert (metrics["candidate"]["3"]["eligible_tasks"], metrics["candidate"]["3"]["total_tasks"]) == (16, 16)
    assert metrics["baseline"]["1"]["pass_at_k"] == 1.0
    line = next(row for row in result.markdown.splitlines() if row.startswith(f"| {CAND} | pass@k"))
    assert "0.50 (16/16 tasks)" in line and "0.88" not in line
    assert f"| {BASE} | pass@k | 1.00" in result.markdown
    assert str(cand) not in result.markdown and str(base) not in result.markdown
    assert "from `candidate`" in result.markdown and "from `baseline`" in result.markdown


# 8
def test_missing_rep_is_coverage_loss_without_lowering_k(dirs) -> None:
    cand, base, _ = dirs
    for rep in (1, 2):
        write_run(cand, "task-a", CAND, rep, True)
    for rep in (1, 2, 3):
        write_run(base, "task-a", BASE, rep, True)
    result = compare(cand, base)
    k3 = result.document["metrics"]["candidate"]["3"]
    assert (k3["pass_at_k"], k3["pass_pow_k"], k3["pass_pow_k_unbiased"], k3["eligible_tasks"]) == (None, None, None, 0)
    assert result.document["metrics"]["candidate"]["2"]["pass_at_k"] == 1.0
    assert issue_rows(result.document) == [("task-a", 3, "missing-repetition", "missing candidate run")]
    line = next(row for row in result.markdown.splitlines() if row.startswith(f"| {CAND} | pass@k"))
    assert "N/A (0/1 tasks)" in line
    assert "| task-a | 3 | missing-repetition | missing candidate run |" in result.markdown
    assert "k is never reduced" in result.markdown


# 9
def test_combined_experiment_sample_number_is_the_repetition_identity(dirs) -> None:
    cand, base, _ = dirs
    write_run(cand, "task-a", CAND, 3, True)
    report = write_run(base, "task-a", BASE, 1, True)
    report.rename(report.with_name(f"task_a_{BASE}_sample3_from_experiment_previous.json"))
    result = compare(cand, base, ks=(1,))
    assert summary(result.document) == (1, 1, 1, 1, 1, 0)
    assert result.document["task_outcomes"] == [
        {"task": "task-a", "reps": [3], "pairs": 1, "candidate_passes": 1, "baseline_passes": 1}
    ]
    assert "| task-a | 3 | 1/1 | 1/1 |" in result.markdown


# 10
def test_combined_experiment_duration_is_bound_to_named_source_experiment(tmp_path: Path) -> None:
    cand, source, combined = tmp_path / "candidate", tmp_path / "experiment_source", tmp_path / "combined"
    write_run(cand, "task-a", CAND, 1, True)
    report = write_run(source, "task-a", BASE, 1, True)
    (combined / "reports").mkdir(parents=True)
    moved = combined / "reports" / f"task_a_{BASE}_sample1_from_experiment_source.json"
    shutil.move(report, moved)
    duration = compare(cand, combined, ks=(1,)).document["duration"]["baseline"]
    assert (duration["matched"], duration["covered"], duration["total_seconds"]) == (1, 1, 1.0)
    moved.rename(moved.with_name(f"task_a_{BASE}_sample1_from_experiment_wrong.json"))
    duration = compare(cand, combined, ks=(1,)).document["duration"]["baseline"]
    assert (duration["matched"], duration["covered"], duration["total_seconds"]) == (1, 0, None)


def test_combined_source_cannot_be_dot_or_dotdot(tmp_path: Path) -> None:
    cand, combined = tmp_path / "candidate", tmp_path / "combined"
    write_run(cand, "task-a", CAND, 1, True)
    report = write_run(tmp_path / "elsewhere", "task-a", BASE, 1, True)
    (combined / "reports").mkdir(parents=True)
    shutil.move(report, combined / "reports" / f"task_a_{BASE}_sample1_from_...json")
    shutil.move(tmp_path / "elsewhere" / "raw", tmp_path / "raw")
    run = [r for r in compare(cand, combined, ks=(1,)).document["runs"] if r["side"] == "baseline"][0]
    assert run["telemetry"] is None and run["artifact"] == "rejected"


# 11
def test_case_hash_mismatch_is_not_compared(dirs) -> None:
    cand, base, _ = dirs
    write_run(cand, "task-a", CAND, 1, True, variant="candidate")
    write_run(base, "task-a", BASE, 1, True, variant="baseline")
    result = compare(cand, base)
    assert summary(result.document) == (1, 1, 1, 0, 1, 1)
    (issue,) = result.document["issues"]
    assert issue["reason"] == "case-hash-mismatch"
    assert issue["detail"].startswith("candidate=sha256:") and ", baseline=sha256:" in issue["detail"]
    assert "Strictly matched pairs | Tasks | Issues" in result.markdown
    assert "N/A (0/1 tasks)" in result.markdown


# 12
def test_invalid_embedded_case_manifest_fails_closed(dirs) -> None:
    cand, base, _ = dirs
    write_run(cand, "task-a", CAND, 1, True)
    forged = v1_manifest("task-a")
    forged["case_hash"] = "sha256:" + "1" * 64
    write_run(base, "task-a", BASE, 1, True, manifest=forged)
    result = compare(cand, base)
    assert summary(result.document) == (1, 1, 1, 0, 1, 1)
    assert issue_rows(result.document) == [("task-a", 1, "invalid-case-manifest", "baseline")]
    assert result.document["limitations"]["fallback_records"] == 1
    assert "Audit limitation: 1 run record(s)" in result.markdown


# 13
def test_duration_is_recomputed_from_raw_stdout_with_explicit_coverage(dirs) -> None:
    cand, base, _ = dirs
    write_run(cand, "task-a", CAND, 1, True, durations=(1000, 2000))
    write_run(cand, "task-a", CAND, 2, True, durations=(4000,))
    write_run(cand, "task-a", CAND, 3, True, durations=None)
    for rep in (1, 2, 3):
        write_run(base, "task-a", BASE, rep, True, durations=(1000,))
    result = compare(cand, base)
    d = result.document["duration"]
    assert (d["candidate"]["covered"], d["candidate"]["total_seconds"], d["candidate"]["average_seconds"]) == (
        2,
        7.0,
        3.5,
    )
    assert d["candidate"]["missing"] == [{"task": "task-a", "rep": 3}]
    assert (d["baseline"]["covered"], d["baseline"]["total_seconds"]) == (3, 3.0)
    md = result.markdown
    assert f"| {CAND} | 3 | 2/3 | 7s | 4s | raw_stdout:extract_events |" in md
    assert f"| {BASE} | 3 | 3/3 | 3s | 1s | raw_stdout:extract_events |" in md
    # the stored (reported) durations never reach a re-derived number: they live only under
    # the added "reported" keys, labelled as reported by the harness (issue 10)
    assert "9999" not in json.dumps(_without_reported(result.document))
    assert d["candidate"]["reported"]["covered"] == 1 and d["candidate"]["reported"]["total_seconds"] == 9999
    assert len(d["baseline"]["reported"]["disagreements"]) == 3
    assert "9999" not in md.split("### Duration reported by the harness")[0]
    assert "Stored historical duration fields are not mixed" in md
    assert f"{CAND} missing raw duration: `task-a#r3`" in md


def _without_reported(value: object) -> object:
    """The document without the keys that hold what the harness reported."""
    reported = {"reported", "reported_telemetry", "reported_rows", "disagreements"}
    if isinstance(value, dict):
        return {k: _without_reported(v) for k, v in value.items() if k not in reported}
    if isinstance(value, list):
        return [_without_reported(v) for v in value]
    return value


# 14
def test_aligned_report_compares_cumulative_success_efficiency(dirs) -> None:
    cand, base, _ = dirs
    write_run(
        cand,
        "task-a",
        CAND,
        1,
        True,
        result_telemetry={"num_turns": 4, "usage": {"input_tokens": 100, "output_tokens": 20}, "total_cost_usd": 0.1},
    )
    write_run(
        base,
        "task-a",
        BASE,
        1,
        True,
        result_telemetry={"num_turns": 8, "usage": {"input_tokens": 200, "output_tokens": 40}, "total_cost_usd": 0.2},
    )
    result = compare(cand, base, ks=(1,))
    rows = {row["key"]: row for row in result.document["efficiency"]["strict_success"]["rows"]}
    assert (rows["num_turns"]["candidate_average"], rows["num_turns"]["baseline_average"]) == (4.0, 8.0)
    assert rows["num_turns"]["delta_pct"] == 50.0
    assert (rows["total_tokens"]["candidate_average"], rows["total_tokens"]["baseline_average"]) == (120.0, 240.0)
    md = result.markdown
    assert "### Strict-success intersection (1 paired runs)" in md
    assert "| Agent turns | 1/1 | 4.00 | 8.00 | 50.0% less |" in md
    assert "| Total tokens incl. cache | 1/1 | 120 | 240 | 50.0% less |" in md
    assert "| Model cost | 1/1 | $0.100 | $0.200 | 50.0% less |" in md


# 15
@pytest.mark.parametrize("stdout", [None, '{"type":"assistant","message":{"id":"m","usage":{"input_tokens":5}}}\n'])
def test_aligned_report_excludes_raw_stdout_without_a_result_event(dirs, stdout) -> None:
    cand, base, _ = dirs
    write_run(cand, "task-a", CAND, 1, True, durations=None)
    if stdout is not None:
        (cand / "raw" / f"task_a_{CAND}_r1_rep1_stdout.json").write_text(stdout)
    write_run(base, "task-a", BASE, 1, True)
    result = compare(cand, base, ks=(1,))
    assert "| Model starts/resumes | 0/1 | N/A | N/A | N/A |" in result.markdown
    run = next(r for r in result.document["runs"] if r["side"] == "candidate")
    assert run["telemetry"] is None
    assert run["artifact"] == ("absent" if stdout is None else "no-result-event")


# 16
def test_duration_rejects_a_raw_artifact_from_another_task(dirs) -> None:
    cand, base, _ = dirs
    report = write_run(cand, "task-a", CAND, 1, True)
    other = write_run(cand, "task-b", CAND, 1, True)
    for task in ("task-a", "task-b"):
        write_run(base, task, BASE, 1, True)
    data = json.loads(report.read_text())
    data["events_summary"]["artifact_references"]["raw_stdout"] = json.loads(other.read_text())["events_summary"][
        "artifact_references"
    ]["raw_stdout"]
    report.write_text(json.dumps(data))
    result = compare(cand, base, ks=(1,))
    assert result.document["duration"]["candidate"]["covered"] == 1
    assert f"| {CAND} | 2 | 1/2 |" in result.markdown
    assert f"{CAND} missing raw duration: `task-a#r1`" in result.markdown


# 17
def test_duration_rejects_a_raw_artifact_from_another_repetition(dirs) -> None:
    cand, base, _ = dirs
    r1 = write_run(cand, "task-a", CAND, 1, True)
    r2 = write_run(cand, "task-a", CAND, 2, True)
    for rep in (1, 2):
        write_run(base, "task-a", BASE, rep, True)
    data = json.loads(r1.read_text())
    data["events_summary"]["artifact_references"]["raw_stdout"] = json.loads(r2.read_text())["events_summary"][
        "artifact_references"
    ]["raw_stdout"]
    r1.write_text(json.dumps(data))
    result = compare(cand, base, ks=(1,))
    assert f"| {CAND} | 2 | 1/2 |" in result.markdown
    assert f"{CAND} missing raw duration: `task-a#r1`" in result.markdown


# 18
def test_duration_rejects_raw_stdout_outside_its_experiment(dirs, tmp_path: Path) -> None:
    cand, base, _ = dirs
    report = write_run(cand, "task-a", CAND, 1, True)
    write_run(base, "task-a", BASE, 1, True)
    stdout = cand / "raw" / f"task_a_{CAND}_r1_rep1_stdout.json"
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.copy(stdout, outside / stdout.name)
    data = json.loads(report.read_text())
    data["events_summary"]["artifact_references"]["raw_stdout"] = str(outside / stdout.name)
    report.write_text(json.dumps(data))
    result = compare(cand, base, ks=(1,))
    assert f"| {CAND} | 1 | 0/1 |" in result.markdown
    assert f"{CAND} missing raw duration: `task-a#r1`" in result.markdown


# 19
def test_duration_rejects_symlinked_raw_stdout(dirs, tmp_path: Path) -> None:
    cand, base, _ = dirs
    write_run(cand, "task-a", CAND, 1, True)
    write_run(base, "task-a", BASE, 1, True)
    stdout = cand / "raw" / f"task_a_{CAND}_r1_rep1_stdout.json"
    copy = tmp_path / "copy.json"
    shutil.copy(stdout, copy)
    stdout.unlink()
    os.symlink(copy, stdout)
    result = compare(cand, base, ks=(1,))
    assert f"| {CAND} | 1 | 0/1 |" in result.markdown
    run = next(r for r in result.document["runs"] if r["side"] == "candidate")
    assert (run["artifact"], run["artifact_reason"]) == ("rejected", "is a symbolic link")


# 20
def test_missing_checks_failed_field_fails_closed(dirs) -> None:
    cand, base, _ = dirs
    report = write_run(cand, "task-a", CAND, 1, True)
    write_run(base, "task-a", BASE, 1, True)
    data = json.loads(report.read_text())
    del data["checks_failed"]
    report.write_text(json.dumps(data))
    result = compare(cand, base, ks=(1,))
    assert result.document["pairs"][0]["candidate_passed"] is False
    assert "| task-a | 1 | 0/1 | 1/1 |" in result.markdown


# 21
def test_cli_supports_explicit_candidate_and_baseline_experiments(dirs, tmp_path: Path, capsys) -> None:
    cand, base, _ = dirs
    write_run(cand, "task-a", CAND, 1, True)
    write_run(base, "task-a", BASE, 1, True)
    out = tmp_path / "aligned.md"
    argv = [
        "compare",
        "--candidate",
        str(cand),
        "--candidate-treatment",
        CAND,
        "--baseline",
        str(base),
        "--baseline-treatment",
        BASE,
        "--k",
        "1,3",
        "--out",
        str(out),
    ]
    assert main(argv) == 0
    text = out.read_text()
    assert CAND in text and BASE in text and "Requested k: 1, 3" in text
    assert main([*argv[:-2], "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == "evalsite.comparison.v1" and doc["ks"] == [1, 3]


def test_comparison_carries_paired_statistics_and_a_verdict(dirs) -> None:
    cand, base, _ = dirs
    for index in range(16):
        for rep in (1, 2, 3):
            write_run(cand, f"task-{index:02d}", CAND, rep, index < 8)
            write_run(base, f"task-{index:02d}", BASE, rep, True)
    result = compare(cand, base)
    stats = result.document["statistics"]
    assert stats["verdict"]["outcome"] == "candidate worse"
    assert stats["paired"]["runs"]["losses"] == 24 and stats["paired"]["runs"]["wins"] == 0
    assert stats["paired"]["difference"]["estimate"] == -0.5
    assert stats["paired"]["difference"]["interval"]["upper"] < 0
    assert [s["k"] for s in stats["candidate"]] == [1, 2, 3]
    assert "**Candidate worse" in result.markdown
    json.dumps(result.document, allow_nan=False)  # plain JSON: no NaN or Infinity


def test_no_pairs_gives_undefined_statistics_not_numbers(dirs) -> None:
    cand, base, _ = dirs
    write_run(cand, "task-a", CAND, 1, True, variant="one")
    write_run(base, "task-a", BASE, 1, True, variant="two")
    stats = compare(cand, base).document["statistics"]
    assert stats["paired"]["difference"]["estimate"] is None
    assert stats["verdict"]["outcome"] == "no verdict"  # nothing was compared (issue 25)
