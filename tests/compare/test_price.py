"""Cost and duration beside the verdict (issue 28, item 1): the numbers, computed by hand on generated runs.

Which runs count (every strictly matched run, passed or not), a run without a value (missing, never
0), one side without any value, and the source (re-derived from raw stdout wins over reported).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from comet_fixtures import BASE, CAND, write_reported_run, write_run

from generator.analyze.comparison.price import side_values
from generator.model.comparison import ComparisonInputs
from generator.model.price import DERIVED, REPORTED, Price
from generator.pages.comparison.page import ComparisonSource, build_comparison_pages
from generator.pages.comparison.price import price_note, price_rows
from generator.pages.comparison.statistics import comparison_statistics
from generator.pages.models import ComparisonPage, SiteInfo
from generator.pipelines.compare import run_comparison
from generator.render.env import render_page

T_975_1DF = 12.706204736174707  # Student t quantile, 0.975, 1 degree of freedom


# (task, rep): (passed, cost or None) per side
CANDIDATE = {("t1", 1): (True, 1.0), ("t1", 2): (False, 3.0), ("t2", 1): (True, 2.0), ("t2", 2): (True, None)}
BASELINE = {("t1", 1): (True, 4.0), ("t1", 2): (True, 4.0), ("t2", 1): (False, 8.0), ("t2", 2): (False, 6.0)}


def _reported_pair(cand: Path, base: Path, baseline_costs: bool = True):
    for exp, treatment, runs in ((cand, CAND, CANDIDATE), (base, BASE, BASELINE)):
        for (task, rep), (passed, cost) in runs.items():
            has_cost = cost is not None and (exp == cand or baseline_costs)
            write_reported_run(exp, task, treatment, rep, passed, {"cost_usd": cost} if has_cost else {"turns": 3})
    return run_comparison(ComparisonInputs(cand, CAND, base, BASE, ks=(1,)))


def test_reported_cost_levels_per_solved_task_and_the_paired_difference(dirs) -> None:
    cand, base, _ = dirs
    output = _reported_pair(cand, base)
    price = output.view.price
    assert [q.key for q in price.quantities] == ["total_cost_usd"]  # no duration anywhere: not shown
    cost = price.of("total_cost_usd")
    assert cost is not None
    c, b = cost.candidate, cost.baseline
    assert (c.source, b.source) == (REPORTED, REPORTED)
    # candidate: 4 matched runs, 3 with a cost (1 + 3 + 2 = 6), 2 of those passed; the 4th run is missing, not 0
    assert (c.runs, c.with_value, c.missing, c.total, c.passes) == (4, 3, 1, 6.0, 2)
    assert (c.mean, c.per_solved) == (2.0, 3.0)
    assert (b.runs, b.with_value, b.missing, b.total, b.passes) == (4, 4, 0, 22.0, 2)
    assert (b.mean, b.per_solved) == (5.5, 11.0)
    assert cost.relative == pytest.approx(2.0 / 5.5 - 1)
    # per task: t1 (1−4, 3−4) -> −2; t2 (2−8; rep 2 has no candidate cost) -> −6; mean −4, sd √8, se 2
    assert (cost.pairs, cost.tasks) == (3, 2)
    d = cost.difference
    assert d.estimate == pytest.approx(-4.0)
    assert d.lower == pytest.approx(-4.0 - T_975_1DF * 2.0)
    assert d.upper == pytest.approx(-4.0 + T_975_1DF * 2.0)
    assert d.confidence == 0.95 and d.method.startswith("task-clustered t interval")
    document = output.document["price"]["total_cost_usd"]
    assert document["candidate"]["missing"] == 1 and document["candidate"]["per_solved_task"] == 3.0
    assert document["paired"]["pairs"] == 3 and document["paired"]["difference"]["estimate"] == pytest.approx(-4)


def test_the_price_rows_and_note_say_the_source_and_the_missing_runs(dirs) -> None:
    cand, base, _ = dirs
    price = _reported_pair(cand, base).view.price
    rows = price_rows(price)
    assert rows[0][:3] == ("Cost per run", "$2.00", "$5.50")
    assert rows[0][3] == ("−$4.00", "(−64%)", "[−$29.41,", "+$21.41]")
    assert rows[1] == ("Cost per solved task", "$3.00", "$11.00", ("—",))
    note = price_note(price)
    assert "Over each side's 4 strictly matched runs, passed or not; reported by the harness." in note
    assert "No cost for 1 candidate runs (left out, not 0): difference over 3 pairs." in note
    assert "Solved: 2 and 2 runs with a cost." in note


def test_the_markdown_report_carries_the_price_after_the_verdict(dirs) -> None:
    cand, base, _ = dirs
    markdown = _reported_pair(cand, base).markdown
    section = markdown.split("## Price of the decision\n", 1)[1].split("\n## ", 1)[0]
    assert markdown.index("## Verdict") < markdown.index("## Price of the decision")
    assert "| Cost per run | $2.00 | $5.50 | −$4.00 (−64%) [−$29.41, +$21.41] |" in section
    assert "| Cost per solved task | $3.00 | $11.00 | — |" in section
    assert "No cost for 1 candidate runs (left out, not 0): difference over 3 pairs." in section


def test_no_price_section_without_cost_or_duration(dirs) -> None:
    cand, base, _ = dirs
    for exp, treatment in ((cand, CAND), (base, BASE)):
        write_reported_run(exp, "t1", treatment, 1, True, {"turns": 3})
    output = run_comparison(ComparisonInputs(cand, CAND, base, BASE, ks=(1,)))
    assert not output.view.price.quantities
    assert "## Price of the decision" not in output.markdown


def test_one_side_without_any_value_has_no_paired_difference(dirs) -> None:
    cand, base, _ = dirs
    cost = _reported_pair(cand, base, baseline_costs=False).view.price.of("total_cost_usd")
    assert cost is not None
    assert cost.candidate.mean == 2.0
    assert (cost.baseline.source, cost.baseline.with_value, cost.baseline.mean) == (None, 0, None)
    assert cost.difference.estimate is None and cost.pairs == 0 and cost.relative is None
    rows = price_rows(Price((cost,)))
    assert rows[0] == ("Cost per run", "$2.00", "N/A", ("N/A:", "no baseline value"))


def test_raw_stdout_wins_over_the_reported_number(dirs) -> None:
    cand, base, _ = dirs
    # raw stdout: 2 s and 4 s on the candidate, 6 s on the baseline; every report states 9999 s
    write_run(cand, "task-a", CAND, 1, True, durations=(2000,), result_telemetry={"total_cost_usd": 0.25})
    write_run(cand, "task-a", CAND, 2, False, durations=(4000,))  # no cost in its raw stdout
    for rep in (1, 2):
        write_run(base, "task-a", BASE, rep, True, durations=(6000,), result_telemetry={"total_cost_usd": 1.0})
    price = run_comparison(ComparisonInputs(cand, CAND, base, BASE, ks=(1,))).view.price
    duration, cost = price.of("duration_seconds"), price.of("total_cost_usd")
    assert duration is not None and cost is not None
    assert (duration.candidate.source, duration.candidate.mean, duration.baseline.mean) == (DERIVED, 3.0, 6.0)
    assert duration.difference.estimate == pytest.approx(-3.0)  # one task: no interval
    assert duration.difference.lower is None and duration.difference.note
    assert (cost.candidate.source, cost.candidate.with_value, cost.candidate.missing) == (DERIVED, 1, 1)
    assert cost.candidate.per_solved == 0.25 and cost.baseline.per_solved == 1.0


def test_side_values_take_one_source() -> None:
    assert side_values([None, 2.0], [5.0, 6.0]) == (DERIVED, [None, 2.0])  # re-derived anywhere: only those
    assert side_values([None, None], [5.0, None]) == (REPORTED, [5.0, None])
    assert side_values([None], [None]) == (None, [None])


def test_the_comparison_page_shows_the_price_under_the_verdict(dirs) -> None:
    cand, base, _ = dirs
    output = _reported_pair(cand, base)
    statistics = comparison_statistics(output.view.statistics)
    source = ComparisonSource(
        "cmp", "Comparison", output.view, output.document, output.markdown, {}, (), False, statistics
    )
    page = build_comparison_pages(source, SiteInfo("Site"))[0].page
    assert isinstance(page, ComparisonPage)
    assert page.price == price_rows(output.view.price) and page.price_note == price_note(output.view.price)
    html = render_page(page)
    verdict_end = html.index("</section>", html.index('id="verdict"'))
    price_at = html.index('id="price"')
    assert verdict_end < price_at < verdict_end + 200  # the box right under the verdict
    box = html[price_at : html.index("</section>", price_at)]
    assert "<td>$2.00</td><td>$5.50</td>" in box and "<span>[−$29.41,</span>" in box
    assert "Cost per solved task" in box and "reported by the harness" in box
