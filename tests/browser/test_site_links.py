"""The link checker over the whole built example and hostile sites (no browser needed).

``sitecheck.check_links`` resolves every relative href/src against its page
(file:// semantics: a folder link is an error) and every #fragment against the
target's ids; root-absolute links, links that leave the site and schemes other
than http(s)/mailto are errors.  On top of that: the only links out of the
site are deliberate ones (links written in a task's instruction.md, marked
rel="nofollow noopener noreferrer"), and nothing is loaded from outside.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

from sitecheck import check_links, check_scripts

EXTERNAL = ("http://", "https://", "mailto:", "//")


class _External(HTMLParser):
    """Every href/src that leaves the site: (page line, tag, attr, url, inside the Markdown, rel)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.divs: list[bool] = []  # open <div>s: is it <div class="markdown">?
        self.found: list[tuple[int, str, str, str, bool, set[str]]] = []

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        if tag == "div":
            self.divs.append("markdown" in (values.get("class") or "").split())
        for attr in ("href", "src", "action", "srcset", "poster", "data"):
            url = (values.get(attr) or "").strip()
            if url.lower().startswith(EXTERNAL):
                in_markdown = any(self.divs) and tag == "a" and attr == "href"
                rel = set((values.get("rel") or "").split())
                self.found.append((self.getpos()[0], tag, attr, url, in_markdown, rel))

    def handle_endtag(self, tag):
        if tag == "div" and self.divs:
            self.divs.pop()


def _scan(page: Path) -> _External:
    scan = _External()
    scan.feed(page.read_text(encoding="utf-8"))
    scan.close()
    return scan


def external_links(root: Path) -> list[str]:
    problems = []
    for page in sorted(root.rglob("*.html")):
        name = page.relative_to(root).as_posix()
        for line, tag, attr, url, in_markdown, rel in _scan(page).found:
            if not in_markdown:
                problems.append(f"{name}:{line}: <{tag} {attr}> points outside the site: {url}")
            elif not {"nofollow", "noopener", "noreferrer"} <= rel:
                problems.append(f"{name}:{line}: external link without rel=nofollow noopener noreferrer: {url}")
    return problems


def test_every_internal_link_and_anchor_resolves_in_the_example_site(example_site):
    assert check_links(example_site) == []
    assert check_scripts(example_site) == []


def test_every_internal_link_and_anchor_resolves_in_the_hostile_site(hostile_site):
    assert check_links(hostile_site) == []
    assert check_scripts(hostile_site) == []


def test_links_leave_the_site_only_from_task_instructions(example_site, hostile_site):
    assert external_links(example_site) == []
    assert external_links(hostile_site) == []
    # the example does link out from an instruction, so the rule was exercised
    deliberate = [item for page in example_site.rglob("tasks/*/index.html") for item in _scan(page).found if item[4]]
    assert deliberate, "no deliberate external link found: the rule checked nothing"


def test_the_link_checks_can_fail(tmp_path):
    (tmp_path / "index.html").write_text(
        '<!DOCTYPE html><html><body><main><a href="missing/index.html">x</a> <a href="#nowhere">y</a>'
        '<a href="https://example.org/">z</a><div class="markdown"><a href="https://example.org/">w</a></div>'
        '<script src="https://cdn.example/x.js"></script></main></body></html>',
        encoding="utf-8",
    )
    links = "\n".join(check_links(tmp_path))
    assert "missing file" in links and "missing anchor" in links
    external = "\n".join(external_links(tmp_path))
    assert "<a href> points outside the site: https://example.org/" in external
    assert "without rel=nofollow" in external
    assert "<script src> points outside the site" in external


def test_comparison_and_leaderboard_pages_open_their_trend_pages(example_site, visit):
    """Issue 28, item 6: every comparison and leaderboard page links its own trend page, and the
    link opens it (a reader clicks it, not only an href that resolves)."""
    import browsing

    opened = 0
    for kind, folder in (("comparison", "comparisons"), ("leaderboard", "leaderboards")):
        for path in browsing.pages_of_kind(example_site, kind):
            page = visit(path, example_site).page
            link = page.locator(f'a[href$="trends/{folder}/{path.parent.name}/index.html"]').first
            if not link.is_visible():  # in the one line of related pages under the verdict: open it
                page.locator("details.page-notes > summary").first.click()
            with page.expect_navigation():
                link.click()
            assert page.url.endswith(f"/trends/{folder}/{path.parent.name}/index.html"), page.url
            assert page.locator("h1").inner_text()
            page.close()
            opened += 1
    assert opened >= 3
