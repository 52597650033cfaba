"""Pages that weigh what they say (issue 28, items 2-4): identical rows counted on one line, long
per-task and per-run tables collapsed, missing values counted instead of listed, all-N/A rows dropped
with a count, and the decision before the notices."""

from __future__ import annotations

import copy
import sys
from dataclasses import replace
from pathlib import Path

from sitefixtures import document_statistics, hostile, typical_document, view_from_document

from generator.analyze.history import subject_trend
from generator.model.history import HistoryEntry, SideCounts, TaskCounts
from generator.pages import format as fmt
from generator.pages.comparison.context import AUDIT_COLUMNS
from generator.pages.comparison.page import ComparisonSource, build_comparison_pages
from generator.pages.comparison.statistics import comparison_statistics
from generator.pages.leaderboard.page import build_leaderboard_pages
from generator.pages.models import Link, Notice, SiteInfo
from generator.pages.trends.page import build_trend_page
from generator.render.env import render_page

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "leaderboard"))
from lbkit import write_system  # noqa: E402

from generator.model.leaderboard import LeaderboardInputs, SystemSpec  # noqa: E402
from generator.pipelines.leaderboard import compute_leaderboard, render_leaderboard  # noqa: E402

SITE = SiteInfo("Site")


def _comparison_page(doc):
    source = ComparisonSource("cmp", "Comparison", view_from_document(doc), doc, "# r\n", {}, (), True)
    return build_comparison_pages(source, SITE)[0].page


def test_agreeing_audit_rows_are_one_counted_line_and_differing_rows_stay_per_task():
    doc = typical_document(tasks=30, reps=2)
    for entry in doc["manifest_audit"]:  # every shown part the same for every task, as converted data reads
        for side in ("candidate", "baseline"):
            entry[side].update({key: "sha256:" + "0" * 64 for key, _label in AUDIT_COLUMNS})
    page = _comparison_page(doc)
    rows = page.manifest_table.rows
    assert len(rows) == 1, [r.cells[0].text for r in rows]
    assert rows[0].cells[0].text == "30 tasks alike" and rows[0].cls == ""
    assert page.manifest_table.collapsed is None  # one line: nothing to collapse
    # the hostile document's differing rows are still one row per task, highlighted
    hostile_rows = _comparison_page(hostile.comparison_document()).manifest_table.rows
    assert any(r.cells[0].text == "task-a" and r.cls == "mismatch" for r in hostile_rows)
    assert not any("tasks alike" in str(r.cells[0].text) for r in hostile_rows if r.cls)
    # per-task part hashes are not alike: one row each
    assert len(_comparison_page(typical_document(tasks=30, reps=2)).manifest_table.rows) == 30


def _no_duration(doc, covered: int) -> dict:
    pairs = [(p["task"], p["rep"]) for p in doc["pairs"]]
    missing = [{"task": task, "rep": rep} for task, rep in pairs[covered:]]
    summary = {"matched": len(pairs), "covered": covered, "missing": missing}
    summary |= {"total_seconds": None, "average_seconds": None} if not covered else {}
    summary |= {"total_seconds": 10.0 * covered, "average_seconds": 10.0} if covered else {}
    return {side: dict(summary) for side in ("candidate", "baseline")}


def test_runs_without_any_raw_duration_are_a_count_not_a_list_of_links():
    doc = typical_document(tasks=30, reps=2)
    doc["duration"] = _no_duration(doc, 0)  # no raw stdout anywhere: no run has a duration
    page = _comparison_page(doc)
    assert [(n, links) for _t, n, links in page.duration_missing] == [(60, ()), (60, ())]
    html = render_page(page)
    assert html.count("has a raw duration") == 2 and "#r1" not in html
    # some runs with a duration: the missing ones are still listed, one link each
    doc["duration"] = _no_duration(doc, 55)
    assert [(n, len(links)) for _t, n, links in _comparison_page(doc).duration_missing] == [(5, 5), (5, 5)]


def _source(doc):
    statistics = comparison_statistics(document_statistics(doc))
    return ComparisonSource("cmp", "Comparison", view_from_document(doc), doc, "# r\n", {}, (), True, statistics)


