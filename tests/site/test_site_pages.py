"""Page models: URLs and slugs, what each page kind holds, the admission words."""

from __future__ import annotations

import copy
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sitefixtures import document_statistics, hostile, ledger_summary, typical_document, view_from_document

from generator.analyze.ledger.result import ledger_result
from generator.pages.comparison.page import ComparisonSource, build_comparison_pages
from generator.pages.ledger.page import CONDITIONS, LedgerSource, build_ledger_pages, condition_reasons
from generator.pages.models import ArmPage, ComparisonPage, LedgerPage, SiteInfo, TaskPage
from generator.pages.urls import arm_url, is_slug, name_slug, rel, relative_root, task_url
from tests.support.hypo import examples

SITE = SiteInfo("Site")
SEGMENT = re.compile(r"^[a-z0-9][a-z0-9-]*-[0-9a-f]{32}$")


@given(st.text(min_size=1, max_size=200))
@settings(max_examples=examples(300), deadline=None)
def test_name_slug_is_one_safe_stable_segment(name):
    slug = name_slug(name)
    assert SEGMENT.match(slug) and len(slug) <= 73
    assert slug == name_slug(name)


def test_slugs_of_colliding_names_differ():
    names = ["Task A", "task-a", "task_a", "TASK A", "task a ", "任务", "任務", "../..", "..", "a/b", "a\\b"]
    slugs = [name_slug(n) for n in names]
    assert len(set(slugs)) == len(names)
    assert name_slug("task-a") == "task-a-37bbbbed5fd87cbc8c1b2084b1c48b52"  # stable across runs and machines


def test_config_ids_are_slugs():
    assert is_slug("native-vs-beta") and is_slug("a") and is_slug("a1-b2")
    for bad in ("", "-a", "a-", "A", "a_b", "a" * 65, "a/b", 3, None):
        assert not is_slug(bad)


def test_urls_are_relative_and_root_prefix_matches_depth():
    url = task_url("cmp", "<b>x</b>")
    assert not url.startswith("/") and url.endswith("/index.html") and "<" not in url
    assert relative_root(url) == "../../../../"
    assert rel(url, "index.html") == "../../../../index.html"
    assert rel("comparisons/cmp/index.html", url).startswith("tasks/")
    assert rel("index.html", "comparisons/c/index.html#x") == "comparisons/c/index.html#x"
    assert rel(url, "#frag") == "#frag"
    assert arm_url("l", "a").startswith("ledgers/l/arms/")


def _comparison(doc=None, instructions=None, tasks_configured=True):
    doc = doc or hostile.comparison_document()
    source = ComparisonSource(
        "cmp",
        "Comparison",
        view_from_document(doc),
        doc,
        "# report\n",
        instructions if instructions is not None else hostile.instructions(),
        (),
        tasks_configured,
    )
    return build_comparison_pages(source, SITE)


def test_one_comparison_page_and_one_task_page_per_task():
    bundles = _comparison()
    kinds = [type(b.page) for b in bundles]
    assert kinds == [ComparisonPage] + [TaskPage] * len(hostile.TASKS)
    assert [b.page.task for b in bundles[1:]] == sorted(hostile.TASKS)
    urls = [b.page.meta.url for b in bundles]
    assert len(set(urls)) == len(urls)
    assert bundles[0].extras == (("report.md", "# report\n"),)
    assert bundles[0].data["schema"] == "evalsite.comparison.v1"


def test_comparison_page_sections_follow_the_document():
    page = _comparison()[0].page
    doc = hostile.comparison_document()
    assert [c.text for c in page.summary_table.rows[0].cells] == [
        str(doc["candidate"]["runs"]),
        str(doc["baseline"]["runs"]),
        str(doc["expected_keys"]),
        str(len(doc["pairs"])),
        str(len(doc["tasks"])),
        str(len(doc["issues"])),
    ]
    # k=3 exceeds the two repetitions: undefined, shown as N/A, never 0
    k3 = [row.cells[4] for row in page.metrics_table.rows]
    assert all(cell.text.startswith("N/A") and "na" in cell.cls for cell in k3)
    assert page.metrics_chart.series[0].y == (0.5, 0.5, None)
    assert len(page.issues_table.rows) == len(doc["issues"])
    assert page.issue_counts == tuple(sorted(doc["issue_counts"].items()))
    assert len(page.efficiency_tables) == 2 and len(page.efficiency_tables[1].rows) == 12
    assert any(n.kind == "error" and "Invalid-matrix" in n.text for n in page.matrix_notices)
    # task-a's instruction hash differs between the sides: the audit row is highlighted
    row = next(r for r in page.manifest_table.rows if r.cells[0].text == "task-a")
    assert row.cls == "mismatch" and any("≠" in c.text and "diff" in c.cls for c in row.cells)
    # the task without a baseline record says so
    row = next(r for r in page.manifest_table.rows if r.cells[0].text == "../../../etc/passwd")
    assert "baseline-missing" in row.cells[3].text
    # experiment-level issue rows name no task page
    first = page.issues_table.rows[0].cells[0]
    assert first.text == "(experiment)" and first.href is None
    assert page.statistics.empty


