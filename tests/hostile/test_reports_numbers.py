"""One bad report or raw stdout costs only its own run, disclosed (issue 11, items 6 and 7).

NaN, infinities, ``1e309`` and 4,000-digit integers in raw stdout make that
run's telemetry invalid (artifact ``rejected`` with the reason); lone
surrogates and non-finite numbers in a report make it a skipped report; a task
name over 255 bytes with a tasks tree hashes as missing.  The JSON document
stays valid JSON (never a bare NaN) and the site builds the comparison.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from comet_runs import CAND, build, compare, edit_report, pair, write_stdout

from generator.read.comet.matrix import load_matrix

BIG = "1" + "0" * 4000  # 10^4000: parses, but overflows any float
HUGE = "9" * 5000  # more digits than Python parses

STDOUT = {
    "NaN duration": '{"type":"result","duration_ms":NaN}\n',
    "Infinity duration": '{"type":"result","duration_ms":Infinity}\n',
    "-Infinity cost": '{"type":"result","duration_ms":5,"total_cost_usd":-Infinity}\n',
    "1e309 duration": '{"type":"result","duration_ms":1e309}\n',
    "10^4000 duration": '{"type":"result","duration_ms":' + BIG + "}\n",
    "10^4000 tokens": '{"type":"result","duration_ms":5,"usage":{"input_tokens":' + BIG + "}}\n",
    "5000-digit tokens": '{"type":"result","duration_ms":5,"usage":{"input_tokens":' + HUGE + "}}\n",
    "1e16 context": '{"type":"assistant","message":{"id":"m","usage":{"input_tokens":1e16}}}\n'
    '{"type":"result","duration_ms":5}\n',
    "huge modelUsage": '{"type":"result","duration_ms":5,"modelUsage":{"m":{"contextWindow":' + BIG + "}}}\n",
    "surrogate model name": '{"type":"result","duration_ms":5,"modelUsage":{"\\ud800":{"inputTokens":1}}}\n',
}


def _run(doc: dict, task: str) -> dict:
    return next(r for r in doc["runs"] if r["side"] == "candidate" and r["task"] == task)


@pytest.mark.parametrize("case", sorted(STDOUT))
def test_absurd_raw_stdout_is_invalid_telemetry_for_that_run(case: str, tmp_path: Path) -> None:
    reports = pair(tmp_path, ["good", "bad"])
    write_stdout(reports["bad"], STDOUT[case])
    output = compare(tmp_path)
    text = output.text("json")
    assert "NaN" not in text and "Infinity" not in text
    doc = json.loads(text)
    bad = _run(doc, "bad")
    assert bad["artifact"] == "rejected" and bad["telemetry"] is None
    assert bad["artifact_reason"].startswith("invalid telemetry: ")
    assert _run(doc, "good")["artifact"] == "verified"
    assert doc["duration"]["candidate"]["covered"] == 1  # the good run still counts
    markdown = output.text("markdown")
    assert "`bad#r1`" in markdown  # listed as missing raw duration


def test_a_site_with_absurd_raw_stdout_still_builds_the_comparison(tmp_path: Path) -> None:
    reports = pair(tmp_path, ["good", "bad"])
    write_stdout(reports["bad"], STDOUT["NaN duration"])
    code, err, out = build(tmp_path)
    assert code == 0 and "warning" not in err, err
    assert (out / "comparisons" / "a" / "index.html").is_file()
    page = next((out / "comparisons" / "a" / "tasks").glob("bad-*/index.html")).read_text()
    assert "invalid telemetry: duration_ms is not a finite number" in page


REPORTS = {
    "a lone surrogate in the name": ({"name": "bad\ud800"}, "not valid Unicode"),
    "a lone surrogate in a reason": (
        {"sample_quality": {"status": "included", "reason": "r\udfff"}},
        "not valid Unicode",
    ),
    "a lone surrogate in a check name": ({"checks_failed": ["\ud800"]}, "not valid Unicode"),
    "NaN in a field": ({"duration": float("nan")}, "not finite"),
    "Infinity in a field": ({"cost": float("inf")}, "not finite"),
}


@pytest.mark.parametrize("case", sorted(REPORTS))
def test_a_report_with_unusable_values_is_a_disclosed_skip(case: str, tmp_path: Path) -> None:
    reports = pair(tmp_path, ["good", "bad"])
    changes, reason = REPORTS[case]
    edit_report(reports["bad"], **changes)  # json.dumps writes \ud800 escapes and NaN / Infinity tokens
    output = compare(tmp_path)
    doc = json.loads(output.text("json"))
    skipped = [s for s in doc["skipped_reports"] if s["side"] == "candidate"]
    assert [s["file"] for s in skipped] == [reports["bad"].name]
    assert reason in skipped[0]["reason"]
    assert {r["task"] for r in doc["runs"] if r["side"] == "candidate"} == {"good"}
    assert reports["bad"].name in output.text("markdown")
    code, err, out = build(tmp_path)
    assert code == 0 and "warning" not in err, err
    assert reports["bad"].name in (out / "comparisons" / "a" / "index.html").read_text()


def test_a_report_with_a_5000_digit_integer_is_a_disclosed_skip(tmp_path: Path) -> None:
    reports = pair(tmp_path, ["good", "bad"])
    path = reports["bad"]
    path.write_text(path.read_text().replace('"rep": 1', '"rep": ' + HUGE, 1))
    doc = json.loads(compare(tmp_path).text("json"))
    assert [s["reason"] for s in doc["skipped_reports"]] == [
        "report is not usable: it holds an integer with too many digits"
    ]


def test_a_giant_repetition_number_is_an_invalid_repetition(tmp_path: Path) -> None:
    reports = pair(tmp_path, ["good", "bad"])
    edit_report(reports["bad"], name="bad", rep=int(BIG))
    path = reports["bad"]
    report = json.loads(path.read_text())
    report["name"] = f"bad-{CAND}"  # no -rN: the rep field decides
    path.write_text(json.dumps(report))
    doc = json.loads(compare(tmp_path).text("json"))
    assert [s["reason"] for s in doc["skipped_reports"]] == ["report has an invalid repetition"]


def test_a_report_file_name_that_is_not_utf8_is_a_disclosed_skip(tmp_path: Path) -> None:
    pair(tmp_path, ["good"])
    reports_dir = tmp_path / "cand" / "reports"
    try:
        (reports_dir / "bad\udcff_report.json").write_text("{}")
    except (OSError, UnicodeEncodeError):
        pytest.skip("this file system refuses non-UTF-8 names")
    doc = json.loads(compare(tmp_path).text("json"))
    assert doc["skipped_reports"] == [
        {"side": "candidate", "file": "bad\\xff_report.json", "reason": "report file name is not valid UTF-8"}
    ]


def test_a_matrix_with_a_5000_digit_integer_is_invalid_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "expected-case-matrix.json").write_text('{"rep": ' + HUGE + "}")
    assert load_matrix(tmp_path).error == "matrix is not valid JSON"


def test_a_task_name_over_255_bytes_with_a_tasks_tree_hashes_as_missing(tmp_path: Path) -> None:
    long_name = "t" * 300
    reports = pair(tmp_path, ["good", "bad"])
    edit_report(reports["bad"], name=long_name)
    (tmp_path / "tasks").mkdir()
    doc = json.loads(compare(tmp_path, tasks=tmp_path / "tasks").text("json"))
    run = _run(doc, long_name)
    assert run["manifest"]["source"] == "current-task-tree-fallback"
    code, err, out = build(tmp_path, tasks=True)
    assert code == 0 and "warning" not in err, err
    pages = [p.read_text() for p in (out / "comparisons" / "a" / "tasks").glob("*/index.html")]
    assert len(pages) == 3 and any("300 bytes long, over the 255-byte file-name limit" in p for p in pages)