def test_all_na_telemetry_rows_are_dropped_with_a_count():
    doc = typical_document(tasks=2, reps=2)
    doc = copy.deepcopy(doc)
    for run in doc["runs"]:
        if run["side"] == "baseline":
            run["telemetry"] = None
    pages = build_comparison_pages(_source(doc), SITE)
    table = pages[1].page.telemetry_table
    assert len(table.rows) == 2  # the candidate's two runs; the baseline's two all-N/A rows dropped
    assert "2 rows with no value (every column N/A) not shown" in table.caption


def _entry(passes: list[int], number: int) -> HistoryEntry:
    tasks = tuple(TaskCounts(f"t{i}", p, 3, 0) for i, p in enumerate(passes))
    return HistoryEntry(
        f"hist1:{number}", None, "comparison", "a", "A", None, None, "d", None, 0, None,
        (SideCounts("candidate", tasks),), number,
    )  # fmt: skip


def test_a_trend_page_lists_the_tasks_that_changed_and_counts_the_rest():
    passes = [3] * 40 + [0] * 30 + [1] * 5
    flipped = [3] * 40 + [0] * 29 + [3] + [1] * 5
    page = build_trend_page(subject_trend([_entry(passes, 1), _entry(flipped, 2)]), SITE)
    assert [s.task for s in page.strips] == ["t69"] and page.flaky == 1
    groups = {(g.label, g.marks): len(g.tasks) for g in page.stable}
    assert groups == {("candidate", ("✓", "✓")): 40, ("candidate", ("✗", "✗")): 29, ("candidate", ("±", "±")): 5}
    assert sum(len(g.tasks) for g in page.stable) + len(page.strips) == 75


def test_long_leaderboard_system_and_pair_tables_are_collapsed(tmp_path: Path):
    tasks = [f"t{i}" for i in range(fmt.COLLAPSE_ROWS + 5)]
    specs = []
    for n, label in enumerate(("alpha", "beta")):
        write_system(tmp_path / label, label, {t: [(i + n) % 2 == 0] for i, t in enumerate(tasks)})
        specs.append(SystemSpec(label, tmp_path / label, label))
    result = compute_leaderboard(LeaderboardInputs(tuple(specs), None, None, (1,)))
    output = render_leaderboard(result)
    pages = build_leaderboard_pages("lb", "Board", result, output.document, output.markdown, (), SITE)
    system = pages.jobs[0].bundle().page
    assert system.tasks_table.collapsed == f"All {len(tasks)} tasks"
    assert system.runs_table.collapsed == f"All {len(tasks)} runs"
    pair = pages.jobs[-1].bundle().page
    assert pair.tasks_table.collapsed == f"All {len(tasks)} tasks where the two differ"
    # the board opens with its ranking; its notices and related pages come after it, then the facts
    board = pages.board.page
    error, note = Notice("error", "A run that did not finish."), Notice("info", "A note on the family.")
    html = render_page(replace(board, meta=replace(board.meta, notices=(error, note))))
    # a run that did not finish first, then the ranking, the other notes, the facts
    assert html.index("A run that did not finish.") < html.index('id="ranking-s"') < html.index('id="page-notes"')
    assert html.index('id="page-notes"') < html.index("A note on the family.") < html.index('class="facts"')
    assert html.count("A run that did not finish.") == 1


def test_short_tables_are_not_collapsed():
    assert fmt.collapsed(fmt.COLLAPSE_ROWS, "x") is None and fmt.collapsed(fmt.COLLAPSE_ROWS + 1, "x") == "x"


def test_the_verdict_comes_before_the_notices_and_the_related_pages():
    doc = typical_document(tasks=30, reps=2)
    page = build_comparison_pages(_source(doc), SITE)[0].page
    warning = Notice("warning", "A long warning about the evidence. " * 5, "a short warning")
    related = (Link("The same evidence on a leaderboard", "../../leaderboards/x/index.html"),)
    html = render_page(replace(page, meta=replace(page.meta, notices=(warning,), related=related)))
    assert 'id="verdict"' in html and 'id="page-notes"' in html
    assert html.index('id="verdict"') < html.index('id="page-notes"') < html.index('class="sides"')
    # one line (the short form) opens the detail: the full warning and the related links, one click away
    notes = html[html.index('id="page-notes"') : html.index('class="sides"')]
    summary = notes[notes.index("<summary>") : notes.index("</summary>")]
    assert "a short warning" in summary and "1 page with the same evidence" in summary
    assert "A long warning" not in summary and "A long warning" in notes and "leaderboards/x/index.html" in notes
