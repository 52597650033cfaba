"""Decision first, wins and regressions, deep links and the glossary (issue 10, "pages").

On the example site and on a synthetic real-scale site (tests/support/realscale.py: 300 tasks x 1
and 80 tasks x 5 with harness-reported telemetry and no raw stdout).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import browsing
import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.support.realscale import WIDE_TASKS  # noqa: E402

pytestmark = pytest.mark.browser

VIEWPORTS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 375, "height": 812}}
HEIGHT_BUDGET = 13_500  # px at 1280 px, as first shown (issue 10: 15 screens for 730 tasks)
PP = re.compile(r"[+−-]\d+\.\d pp")
PP_INTERVAL = re.compile(r"\[[+−-]\d+\.\d, [+−-]\d+\.\d\] pp")


def _first_screen_text(page, height: int) -> str:
    """The text of every element whose top lies inside the first screen."""
    return page.evaluate(
        """(h) => [...document.querySelectorAll('#verdict, #verdict *')]
             .filter(el => el.getBoundingClientRect().bottom <= h && el.getBoundingClientRect().height > 0)
             .map(el => el.textContent).join(' ')""",
        height,
    )


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
@pytest.mark.parametrize("entry", ["wide", "deep"])
def test_first_screen_holds_the_decision(browser, realscale_site, viewport, entry):
    size = VIEWPORTS[viewport]
    context = browser.new_context(viewport=size)
    try:
        visit = browsing.open_page(context, realscale_site / "comparisons" / entry / "index.html", realscale_site)
        page = visit.page
        box = page.locator("#verdict").bounding_box()
        assert box is not None and box["y"] + box["height"] <= size["height"], (viewport, box)
        text = _first_screen_text(page, size["height"])
        assert "Verdict:" in text
        assert PP.search(text), text
        assert PP_INTERVAL.search(text), text
        assert re.search(r"\d+ tasks / \d+ pairs", text), text
        assert re.search(r"\d+ / \d+ / \d+", text), text  # task wins / losses / ties
        assert "sample size for X" not in page.content() and " x 3.16667" not in page.content()
        assert not visit.problems()
    finally:
        context.close()


_PRICE_CELLS = """() => [...document.querySelectorAll('#price tbody tr')]
    .map(r => [...r.children].map(c => c.textContent.trim()))"""


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
@pytest.mark.parametrize(
    ("entry", "first_row", "unit"), [("wide", "Cost per run", "$"), ("deep", "Duration per run", "s")]
)
def test_the_price_sits_under_the_verdict(browser, realscale_site, viewport, entry, first_row, unit):
    """Issue 28, item 1: cost (or duration) per run of both sides with the paired difference and its
    interval, in a box joined under the verdict, on the first screen at 1280 and never wider than a phone."""
    size = VIEWPORTS[viewport]
    context = browser.new_context(viewport=size)
    try:
        visit = browsing.open_page(context, realscale_site / "comparisons" / entry / "index.html", realscale_site)
        page = visit.page
        verdict, price = page.locator("#verdict").bounding_box(), page.locator("#price").bounding_box()
        assert verdict is not None and price is not None
        assert abs(price["y"] - (verdict["y"] + verdict["height"])) < 1, (verdict, price)  # joined, nothing between
        if viewport == "desktop":
            assert price["y"] + price["height"] <= size["height"], price
        rows = page.evaluate(_PRICE_CELLS)
        what, candidate, baseline, difference = rows[0]
        assert what == first_row and unit in (candidate[:1], candidate[-1:]), rows
        assert unit in (baseline[:1], baseline[-1:]), rows
        assert re.fullmatch(r"[+−]\S+ \([+−]\d+%\) \[[+−]\S+, [+−]\S+\]", difference), difference
        if entry == "wide":
            assert rows[1][0] == "Cost per solved task" and rows[1][1].startswith("$"), rows
        note = page.locator("#price p.method").inner_text()
        assert "strictly matched runs" in note and "reported by the harness" in note
        assert page.evaluate("() => document.documentElement.scrollWidth") <= size["width"]
        assert not visit.problems()
    finally:
        context.close()


def test_the_example_shows_a_re_derived_price(browser, example_site):
    context = browser.new_context(viewport=VIEWPORTS["desktop"])
    try:
        visit = browsing.open_page(
            context, example_site / "comparisons" / "native-vs-beta" / "index.html", example_site
        )
        rows = visit.page.evaluate(_PRICE_CELLS)
        assert [row[0] for row in rows] == ["Cost per run", "Cost per solved task", "Duration per run"]
        assert "re-derived from raw stdout" in visit.page.locator("#price p.method").inner_text()
    finally:
        context.close()


def test_the_price_box_never_widens_a_phone_page(browser, example_site):
    """A one-sided value ("N/A: no baseline value") wraps on a phone instead of pushing the page
    sideways (seen at 375 px on a Terminal-Bench comparison with no baseline durations)."""
    context = browser.new_context(viewport=VIEWPORTS["phone"])
    try:
        visit = browsing.open_page(
            context, example_site / "comparisons" / "native-vs-beta" / "index.html", example_site
        )
        widest = visit.page.evaluate(
            """() => { for (const s of document.querySelectorAll('#price tbody td span'))
                         s.textContent = 'N/A: no baseline value for this side (harness-reported)';
                       return document.documentElement.scrollWidth; }"""
        )
        assert widest <= VIEWPORTS["phone"]["width"], widest
    finally:
        context.close()


def test_no_verdict_says_why_first(browser, example_site):
    context = browser.new_context(viewport=VIEWPORTS["desktop"])
    try:
        visit = browsing.open_page(
            context, example_site / "comparisons" / "tampered-vs-legacy" / "index.html", example_site
        )
        verdict = visit.page.locator("#verdict")
        box = verdict.bounding_box()
        assert box is not None and box["y"] + box["height"] <= 900
        assert verdict.inner_text().startswith("No verdict:")
    finally:
        context.close()


def _visible_outcome_rows(page) -> list[str]:
    return page.evaluate(
        """() => [...document.querySelectorAll('#task-outcomes-table-t tbody tr')]
             .filter(r => !r.hidden).map(r => r.className)"""
    )


def test_one_click_views(site_page, realscale_site):
    visit = site_page(realscale_site / "comparisons" / "wide" / "index.html", realscale_site)
    page = visit.page
    all_rows = page.evaluate("() => document.querySelectorAll('#task-outcomes-table-t tbody tr').length")
    assert all_rows == WIDE_TASKS
    page.locator("#task-outcomes-table details > summary").click()
    expected = {
        "Regressions": lambda c: "worse" in c.split(),
        "Improvements": lambda c: "better" in c.split(),
        "Differing": lambda c: bool({"worse", "better"} & set(c.split())),
        "Errors / excluded": lambda c: "excluded" in c.split(),
    }
    classes = page.evaluate(
        "() => [...document.querySelectorAll('#task-outcomes-table-t tbody tr')].map(r => r.className)"
    )
    for label, wanted in expected.items():
        page.get_by_role("button", name=label, exact=True).click()
        shown = _visible_outcome_rows(page)
        assert len(shown) == sum(1 for c in classes if wanted(c)), label
        assert all(wanted(c) for c in shown), label
        count = page.locator('output.table-count[data-table="task-outcomes-table-t"]').inner_text()
        assert count.startswith(f"{len(shown)} of {all_rows}") or (len(shown) == all_rows), count
    assert 0 < sum(1 for c in classes if "worse" in c.split()) < all_rows
    page.get_by_role("button", name="All", exact=True).click()
    assert len(_visible_outcome_rows(page)) == all_rows
    # wins and regressions look different
    better = page.locator("#task-outcomes-table-t tr.better td").first.evaluate(
        "e => getComputedStyle(e).backgroundColor"
    )
    worse = page.locator("#task-outcomes-table-t tr.worse td").first.evaluate(
        "e => getComputedStyle(e).backgroundColor"
    )
    assert better != worse


def test_views_without_js_show_every_row(browser, realscale_site):
    context = browser.new_context(viewport=VIEWPORTS["desktop"], java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto((realscale_site / "comparisons" / "wide" / "index.html").as_uri())
        assert page.evaluate(
            "() => [...document.querySelectorAll('#task-outcomes-table-t tbody tr')].every(r => !r.hidden)"
        )
        assert page.locator(".table-views").first.is_hidden()
    finally:
        context.close()


def test_anchor_opens_and_highlights_a_row(browser, realscale_site):
    page_path = realscale_site / "comparisons" / "wide" / "index.html"
    html = page_path.read_text(encoding="utf-8")
    row_id = re.search(r'<tr id="(task-[^"]+)" class="[^"]*worse', html).group(1)
    context = browser.new_context(viewport=VIEWPORTS["desktop"])
    try:
        page = context.new_page()
        page.goto(page_path.as_uri() + "#" + row_id)
        page.wait_for_function("() => document.querySelector('#task-outcomes-table details').open")
        row = page.locator(f"#{row_id}")
        assert row.is_visible()
        outline = row.locator("td").first.evaluate("e => getComputedStyle(e).outlineStyle")
        assert outline == "solid"
        # a row hidden by a view is shown again when its anchor is opened
        page.get_by_role("button", name="Improvements", exact=True).click()
        assert row.is_hidden()
        page.evaluate("(id) => { location.hash = ''; location.hash = id; }", row_id)
        page.wait_for_function("(id) => !document.getElementById(id).hidden", arg=row_id)
    finally:
        context.close()


def test_failure_reason_links_filter_the_outcomes(site_page, realscale_site):
    visit = site_page(realscale_site / "comparisons" / "deep" / "index.html", realscale_site)
    page = visit.page
    link = page.locator('#failure-reasons-table a[data-filter="agent_timeout"]').first
    link.click()
    shown = page.evaluate(
        """() => [...document.querySelectorAll('#task-outcomes-table-t tbody tr')].filter(r => !r.hidden)
             .map(r => r.textContent)"""
    )
    assert shown and all("agent_timeout" in text for text in shown)
    page.locator('input.table-filter[data-table="task-outcomes-table-t"]').fill("")


def test_glossary_links_resolve(site_page, example_site, realscale_site):
    for root, entry in ((example_site, "native-vs-beta"), (realscale_site, "wide")):
        comparison = root / "comparisons" / entry / "index.html"
        visit = site_page(comparison, root)
        hrefs = visit.page.evaluate(
            "() => [...document.querySelectorAll('a[href*=\"glossary.html\"]')].map(a => a.getAttribute('href'))"
        )
        assert len(hrefs) >= 8, hrefs
        glossary = root / "glossary.html"
        ids = set(re.findall(r'id="([^"]+)"', glossary.read_text(encoding="utf-8")))
        for href in hrefs:
            parts = urlsplit(href)
            assert (comparison.parent / unquote(parts.path)).resolve() == glossary.resolve(), href
            assert not parts.fragment or parts.fragment in ids, href
    context_page = site_page(realscale_site / "glossary.html", realscale_site)
    terms = context_page.page.evaluate(
        "() => [...document.querySelectorAll('.glossary-term dt')].map(d => d.textContent)"
    )
    for word in ("report-bound", "historical fallback", "pass^k", "Tango", "design effect", "McNemar", "kill path"):
        assert any(word in term for term in terms), word


def test_realscale_page_height_and_table_width(browser, realscale_site):
    context = browser.new_context(viewport=VIEWPORTS["desktop"])
    try:
        for entry in ("wide", "deep"):
            visit = browsing.open_page(context, realscale_site / "comparisons" / entry / "index.html", realscale_site)
            height = visit.page.evaluate("() => document.documentElement.scrollHeight")
            assert height <= HEIGHT_BUDGET, (entry, height)
            # a table wider than its box (names that do not break mid-word can widen one) must scroll
            # inside it with its first column sticky, the issue-28 rule for wide data tables
            wide = visit.page.evaluate(
                """() => [...document.querySelectorAll('.table-wrap')]
                     .filter(w => w.getBoundingClientRect().height > 0 && w.scrollWidth > w.clientWidth + 1)
                     .filter(w => !['auto', 'scroll'].includes(getComputedStyle(w).overflowX)
                                  || getComputedStyle(w.querySelector('tbody td') || w).position !== 'sticky')
                     .map(w => w.querySelector('table').id + ' ' + w.scrollWidth + '/' + w.clientWidth)"""
            )
            assert not wide, (entry, wide)
            visit.close()
    finally:
        context.close()


def test_index_cards_show_effect_size(site_page, realscale_site):
    visit = site_page(realscale_site / "index.html", realscale_site)
    for entry in ("wide", "deep"):
        text = visit.page.locator(f"#comparison-{entry}").inner_text()
        assert PP.search(text) and PP_INTERVAL.search(text), text


PER_SIDE = """(column) => [...document.querySelectorAll('#task-outcomes-table-t tbody tr')]
    .filter(r => !r.hidden && !r.classList.contains('empty')).map(r => r.cells[column].textContent)"""


def test_failure_reason_links_filter_the_outcomes_per_side(site_page, realscale_site, example_site):
    """A count links to that side's tasks with that reason: as many rows as it counts tasks, each holding
    the reason in that side's own column (not merely somewhere in the row)."""
    checked = set()
    for root, entry in ((realscale_site, "deep"), (example_site, "inspect-quiz"), (example_site, "native-vs-beta")):
        page = site_page(root / "comparisons" / entry / "index.html", root).page
        headers = page.evaluate(
            "() => [...document.querySelectorAll('#task-outcomes-table-t thead th')].map(h => h.textContent)"
        )
        links = page.locator("#failure-reasons-table a[data-filter-column]")
        for index in range(min(links.count(), 8)):
            link = links.nth(index)
            reason, column = link.get_attribute("data-filter"), int(link.get_attribute("data-filter-column"))
            side = "Candidate" if column == 5 else "Baseline"
            assert headers[column].startswith(f"{side} failed checks"), headers
            tasks = int(re.search(r"/ ([\d,]+) task", link.inner_text()).group(1).replace(",", ""))
            link.click()
            cells = page.evaluate(PER_SIDE, column)
            items = [[re.sub(r" ×\d+$", "", item.strip()) for item in cell.split("; ")] for cell in cells]
            assert len(cells) == tasks and all(reason in found for found in items), (entry, reason, side, cells)
            count = page.locator('output.table-count[data-table="task-outcomes-table-t"]').first.inner_text()
            total = page.evaluate(
                "() => document.querySelectorAll('#task-outcomes-table-t tbody tr:not(.empty)').length"
            )
            assert count == f"{total} rows" if len(cells) == total else f"filtered in {side} failed checks" in count
            checked.add((entry, side))
        # typing in the filter box searches whole rows again
        page.locator('input.table-filter[data-table="task-outcomes-table-t"]').fill("")
        assert (
            page.evaluate("() => document.getElementById('task-outcomes-table-t').hasAttribute('data-filter-column')")
            is False
        )
    assert {side for _entry, side in checked} == {"Candidate", "Baseline"}, checked


