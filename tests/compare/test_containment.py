"""Hostile reports cannot make evalsite read what they name, and nothing is dropped silently."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from comet_fixtures import BASE, CAND, stem_of, write_run

from generator.cli import main
from generator.pipelines.compare import ComparisonInputs, run_comparison
from generator.read import safe_io
from generator.read.safe_io import Refusal, read_contained


def compare(cand: Path, base: Path, **kw):
    return run_comparison(ComparisonInputs(cand, CAND, base, BASE, ks=(1,), **kw))


def point_stdout_at(report: Path, reference: str) -> None:
    data = json.loads(report.read_text())
    data["events_summary"]["artifact_references"]["raw_stdout"] = reference
    report.write_text(json.dumps(data))


def candidate_run(doc: dict) -> dict:
    return next(r for r in doc["runs"] if r["side"] == "candidate")


@pytest.fixture
def pair(dirs):
    cand, base, _ = dirs
    report = write_run(cand, "task-a", CAND, 1, True)
    write_run(base, "task-a", BASE, 1, True)
    return cand, base, report


@pytest.mark.parametrize(
    "reference",
    ["/etc/passwd", "../baseline/raw/x_stdout.json", "raw/../../outside_stdout.json", "", "raw"],
)
def test_references_outside_or_unbound_are_rejected(pair, reference) -> None:
    cand, base, report = pair
    point_stdout_at(report, reference)
    run = candidate_run(compare(cand, base).document)
    assert run["telemetry"] is None
    assert run["artifact"] in {"rejected", "absent"}


def test_relative_reference_inside_the_experiment_is_accepted(pair) -> None:
    cand, base, report = pair
    point_stdout_at(report, f"raw/{stem_of('task-a', CAND, 1)}_stdout.json")
    assert candidate_run(compare(cand, base).document)["artifact"] == "verified"


def test_dotdot_that_comes_back_inside_is_normalised(pair) -> None:
    cand, base, report = pair
    point_stdout_at(report, f"raw/../raw/{stem_of('task-a', CAND, 1)}_stdout.json")
    assert candidate_run(compare(cand, base).document)["artifact"] == "verified"


def test_symlinked_folder_on_the_way_is_rejected(pair, tmp_path: Path) -> None:
    cand, base, report = pair
    real = tmp_path / "elsewhere"
    (cand / "raw").rename(real)
    os.symlink(real, cand / "raw")
    run = candidate_run(compare(cand, base).document)
    assert (run["artifact"], run["artifact_reason"]) == ("rejected", "a folder on its path is a symbolic link")


def test_oversized_stdout_is_rejected(pair, monkeypatch) -> None:
    cand, base, _ = pair
    monkeypatch.setattr("generator.read.comet.experiment.MAX_RAW_BYTES", 10)
    run = candidate_run(compare(cand, base).document)
    assert (run["artifact"], run["artifact_reason"]) == ("rejected", "exceeds the size limit")


def test_file_changed_during_read_is_rejected(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "f.json"
    target.write_text("{}\n")
    real_open = os.open

    def growing_open(path, flags, *args):
        fd = real_open(path, flags, *args)
        with open(target, "a") as handle:
            handle.write("more\n")
        return fd

    monkeypatch.setattr(safe_io.os, "open", growing_open)
    outcome = read_contained(target, tmp_path, max_bytes=1000)
    assert isinstance(outcome, Refusal) and outcome.reason == "changed during read"


def test_file_replaced_by_link_after_check_is_not_followed(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "f.json"
    target.write_text("{}\n")
    secret = tmp_path / "secret"
    secret.write_text("do not read")
    real_open = os.open

    def swapping_open(path, flags, *args):
        os.unlink(target)
        os.symlink(secret, target)
        return real_open(path, flags, *args)

    monkeypatch.setattr(safe_io.os, "open", swapping_open)
    assert isinstance(read_contained(target, tmp_path, max_bytes=1000), Refusal)


def test_special_files_are_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    outcome = read_contained(fifo, tmp_path, max_bytes=10)
    assert isinstance(outcome, Refusal) and outcome.reason == "is not a regular file"


def test_malformed_reports_are_disclosed_and_do_not_change_pairs(pair) -> None:
    cand, base, _ = pair
    before = compare(cand, base).document["pairs"]
    reports = cand / "reports"
    (reports / "broken.json").write_text("{not json")
    (reports / "latin1.json").write_bytes(b'{"name": "\xe9"}')
    (reports / "list.json").write_text("[1, 2]")
    (reports / "folder.json").mkdir()
    os.symlink("/etc/passwd", reports / "link.json")
    (reports / f"task-a-{CAND}-r0.json").write_text(json.dumps({"name": f"task-a-{CAND}-r0"}))
    doc = compare(cand, base).document
    assert doc["pairs"] == before
    assert [(s["file"], s["reason"]) for s in doc["skipped_reports"]] == [
        ("broken.json", "report is not valid JSON"),
        ("folder.json", "report file is not a regular file"),
        ("latin1.json", "report is not valid UTF-8"),
        ("link.json", "report file is a symbolic link"),
        ("list.json", "report is not a JSON object"),
        (f"task-a-{CAND}-r0.json", "report has an invalid repetition"),
    ]
    assert "root:" not in json.dumps(doc)


def test_reports_of_other_treatments_are_ignored_silently(pair) -> None:
    cand, base, _ = pair
    write_run(cand, "task-a", "CONTROL", 1, True)
    doc = compare(cand, base).document
    assert doc["candidate"]["runs"] == 1 and doc["skipped_reports"] == []


def test_hostile_task_name_cannot_escape_the_tasks_tree(dirs, tmp_path: Path) -> None:
    cand, base, tasks = dirs
    tasks.mkdir()
    secret_dir = tmp_path / "secret"
    secret_dir.mkdir()
    (secret_dir / "instruction.md").write_text("SECRET")
    for side, treatment in ((cand, CAND), (base, BASE)):
        report = write_run(side, "task-a", treatment, 1, True)
        data = json.loads(report.read_text())
        data["name"] = f"../secret-{treatment}-r1"
        del data["events_summary"]["case_manifest"]
        report.write_text(json.dumps(data))
    doc = run_comparison(ComparisonInputs(cand, CAND, base, BASE, tasks_dir=tasks, ks=(1,))).document
    manifest = doc["manifest_audit"][0]["candidate"]
    missing = "sha256:" + __import__("hashlib").sha256(b"missing\0").hexdigest()
    assert manifest["instruction_hash"] == missing


class TestRebase:
    def moved(self, pair, tmp_path: Path):
        cand, base, report = pair
        point_stdout_at(report, f"/nonexistent/old-checkout/raw/{stem_of('task-a', CAND, 1)}_stdout.json")
        return cand, base, report

    def test_off_by_default(self, pair, tmp_path: Path) -> None:
        cand, base, _ = self.moved(pair, tmp_path)
        doc = compare(cand, base).document
        assert candidate_run(doc)["artifact"] == "rejected" and doc["rebased_runs"] == []

    def test_finds_the_exact_name_under_raw_and_discloses_it(self, pair, tmp_path: Path) -> None:
        cand, base, _ = self.moved(pair, tmp_path)
        result = compare(cand, base, rebase_artifacts=True)
        doc = result.document
        assert candidate_run(doc)["artifact"] == "rebased"
        assert doc["duration"]["candidate"]["covered"] == 1
        assert doc["rebased_runs"] == [
            {"side": "candidate", "task": "task-a", "rep": 1, "file": f"{stem_of('task-a', CAND, 1)}_report.json"}
        ]
        assert "## Rebased raw artifacts" in result.markdown

    def test_still_refuses_another_runs_file(self, pair, tmp_path: Path) -> None:
        cand, base, report = pair
        point_stdout_at(report, f"/old/raw/{stem_of('task-a', CAND, 2)}_stdout.json")
        (cand / "raw" / f"{stem_of('task-a', CAND, 2)}_stdout.json").write_text('{"type":"result","duration_ms":1}\n')
        assert candidate_run(compare(cand, base, rebase_artifacts=True).document)["artifact"] == "rejected"

    def test_still_refuses_symlinks(self, pair, tmp_path: Path) -> None:
        cand, base, _ = self.moved(pair, tmp_path)
        stdout = cand / "raw" / f"{stem_of('task-a', CAND, 1)}_stdout.json"
        copy = tmp_path / "copy"
        stdout.rename(copy)
        os.symlink(copy, stdout)
        assert candidate_run(compare(cand, base, rebase_artifacts=True).document)["artifact"] == "rejected"


@pytest.mark.parametrize(
    "argv_tail,message",
    [
        (["--k", "0"], "error: --k"),
        (["--k", "a,b"], "error: --k"),
        (["--k", ""], "error: --k"),
        (["--tasks", "/nonexistent-tasks"], "error: tasks folder"),
    ],
)
def test_cli_bad_input_is_one_line_exit_2(pair, capsys, argv_tail, message) -> None:
    cand, base, _ = pair
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
    ]
    assert main([*argv, *argv_tail]) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1 and "Traceback" not in err


def test_cli_missing_folder_and_missing_treatment(pair, tmp_path: Path, capsys) -> None:
    cand, base, _ = pair
    assert (
        main(
            [
                "compare",
                "--candidate",
                str(tmp_path / "nope"),
                "--candidate-treatment",
                CAND,
                "--baseline",
                str(base),
                "--baseline-treatment",
                BASE,
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert err.startswith("error: candidate experiment folder 'nope' does not exist") and str(tmp_path) not in err
    assert (
        main(
            [
                "compare",
                "--candidate",
                str(cand),
                "--candidate-treatment",
                "NOPE",
                "--baseline",
                str(base),
                "--baseline-treatment",
                BASE,
            ]
        )
        == 2
    )
    assert capsys.readouterr().err == (
        "error: no NOPE reports found in candidate experiment 'candidate'; treatments found: COMET_NATIVE_PHASE1\n"
    )
