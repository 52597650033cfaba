"""Caps where Inspect and Harbor input sizes multiply; one bad sample or trial never sinks a build.

Every case runs the real command line (``main`` in this process, under an alarm so a hang fails
the test; the Harbor folder named in bytes that are not UTF-8 in a real child, whose stdout and
stderr must decode as UTF-8) on the real inspect-ai logs of ``fixtures/inspect`` with one hostile
edit, and checks that the edit is one disclosed skipped row (or, for the header's plan, an invalid
expected-case matrix with its reason), that the other samples still compare, and that no message
names a local path.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from harness_fixtures import harbor_job, harbor_trial, swebench_run

from generator.read.importing import MAX_JSON_DEPTH, unusable_value
from tests.support.cli import evalsite
from tests.support.hang import HANG, no_hang

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "importers" / "fixtures" / "inspect"
TIMEOUT = HANG  # the old code hung (and grew without bound) on a billion epochs
SAMPLES = 15  # the candidate log: five samples x three epochs


def _candidate() -> dict[str, Any]:
    log: dict[str, Any] = json.loads((FIXTURES / "candidate.json").read_text(encoding="utf-8"))
    return copy.deepcopy(log)


def _run(*args: str, cwd: Path = ROOT, child: bool = False) -> subprocess.CompletedProcess[bytes]:
    """``evalsite ARGS``: in this process (a child only adds its start and imports), or with *child*
    in a real one; either way what it printed as UTF-8 bytes (strict: a lone surrogate fails here as
    it fails on a real stdout)."""
    if child:
        return subprocess.run(
            [sys.executable, "-m", "generator", *args],
            cwd=cwd,
            capture_output=True,
            timeout=TIMEOUT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    with no_hang(TIMEOUT):
        done = evalsite(*args, cwd=cwd)
    command = [sys.executable, "-m", "generator", *args]
    return subprocess.CompletedProcess(command, done.returncode, done.stdout.encode(), done.stderr.encode())


def _clean(stream: bytes) -> str:
    """The stream as text: valid UTF-8, at most one line, naming no local folder."""
    text = stream.decode("utf-8")  # the old code wrote undecodable bytes for a Harbor folder name
    assert text.count("\n") <= 1, text
    assert "/tmp" not in text and "/work" not in text and str(ROOT) not in text, text
    assert tempfile.gettempdir() not in text, text  # the temporary root (make test: in /dev/shm)
    assert "codec" not in text and "Traceback" not in text, text
    return text


def _compare(
    candidate: Path, fmt: str = "inspect", baseline: Path | None = None, treatment: str = "c", *, child: bool = False
) -> Any:
    base = baseline or FIXTURES / "baseline.json"
    done = _run(
        "compare",
        "--candidate", str(candidate), "--candidate-treatment", treatment, "--candidate-format", fmt,
        "--baseline", str(base), "--baseline-treatment", treatment if fmt != "inspect" else "b",
        "--baseline-format", fmt, "--format", "json", child=child,
    )  # fmt: skip
    _clean(done.stderr)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.decode("utf-8"))


def _write(path: Path, log: dict[str, Any]) -> Path:
    path.write_text(json.dumps(log), encoding="utf-8")
    return path


def _skipped(document: Any) -> list[tuple[str, str]]:
    return [(row["file"], row["reason"]) for row in document["skipped_reports"]]


def test_a_billion_epochs_or_too_many_planned_cases_leave_the_matrix_invalid_at_once(tmp_path: Path) -> None:
    log = _candidate()
    log["eval"]["config"]["epochs"] = 1_000_000_000
    document = _compare(_write(tmp_path / "epochs.json", log))
    matrix = document["candidate"]["matrix"]
    assert matrix["status"] == "invalid" and matrix["error"] == "the log header asks for more than 10,000 epochs"
    assert document["issue_counts"]["invalid-expected-case-matrix"] == 1
    assert document["candidate"]["runs"] == SAMPLES  # the samples are still read and listed

    log = _candidate()
    log["eval"]["dataset"]["sample_ids"] = [f"s{i}" for i in range(20_001)]
    log["eval"]["config"]["epochs"] = 10
    matrix = _compare(_write(tmp_path / "planned.json", log))["candidate"]["matrix"]
    assert matrix["status"] == "invalid"
    assert matrix["error"] == "the log header plans 20,001 sample ids x 10 epochs, over the 200,000-case limit"


def test_a_300_digit_epoch_is_one_skipped_sample_and_the_site_still_builds(tmp_path: Path) -> None:
    log = _candidate()
    log["samples"][0]["epoch"] = int("9" * 300)
    path = _write(tmp_path / "epoch.json", log)
    document = _compare(path)
    assert _skipped(document) == [("epoch.json#samples[0]", "sample's epoch is over the 10,000-epoch limit")]
    assert document["candidate"]["runs"] == SAMPLES - 1
    assert document["issue_counts"]["missing-repetition"] == 1  # the plan still expects that sample

    (tmp_path / "baseline.json").write_bytes((FIXTURES / "baseline.json").read_bytes())
    (tmp_path / "site.yaml").write_text(
        "title: Caps\noutput: site\ncomparisons:\n  - id: caps\n    title: Caps\n"
        "    candidate: {experiment: epoch.json, treatment: c, format: inspect}\n"
        "    baseline: {experiment: baseline.json, treatment: b, format: inspect}\n",
        encoding="utf-8",
    )
    done = _run("build", "--config", str(tmp_path / "site.yaml"), "--out", str(tmp_path / "site"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert b"File name too long" not in done.stderr and b"warning" not in done.stderr
    _clean(done.stderr)
    pages = "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "site").rglob("*.html"))
    assert "10,000-epoch limit" in pages


def test_a_lone_surrogate_in_a_sample_id_or_its_text_is_one_skipped_sample(tmp_path: Path) -> None:
    log = _candidate()
    log["samples"][0]["id"] = "add\ud800"
    log["samples"][1]["messages"][1]["content"] = "x\udcffy"
    log["eval"]["dataset"]["sample_ids"].append("odd\ud800")
    document = _compare(_write(tmp_path / "surrogate.json", log))  # json.dumps escapes the surrogates
    assert _skipped(document) == [
        (
            "surrogate.json#eval.dataset.sample_ids",
            "1 sample id(s) left out of the expected cases: the id is not valid Unicode (a lone surrogate)",
        ),
        ("surrogate.json#samples[0]", "sample id is not valid Unicode (a lone surrogate)"),
        ("surrogate.json#samples[1]", "sample holds text that is not valid Unicode (a lone surrogate)"),
    ]
    assert document["candidate"]["runs"] == SAMPLES - 2
    assert document["candidate"]["matrix"]["target_cases"] == SAMPLES  # the five usable ids x three epochs


def test_a_byte_order_mark_is_read_and_a_broken_log_is_still_refused(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + (FIXTURES / "candidate.json").read_bytes())
    document = _compare(path)
    assert document["candidate"]["runs"] == SAMPLES and not document["skipped_reports"]

    path.write_bytes((FIXTURES / "candidate.json").read_bytes()[:-200])  # cut short: not one object
    done = _run(
        "compare", "--candidate", str(path), "--candidate-treatment", "c", "--candidate-format", "inspect",
        "--baseline", str(FIXTURES / "baseline.json"), "--baseline-treatment", "b", "--baseline-format", "inspect",
    )  # fmt: skip
    assert done.returncode == 2
    assert _clean(done.stderr) == "error: candidate Inspect log 'bom.json' is not valid JSON\n"


def test_a_deeply_nested_or_overlong_sample_is_one_skipped_sample(tmp_path: Path) -> None:
    log = _candidate()
    for index in (0, 1, 2):
        log["samples"][index]["metadata"] = {"deep": f"HOLE{index}"}
    text = json.dumps(log)
    text = text.replace('"HOLE0"', "[" * 5000 + "]" * 5000)  # past json.loads' recursion limit
    text = text.replace('"HOLE1"', "[" * 300 + "]" * 300)  # readable, but past evalsite's cap
    text = text.replace('"HOLE2"', "9" * 5000)  # an integer longer than Python reads
    path = tmp_path / "deep.json"
    path.write_text(text, encoding="utf-8")
    document = _compare(path)
    assert _skipped(document) == [
        ("deep.json#samples[0]", "sample is nested deeper than 254 levels"),
        ("deep.json#samples[1]", "sample nests deeper than 254 levels"),
        ("deep.json#samples[2]", "sample is not usable: it holds an integer with too many digits"),
    ]
    assert document["candidate"]["runs"] == SAMPLES - 3


def _harbor(root: Path) -> Path:
    trials = [
        harbor_trial(task, suffix, started=f"2025-01-0{day}T10:00:00.000000", reward=1.0)
        for day, (task, suffix) in enumerate([("t1", "a"), ("t2", "b"), ("t1", "c")], start=1)
    ]
    return harbor_job(root, trials)


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS file systems refuse names that are not UTF-8")
def test_a_harbor_trial_folder_named_in_bytes_that_are_not_utf8_is_one_skipped_trial(tmp_path: Path) -> None:
    job, baseline = _harbor(tmp_path / "job"), _harbor(tmp_path / "base")
    os.rename(os.fsencode(job / "t2__b"), os.fsencode(job) + b"/t2__\xff\xfe")
    odd = harbor_trial("t3\ud800", "d", started="2025-01-04T10:00:00.000000", reward=1.0)
    odd["trial_name"] = "t3__d"
    (job / "t3__d").mkdir()
    _write(job / "t3__d" / "result.json", odd)  # json.dumps escapes the surrogate
    document = _compare(job, "harbor", baseline, "claude-code", child=True)  # the real stdout's bytes
    assert _skipped(document) == [
        ("t2__\\xff\\xfe/result.json", "trial folder name is not valid UTF-8"),
        ("t3__d/result.json", "trial result holds text that is not valid Unicode (a lone surrogate)"),
    ]
    assert document["candidate"]["runs"] == 2 and document["matched"]["candidate"]["runs"] == 2


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS file systems refuse names that are not UTF-8")
def test_a_swebench_instance_folder_named_in_bytes_that_are_not_utf8_is_one_skipped_instance(tmp_path: Path) -> None:
    reports = {"repo__a-1": {"resolved": True}, "repo__b-2": {"resolved": False}}
    run, baseline = swebench_run(tmp_path / "run", "m", reports), swebench_run(tmp_path / "base", "m", reports)
    os.rename(os.fsencode(run / "m" / "repo__b-2"), os.fsencode(run / "m") + b"/repo__\xff")
    document = _compare(run, "swebench", baseline, "m")
    assert _skipped(document) == [("repo__\\xff/report.json", "instance folder name is not valid UTF-8")]
    assert document["candidate"]["runs"] == 1


def _nested(depth: int, leaf: Any) -> Any:
    value = leaf
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


def test_the_fast_check_and_the_walk_draw_the_same_line() -> None:
    """orjson's refusals (depth past 254, lone surrogates) are exactly the walk's, at the boundary."""
    assert MAX_JSON_DEPTH == 254
    assert unusable_value(_nested(MAX_JSON_DEPTH, 1)) is None
    assert unusable_value(_nested(MAX_JSON_DEPTH + 1, 1)) == "nests deeper than 254 levels"
    assert unusable_value(_nested(MAX_JSON_DEPTH, "a\ud800")) == (
        "holds text that is not valid Unicode (a lone surrogate)"
    )
    assert unusable_value({"k\udcff": 1}) is not None
    assert unusable_value(_nested(MAX_JSON_DEPTH, 2**70)) is None  # orjson refuses it; the walk does not
