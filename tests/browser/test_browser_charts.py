"""Charts that inform and decisions first (issue 10), in Chromium on the example site.

- Every forest plot's x-axis is fitted: it holds every interval, its estimate and zero, and is not
  the fixed [-1, 1] when the data span much less; the zero line is drawn.
- Series that share a value (pass@1 = pass^1 when k = 1) are drawn as distinct markers.
- The cost-or-duration versus pass@1 chart: one marker per side with its vertical interval (error_y),
  every interval and marker inside the drawn axes, zero inside both.
- Ledger pages open with each candidate's recommendation and failed conditions, arm pages with the
  arm's standing, inside the first screen at 1280 x 900 and 375 x 812.
"""

from __future__ import annotations

import json

import browsing
import pytest

pytestmark = pytest.mark.browser

AXIS = """(id) => { const el = document.getElementById(id); const ax = el._fullLayout.xaxis;
  return {range: ax.range, zeroline: ax.zeroline, drawn: el.querySelectorAll('path.xzl').length}; }"""


def _forest_charts(example_site):
    for kind in ("comparison", "ledger"):
        for path in browsing.pages_of_kind(example_site, kind):
            for chart_id, fig in browsing.figures(path).items():
                if any(trace.get("error_x") for trace in fig.get("data", [])):
                    yield path, chart_id, fig


BOTH_AXES = """(id) => { const el = document.getElementById(id); const l = el._fullLayout;
  return {x: l.xaxis.range, y: l.yaxis.range, points: el.querySelectorAll('g.points path').length,
          bars: el.querySelectorAll('g.errorbar').length}; }"""


def test_cost_or_duration_chart_draws_each_side_with_its_vertical_interval(example_site, site_page):
    checked = {}
    for path in browsing.pages_of_kind(example_site, "comparison"):
        figures = browsing.figures(path)
        fig = figures.get("chart-efficiency")
        if fig is None:
            continue
        traces = fig["data"]
        assert len(traces) == 2 and all(t.get("error_y") and not t.get("error_x") for t in traces)
        page = site_page(path, example_site)
        drawn = page.page.evaluate(BOTH_AXES, "chart-efficiency")
        assert drawn["points"] == 2 and drawn["bars"] == 2, drawn
        (x_low, x_high), (y_low, y_high) = drawn["x"], drawn["y"]
        assert x_low < 0 < x_high and (y_low, y_high) == (-5, 105)  # zero inside both axes, 0-100% shown
        for trace in traces:
            (x,), (y,) = trace["x"], trace["y"]
            ey = trace["error_y"]
            assert 0 <= x <= x_high and 0 <= y - ey["arrayminus"][0] <= y <= y + ey["array"][0] <= 100
        checked[page.name] = fig["layout"]["xaxis"].get("tickprefix") or fig["layout"]["xaxis"].get("ticksuffix")
    # the example has a Comet comparison with re-derived cost and an Inspect one with reported durations only
    assert "$" in checked.values() and " s" in checked.values(), checked


def test_forest_axes_fit_the_intervals_and_show_zero(example_site, site_page):
    problems = []
    fitted = 0
    for path, chart_id, fig in _forest_charts(example_site):
        page = site_page(path, example_site)
        axis = page.page.evaluate(AXIS, chart_id)
        low, high = axis["range"]
        bounds = []
        for trace in fig["data"]:
            ex = trace["error_x"]
            for x, plus, minus in zip(trace["x"], ex["array"], ex["arrayminus"], strict=True):
                bounds += [x - minus, x + plus]
        where = f"{page.name} {chart_id}"
        if not all(low <= b <= high for b in bounds):
            problems.append(f"{where}: axis {axis['range']} cuts an interval ({min(bounds)}, {max(bounds)})")
        if not low <= 0 <= high or not axis["zeroline"] or axis["drawn"] < 1:
            problems.append(f"{where}: no zero line ({axis})")
        scale = 100 if fig["layout"]["xaxis"].get("ticksuffix") == " pp" else 1  # percentage points
        span = (max(max(bounds), 0) - min(min(bounds), 0)) / scale
        if span < 0.5:
            fitted += 1
            if (high - low) / scale > 2 * span + 0.1:
                problems.append(f"{where}: axis {axis['range']} far wider than the data ({span:.3f})")
    assert fitted, "no forest plot with a narrow span in the example: the check above never ran"
    assert not problems, "\n".join(problems)