def test_task_page_shows_hashes_side_by_side_and_every_repetition():
    bundles = _comparison()
    by_task = {b.page.task: b for b in bundles[1:]}
    page = by_task["task-a"].page
    assert "Instruction" in page.hashes_differ
    row = next(r for r in page.hashes_table.rows if r.cells[0].text == "Instruction")
    assert row.cls == "mismatch" and row.cells[3].text == "differs"
    assert row.cells[1].text != row.cells[2].text
    assert len(page.runs_table.rows) == 2 * len(hostile.REPS)
    assert [c.text for c in page.runs_table.rows[0].cells[:2]] == ["1", "Candidate"]
    assert len(page.telemetry_table.rows) == 2 * len(hostile.REPS)
    assert page.instruction is not None and page.instruction_note is None
    assert page.previous is not None or page.next is not None
    unpaired = by_task[hostile.XSS[1]].page
    assert len(unpaired.issues_table.rows) == 1
    # an unpaired run has no telemetry: its all-N/A row is counted, not shown (issue 28)
    table = unpaired.telemetry_table
    assert not any(r.cls == "muted" for r in table.rows)
    assert "with no value (every column N/A)" in (table.caption if table.rows else table.empty)
    assert by_task["Task A"].page.instruction is None
    assert "No readable instruction.md" in by_task["Task A"].page.instruction_note
    data = by_task["task-a"].data
    assert data["task"] == "task-a" and data["instruction_sha256"].startswith("sha256:")
    assert len(data["positions"]["runs"]) == 4


def test_task_data_json_points_into_the_comparison_document_instead_of_copying_it():
    """Each task's data.json holds the positions of its entries in the comparison's data.json, and
    exactly those: every run, pair, issue, audit row and outcome of the task, and nothing else."""
    doc = hostile.comparison_document()
    bundles = _comparison(doc)
    assert bundles[0].data is doc  # the comparison page's data.json is the document itself
    seen: dict[str, set[int]] = {key: set() for key in ("runs", "pairs", "issues", "manifest_audit", "task_outcomes")}
    for bundle in bundles[1:]:
        data = bundle.data
        assert data["schema"] == "evalsite.site.task.v2" and data["comparison"] == "cmp"
        assert data["document"] == "../../data.json"  # from comparisons/cmp/tasks/<slug>/
        assert set(data["positions"]) == set(seen)
        for key, positions in data["positions"].items():
            assert positions == sorted(positions)
            assert all(doc[key][i]["task"] == data["task"] for i in positions)
            seen[key].update(positions)
        assert "runs" not in data and "pairs" not in data  # no copy of the document's entries
    for key, found in seen.items():
        in_pages = {i for i, entry in enumerate(doc[key]) if entry["task"] in {b.data["task"] for b in bundles[1:]}}
        assert found == in_pages, key


def test_task_page_without_tasks_folder_says_so():
    bundles = _comparison(instructions={}, tasks_configured=False)
    assert "No tasks folder is configured" in bundles[1].page.instruction_note


def test_typical_comparison_builds_quickly_enough():
    bundles = _comparison(typical_document(tasks=30, reps=10), instructions={})
    assert len(bundles) == 31
    assert len(bundles[1].page.runs_table.rows) == 20


# --------------------------------------------------------------------------- ledger


def _ledger(summary=None):
    return build_ledger_pages(LedgerSource("lg", "Ledger", ledger_result(summary or ledger_summary()), ()), SITE)


def test_ledger_page_and_one_arm_page_per_arm():
    bundles = _ledger()
    summary = ledger_summary()
    assert isinstance(bundles[0].page, LedgerPage)
    assert all(isinstance(b.page, ArmPage) for b in bundles[1:])
    assert [b.page.arm_id for b in bundles[1:]] == [summary["baselineArmId"]] + [
        c["armId"] for c in summary["candidates"]
    ]
    assert bundles[0].data == summary  # data.json is exactly the reference summary
    page = bundles[0].page
    assert len(page.candidates) == len(summary["candidates"])
    assert {c.id for c in page.charts} == {
        "chart-arm-rates",
        "chart-recall-difference",
        "chart-fpr-difference",
        "chart-transport",
    }
    transport = next(c for c in page.charts if c.id == "chart-transport")
    assert transport.band is not None and transport.band.upper == summary["thresholds"]["transportDelta"]
    fpr = next(c for c in page.charts if c.id == "chart-fpr-difference")
    assert fpr.lines[0].x == summary["thresholds"]["fprEpsilon"]
    arm = bundles[2].page
    assert len(arm.cells_table.rows) == len(summary["arms"][arm.arm_id]["cells"])
    assert arm.candidate is not None and bundles[1].page.candidate is None  # baseline has no admission


