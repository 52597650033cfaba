"""Names that impersonate each other are told apart (issue 11, item 8), and no name can reorder the
text around it (issue 31, item 2).

``csv-dedupe``, ``\\u202eepuded-vsc``, ``csv\\u200b-dedupe`` and
``csv-dedup\\u0435`` all *display* as "csv-dedupe".  On the site every
invisible or bidirectional-control character shows as ``[U+XXXX]``, every
name in a text position is isolated in ``<bdi>`` (a sentence we write around
names, a ``Phrase``, isolates each of its names), and a cell whose text has
the same UTS #39 skeleton as another cell of its column is marked
"(look-alike)".
"""

from __future__ import annotations

import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from comet_runs import build, pair
from markupsafe import escape

from generator.model.redaction import Redactor
from generator.pages.models import Cell, Column, Row, Table
from generator.pages.names import Phrase, confusable_with, phrase, skeleton, visible
from generator.pipelines.build import build_site
from generator.read.config import load_config
from generator.render.env import make_env, name, shown
from generator.render.tables import table_html

TESTS = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(TESTS / "site"), str(TESTS / "leaderboard")]

from lbkit import write_system  # noqa: E402
from sitefixtures import FixtureCore, hostile, ledger_summary, write_config  # noqa: E402

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


def test_every_name_is_isolated() -> None:
    assert str(name(HEBREW)) == f"<bdi>{HEBREW}</bdi>"
    assert str(name("<b>" + HEBREW)) == f"<bdi>&lt;b&gt;{HEBREW}</bdi>"
    assert str(name(PLAIN)) == f"<bdi>{PLAIN}</bdi>"  # plain ASCII too: digits and neutrals reorder
    assert str(name("(t) 12")) == "<bdi>(t) 12</bdi>" and str(name("\u0301x")) == "<bdi>\u0301x</bdi>"
    assert str(name("12,345")) == "12,345" and str(name("")) == ""  # a number is no name; nothing to isolate


def test_a_phrase_isolates_each_of_its_names_and_is_plain_text_elsewhere() -> None:
    title = phrase("Task {} vs {}", HEBREW, "<b>")
    assert isinstance(title, Phrase) and title == f"Task {HEBREW} vs <b>"
    assert str(name(title)) == f"Task <bdi>{HEBREW}</bdi> vs <bdi>&lt;b&gt;</bdi>"
    assert str(escape(title)) == f"Task {HEBREW} vs &lt;b&gt;"  # attributes and <title>: plain, escaped
    both = phrase("{}; {}.", title, phrase("system {}", PLAIN))  # phrases in a phrase keep their names apart
    assert str(name(both)) == f"Task <bdi>{HEBREW}</bdi> vs <bdi>&lt;b&gt;</bdi>; system <bdi>{PLAIN}</bdi>."
    env = make_env()
    page = env.from_string('<dt>{{ x|phrase }}</dt><p title="{{ x }}">{{ x|name }}</p>')
    assert page.render(x=phrase("{} passes", REVERSED), redactor=None) == (
        '<dt><bdi>[U+202E]epuded-vsc</bdi> passes</dt><p title="[U+202E]epuded-vsc passes">'
        "<bdi>[U+202E]epuded-vsc</bdi> passes</p>"
    )
    secret = "ghp_" + "a" * 36
    redacted = page.render(x=phrase("token {}", secret), redactor=Redactor())
    assert secret not in redacted and "<bdi>" in redacted
    table = Table("t", phrase("Runs of {}", HEBREW), (Column(phrase("{} passes", PLAIN)),), (Row((Cell(PLAIN),)),))
    html = str(table_html(table))
    assert f'<caption id="t-cap">Runs of <bdi>{HEBREW}</bdi></caption>' in html
    assert f"<bdi>{PLAIN}</bdi> passes</th>" in html and f"<td><bdi>{PLAIN}</bdi></td>" in html


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
    marked = re.findall(r"<bdi>([^<>]*)</bdi></a> <span class=\"confusable\"", outcomes)
    assert sorted(marked) == sorted([PLAIN, "csv[U+200B]-dedupe", CYRILLIC])
    task_pages = [p.read_text(encoding="utf-8") for p in (out / "comparisons" / "a" / "tasks").glob("*/index.html")]
    assert any("<h1>Task <bdi>[U+202E]epuded-vsc</bdi></h1>" in page for page in task_pages)
    assert any(f"<h1>Task <bdi>{HEBREW}</bdi></h1>" in page for page in task_pages)