def test_task_page_pairs_and_runs_rows_have_stable_anchors(browser, example_site):
    """Every pairs-table and runs-table row of a task page has an id from its side and repetition; the
    ids are unique, and opening the page at one highlights that row."""
    pages = sorted((example_site / "comparisons" / "native-vs-beta" / "tasks").glob("*/index.html"))
    assert pages
    context = browser.new_context(viewport=VIEWPORTS["desktop"])
    try:
        page = context.new_page()
        for path in pages[:3]:
            page.goto(path.as_uri())
            ids = page.evaluate(
                """() => ['pairs-table', 'runs-table'].map(t => [...document.querySelectorAll(
                     '#' + t + '-t tbody tr:not(.empty), #' + t + ' tbody tr:not(.empty)')].map(r => r.id))"""
            )
            pairs, runs = ids
            assert pairs and all(re.fullmatch(r"pair-r\d+", i) for i in pairs), pairs
            assert runs and all(re.fullmatch(r"run-(candidate|baseline)-r\d+(-\d+)?", i) for i in runs), runs
            assert len(set(pairs + runs)) == len(pairs) + len(runs)
            reps = page.evaluate(
                "() => [...document.querySelectorAll('tr[id^=\"pair-r\"] td:first-child')].map(c => c.textContent)"
            )
            assert [f"pair-r{rep}" for rep in reps] == pairs
        target = runs[-1]
        page.goto(path.as_uri() + "#" + target)
        outline = page.locator(f"#{target} td").first.evaluate("e => getComputedStyle(e).outlineStyle")
        assert outline == "solid"
        assert page.locator(f"#{pairs[0]} td").first.evaluate("e => getComputedStyle(e).outlineStyle") != "solid"
    finally:
        context.close()


