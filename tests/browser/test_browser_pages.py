"""Every page of the example site in Chromium: clean console, no failed or
outside requests, every chart drawn with its figure's traces and points and
readable labels, tooltips, table sorting and filtering, navigation.
Writes a desktop screenshot per page kind."""

from __future__ import annotations

from pathlib import Path

import browsing
import pytest

pytestmark = pytest.mark.browser

EXAMPLE_KINDS = (
    "index",
    "comparison",
    "task",
    "ledger",
    "arm",
    *browsing.LEADERBOARD_KINDS,
    *browsing.REPORT_KINDS,
    *browsing.HISTORY_KINDS,
)


def representative(root: Path, kind: str) -> Path:
    """The page of a kind with the most content (the largest file)."""
    pages = browsing.pages_of_kind(root, kind)
    assert pages, f"the site has no {kind} page"
    return max(pages, key=lambda p: (p.stat().st_size, p.as_posix()))


@pytest.mark.parametrize("kind", EXAMPLE_KINDS)
def test_every_page_loads_clean_with_all_charts_drawn(kind, example_site, site_page, screenshots):
    pages = browsing.pages_of_kind(example_site, kind)
    assert pages, f"the example site has no {kind} page"
    problems = []
    for path in pages:
        page = site_page(path, example_site)
        problems += page.problems()
        problems += [f"{page.name}: {p}" for p in browsing.chart_problems(page.page, path)]
        problems += [f"{page.name}: {p}" for p in browsing.chart_layout_problems(page.page, path)]
        if path == representative(example_site, kind):
            page.page.screenshot(path=screenshots / f"example-{kind}-desktop.png", full_page=True)
    assert not problems, "\n".join(problems)


def test_charts_exist_where_the_pages_promise_them(example_site):
    """The example's first comparison has the per-k chart and the paired-difference plot;
    the ledger page its interval charts."""
    assert {"chart-metrics-by-k", "chart-paired-difference"} <= set(
        browsing.figures(example_site / "comparisons" / "native-vs-beta" / "index.html")
    )
    for path in browsing.pages_of_kind(example_site, "ledger"):
        assert {"chart-arm-rates", "chart-recall-difference", "chart-fpr-difference"} <= set(browsing.figures(path)), (
            path
        )


@pytest.mark.parametrize("kind", ["comparison", "ledger"])
def test_hovering_a_point_shows_its_tooltip(kind, example_site, site_page):
    problems = []
    hovered = 0
    for path in browsing.pages_of_kind(example_site, kind):
        if not browsing.figures(path):
            continue
        page = site_page(path, example_site)
        problems += [f"{page.name}: {p}" for p in browsing.hover_problems(page.page, path)]
        problems += page.problems()
        hovered += 1
    assert hovered, f"no {kind} page has a chart"
    assert not problems, "\n".join(problems)


def _sort_checks(page, table_id: str) -> tuple[list[str], bool]:
    """Click each numeric column's header twice; rows must follow the keys up, then down.

    Returns (problems, whether any click changed the row order)."""
    problems: list[str] = []
    changed = False
    first = browsing.rows(page, table_id)
    columns = len(first[0]["keys"]) if first else 0
    for column in range(columns):
        keys = [browsing.numeric_key(r["keys"][column]) for r in first]
        if any(k is None for k in keys) or len(set(keys)) < 2:
            continue  # text columns sort by localeCompare; numbers are what reviewers sort
        header = page.locator(f"#{table_id} thead th").nth(column)
        for ascending in (True, False):
            before = browsing.rows(page, table_id)
            before_keys = [browsing.numeric_key(r["keys"][column]) for r in before]
            header.locator("button.sort").click()
            after = browsing.rows(page, table_id)
            want = [before[i]["row"] for i in browsing.expected_order(before_keys, ascending)]
            got = [r["row"] for r in after]
            if got != want:
                problems.append(
                    f"{table_id} column {column} {'up' if ascending else 'down'}: rows {got}, expected {want}"
                )
            changed |= got != [r["row"] for r in before]
            aria = header.get_attribute("aria-sort")
            if aria != ("ascending" if ascending else "descending"):
                problems.append(f"{table_id} column {column}: aria-sort is {aria!r}")
    return problems, changed