def test_per_task_difference_chart_shows_the_tasks_that_moved(example_site, site_page):
    """Every comparison whose tasks differ has the chart; its markers are those tasks, on a fitted axis with zero."""
    checked = 0
    for path in browsing.pages_of_kind(example_site, "comparison"):
        figs = browsing.figures(path)
        data = json.loads((path.parent / "data.json").read_text(encoding="utf-8"))
        moved = [o for o in data["task_outcomes"] if o["pairs"] and o["candidate_passes"] != o["baseline_passes"]]
        if not moved:
            assert "chart-task-differences" not in figs, path
            continue
        fig = figs["chart-task-differences"]
        want = {(round(100 * (o["candidate_passes"] - o["baseline_passes"]) / o["pairs"], 6)) for o in moved}
        xs = [round(x, 6) for trace in fig["data"] for x in trace["x"]]
        assert len(xs) == min(len(moved), 20) and set(xs) <= want, (path, xs)
        page = site_page(path, example_site)
        axis = page.page.evaluate(AXIS, "chart-task-differences")
        low, high = axis["range"]
        assert low <= min(0, *xs) and max(0, *xs) <= high and axis["drawn"] >= 1, axis
        assert browsing.chart_problems(page.page, path) == [] and browsing.hover_problems(page.page, path) == []
        checked += 1
    assert checked, "no example comparison has a task that differs"


POINTS = """(id) => [...document.getElementById(id).querySelectorAll('g.scatterlayer g.trace path.point')]
  .map(p => { const r = p.getBoundingClientRect(); return [Math.round(r.left + r.width / 2),
    Math.round(r.top + r.height / 2)]; })"""


def test_series_sharing_a_value_are_distinct_markers(example_site, site_page):
    checked = 0
    for path in browsing.pages_of_kind(example_site, "comparison"):
        if "chart-metrics-by-k" not in browsing.figures(path):
            continue
        page = site_page(path, example_site)
        points = [tuple(p) for p in page.page.evaluate(POINTS, "chart-metrics-by-k")]
        assert len(points) == len(set(points)), f"{page.name}: markers print over each other: {sorted(points)}"
        checked += 1
    assert checked


DECISION_BOX = """(selector) => [...document.querySelectorAll(selector)].map(e => {
  const r = e.getBoundingClientRect(); return {top: r.top + window.scrollY, bottom: r.bottom + window.scrollY,
  text: e.textContent}; })"""


@pytest.mark.parametrize("viewport", [browsing.DESKTOP, browsing.MOBILE], ids=["desktop", "phone"])
def test_ledger_and_arm_pages_open_with_the_decision(viewport, example_site, context):
    problems = []
    ledgers = browsing.pages_of_kind(example_site, "ledger")
    arms = [p for ledger in ledgers for p in sorted(ledger.parent.glob("arms/*/index.html"))]
    assert ledgers and arms
    for path, selector in [(p, "#decision .decision-item") for p in ledgers] + [(p, "#standing") for p in arms]:
        visit = browsing.open_page(context, path, example_site, viewport=viewport)
        try:
            boxes = visit.page.evaluate(DECISION_BOX, selector)
            name = path.relative_to(example_site).as_posix()
            if not boxes:
                problems.append(f"{name}: no {selector}")
            for box in boxes[:1]:
                if box["bottom"] > viewport["height"]:
                    problems.append(f"{name}: {selector} ends at y = {box['bottom']:.0f}, below the first screen")
                if "recommendation" not in box["text"] and "Baseline arm" not in box["text"]:
                    problems.append(f"{name}: {selector} says neither a recommendation nor the standing")
            problems += visit.problems()
        finally:
            visit.close()
    assert not problems, "\n".join(problems)