def test_ledger_and_arm_pages_link_their_jargon_to_the_glossary(site_page, example_site):
    glossary = example_site / "glossary.html"
    ids = set(re.findall(r'id="([^"]+)"', glossary.read_text(encoding="utf-8")))
    for kind, wanted in (("ledger", {"kill-path", "containment", "tango", "mcnemar", "design-effect"}), ("arm", set())):
        paths = browsing.pages_of_kind(example_site, kind)
        assert paths
        for path in paths[:4]:
            visit = site_page(path, example_site)
            hrefs = visit.page.evaluate(
                "() => [...document.querySelectorAll('a[href*=\"glossary.html\"]')].map(a => a.getAttribute('href'))"
            )
            assert hrefs, path
            fragments = set()
            for href in hrefs:
                parts = urlsplit(href)
                assert (path.parent / unquote(parts.path)).resolve() == glossary.resolve(), href
                assert not parts.fragment or parts.fragment in ids, href
                fragments.add(parts.fragment)
            assert wanted <= fragments, (path, wanted - fragments)
            # the first screen's decision links the glossary too
            first = visit.page.locator("section.decision a[href*='glossary.html']").count()
            assert first >= 1, path


POINTS_INTERVAL = re.compile(r"[+−-]\d+\.\d points, 95% interval \[[+−-]\d+\.\d, [+−-]\d+\.\d\] points")


def test_metric_mean_shows_the_mean_verdict_first_and_the_scorers_beside_it(browser, example_site):
    """metric: mean (issue 29): the verdict box is the mean score's, in points; pass@1's numbers and the
    other scorer follow in the statistics, labelled as not deciding."""
    context = browser.new_context(viewport=VIEWPORTS["desktop"])
    try:
        visit = browsing.open_page(
            context, example_site / "comparisons" / "inspect-partial-credit" / "index.html", example_site
        )
        page = visit.page
        box = page.locator("#verdict").bounding_box()
        assert box is not None and box["y"] + box["height"] <= 900
        verdict = page.locator("#verdict").inner_text()
        assert verdict.startswith("Verdict: Candidate better"), verdict
        assert "Difference in mean score of partial" in verdict and POINTS_INTERVAL.search(verdict), verdict
        assert "metric mean" in verdict and " pp" not in verdict
        scorers = page.locator("#stats-scorers-table").inner_text()
        assert "not deciding" in scorers and "exact" in scorers and "decides" in scorers
        assert page.locator("#stats-mean-table").is_visible()
        assert not visit.problems()
    finally:
        context.close()