@pytest.mark.parametrize("kind", ["comparison", "task", "ledger", "arm"])
def test_sorting_a_table_reorders_its_rows(kind, example_site, site_page):
    page = site_page(representative(example_site, kind), example_site)
    tables = page.page.eval_on_selector_all("table.sortable", "ts => ts.map(t => t.id)")
    assert tables, f"{page.name} has no sortable table"
    problems, changed = [], []
    for table_id in tables:
        found, moved = _sort_checks(page.page, table_id)
        problems += found
        changed.append(moved)
    assert not problems, "\n".join(problems)
    assert any(changed), f"no click on {page.name} changed the order of any table: the sort test proved nothing"
    assert page.problems() == []


def _filter_needles(texts: list[str]) -> list[str]:
    """Words that occur in some rows but not in all of them."""
    words = sorted({w for t in texts for w in t.lower().split() if w.isascii() and len(w) > 2})
    return [w for w in words if 0 < sum(w in t.lower() for t in texts) < len(texts)]


def test_filtering_a_table_shows_matching_rows_and_counts(example_site, site_page):
    checked = 0
    for kind in ("comparison", "arm"):
        page = site_page(representative(example_site, kind), example_site)
        inputs = page.page.eval_on_selector_all("input.table-filter", "xs => xs.map(x => x.getAttribute('data-table'))")
        assert inputs, f"{page.name} has no filter box"
        for table_id in inputs:
            box = page.page.locator(f'input.table-filter[data-table="{table_id}"]')
            count = page.page.locator(f'output.table-count[data-table="{table_id}"]')
            all_rows = browsing.rows(page.page, table_id)
            total = len(all_rows)
            assert count.text_content() == f"{total} rows"
            needles = _filter_needles([r["text"] for r in all_rows])
            if not needles:
                continue
            needle = needles[len(needles) // 2]
            box.fill(needle.upper())  # case does not matter
            shown = [r["row"] for r in browsing.rows(page.page, table_id) if not r["hidden"]]
            want = [r["row"] for r in all_rows if needle in r["text"].lower()]
            assert shown == want, f"{table_id}: filter {needle!r} shows rows {shown}, expected {want}"
            assert count.text_content() == f"{len(want)} of {total} rows"
            box.fill("no row contains this \u2603")
            assert [r for r in browsing.rows(page.page, table_id) if not r["hidden"]] == []
            assert count.text_content() == f"0 of {total} rows"
            box.fill("")
            assert all(not r["hidden"] for r in browsing.rows(page.page, table_id))
            assert count.text_content() == f"{total} rows"
            checked += 1
        assert page.problems() == []
    assert checked >= 2, "fewer than two filterable tables had rows to filter"


def test_navigation_index_to_comparison_to_task_and_back(example_site, visit):
    index = visit(example_site / "index.html", example_site)
    page = index.page
    page.locator('a[href="comparisons/native-vs-beta/index.html"]').first.click()
    page.wait_for_url("**/comparisons/native-vs-beta/index.html")
    browsing.wait_ready(page)
    assert page.locator("h1").text_content().strip() == "Native phase 1 vs 0.4.0 beta"

    task_link = page.locator("#task-outcomes-table-t a").first
    task_name = task_link.text_content().strip()
    href = task_link.get_attribute("href")
    assert href and href.startswith("tasks/") and href.endswith("/index.html")
    task_link.click()
    page.wait_for_url("**/comparisons/native-vs-beta/" + href)
    browsing.wait_ready(page)
    assert task_name in page.locator("h1").text_content()

    # the pager moves to the next task and back
    pager = page.locator(".pager a")
    assert pager.count(), "the task page has no previous/next links"
    pager.last.click()
    page.wait_for_load_state("load")
    assert "/comparisons/native-vs-beta/tasks/" in page.url and not page.url.endswith(href)
    page.go_back()
    page.wait_for_url("**/comparisons/native-vs-beta/" + href)

    # back to the comparison: the charts are drawn again
    page.go_back()
    page.wait_for_url("**/comparisons/native-vs-beta/index.html")
    browsing.wait_ready(page)
    assert browsing.chart_problems(page, example_site / "comparisons" / "native-vs-beta" / "index.html") == []
    page.go_back()
    page.wait_for_url("**/index.html")
    assert page.url == (example_site / "index.html").resolve().as_uri()
    page.go_forward()
    page.wait_for_url("**/comparisons/native-vs-beta/index.html")

    # the breadcrumb and the site title lead home
    page.locator("nav[aria-label=Breadcrumb] a").first.click()
    page.wait_for_url("**/index.html")
    assert page.url == (example_site / "index.html").resolve().as_uri()
    assert index.problems() == []