# --------------------------------------------------------------------------- every name on a built site

# Names that reorder unisolated text: right-to-left letters with a digit, neutrals and digits only, a
# leading combining mark; planted as a task, treatment, ledger arm and leaderboard system label.
RTL_TASK = "\u05de\u05e9\u05d9\u05de\u05d4 7"
NEUTRAL_TASK = "(t) 12"
MARK_TASK = "\u0301x-3"
RTL_TREATMENT = "TR\u05d0-1"
RTL_ARM = "arm \u05d1 2"
PLANTED = (RTL_TASK, NEUTRAL_TASK, MARK_TASK, RTL_TREATMENT, RTL_ARM, hostile.BASELINE_T)


def _planted_document() -> dict:
    text = json.dumps(hostile.comparison_document(), ensure_ascii=False)
    for old, new in (("task-a", RTL_TASK), ("Task A", NEUTRAL_TASK), ("COMET_NATIVE_PHASE1", RTL_TREATMENT)):
        text = text.replace(old, new)
    text = text.replace("../../../etc/passwd", MARK_TASK)
    return json.loads(text)


def _planted_summary() -> dict:
    arm = json.dumps("tunnel" + hostile.XSS[0], ensure_ascii=False)[1:-1]
    return json.loads(json.dumps(ledger_summary(), ensure_ascii=False).replace(arm, RTL_ARM))


@pytest.fixture(scope="module")
def planted_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A comparison, a ledger and a leaderboard whose names are the planted ones."""
    root = tmp_path_factory.mktemp("planted-names")
    outcomes = {"t1": [True, False], RTL_TASK: [True, True], NEUTRAL_TASK: [False, True]}
    write_system(root / "lb" / "a", "LBA", outcomes)
    write_system(root / "lb" / "b", "LBB", outcomes)
    board = (
        "leaderboards:\n  - id: lb\n    title: lb\n    systems:\n"
        f"      - {{label: {json.dumps(RTL_TREATMENT)}, experiment: lb/a, treatment: LBA}}\n"
        f"      - {{label: {json.dumps(NEUTRAL_TASK)}, experiment: lb/b, treatment: LBB}}\n"
    )
    out = root / "_site"
    core = FixtureCore(_planted_document(), _planted_summary())
    build_site(load_config(write_config(root, extra=board)), out, core=core)
    return out


class _Occurrences(HTMLParser):
    """Each text node holding a planted name (``<title>``, scripts and styles aside), with whether it is
    isolated: its own element is a ``<bdi>`` or has ``dir``, and whatever else that text node holds
    around the name has no space (a file name built from a task name is one name; "Task <name>" is not)."""

    VOID = frozenset({"meta", "link", "input", "br", "img", "hr", "wbr", "col", "source"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool]] = []
        self.found: list[tuple[str, bool, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in self.VOID:
            self.stack.append((tag, tag == "bdi" or any(key == "dir" for key, _ in attrs)))

    def handle_endtag(self, tag: str) -> None:
        while self.stack and self.stack.pop()[0] != tag:
            pass

    def handle_data(self, data: str) -> None:
        if any(tag in ("title", "script", "style") for tag, _ in self.stack):
            return
        for planted in PLANTED:
            shown_as = visible(planted)
            if shown_as in data:
                rest = data.replace(shown_as, "")
                isolated = bool(self.stack) and self.stack[-1][1] and not any(c.isspace() for c in rest)
                self.found.append((planted, isolated, data[:120]))


def test_every_planted_name_is_isolated_on_every_page(planted_site: Path) -> None:
    kinds: dict[str, int] = {}
    loose = []
    for page in sorted(planted_site.rglob("*.html")):
        scan = _Occurrences()
        scan.feed(page.read_text(encoding="utf-8"))
        url = page.relative_to(planted_site).as_posix()
        kind = "task" if "/tasks/" in url else url.split("/")[0] if "/" in url else url
        kinds[kind] = kinds.get(kind, 0) + len(scan.found)
        loose += [(url, text) for _planted, isolated, text in scan.found if not isolated]
    assert not loose, f"{len(loose)} name occurrence(s) not isolated, e.g. {loose[:5]}"
    for kind in ("comparisons", "task", "ledgers", "leaderboards", "index.html"):
        assert kinds.get(kind, 0) > 0, kinds  # each kind of page shows planted names
    assert sum(kinds.values()) > 100, kinds
