"""Sample-quality verdicts (Comet's rule table) and expected-case-matrix validation."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from generator.read.comet.matrix import MAX_MATRIX_BYTES, MatrixError, load_matrix, matrix_payload, parse_matrix
from generator.read.comet.quality import derived_quality, sample_quality, stored_quality

RESULT_LINE = '{"type":"result","duration_ms":10}'


def derive(report: dict, stdout: str | None = None, stderr: str | None = None):
    files = {"raw_stdout": stdout, "raw_stderr": stderr}
    return derived_quality(report, files.get)


@pytest.mark.parametrize(
    "stderr,code",
    [
        ("API request timed out after 600s", "api_timeout"),
        ("429 rate_limit_error: insufficient quota", "rate_limited"),
        ("Docker daemon not running", "container_failure"),
        ("Timeout after 600s", "runner_timeout"),
        ("401 Unauthorized", "auth_failure"),
        ("ECONNRESET while streaming", "network_failure"),
    ],
)
def test_environment_failures_without_a_result_are_excluded(stderr, code) -> None:
    q = derive({"checks_failed": ["no result"]}, stderr=stderr)
    assert (q.status, q.reason_code, q.include_in_analysis) == ("excluded", code, False)


def test_completed_run_whose_check_mentions_outer_failure_is_flagged_not_excluded() -> None:
    q = derive(
        {"checks_failed": ["network error talking to API"], "events_summary": {"total_tokens": 1, "total_cost_usd": 1}},
        stdout=RESULT_LINE,
    )
    assert (q.status, q.reason_code, q.include_in_analysis, q.confidence) == (
        "flagged",
        "completed_run_mentions_outer_failure",
        True,
        "medium",
    )


def test_docker_wording_in_stderr_of_completed_run_is_flagged() -> None:
    q = derive(
        {"checks_failed": [], "events_summary": {"total_tokens": 1, "total_cost_usd": 1}},
        stdout=RESULT_LINE,
        stderr="docker pull slow",
    )
    assert q.reason_code == "completed_run_mentions_outer_failure"


def test_docker_wording_only_in_stdout_is_valid_signal() -> None:
    stdout = RESULT_LINE + '\n{"type":"assistant","message":{"content":"Docker image build failed earlier"}}'
    q = derive(
        {"checks_failed": [], "events_summary": {"total_tokens": 1, "total_cost_usd": 1}},
        stdout=stdout,
        stderr="[loop] workflow completion detected",
    )
    assert q.reason_code == "valid_signal" and q.include_in_analysis


def test_validator_failure_with_full_telemetry_is_valid_signal() -> None:
    q = derive(
        {
            "checks_failed": ["sentence_feature: expected 3 got 2"],
            "events_summary": {"total_tokens": 1, "total_cost_usd": 0.1},
        },
        stdout=RESULT_LINE,
    )
    assert q.reason_code == "valid_signal"


def test_harness_attribution_is_flagged() -> None:
    q = derive(
        {
            "checks_failed": ["x"],
            "events_summary": {
                "total_tokens": 1,
                "total_cost_usd": 1,
                "failure_attribution": [{"bucket": "harness", "reason": "hook misfired"}],
            },
        },
        stdout=RESULT_LINE,
    )
    assert (q.reason_code, q.evidence) == ("harness_trigger_suspect", ("hook misfired",))


def test_build_failed_with_result_and_telemetry_is_valid() -> None:
    q = derive(
        {"checks_failed": ["build failed"], "events_summary": {"total_tokens": 5, "total_cost_usd": 0.5}},
        stdout=RESULT_LINE,
    )
    assert q.reason_code == "valid_signal"


def test_partial_observability_rules() -> None:
    assert derive({"checks_failed": []}, stdout=RESULT_LINE).reason_code == "partial_observability"
    q = derive({"checks_failed": ["something broke"]})
    assert (q.reason_code, q.confidence, q.include_in_analysis) == ("partial_observability", "low", True)
    assert derive({"checks_failed": []}).evidence == ("legacy report treated as valid signal",)


@pytest.mark.parametrize("where", ["top", "events"])
def test_stored_verdict_wins_and_is_coerced(where) -> None:
    verdict = {"status": "excluded", "reason_code": "api_timeout"}
    report = {"sample_quality": verdict} if where == "top" else {"events_summary": {"sample_quality": verdict}}
    q = sample_quality(report, lambda key: "429 rate limit")
    assert (q.status, q.reason_code, q.include_in_analysis, q.confidence) == (
        "excluded",
        "api_timeout",
        False,
        "medium",
    )
    odd = stored_quality(
        {"sample_quality": {"status": "weird", "include_in_analysis": 0, "confidence": "x", "evidence": ["", "a", 3]}}
    )
    assert odd is not None
    assert (odd.status, odd.include_in_analysis, odd.confidence, odd.reason_code, odd.evidence) == (
        "flagged",
        False,
        "medium",
        "legacy_unknown",
        ("a", "3"),
    )


# ----------------------------------------------------------------------------- matrix


def write(exp: Path, payload: object) -> None:
    exp.mkdir(parents=True, exist_ok=True)
    (exp / "expected-case-matrix.json").write_text(json.dumps(payload))


def good() -> dict:
    return matrix_payload([("task-a", "T", 1), ("task-a", "T", 2), ("task-b", "T", 1)])


def test_valid_matrix_round_trips(tmp_path: Path) -> None:
    write(tmp_path, good())
    load = load_matrix(tmp_path)
    assert load.status == "report-bound" and load.matrix is not None
    assert load.matrix.keys_for("T") == {("task-a", 1), ("task-a", 2), ("task-b", 1)}
    assert load.matrix.keys_for("OTHER") == frozenset()


def test_missing_matrix_is_historical_fallback(tmp_path: Path) -> None:
    assert load_matrix(tmp_path).status == "historical-fallback"


def mutate(change) -> dict:
    payload = good()
    change(payload)
    return payload


@pytest.mark.parametrize(
    "payload,error",
    [
        ([], "expected case matrix has an invalid object shape"),
        (mutate(lambda p: p.update(extra=1)), "expected case matrix has an invalid object shape"),
        (mutate(lambda p: p.update(schema="v0")), "expected case matrix schema is invalid"),
        (mutate(lambda p: p.update(cases={})), "expected case matrix cases must be a list"),
        (
            mutate(lambda p: p["cases"].append({"task": "x", "treatment": "T"})),
            "expected case matrix contains an invalid case",
        ),
        (
            mutate(lambda p: p["cases"][0].update(task="../etc")),
            "expected case matrix contains an invalid task or treatment",
        ),
        (
            mutate(lambda p: p["cases"][0].update(treatment="")),
            "expected case matrix contains an invalid task or treatment",
        ),
        (mutate(lambda p: p["cases"][0].update(rep=True)), "expected case matrix contains an invalid repetition"),
        (mutate(lambda p: p["cases"][0].update(rep=0)), "expected case matrix contains an invalid repetition"),
        (mutate(lambda p: p["cases"][0].update(rep=1.0)), "expected case matrix contains an invalid repetition"),
        (mutate(lambda p: p["cases"].append(dict(p["cases"][0]))), "expected case matrix contains a duplicate case"),
        (mutate(lambda p: p["cases"].reverse()), "expected case matrix cases are not canonically ordered"),
        (
            mutate(lambda p: p.update(matrix_hash="sha256:" + "0" * 64)),
            "expected case matrix hash does not match its cases",
        ),
    ],
)
def test_invalid_matrices_fail_closed_with_their_reason(tmp_path: Path, payload, error) -> None:
    write(tmp_path, payload)
    load = load_matrix(tmp_path)
    assert (load.status, load.error) == ("invalid", error)
    with pytest.raises(MatrixError):
        parse_matrix(payload)


def test_matrix_file_level_failures(tmp_path: Path) -> None:
    target = tmp_path / "real.json"
    target.write_text(json.dumps(good()))
    os.symlink(target, tmp_path / "expected-case-matrix.json")
    assert load_matrix(tmp_path).error == "matrix is not a regular file"
    (tmp_path / "expected-case-matrix.json").unlink()
    (tmp_path / "expected-case-matrix.json").mkdir()
    assert load_matrix(tmp_path).error == "matrix is not a regular file"
    (tmp_path / "expected-case-matrix.json").rmdir()
    (tmp_path / "expected-case-matrix.json").write_bytes(b"\xff\xfe{}")
    assert load_matrix(tmp_path).error == "matrix is not valid UTF-8"
    (tmp_path / "expected-case-matrix.json").write_text("{nope")
    assert load_matrix(tmp_path).error == "matrix is not valid JSON"
    with open(tmp_path / "expected-case-matrix.json", "wb") as handle:
        handle.truncate(MAX_MATRIX_BYTES + 1)
    assert load_matrix(tmp_path).error == "matrix exceeds the size limit"
