"""Issue 16, memory flat in the runs: what a run keeps of its report, its packed telemetry, and the
streamed JSON document are exactly what the whole values gave."""

from __future__ import annotations

import math
import pickle
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from generator.analyze.comparison.view import provenance as _provenance
from generator.model.comparison import ComparisonInputs
from generator.model.packed import TelemetryValues
from generator.model.runs import (
    TELEMETRY_FIELDS,
    CaseManifest,
    Quality,
    RunRecord,
    artifact_reference,
    report_summary,
)
from generator.pipelines.compare import compare_experiments, render_comparison, report_chunks, report_text
from generator.read.comet.experiment import ArtifactBinder
from generator.read.comet.telemetry import reported_telemetry
from tests.support.hypo import examples

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "experiments"

_scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=False),
    st.text(max_size=12),
)
_json = st.recursive(
    _scalar,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)),
    max_leaves=8,
)
_EVENT_KEYS = ["duration_s", "cost_usd", "turns", "num_turns", "input_tokens", "case_manifest", "artifact_references"]
_events = st.dictionaries(
    st.sampled_from(_EVENT_KEYS) | st.text(max_size=6),
    _json
    | st.dictionaries(st.sampled_from(["raw_stdout", "raw_stderr", "other"]), st.text(max_size=20) | _json, max_size=3),
    max_size=6,
)
_reports = st.fixed_dictionaries(
    {},
    optional={
        "name": st.text(max_size=20) | _json,
        "rep": st.integers(-2, 5) | _json,
        "passed": st.booleans() | _json,
        "checks_failed": st.lists(st.text(max_size=10), max_size=3) | _json,
        "checks_passed": _json,
        "model": st.text(max_size=10) | _json,
        "source": st.dictionaries(
            st.sampled_from(["run", "trial_name", "failure_mode", "agent_run_id", "secret"]), _json, max_size=5
        )
        | _json,
        "events_summary": _events | _json,
        "sample_quality": _json,
        "transcript": _json,
    },
)

_QUALITY = Quality("included", "valid_signal", "ok", True, "high", ())
_MANIFEST = CaseManifest("t", "report-bound-v2", "s", {}, "sha256:c", "sha256:k")


def _record(report: dict[str, Any]) -> RunRecord:
    return RunRecord("candidate", "t", 1, "t_C_r1_rep1_report.json", report, _MANIFEST, True, _QUALITY)


@settings(max_examples=examples(300), deadline=None)
@given(_reports)
def test_a_report_summary_reads_like_the_whole_report(report: dict[str, Any]) -> None:
    summary = report_summary(report, {})
    whole, kept = _record(report), _record(summary)
    assert (whole.passed, whole.checks_failed) == (kept.passed, kept.checks_failed)
    assert reported_telemetry(report.get("events_summary")) == reported_telemetry(summary.get("events_summary"))
    assert _provenance(report) == _provenance(summary)
    for key in ("agent_stdout", "trial_name", "reported_telemetry"):
        assert report.get(key) == summary.get(key)
    root = Path("/nonexistent/experiment")
    for rebase in (False, True):
        binders = [
            ArtifactBinder(root, value, "x_sample2_from_y_report.json", 2, rebase=rebase) for value in (report, summary)
        ]
        for key in ("raw_stdout", "raw_stderr"):
            assert binders[0].locate(key) == binders[1].locate(key)
            assert binders[0].locations(key) == binders[1].locations(key)


def test_a_summary_drops_what_no_stage_reads() -> None:
    report = {
        "name": "t-C",
        "passed": True,
        "checks_failed": [],
        "checks_passed": ["a" * 1000],
        "events_summary": {
            "case_manifest": {"task_hash": "sha256:" + "0" * 64},
            "artifact_references": {"raw_stdout": "raw/x", "big": "y"},
        },
        "sample_quality": {"status": "included"},
    }
    summary = report_summary(report, {})
    assert summary == {
        "name": "t-C",
        "passed": True,
        "checks_failed": (),
        ("artifact reference", "raw_stdout"): "raw/x",  # the resolved reference alone
    }
    assert artifact_reference(summary, "raw_stdout") == artifact_reference(report, "raw_stdout") == "raw/x"
    assert artifact_reference(summary, "raw_stderr") is None


def test_equal_failed_checks_are_kept_once() -> None:
    shared: dict[Any, Any] = {}
    first = report_summary({"checks_failed": ["validator failed"]}, shared)
    second = report_summary({"checks_failed": ["validator failed"]}, shared)
    assert first["checks_failed"] is second["checks_failed"] == ("validator failed",)


_values = st.one_of(
    st.none(),
    st.integers(-(2**63), 2**63 - 1),
    st.integers(2**63, 2**70),
    st.floats(allow_nan=False, allow_infinity=True),
)


@settings(max_examples=examples(300), deadline=None)
@given(st.fixed_dictionaries({name: _values for name in TELEMETRY_FIELDS}))
def test_packed_telemetry_gives_back_every_value_exactly(telemetry: dict[str, Any]) -> None:
    packed = TelemetryValues({**telemetry, "model_usage": {"m": {}}})
    assert list(packed) == list(TELEMETRY_FIELDS) and len(packed) == len(TELEMETRY_FIELDS)
    for name, value in telemetry.items():
        got = packed[name]
        assert type(got) is type(value) and (got == value or (math.isnan(got) and math.isnan(value)))
        assert packed.get(name) == got or got != got
    assert packed.get("model_usage") is None and packed.get("nope", 7) == 7
    again = pickle.loads(pickle.dumps(packed))  # what a pool worker sends back
    assert dict(again) == dict(packed)


def _inputs() -> ComparisonInputs:
    return ComparisonInputs(
        EXAMPLES / "native",
        "COMET_NATIVE_PHASE1",
        EXAMPLES / "beta",
        "COMET_FULL_040_BETA",
        tasks_dir=ROOT / "examples" / "tasks",
    )


def test_the_streamed_document_is_the_whole_document_byte_for_byte(monkeypatch: Any) -> None:
    import generator.pipelines.compare as compare

    monkeypatch.setattr(compare, "_RUNS_PER_CHUNK", 3)  # several pieces, a last partial one
    result = compare_experiments(_inputs())
    whole = render_comparison(result)  # the document with its runs, as the site uses it
    streamed = render_comparison(result, runs=False)
    assert "runs" in whole.document and "runs" not in streamed.document
    pieces = list(streamed.chunks("json"))
    assert len(pieces) > 5
    assert "".join(pieces) == whole.text("json") == streamed.text("json")
    assert streamed.markdown == whole.markdown
    assert "".join(report_chunks(_inputs(), "json")) == report_text(_inputs(), "json") == whole.text("json")
    assert "".join(report_chunks(_inputs(), "markdown")) == whole.markdown


_names = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._-]{0,8}", fullmatch=True)


@settings(max_examples=examples(200), deadline=None)
@given(st.sets(st.tuples(_names, _names, st.integers(1, 10**12)), max_size=30))
def test_the_matrix_hash_fed_a_case_at_a_time_is_the_canonical_hash(cases: set[tuple[str, str, int]]) -> None:
    from generator.read.comet.matrix import _cases_hash, matrix_payload, parse_matrix

    ordered = sorted(cases)
    payload = matrix_payload(ordered)
    assert _cases_hash(ordered) == payload["matrix_hash"]
    assert parse_matrix(payload).matrix_hash == payload["matrix_hash"]
