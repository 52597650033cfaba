"""Names that impersonate each other are told apart (issue 11, item 8).

``csv-dedupe``, ``\\u202eepuded-vsc``, ``csv\\u200b-dedupe`` and
``csv-dedup\\u0435`` all *display* as "csv-dedupe".  On the site every
invisible or bidirectional-control character shows as ``[U+XXXX]``, names
with right-to-left letters are isolated in ``<bdi>``, and a cell whose text
has the same UTS #39 skeleton as another cell of its column is marked
"(look-alike)".
"""

from __future__ import annotations

import re
from pathlib import Path

from comet_runs import build, pair

from generator.pages.names import confusable_with, needs_isolation, skeleton, visible
from generator.render.env import name, shown

PLAIN = "csv-dedupe"
REVERSED = "\u202eepuded-vsc"
ZERO_WIDTH = "csv\u200b-dedupe"
CYRILLIC = "csv-dedup\u0435"
HEBREW = "\u05de\u05e9\u05d9\u05de\u05d4"
IMPERSONATORS = (PLAIN, REVERSED, ZERO_WIDTH, CYRILLIC)
INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


def test_invisible_and_bidi_characters_are_written_visibly() -> None:
    assert visible(REVERSED) == "[U+202E]epuded-vsc"
    assert visible(ZERO_WIDTH) == "csv[U+200B]-dedupe"
    assert visible("a\u2066b\u2069c\ufeffd\u00a0e\x07f") == "a[U+2066]b[U+2069]c[U+FEFF]d[U+00A0]e[U+0007]f"
    assert visible(PLAIN) == PLAIN and visible("tab\tand\nline") == "tab\tand\nline"
    assert shown("x\ud800") == "x[U+D800]"  # a lone surrogate can be written to a page


def test_look_alikes_share_a_skeleton() -> None:
    assert skeleton(CYRILLIC) == skeleton(PLAIN) == skeleton(ZERO_WIDTH)
    assert skeleton("paypal") == skeleton("p\u0430yp\u0430l")
    assert skeleton("task-a") != skeleton("task-b")
    found = confusable_with([PLAIN, ZERO_WIDTH, CYRILLIC, "other", PLAIN])
    assert set(found) == {PLAIN, ZERO_WIDTH, CYRILLIC}
    assert found[PLAIN] == tuple(sorted([ZERO_WIDTH, CYRILLIC]))


def test_rtl_names_are_isolated() -> None:
    assert needs_isolation(HEBREW) and not needs_isolation(PLAIN)
    assert str(name(HEBREW)) == f"<bdi>{HEBREW}</bdi>"
    assert str(name("<b>" + HEBREW)) == f"<bdi>&lt;b&gt;{HEBREW}</bdi>"
    assert str(name(PLAIN)) == PLAIN


def test_the_site_shows_impersonators_apart(tmp_path: Path) -> None:
    pair(tmp_path, [*IMPERSONATORS, HEBREW])
    code, err, out = build(tmp_path)
    assert code == 0 and "warning" not in err, err
    pages = list(out.rglob("*.html"))
    for page in pages:
        assert not INVISIBLE.search(page.read_text(encoding="utf-8")), page
    comparison = (out / "comparisons" / "a" / "index.html").read_text(encoding="utf-8")
    assert "[U+202E]epuded-vsc" in comparison and "csv[U+200B]-dedupe" in comparison
    assert f"<bdi>{HEBREW}</bdi>" in comparison
    outcomes = comparison[comparison.index('id="task-outcomes-table"') :]
    outcomes = outcomes[: outcomes.index("</table>")]
    marked = re.findall(r">([^<>]*)</a> <span class=\"confusable\"", outcomes)
    assert sorted(marked) == sorted([PLAIN, "csv[U+200B]-dedupe", CYRILLIC])
    task_pages = [p.read_text(encoding="utf-8") for p in (out / "comparisons" / "a" / "tasks").glob("*/index.html")]
    assert any("<h1>Task [U+202E]epuded-vsc</h1>" in page for page in task_pages)
    assert any(f"<h1><bdi>Task {HEBREW}</bdi></h1>" in page for page in task_pages)