def _reasons(summary, row):  # type: ignore[no-untyped-def]
    """The reasons for a summary's candidate row, asked of its typed row as the pages do."""
    result = ledger_result(summary)
    assert result.facts is not None
    typed = result.facts.candidate(row["armId"])
    assert typed is not None
    return condition_reasons(result, typed)


def test_every_condition_has_a_result_and_a_reason():
    summary = ledger_summary()
    for row in summary["candidates"]:
        reasons = _reasons(summary, row)
        assert [key for key, *_ in reasons] == [key for key, _ in CONDITIONS]
        for key, _label, passed, why in reasons:
            assert passed is row["conditions"][key]
            assert why and why.endswith(".")


def test_reasons_quote_the_deciding_numbers():
    summary = ledger_summary()
    row = summary["candidates"][0]
    why = {key: text for key, _l, _p, text in _reasons(summary, row)}
    fpr = row["paired"]["falsePositiveDifference"]
    assert f"{fpr['upper']:+.4f}" in why["falsePositiveMargin"]
    assert f"{summary['thresholds']['fprEpsilon']:.4f}" in why["falsePositiveMargin"]
    recall = row["paired"]["recallDifference"]
    assert f"{recall['lower']:+.4f}" in why["recallNonInferior"]
    maker = next(r for r in summary["candidates"] if r["armId"] == "maker-arm")
    why = {key: text for key, _l, _p, text in _reasons(summary, maker)}
    assert "conclusive mutation runs of 150 required" in why["containment"]


def test_underpowered_gates_are_named_as_such():
    summary = copy.deepcopy(ledger_summary())
    row = summary["candidates"][0]
    # 70 clean pairs, no discordance: the spec's "7 clean cases x 10 repeats" example
    row["paired"]["falsePositiveDifference"].update(
        {"pairs": 70, "candidateWins": 0, "candidateLosses": 0, "discordant": 0, "lower": -0.0513, "upper": 0.0513}
    )
    row["conditions"]["falsePositiveMargin"] = False
    why = {key: text for key, _l, _p, text in _reasons(summary, row)}
    assert "at least 72 paired clean runs" in why["falsePositiveMargin"]
    arm = summary["arms"][row["armId"]]
    arm["validity"] = {"successes": 100, "total": 100, "rate": 1.0, "interval95": {"lower": 0.9638, "upper": 1.0}}
    summary["thresholds"]["validityLower"] = 0.98
    row["conditions"]["structuredOutputValidity"] = False
    why = {key: text for key, _l, _p, text in _reasons(summary, row)}
    assert "only from 183 attempts" in why["structuredOutputValidity"]


def test_empty_ledger_summary_still_builds():
    summary = copy.deepcopy(ledger_summary())
    summary.update({"receiptCount": 0, "receiptSchemaVersions": [], "executionDigest": None})
    for arm in summary["arms"].values():
        for key in ("validity", "recall", "falsePositive", "toolCallCorrectness", "contextSufficiency"):
            arm[key] = {
                "successes": 0,
                "total": 0,
                "rate": None,
                "interval95": {"lower": None, "upper": None, "confidence": 0.95, "method": "clopper_pearson"},
            }
    for row in summary["candidates"]:
        row["paired"]["recallDifference"] = {"lower": None, "upper": None, "pairs": 0, "method": "m"}
        row["conditions"]["evidenceEnvelope"] = False
    bundles = _ledger(summary)
    why = {k: t for k, _l, _p, t in _reasons(summary, summary["candidates"][0])}
    assert "The ledger is empty" in why["evidenceEnvelope"]
    assert "No paired recall observations" in why["recallNonInferior"]
    assert len(bundles) == 1 + len(summary["arms"])


def test_summary_of_another_schema_is_refused():
    with pytest.raises(ValueError):
        _ledger({"schemaVersion": 2})


# --------------------------------------------------------------------------- statistics slot


def test_statistics_slot_is_filled_from_the_stats_module():
    from generator.pages.comparison.statistics import comparison_statistics

    section = comparison_statistics(document_statistics(hostile.comparison_document()))
    assert section.verdict is not None and section.verdict.text and section.verdict.method
    assert section.verdict.kind in {"better", "worse", "undecided"}
    assert [t.id for t in section.tables] == ["stats-intervals-table", "stats-paired-table"]
    assert section.charts and section.charts[0].id == "chart-paired-difference"
    assert any("few tasks" in n.text or "task(s)" in n.text for n in section.notices)
    # k=3 exceeds the two repetitions: undefined, never 0 or 1
    k3 = [r for r in section.tables[0].rows if r.cells[2].text == "3"]
    assert k3 and all(r.cells[3].text == "undefined" for r in k3)


def test_statistics_slot_without_pairs_says_so():
    from generator.pages.comparison.statistics import comparison_statistics

    doc = hostile.comparison_document()
    doc["pairs"] = []
    section = comparison_statistics(document_statistics(doc))
    assert section.verdict is None and "No strictly matched pairs" in section.notices[0].text
