"""The generic records format (``format: records``): JSONL, CSV, JSON; mappings; lm-eval and promptfoo presets.

The promptfoo fixtures are the real promptfoo 0.123.1's output (``fixtures/records/promptfoo``: its
config and custom provider are beside them); the lm-eval samples follow lm-eval 0.4.13's writer
(``lm_eval/evaluator.py`` and ``loggers/evaluation_tracker.py``), which needs torch to run.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

import pytest

import generator.read.records.reader as reader
from generator.cli import main
from generator.model.comparison import ComparisonInputs, ComparisonResult
from generator.model.errors import EvalsiteError
from generator.model.formats import ImportOptions
from generator.model.records import RecordsMapping
from generator.model.runs import Experiment
from generator.pipelines.compare import compare_experiments
from generator.read.config import parse_config
from generator.read.importing import MAX_JSON_DEPTH
from generator.read.records.mapping import parse_mapping
from generator.read.records.reader import load_records
from tests.support.cli import evalsite

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "importers" / "fixtures" / "records"
EXAMPLE = FIXTURES / "example"
LM_EVAL = FIXTURES / "lm-eval"
PROMPTFOO = FIXTURES / "promptfoo"
EXAMPLE_FIELDS = {
    "task": "case",
    "repetition": "attempt",
    "passed": "result.ok",
    "case_hash": "input_sha",
    "cost": "cost_usd",
    "duration": "seconds",
    "input_tokens": "usage.in",
    "output_tokens": "usage.out",
}


def _mapping(**data: object) -> RecordsMapping:
    return parse_mapping(data, "test")


def _compare(
    candidate: Path,
    baseline: Path,
    mapping: RecordsMapping | None,
    treatments: tuple[str, str] = ("new", "old"),
    **options: object,
) -> ComparisonResult:
    return compare_experiments(
        ComparisonInputs(
            candidate_dir=candidate,
            candidate_treatment=treatments[0],
            baseline_dir=baseline,
            baseline_treatment=treatments[1],
            candidate_format="records",
            baseline_format="records",
            import_options=ImportOptions(candidate_records=mapping, baseline_records=mapping, **options),  # type: ignore[arg-type]
        )
    )


def _issues(result: ComparisonResult) -> list[tuple[str, int, str, str]]:
    return [(i.task, i.rep, i.reason, i.detail) for i in result.alignment.issues]


# --------------------------------------------------------------------------- a mapping, JSONL and CSV


def test_jsonl_and_csv_sides_pair_through_one_mapping() -> None:
    result = _compare(EXAMPLE / "candidate.jsonl", EXAMPLE / "baseline.csv", _mapping(fields=EXAMPLE_FIELDS))
    pairs = result.alignment.pairs
    assert [(p.task, p.rep) for p in pairs] == [
        ("fix-import", 1),
        ("parse-date", 1),
        ("parse-date", 2),
        ("sum-column", 1),
        ("sum-column", 2),
    ]
    # the errored CSV row (status error) is excluded with its reason, not counted as a failure
    assert _issues(result) == [("fix-import", 2, "quality-excluded", "baseline:harness_error")]
    first = pairs[0]
    assert first.case_hash == "sha256:c7d2"  # the mapped case-hash field, as written
    assert (first.candidate.report["passed"], first.baseline.report["passed"]) == (True, True)
    told = first.baseline.report["reported_telemetry"]
    assert (told["input_tokens"], told["output_tokens"], told["total_tokens"]) == (2300, 700, 3000)
    assert (told["total_cost_usd"], told["duration_seconds"]) == (0.0254, 81.7)
    assert first.candidate.file == "candidate.jsonl:5" and first.baseline.file == "baseline.csv:6"
    # the CSV's "result.ok" column is read by its literal name; "false" is a failure
    assert [p.baseline.report["passed"] for p in pairs[1:3]] == [True, False]


def test_the_documented_example_is_the_fixture() -> None:
    docs = (ROOT / "docs" / "importers.md").read_text(encoding="utf-8")
    for name in ("site-config.yaml", "candidate.jsonl", "baseline.csv"):
        assert (EXAMPLE / name).read_text(encoding="utf-8") in docs, name


def test_site_build_with_records_sides(tmp_path: Path) -> None:
    out = tmp_path / "site"
    done = evalsite("build", "--config", str(EXAMPLE / "site-config.yaml"), "--out", str(out), cwd=ROOT)
    assert done.returncode == 0, done.stderr
    report = (out / "comparisons" / "records-example" / "report.md").read_text(encoding="utf-8")
    assert "Both sides: records file (records)" in report
    assert "| 6 | 6 | 6 | 5 | 3 | 1 |" in report  # runs, keys, pairs, tasks, issues
    data = json.loads((out / "comparisons" / "records-example" / "data.json").read_text(encoding="utf-8"))
    assert data["candidate"]["format"] == "records" and data["issue_counts"] == {"quality-excluded": 1}
    page = (out / "comparisons" / "records-example" / "index.html").read_text(encoding="utf-8")
    assert "One record per run, read through the configured field mapping" in page
    assert str(ROOT) not in page + report and str(tmp_path) not in page + report


def test_repetition_by_order_and_score_threshold(tmp_path: Path) -> None:
    (tmp_path / "runs.jsonl").write_text(
        "".join(json.dumps({"task": t, "score": s}) + "\n" for t, s in [("a", 0.9), ("b", 0.2), ("a", 0.4)])
    )
    experiment = load_records("candidate", tmp_path / "runs.jsonl", "x", ImportOptions(pass_threshold=0.5))
    assert [(r.task, r.rep, r.report["passed"], r.report["score"]) for r in experiment.records] == [
        ("a", 1, True, 0.9),
        ("b", 1, False, 0.2),
        ("a", 2, False, 0.4),
    ]
    assert experiment.records[0].manifest.case_hash == "not hashed"
    assert experiment.records[0].report["reported_telemetry"] is None  # nothing reported: no telemetry


def test_transcript_paths_stay_inside_the_records_folder(tmp_path: Path) -> None:
    rows = [("a", "logs/a.txt"), ("b", "/etc/passwd"), ("c", "../outside.txt"), ("d", "C:/x.txt"), ("e", 7)]
    (tmp_path / "runs.jsonl").write_text(
        "".join(json.dumps({"task": t, "passed": True, "transcript": p}) + "\n" for t, p in rows)
    )
    experiment = load_records("candidate", tmp_path / "runs.jsonl", "x", ImportOptions())
    assert [r.report["agent_stdout"] for r in experiment.records] == ["logs/a.txt", None, None, None, None]
    assert experiment.root == tmp_path.resolve()  # a relative transcript is read from here, through safe_io


# --------------------------------------------------------------------------- presets


def test_lm_eval_samples_folder_with_a_metric_and_filter() -> None:
    mapping = _mapping(preset="lm-eval", metric="exact_match,strict-match")
    result = _compare(LM_EVAL / "candidate", LM_EVAL / "baseline", mapping)
    pairs = result.alignment.pairs
    assert [p.task for p in pairs] == ["arith/0", "arith/1", "arith/2", "arith/3"]
    assert [p.candidate.report["passed"] for p in pairs] == [True, True, True, False]
    assert [p.baseline.report["passed"] for p in pairs] == [True, False, False, False]
    sample = json.loads(next((LM_EVAL / "candidate").glob("samples_*.jsonl")).read_text().splitlines()[0])
    doc_hash = hashlib.sha256(json.dumps(sample["doc"], indent=2, ensure_ascii=False).encode()).hexdigest()
    assert pairs[0].case_hash == sample["doc_hash"] == doc_hash  # lm-eval's own doc hash
    assert result.experiments["candidate"].skipped == ()  # results_*.json not read
    flexible = _compare(
        LM_EVAL / "candidate", LM_EVAL / "baseline", _mapping(preset="lm-eval", metric="exact_match,flexible-extract")
    )
    assert [p.candidate.report["passed"] for p in flexible.alignment.pairs] == [True, True, True, True]


def test_lm_eval_samples_with_several_filters_need_one_named() -> None:
    with pytest.raises(EvalsiteError, match=r"several filters \(flexible-extract, strict-match\).*metric: NAME,FILTER"):
        _compare(LM_EVAL / "candidate", LM_EVAL / "baseline", _mapping(preset="lm-eval"))


def test_promptfoo_results_select_the_provider_by_treatment() -> None:
    mapping = _mapping(preset="promptfoo")
    results = PROMPTFOO / "results.json"
    result = _compare(results, results, mapping, ("smart", "echo"))
    pairs = result.alignment.pairs
    assert sorted({p.task for p in pairs}) == ["arithmetic", "capital", "vars-2efa809ad589"]
    capital = [p for p in pairs if p.task == "capital"]
    assert [(p.rep, p.candidate.report["passed"], p.baseline.report["passed"]) for p in capital] == [
        (1, True, False),
        (2, True, False),
    ]
    # the provider error (failureReason 2) is excluded; failed assertions (failureReason 1) are failures
    assert _issues(result) == [
        ("sky", 1, "quality-excluded", "candidate:harness_error"),
        ("sky", 2, "quality-excluded", "candidate:harness_error"),
    ]
    told = capital[0].candidate.report["reported_telemetry"]
    assert (told["input_tokens"], told["output_tokens"], told["total_cost_usd"]) == (12, 3, 0.0004)
    # repetitions follow testIdx, not the order promptfoo's workers finished in
    assert [p.candidate.file for p in capital] == ["results.json#6", "results.json#8"]
    lines = load_records("candidate", PROMPTFOO / "results.jsonl", "smart", ImportOptions(candidate_records=mapping))
    document = load_records("candidate", results, "smart", ImportOptions(candidate_records=mapping))
    assert [(r.task, r.rep, r.report["passed"]) for r in lines.records] == [
        (r.task, r.rep, r.report["passed"]) for r in document.records
    ]


def test_promptfoo_repetitions_follow_test_index_not_file_order(tmp_path: Path) -> None:
    lines = (PROMPTFOO / "results.jsonl").read_text(encoding="utf-8").splitlines()
    (tmp_path / "reversed.jsonl").write_text("\n".join(reversed(lines)) + "\n", encoding="utf-8")
    options = ImportOptions(candidate_records=_mapping(preset="promptfoo"))
    experiment = load_records("candidate", tmp_path / "reversed.jsonl", "smart", options)
    reps = {(r.task, r.rep): json.loads(lines[-int(r.file.split(":")[1])])["testIdx"] for r in experiment.records}
    assert reps[("capital", 1)] == 2 and reps[("capital", 2)] == 3


def test_promptfoo_unknown_provider_is_one_line_error() -> None:
    options = ImportOptions(candidate_records=_mapping(preset="promptfoo"))
    with pytest.raises(EvalsiteError, match=r"no runs of treatment 'gpt' \(found: echo, smart\)"):
        load_records("candidate", PROMPTFOO / "results.json", "gpt", options)


# --------------------------------------------------------------------------- hostile records


def _skipped(experiment: Experiment) -> dict[str, str]:
    return {s.file: s.reason for s in experiment.skipped}


def test_bad_lines_are_disclosed_rows_and_the_rest_is_read(tmp_path: Path) -> None:
    good = json.dumps({"task": "ok", "passed": True}).encode()
    lines = [
        good,
        b"{not json",
        b'{"task": "caf\xe9", "passed": true}',  # Latin-1, not UTF-8
        b"[1, 2]",
        json.dumps({"task": "wide", "passed": True, **{f"f{i}": i for i in range(2001)}}).encode(),
        json.dumps({"task": "huge", "passed": True, "blob": "x" * (9 * 1024 * 1024)}).encode(),
        json.dumps({"passed": True}).encode(),
        b'{"task": "\\ud800", "passed": true}',
        b'{"task": "deep", "x": ' + b"[" * (MAX_JSON_DEPTH + 50) + b"]" * (MAX_JSON_DEPTH + 50) + b"}",
        json.dumps({"task": "ok", "rep": 0, "passed": True}).encode(),
        json.dumps({"task": "t" * 300, "passed": True}).encode(),
        b"",
        json.dumps({"task": "late", "passed": "maybe"}).encode(),
    ]
    (tmp_path / "runs.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    experiment = load_records("candidate", tmp_path / "runs.jsonl", "x", ImportOptions())
    assert [(r.task, r.rep) for r in experiment.records] == [("ok", 1), ("late", 1)]
    assert experiment.records[1].quality.reason_code == "unscored"  # "maybe" is no pass/fail
    assert _skipped(experiment) == {
        "runs.jsonl:2": "line 2 is not valid JSON",
        "runs.jsonl:3": "line 3 is not valid UTF-8",
        "runs.jsonl:4": "line 4 is not a JSON object",
        "runs.jsonl:5": "line 5 has more than 2,000 fields",
        "runs.jsonl:6": "line 6 is longer than 8 MiB",
        "runs.jsonl:7": "line 7 has no task (no value at task)",
        "runs.jsonl:8": "line 8 holds text that is not valid Unicode (a lone surrogate)",
        "runs.jsonl:9": f"line 9 nests deeper than {MAX_JSON_DEPTH} levels",
        "runs.jsonl:10": "line 10 has a repetition (rep) that is not a whole number from 1 to 10,000",
        "runs.jsonl:11": "line 11 has a task (task) that is longer than 255 bytes",
    }
    assert not any(str(tmp_path) in reason for reason in _skipped(experiment).values())


def test_bad_csv_rows_are_disclosed(tmp_path: Path) -> None:
    (tmp_path / "runs.csv").write_bytes(b'task,passed\r\nok,true\r\nshort\r\ncaf\xe9,true\r\n"open,true\r\n')
    experiment = load_records("baseline", tmp_path / "runs.csv", "x", ImportOptions())
    assert [(r.task, r.report["passed"]) for r in experiment.records] == [("ok", True)]
    skipped = _skipped(experiment)
    assert skipped["runs.csv:3"] == "line 3 has 1 cell where the header has 2"
    assert skipped["runs.csv:4"] == "line 4 is not valid UTF-8"
    assert skipped["runs.csv:5"].startswith("line 5 is not valid CSV")
    (tmp_path / "twice.csv").write_text("task,task\na,b\n")
    twice = load_records("baseline", tmp_path / "twice.csv", "x", ImportOptions())
    assert _skipped(twice) == {"twice.csv:1": "line 1 is a header that names a column twice (the file is not read)"}


def test_duplicate_runs_become_duplicate_run_rows(tmp_path: Path) -> None:
    rows = [{"task": "a", "rep": 1, "passed": True}, {"task": "a", "rep": 1, "passed": False}]
    rows += [{"task": "b", "rep": 1, "passed": True}]
    (tmp_path / "c.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "b.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows[1:]))
    result = _compare(tmp_path / "c.jsonl", tmp_path / "b.jsonl", None)
    assert _issues(result) == [("a", 1, "duplicate-run", "candidate=2, baseline=1")]
    assert [p.task for p in result.alignment.pairs] == ["b"]


def test_folder_links_caps_and_errors_as_failures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "a.jsonl").write_text("".join(json.dumps({"task": f"t{i}", "passed": True}) + "\n" for i in range(5)))
    (folder / "b.csv").write_text("task,status,error\nt9,error,boom at /home/someone/x.py\n")
    (folder / "notes.txt").write_text("not records")
    os.symlink(folder / "a.jsonl", folder / "c.jsonl")
    monkeypatch.setattr(reader, "MAX_RECORDS", 4)
    experiment = load_records("candidate", folder, "x", ImportOptions(errors_as_failures=True))
    assert [r.task for r in experiment.records] == ["t0", "t1", "t2", "t3"]
    assert _skipped(experiment) == {"a.jsonl:5": "more than 4 records: the rest are not read"}
    monkeypatch.setattr(reader, "MAX_RECORDS", 100)
    experiment = load_records("candidate", folder, "x", ImportOptions(errors_as_failures=True))
    errored = experiment.records[-1]
    assert (errored.task, errored.quality.status, errored.report["passed"]) == ("t9", "flagged", False)
    assert errored.quality.evidence == ("boom at …/x.py",)  # foreign paths scrubbed
    assert _skipped(experiment) == {"c.jsonl": "records file is a symbolic link"}
    with pytest.raises(EvalsiteError, match=r"^candidate records input 'c.jsonl' does not exist"):
        load_records("candidate", folder / "c.jsonl", "x", ImportOptions())


# --------------------------------------------------------------------------- configuration and command line


def _config(side: dict[str, object]) -> dict[str, object]:
    baseline = {"experiment": "baseline.csv", "treatment": "b", "format": "records"}
    return {"title": "t", "comparisons": [{"id": "r", "title": "r", "candidate": side, "baseline": baseline}]}


def test_site_config_checks_the_mapping() -> None:
    side = {"experiment": "candidate.jsonl", "treatment": "c", "format": "records", "fields": EXAMPLE_FIELDS}
    config = parse_config(_config(side), EXAMPLE)
    assert config.comparisons[0].candidate.records == _mapping(fields=EXAMPLE_FIELDS)
    assert config.comparisons[0].baseline.records == RecordsMapping()
    bad = [
        ({**side, "fields": {"taks": "x"}}, "unknown field(s) taks"),
        ({**side, "preset": "helm"}, "'helm' is not one of lm-eval, promptfoo"),
        ({**side, "metric": "acc"}, "only the lm-eval preset has metrics"),
        ({**side, "fields": {"task": ""}}, "fields.task: each path must be a non-empty text"),
        ({**side, "format": "inspect"}, "fields: only for format records"),
    ]
    for value, message in bad:
        with pytest.raises(EvalsiteError, match=re.escape(message)):
            parse_config(_config(value), EXAMPLE)


def test_command_line_mapping_file_and_preset(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "fields.yaml").write_text("preset: promptfoo\n")
    results = str(PROMPTFOO / "results.json")
    common = ["compare", "--candidate", results, "--candidate-treatment", "smart", "--candidate-format", "records"]
    common += ["--baseline", results, "--baseline-treatment", "echo", "--baseline-format", "records"]
    # the candidate's mapping from its file, the baseline's from --records-preset
    assert main([*common, "--candidate-mapping", str(tmp_path / "fields.yaml"), "--records-preset", "promptfoo",
                 "--format", "json"]) == 0  # fmt: skip
    assert json.loads(capsys.readouterr().out)["issue_counts"] == {"quality-excluded": 2}
    (tmp_path / "bad.yaml").write_text("fields: {taks: x}\n")
    (tmp_path / "twice.yaml").write_text("preset: lm-eval\npreset: promptfoo\n")
    for name, message in [("bad.yaml", "unknown field(s) taks"), ("twice.yaml", "duplicate key 'preset'")]:
        assert main([*common, "--candidate-mapping", str(tmp_path / name)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"error: records mapping {name!r}") and message in err, err
        assert str(tmp_path) not in err and err.count("\n") == 1
    assert main(["compare", "--candidate", results, "--candidate-treatment", "smart", "--candidate-mapping", "x.yaml",
                 "--baseline", results, "--baseline-treatment", "echo"]) == 2  # fmt: skip
    assert "--candidate-mapping: only for --candidate-format records" in capsys.readouterr().err
