"""Tables that fit and the first screen (issue 28, items 3 and 4), in Chromium at 1280 and 375 px.

Every table of a page of each kind (every ``<details>`` opened) fits its box, or scrolls inside its
``.table-wrap`` with its first column kept in view while the rest scrolls; a comparison's verdict and
its facts are on the first screen; on a phone the leaderboard opens with its ranking.
"""

from __future__ import annotations

import browsing
import pytest

pytestmark = pytest.mark.browser

VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": browsing.MOBILE}

# each table that is wider than its box: does its box scroll, stay inside the page's main column,
# and keep the first cell of its rows at the box's left edge once scrolled?
TABLES = """() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const main = document.querySelector('main').getBoundingClientRect();
  const out = [];
  for (const t of document.querySelectorAll('main table')) {
    const box = t.parentElement;
    if (t.scrollWidth <= box.clientWidth + 1) continue;
    const name = t.id || '?';
    const scrolls = ['auto', 'scroll'].includes(getComputedStyle(box).overflowX);
    if (!scrolls) { out.push(`${name}: ${t.scrollWidth}px in a ${box.clientWidth}px box that does not scroll`); continue; }
    if (box.getBoundingClientRect().right > main.right + 1) { out.push(`${name}: its box sticks out of the page`); continue; }
    // the first row with a cell per column (an empty table's one spanning cell cannot stick)
    const row = t.tBodies[0] && [...t.tBodies[0].rows].find(r => r.cells[0].colSpan === 1);
    if (!row) continue;
    box.scrollLeft = 0;
    const before = row.cells[0].getBoundingClientRect().left;
    box.scrollLeft = 200;
    const after = row.cells[0].getBoundingClientRect().left;
    const second = row.cells.length > 1 ? row.cells[1].getBoundingClientRect().left : null;
    box.scrollLeft = 0;
    if (Math.abs(after - before) > 1) out.push(`${name}: its first column scrolls away (${before} -> ${after})`);
    if (getComputedStyle(row.cells[0]).position !== 'sticky') out.push(`${name}: first column not sticky`);
    if (second !== null && after > second + 1 && getComputedStyle(row.cells[0]).backgroundColor === 'rgba(0, 0, 0, 0)')
      out.push(`${name}: the sticky first column is transparent`);
  }
  return out;
}"""

KINDS = ("index", "comparison", "task", "leaderboard", "leaderboard-system", "ledger", "arm", "trend")


def _pages(site):
    pages = []
    for kind in KINDS:
        found = browsing.pages_of_kind(site, kind)
        # the heaviest page of each kind: the one with the widest tables in practice
        pages += sorted(found, key=lambda p: (-p.stat().st_size, p.as_posix()))[:2]
    return pages


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_every_table_fits_or_scrolls_in_its_box_with_a_sticky_first_column(example_site, visit, viewport):
    problems = []
    for path in _pages(example_site):
        page = visit(path, example_site, viewport=VIEWPORTS[viewport]).page
        problems += [f"{path.relative_to(example_site).parent}: {p}" for p in page.evaluate(TABLES)]
        page.close()
    assert not problems, problems


def test_a_wide_table_really_is_wider_than_its_box_on_a_phone(example_site, visit):
    """The check above is not vacuous: on a phone the example has wide tables, and they scroll."""
    (board,) = [p for p in browsing.pages_of_kind(example_site, "leaderboard") if p.parent.name == "example-agents"]
    page = visit(board, example_site, viewport=browsing.MOBILE).page
    wide = page.evaluate(
        "() => [...document.querySelectorAll('main table')].filter(t => t.scrollWidth > t.parentElement.clientWidth + 1).length"
    )
    assert wide >= 1
    assert not page.evaluate(TABLES)


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_the_verdict_and_its_facts_are_on_the_first_screen(example_site, visit, viewport):
    size = VIEWPORTS[viewport]
    late = []
    for path in browsing.pages_of_kind(example_site, "comparison"):
        page = visit(path, example_site, viewport=size).page
        bottom = page.evaluate(
            """() => { const v = document.querySelector('#verdict .decision-facts') || document.querySelector('#verdict');
                       return v ? v.getBoundingClientRect().bottom + window.scrollY : null; }"""
        )
        if bottom is None or bottom > size["height"]:
            late.append((path.parent.name, bottom))
        # what was above it (notices, the same evidence elsewhere) is one line under it
        order = page.evaluate(
            """() => { const v = document.getElementById('verdict'), n = document.getElementById('page-notes');
                       return n === null || !!(v.compareDocumentPosition(n) & Node.DOCUMENT_POSITION_FOLLOWING); }"""
        )
        assert order, path
        page.close()
    assert not late, late


@pytest.mark.parametrize("board_id", ["example-agents", "partial-credit-board"])
def test_the_phone_leaderboard_opens_with_its_ranking(example_site, visit, board_id):
    (board,) = [p for p in browsing.pages_of_kind(example_site, "leaderboard") if p.parent.name == board_id]
    page = visit(board, example_site, viewport=browsing.MOBILE).page
    state = page.evaluate(
        """() => { const r = document.getElementById('ranking-s').getBoundingClientRect();
                   const f = document.querySelector('main .facts').getBoundingClientRect();
                   const first = document.querySelector('#ranking-s tbody tr').getBoundingClientRect();
                   return {ranking: r.top + window.scrollY, facts: f.top + window.scrollY, row: first.top + window.scrollY}; }"""
    )
    assert state["ranking"] < state["facts"], state
    assert state["row"] < browsing.MOBILE["height"], state  # its first row is on the first screen


# links in table cells whose text has no place to wrap (no space, hyphen or slash) but that the
# browser drew on more than one line: a name broken mid-word ("droid_opu" / "s41")
MID_WORD = """() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const out = [];
  for (const a of document.querySelectorAll('main table.data td a')) {
    const text = a.textContent.trim();
    if (!text || /[\\s\\-\\/\\u2010-\\u2014]/.test(text) || text.length > 60) continue;
    const range = document.createRange();
    range.selectNodeContents(a);
    const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
    if (lines.size > 1) out.push(text);
  }
  return out;
}"""


def test_names_in_tables_never_break_mid_word_on_a_phone(example_site, visit):
    """A name wraps where a word ends (a space, a hyphen, a slash) or not at all, so that
    ``COMET_NATIVE_PHASE1`` never reads ``COMET_NATIVE_PHA SE1``; a table it widens scrolls in its
    box (the test above).  Issue 28, item 3."""
    broken = {}
    for path in _pages(example_site):
        page = visit(path, example_site, viewport=browsing.MOBILE).page
        found = page.evaluate(MID_WORD)
        page.close()
        if found:
            broken[path.relative_to(example_site).as_posix()] = found[:5]
    assert not broken, broken
