"""The leaderboard page in Chromium: its charts load Plotly lazily like every other page, a click on
a cell of the pairwise heatmap opens that pair's page even though the chart is drawn late, and a
missing Plotly bundle leaves a message instead of empty boxes."""

from __future__ import annotations

import browsing
import pytest

pytestmark = pytest.mark.browser

# the centre of the heatmap cell in row *r*, column *c* (page coordinates)
CELL = """([r, c]) => { const el = document.getElementById('pairwise-chart'); el.scrollIntoView();
  const l = el._fullLayout, n = l.xaxis._categories.length, box = el.querySelector('.nsewdrag').getBoundingClientRect();
  return {x: box.left + (c + 0.5) * box.width / n, y: box.top + (r + 0.5) * box.height / n,
          href: el.data[0].customdata[r][c]}; }"""


def _board(example_site):
    """The example's pass@k board of five systems (the site also has a two-system metric-mean board)."""
    (board,) = [p for p in browsing.pages_of_kind(example_site, "leaderboard") if p.parent.name == "example-agents"]
    return board


def test_leaderboard_loads_plotly_only_when_a_chart_needs_it(example_site, visit):
    html = _board(example_site).read_text(encoding="utf-8")
    assert '<script src="../../assets/plotly.min.js"' not in html  # not up front
    assert 'data-plotly="../../assets/plotly.min.js"' in html
    result = visit(_board(example_site), example_site)
    assert result.page.evaluate("() => typeof window.Plotly") == "object"  # loaded on demand
    assert not result.problems(), result.problems()


def test_a_heatmap_cell_opens_its_pair_page(example_site, visit):
    result = visit(_board(example_site), example_site)
    page = result.page
    page.wait_for_function("() => document.getElementById('pairwise-chart').getAttribute('data-rendered') === 'true'")
    target = page.evaluate(CELL, [0, 1])
    assert target["href"].startswith("pairs/") and target["href"].endswith("/index.html"), target
    with page.expect_navigation():
        page.mouse.click(target["x"], target["y"])
    assert page.url.endswith("/" + target["href"]), (page.url, target)
    assert (_board(example_site).parent / target["href"]).is_file()


def test_a_diagonal_cell_goes_nowhere(example_site, visit):
    result = visit(_board(example_site), example_site)
    page = result.page
    page.wait_for_function("() => document.getElementById('pairwise-chart').getAttribute('data-rendered') === 'true'")
    before = page.url
    target = page.evaluate(CELL, [0, 0])
    assert target["href"] == ""
    page.mouse.click(target["x"], target["y"])
    page.wait_for_timeout(300)
    assert page.url == before


def test_without_plotly_every_chart_says_so(example_site, context):
    page = context.new_page()
    try:
        page.route("**/plotly.min.js", lambda route: route.abort())
        page.goto(_board(example_site).resolve().as_uri(), wait_until="load")
        page.wait_for_function(
            "() => [...document.querySelectorAll('div.chart[data-figure]')]"
            ".every(el => el.textContent.includes('did not load'))"
        )
        texts = page.eval_on_selector_all("div.chart[data-figure]", "els => els.map(el => el.textContent)")
        assert len(texts) == 2 and all("The tables on this page hold the same numbers" in t for t in texts), texts
    finally:
        page.close()


STARS = """() => { const el = document.getElementById('pairwise-chart'), cats = el._fullLayout.xaxis._categories;
  const t = el.data[1] || {x: [], y: []};
  return t.x.map((x, i) => [cats.indexOf(t.y[i]), cats.indexOf(x)]); }"""


def test_distinguishable_pairs_are_starred_on_the_heatmap_and_still_open(example_site, visit):
    """Colour alone does not say which differences the correction found: the cells of the pairs the
    table marks ``*`` carry a star, and a starred cell still opens its pair page (issue 28, item 5)."""
    result = visit(_board(example_site), example_site)
    page = result.page
    page.wait_for_function("() => document.getElementById('pairwise-chart').getAttribute('data-rendered') === 'true'")
    starred = page.evaluate(STARS)
    marked = page.locator("#pairwise td").filter(has_text=" *").count()
    assert starred and len(starred) == marked, (starred, marked)
    target = page.evaluate(CELL, starred[0])
    with page.expect_navigation():
        page.mouse.click(target["x"], target["y"])
    assert page.url.endswith("/" + target["href"]), (page.url, target)
