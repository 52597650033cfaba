"""The single-system report page in Chromium: it renders clean with its chart drawn, states pass@k and
both pass^k per k as its data.json has them, fits a phone, and the index links to it."""

from __future__ import annotations

import json

import browsing
import pytest

pytestmark = pytest.mark.browser


def _report(example_site):
    (page,) = browsing.pages_of_kind(example_site, "report")
    return page


def test_the_report_renders_its_numbers_and_chart(example_site, visit, screenshots):
    path = _report(example_site)
    result = visit(path, example_site)
    page = result.page
    assert not result.problems(), result.problems()
    assert not browsing.chart_problems(page, path)
    assert page.evaluate("() => document.getElementById('chart-report-by-k').getAttribute('data-rendered')") == "true"
    doc = json.loads((path.parent / "data.json").read_text(encoding="utf-8"))
    rows = page.evaluate(
        """() => [...document.querySelectorAll('#report-metrics-table tbody tr')].map(
             tr => [...tr.cells].map(td => td.innerText.trim()))"""
    )
    assert [row[0] for row in rows] == ["pass@k", "pass^k", "pass^k (unbiased)"]
    for row, field in zip(rows, ("pass_at_k", "pass_pow_k_observed", "pass_pow_k"), strict=True):
        for cell, k in zip(row[1:], doc["ks"], strict=True):
            assert cell.startswith(f"{doc['system'][field][str(k)]['estimate']:.3f} ["), (field, k, cell)
    page.screenshot(path=screenshots / "example-report-desktop.png", full_page=True)


def test_the_report_fits_a_phone(example_site, visit):
    result = visit(_report(example_site), example_site, viewport=browsing.MOBILE)
    page = result.page
    overflow = page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, overflow
    assert not result.problems(), result.problems()


def test_the_index_links_the_report(example_site, visit):
    result = visit(example_site / "index.html", example_site)
    page = result.page
    link = page.locator("#reports article h3 a")
    assert link.count() == 1
    with page.expect_navigation():
        link.click()
    assert page.url.endswith("/reports/agent-c/index.html"), page.url
    assert page.locator("h1").inner_text().startswith("agent-c on its own")
