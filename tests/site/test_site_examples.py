"""The bundled example, built with the real comparison and ledger cores (once per run: the
``example_site`` fixture of tests/conftest.py)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from sitecheck import check_links, check_scripts, find_leaks

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"


@pytest.mark.slow  # builds a whole site: runs first (tests/conftest.py)
def test_example_builds_every_page_kind_without_warnings(example_site):
    out, report = example_site.site, example_site
    assert report.warnings == []
    doc = json.loads((out / "comparisons" / "native-vs-beta" / "data.json").read_text())
    assert doc["schema"] == "evalsite.comparison.v1"
    tasks = list((out / "comparisons" / "native-vs-beta" / "tasks").glob("*/index.html"))
    assert len(tasks) == len(doc["tasks"])
    arms = list((out / "ledgers" / "slice-g" / "arms").glob("*/index.html"))
    summary = json.loads((out / "ledgers" / "slice-g" / "data.json").read_text())
    assert len(arms) == len(summary["arms"])
    assert (out / "comparisons" / "native-vs-beta" / "report.md").read_text().startswith("#")


def test_example_task_pages_render_the_instruction(example_site):
    out = example_site.site
    rendered = [
        p
        for p in (out / "comparisons" / "native-vs-beta" / "tasks").glob("*/index.html")
        if '<div class="markdown">' in p.read_text()
    ]
    assert rendered, "no task page shows its instruction.md"


@pytest.mark.slow  # several seconds: make test runs it, make test-fast does not
def test_example_site_links_scripts_and_leaks(example_site):
    out = example_site.site
    assert check_links(out) == []
    assert check_scripts(out) == []
    assert find_leaks(out, [str(REPO), str(Path.home()), os.getcwd(), "/tmp/", tempfile.gettempdir()]) == []


def test_example_index_headlines(example_site):
    out = example_site.site
    index = (out / "index.html").read_text()
    assert "strictly matched pairs" in index and "pass@1" in index
    assert "Recommendation per candidate" in index
    assert "Verdict: " in index


def test_example_ledger_shows_the_extended_analysis(example_site):
    out = example_site.site
    ledger = (out / "ledgers" / "slice-g" / "index.html").read_text()
    assert 'id="caveats"' in ledger and 'id="chart-arm-rates"' in ledger
    arms = [p.read_text() for p in (out / "ledgers" / "slice-g" / "arms").glob("*/index.html")]
    assert all('id="extended"' in a and 'id="case-rates-table"' in a for a in arms)
    assert any('id="feasibility-table"' in a for a in arms)
    # Issue 6 beside the gate: Tango, exact McNemar, design effect and a reason per paired gate.
    assert 'id="ledger-gate-statistics-table"' in ledger
    assert "Failed because the candidate is worse" in ledger
    assert "each bound is a &gt;=95% one-sided bound" in ledger


def test_pilot_ledger_page_says_the_gate_is_underpowered_not_failed_by_a_worse_candidate(example_site):
    out = example_site.site
    page = (out / "ledgers" / "slice-g-pilot" / "index.html").read_text()
    assert "Failed because the campaign is too small: with 70 pairs this gate can never pass" in page
    assert "at least 72 pairs are needed" in page
    assert "candidate is worse" not in page


def test_an_imported_side_says_its_format_and_what_it_cannot_record(example_site):
    site = example_site.site
    page = (site / "comparisons" / "inspect-quiz" / "index.html").read_text(encoding="utf-8")
    assert "The candidate side is in the inspect format." in page
    assert "Repetition = the sample&#39;s epoch" in page or "Repetition = the sample's epoch" in page
    native = (site / "comparisons" / "native-vs-beta" / "index.html").read_text(encoding="utf-8")
    assert "side is in the" not in native  # Comet sides carry no format notice


def test_example_history_is_current_and_gives_trend_pages(example_site):
    out, report = example_site.site, example_site
    assert report.history_appended == 0, (
        "the example inputs no longer match examples/history/history.jsonl: run scripts/make_example_history.py"
    )
    assert (out / "trends" / "comparisons" / "native-vs-beta" / "index.html").is_file()
    assert (out / "trends" / "leaderboards" / "example-agents" / "index.html").is_file()


def test_example_shows_the_decisions_of_issue_25(example_site):
    """Groups, a not-comparable system, the family sentence on both pages, and the gate's guarantee."""
    out = example_site.site
    board = (out / "leaderboards" / "example-agents" / "index.html").read_text(encoding="utf-8")
    pair = (out / "comparisons" / "agent-a-vs-agent-b" / "index.html").read_text(encoding="utf-8")
    data = json.loads((out / "leaderboards" / "example-agents" / "data.json").read_text())
    assert data["groups"] and any("agent-e" in pair for pair in data["not_comparable"])
    assert "agent-e" not in {s for tier in data.get("tiers", []) for s in tier}
    assert "Pairs not compared (fewer than two shared tasks)" in board
    # the comparison alone says "candidate better"; the board, corrected over its compared pairs, does not
    comparison = json.loads((out / "comparisons" / "agent-a-vs-agent-b" / "data.json").read_text())
    assert comparison["statistics"]["verdict"]["outcome"] == "candidate better"
    for page in (pair, board):
        assert "this one pair at alpha 0.05 (p = 0.03125)" in page
        assert "all 6 compared pairs of its 5 systems together with Holm" in page and "adjusted p = 0.07812" in page
    trend = (out / "trends" / "comparisons" / "native-vs-beta" / "index.html").read_text(encoding="utf-8")
    assert 'id="gate-guarantee"' in trend and "is at most 5%" in trend


def test_the_leaderboard_does_not_restate_its_verdict_column_in_note_boxes(example_site):
    """Issue 28, item 5: one "Note:" box per system repeated the table; the sentences are one folded list."""
    out = example_site.site
    board = (out / "leaderboards" / "example-agents" / "index.html").read_text(encoding="utf-8")
    assert '<details class="verdict-sentences">' in board
    assert board.count('class="notice info"') == 1  # only the family sentence (issue 25)
