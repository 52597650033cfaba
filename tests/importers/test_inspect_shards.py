"""A side of several Inspect logs (shards, retries) and each log's run status (issue 29, items 3 and 4).

The logs in ``fixtures/inspect/runs/`` were written by the real inspect-ai with its mockllm model
(``scripts/make_inspect_shards.py``): one four-sample task over two epochs run in two shards, run
whole with an errored sample and then retried with inspect-ai's own ``eval_retry``, interrupted
(status ``cancelled``), stopped by an error (status ``error``), and one shard by another model.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from generator.cli import main
from generator.model.comparison import ComparisonInputs
from generator.model.errors import EvalsiteError
from generator.model.formats import ImportOptions
from generator.pipelines.build import build_site
from generator.pipelines.compare import compare_experiments, render_comparison
from generator.read.config import load_config
from generator.read.inspect import log as inspect_log
from generator.read.inspect.archive import Archive
from generator.read.inspect.log import load_inspect

RUNS = Path(__file__).parent / "fixtures" / "inspect" / "runs"
SHARDS = (RUNS / "shards" / "part-1.eval", RUNS / "shards" / "part-2.eval")
RETRY = (RUNS / "retry" / "first.eval", RUNS / "retry" / "retry.eval")


def _outcomes(experiment):  # type: ignore[no-untyped-def]
    return [(r.key, r.passed, r.quality.reason_code, r.file) for r in experiment.records]


def _logs(*paths: Path) -> ImportOptions:
    return ImportOptions(candidate_logs=tuple(paths))


def test_two_shards_of_disjoint_samples_are_one_side() -> None:
    experiment = load_inspect("candidate", RUNS / "shards", "T", ImportOptions())
    assert [r.key for r in experiment.records] == [
        (task, rep) for task in ("add", "capital", "prime", "spell") for rep in (1, 2)
    ]
    assert experiment.skipped == ()
    # the expected cases are the union of the shards' planned samples: nothing reads as missing
    assert experiment.matrix.matrix is not None and len(experiment.matrix.matrix.cases) == 8
    assert experiment.logs is not None
    assert [(log.name, log.status, log.samples, log.planned) for log in experiment.logs.logs] == [
        ("part-1.eval", "success", 4, 4),
        ("part-2.eval", "success", 4, 4),
    ]
    assert (experiment.logs.duplicates, experiment.logs.conflicts, experiment.logs.retried) == (0, 0, 0)
    # each run names the log it came from
    assert {r.file.partition("#")[0] for r in experiment.records} == {"part-1.eval", "part-2.eval"}


def test_the_merge_does_not_depend_on_the_order_of_the_logs() -> None:
    files = (*SHARDS, *RETRY)
    forward = load_inspect("candidate", RUNS, "T", _logs(*files))
    backward = load_inspect("candidate", RUNS, "T", _logs(*reversed(files)))
    assert _outcomes(forward) == _outcomes(backward)
    assert forward.skipped == backward.skipped and forward.logs == backward.logs
    assert forward.matrix.matrix is not None and backward.matrix.matrix is not None
    assert forward.matrix.matrix.matrix_hash == backward.matrix.matrix.matrix_hash


def test_a_retry_keeps_identical_copies_once_and_supersedes_the_errored_attempt() -> None:
    single = {r.key: r for r in load_inspect("candidate", RETRY[0], "T", ImportOptions()).records}
    assert single[("spell", 2)].quality.reason_code == "harness_error"  # the first run's errored sample
    experiment = load_inspect("candidate", RUNS / "retry", "T", ImportOptions())
    runs = {r.key: r for r in experiment.records}
    assert len(runs) == len(experiment.records) == 8
    assert runs[("spell", 2)].passed and runs[("spell", 2)].file.startswith("retry.eval#")
    assert experiment.logs is not None
    assert (experiment.logs.duplicates, experiment.logs.retried, experiment.logs.conflicts) == (7, 1, 0)
    rows = {s.file: s.reason for s in experiment.skipped}
    assert (
        rows["first.eval"].startswith("1 errored attempt(s) superseded by a retry")
        and "spell epoch 2" in rows["first.eval"]
    )
    assert rows["retry.eval"].startswith("7 sample(s) identical to a copy in another of the side's logs, kept once")


def test_copies_that_differ_are_a_disclosed_conflict_never_resolved() -> None:
    # part-1 and the cancelled run both ran add and capital: same scores, different runs
    options = ImportOptions(candidate_logs=(SHARDS[0], RUNS / "cancelled.eval"), baseline_logs=SHARDS)
    result = compare_experiments(
        ComparisonInputs(
            RUNS, "c", RUNS, "b", candidate_format="inspect", baseline_format="inspect", import_options=options
        )
    )
    candidate = result.experiments["candidate"]
    assert candidate.logs is not None and candidate.logs.conflicts == 4
    conflicted = {r.key for r in candidate.records if r.quality.reason_code == "log_conflict"}
    assert conflicted == {("add", 1), ("add", 2), ("capital", 1), ("capital", 2)}
    assert all(not r.quality.include_in_analysis for r in candidate.records if r.key in conflicted)
    issues = {(i.task, i.rep): (i.reason, i.detail) for i in result.alignment.issues}
    for key in conflicted:
        assert issues[key] == ("quality-excluded", "candidate:log_conflict")
        assert key not in {p.key for p in result.alignment.pairs}
    record = next(r for r in candidate.records if r.key == ("add", 1))
    assert "cancelled.eval: 'C'; part-1.eval: 'C'" in record.quality.evidence[0]


def test_logs_of_different_runs_or_one_log_twice_are_refused_in_one_line() -> None:
    with pytest.raises(EvalsiteError) as error:
        load_inspect("candidate", RUNS, "T", _logs(SHARDS[0], RUNS / "other-model.eval"))
    assert str(error.value) == (
        "candidate Inspect logs 'other-model.eval' and 'part-1.eval' are not one run: their eval.model differs "
        "('mockllm/other' vs 'mockllm/model'); a side's logs must be shards or retries of one run"
    )
    with pytest.raises(EvalsiteError, match=r"^candidate Inspect log 'part-1\.eval' is given twice$"):
        load_inspect("candidate", RUNS, "T", _logs(SHARDS[0], SHARDS[0]))


def test_the_caps_hold_for_the_whole_side(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inspect_log, "MAX_LOGS", 1)
    with pytest.raises(EvalsiteError, match=r"^candidate side has 2 Inspect logs, over the 1-log limit$"):
        load_inspect("candidate", RUNS / "shards", "T", ImportOptions())
    monkeypatch.setattr(inspect_log, "MAX_LOGS", 1_000)
    monkeypatch.setattr(inspect_log, "MAX_SAMPLES", 7)  # each shard holds 4: together 8
    with pytest.raises(EvalsiteError, match=r"^candidate Inspect logs hold more than 7 samples together$"):
        load_inspect("candidate", RUNS / "shards", "T", ImportOptions())


def test_each_logs_status_is_read() -> None:
    cancelled = load_inspect("baseline", RUNS / "cancelled.eval", "T", ImportOptions()).logs
    assert cancelled is not None
    (log,) = cancelled.logs
    assert (log.status, log.samples, log.planned) == ("cancelled", 7, 8)
    assert cancelled.status_sentence("baseline") == (
        "The baseline's run did not finish: 'cancelled.eval' was cancelled (7 of 8 planned samples). Samples it "
        "never ran are missing, not failed: the comparison covers only the samples the logs hold."
    )
    errored = load_inspect("baseline", RUNS / "error.eval", "T", ImportOptions()).logs
    assert errored is not None and errored.logs[0].status == "error"
    assert errored.logs[0].error == "RuntimeError('scripted failure of spell in epoch 2')"
    assert "stopped with an error (8 of 8 planned samples): RuntimeError(" in (errored.status_sentence("x") or "")
    finished = load_inspect("baseline", SHARDS[0], "T", ImportOptions()).logs
    assert finished is not None and finished.status_sentence("baseline") is None


def _site(tmp_path: Path) -> Path:
    logs = tmp_path / "logs"
    shutil.copytree(RUNS, logs)
    config = tmp_path / "site.yaml"
    config.write_text(
        "title: t\noutput: out\ncomparisons:\n  - id: shards\n    title: Sharded vs cancelled\n"
        "    candidate: {experiment: [logs/shards/part-2.eval, logs/shards/part-1.eval],\n"
        "                treatment: c, format: inspect}\n"
        "    baseline: {experiment: logs/cancelled.eval, treatment: b, format: inspect}\n"
    )
    build_site(load_config(config), tmp_path / "out", summary=tmp_path / "summary.md")
    return tmp_path / "out" / "comparisons" / "shards"


def test_a_cancelled_run_is_said_at_the_top_of_the_page_the_report_and_the_summary(tmp_path: Path) -> None:
    out = _site(tmp_path)
    page = (out / "index.html").read_text()
    sentence = "The baseline&#39;s run did not finish: &#39;cancelled.eval&#39; was cancelled (7 of 8 planned samples)"
    assert sentence in page
    assert page.index(sentence) < page.index('id="verdict"')
    report = (out / "report.md").read_text()
    assert report.index("> **Run status:** The baseline's run did not finish") < report.index("## Rules applied")
    summary = (tmp_path / "summary.md").read_text()
    assert "**Runs that did not finish:**" in summary and "was cancelled (7 of 8 planned samples)" in summary
    document = json.loads((out / "data.json").read_text())
    assert document["baseline"]["logs"]["logs"] == [
        {"name": "cancelled.eval", "status": "cancelled", "samples": 7, "planned": 8, "error": None}
    ]
    assert [log["name"] for log in document["candidate"]["logs"]["logs"]] == ["part-1.eval", "part-2.eval"]
    # every run of both shards has its run page with its transcript (the sample found in its own log)
    runs = sorted(out.glob("tasks/*/runs/candidate-*/data.json"))
    assert len(runs) == 8 and all(json.loads(p.read_text())["steps"] for p in runs)


def test_a_finished_single_log_document_has_no_logs_key() -> None:
    result = compare_experiments(
        ComparisonInputs(SHARDS[0], "c", SHARDS[0], "b", candidate_format="inspect", baseline_format="inspect")
    )
    document = render_comparison(result).document
    assert "logs" not in document["candidate"] and "Run status" not in render_comparison(result).markdown


def test_the_committed_run_logs_name_no_machine_path() -> None:
    for path in sorted(RUNS.rglob("*.eval")):
        archive = Archive(path.read_bytes(), path.name)
        for member in archive.members:
            text = (archive.read(member) or b"").decode()
            assert not re.search(r"(/work/|/home/|/tmp/|/root/|/usr/|\.venv/)", text), (path.name, member)


def test_compare_takes_a_side_given_several_times(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["compare", "--candidate", str(SHARDS[1]), "--candidate", str(SHARDS[0]), "--candidate-format", "inspect"]
    args += ["--candidate-treatment", "c", "--baseline", str(RUNS / "retry"), "--baseline-format", "inspect"]
    args += ["--baseline-treatment", "b", "--format", "json"]
    assert main(args) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["candidate"]["experiment"] == "part-1.eval + 1 more log(s)"
    assert document["baseline"]["logs"]["duplicates"] == 7 and len(document["pairs"]) == 8
    assert main([*args[:1], "--candidate", "a", "--candidate", "b", *args[7:]]) == 2  # format comet
    assert "only an Inspect side (--candidate-format inspect) may be several logs" in capsys.readouterr().err


def test_one_run_as_eval_and_json_is_one_run_kept_once() -> None:
    """An .eval log pools its event data (events_data) that the .json of the same run writes out."""
    fixtures = RUNS.parent
    experiment = load_inspect(
        "baseline", fixtures, "T", ImportOptions(baseline_logs=(fixtures / "baseline.json", fixtures / "baseline.eval"))
    )
    single = load_inspect("baseline", fixtures / "baseline.eval", "T", ImportOptions())
    assert experiment.logs is not None
    assert (experiment.logs.duplicates, experiment.logs.conflicts, experiment.logs.retried) == (15, 0, 0)
    assert [(r.key, r.passed, r.quality.reason_code) for r in experiment.records] == [
        (r.key, r.passed, r.quality.reason_code) for r in sorted(single.records, key=lambda r: r.key)
    ]


def test_a_log_whose_name_is_not_utf8_is_refused_in_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(SHARDS[0], folder / "part-1.eval")
    (folder / "part-1.eval").rename(folder / b"p\xff.eval".decode("utf-8", "surrogateescape"))
    shutil.copy(SHARDS[1], folder / "part-2.eval")
    with pytest.raises(
        EvalsiteError, match=r"^candidate Inspect log 'p\\\\xff\.eval': its file name is not valid UTF-8"
    ):
        load_inspect("candidate", folder, "T", ImportOptions())
