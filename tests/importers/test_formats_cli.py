"""Formats on the command line and in the site config; Comet documents keep their shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.model.errors import EvalsiteError
from generator.read.config import parse_config
from generator.read.formats import detect_format
from tests.support.cli import Result, evalsite

ROOT = Path(__file__).resolve().parents[2]
LOGS = Path("tests/importers/fixtures/inspect")


def _run(*args: str) -> Result:
    return evalsite(*args, cwd=ROOT)


def test_compare_two_inspect_logs_as_json() -> None:
    done = _run(
        "compare",
        "--candidate", str(LOGS / "candidate.eval"), "--candidate-treatment", "c", "--candidate-format", "inspect",
        "--baseline", str(LOGS / "baseline.json"), "--baseline-treatment", "b", "--baseline-format", "auto",
        "--format", "json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["schema"] == "evalsite.comparison.v1"
    assert (document["candidate"]["format"], document["baseline"]["format"]) == ("inspect", "inspect")
    assert document["issue_counts"] == {"case-hash-mismatch": 3, "quality-excluded": 1}
    assert str(ROOT) not in done.stdout


def test_comet_documents_have_no_format_key() -> None:
    done = _run(
        "compare",
        "--candidate", "examples/experiments/native", "--candidate-treatment", "COMET_NATIVE_PHASE1",
        "--baseline", "examples/experiments/beta", "--baseline-treatment", "COMET_FULL_040_BETA",
        "--tasks", "examples/tasks", "--format", "json",
    )  # fmt: skip
    document = json.loads(done.stdout)
    assert "format" not in document["candidate"] and "format" not in document["baseline"]


def test_bad_format_and_bad_threshold_are_one_line_errors() -> None:
    args = ["compare", "--candidate", str(LOGS / "candidate.json"), "--candidate-treatment", "c"]
    args += ["--baseline", str(LOGS / "baseline.json"), "--baseline-treatment", "b"]
    done = _run(*args, "--candidate-format", "promptfoo")
    assert done.returncode == 2 and done.stderr.startswith("error:") and "Traceback" not in done.stderr
    done = _run(*args, "--candidate-format", "inspect", "--baseline-format", "inspect", "--pass-threshold", "nan")
    assert done.returncode == 2 and "finite" in done.stderr
    done = _run(*args)  # the default format is comet, and a log file is not a Comet folder
    assert done.returncode == 2 and done.stderr.count("\n") == 1


def test_autodetect_only_when_one_format_fits(tmp_path: Path) -> None:
    assert detect_format(ROOT / "examples/experiments/native") == "comet"
    assert detect_format(ROOT / LOGS / "baseline.eval") == "inspect"
    with pytest.raises(EvalsiteError, match="fits no known format"):
        detect_format(tmp_path)
    (tmp_path / "reports").mkdir()
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "results.json").write_text("{}")
    with pytest.raises(EvalsiteError, match=r"several formats \(comet, swebench\)"):
        detect_format(tmp_path)


def test_site_config_side_format_and_importer_options(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text("{}")
    side = {"experiment": "a.json", "treatment": "t", "format": "inspect"}
    entry = {"id": "x", "title": "X", "candidate": side, "baseline": side, "pass_threshold": 0.5, "scorer": "match"}
    config = parse_config({"title": "T", "comparisons": [entry]}, tmp_path)
    comparison = config.comparisons[0]
    assert comparison.candidate.format == "inspect" and comparison.pass_threshold == 0.5
    assert comparison.scorer == "match" and not comparison.errors_as_failures
    with pytest.raises(EvalsiteError, match="format: 'csv' is not one of"):
        parse_config({"title": "T", "comparisons": [{**entry, "candidate": {**side, "format": "csv"}}]}, tmp_path)
    with pytest.raises(EvalsiteError, match="is a file, not a folder; a Comet experiment is a folder: for a file, set"):
        parse_config({"title": "T", "comparisons": [{**entry, "candidate": {**side, "format": "comet"}}]}, tmp_path)
    with pytest.raises(EvalsiteError, match="pass_threshold: must be a finite number"):
        parse_config({"title": "T", "comparisons": [{**entry, "pass_threshold": True}]}, tmp_path)


def test_a_log_file_given_without_format_is_named_with_the_format_to_set(tmp_path: Path) -> None:
    """An Inspect ``.json`` log with no ``format:`` is a file where a Comet folder is assumed: the
    error says it is a file, what it looks like and the one line to add (issue 28, item 7)."""
    log = tmp_path / "candidate.json"
    log.write_bytes((LOGS / "candidate.json").read_bytes())
    side = {"experiment": "candidate.json", "treatment": "t"}
    entry = {"id": "x", "title": "X", "candidate": side, "baseline": side}
    with pytest.raises(EvalsiteError) as caught:
        parse_config({"title": "T", "comparisons": [entry]}, tmp_path)
    assert str(caught.value).endswith(
        "'candidate.json' is a file, not a folder; it looks like an Inspect log: set format: inspect"
    )
    with pytest.raises(EvalsiteError, match="'missing' is not an existing folder"):
        missing = {**entry, "candidate": {**side, "experiment": "missing"}}
        parse_config({"title": "T", "comparisons": [missing]}, tmp_path)


def test_out_never_lands_beside_an_input_log_file() -> None:
    done = _run(
        "compare",
        "--candidate", str(LOGS / "candidate.json"), "--candidate-treatment", "c", "--candidate-format", "inspect",
        "--baseline", str(LOGS / "baseline.json"), "--baseline-treatment", "b", "--baseline-format", "inspect",
        "--out", str(LOGS / "report.md"),
    )  # fmt: skip
    assert done.returncode == 2 and "lies inside the input folder" in done.stderr
    assert not (ROOT / LOGS / "report.md").exists()
