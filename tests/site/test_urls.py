"""``rel`` computes links by segment arithmetic; it must agree with ``posixpath.relpath`` everywhere."""

from __future__ import annotations

import posixpath

from hypothesis import given, settings
from hypothesis import strategies as st

from generator.pages.urls import page_dir, rel
from tests.support.hypo import examples

_SEGMENT = st.sampled_from(["a", "b", "index.html", "tasks", "t-1", "data.json", ".", "..", "", "é", "a b"])
_PATH = st.lists(_SEGMENT, min_size=0, max_size=6).map("/".join)


def _expected(from_url: str, to_url: str) -> str:
    target, _, fragment = to_url.partition("#")
    link = posixpath.relpath(target, page_dir(from_url) or ".")
    return f"{link}#{fragment}" if fragment else link


@settings(max_examples=examples(2000), deadline=None)
@given(_PATH, _PATH, st.sampled_from(["", "#x", "#a/b"]))
def test_rel_agrees_with_posixpath_relpath(from_url: str, to_url: str, fragment: str) -> None:
    target = to_url + fragment
    if not to_url and not fragment:
        # posixpath.relpath refuses an empty path; so does rel
        try:
            rel(from_url, target)
        except ValueError:
            return
        raise AssertionError("rel accepted an empty target")
    if target.startswith("#"):
        assert rel(from_url, target) == target
        return
    assert rel(from_url, target) == _expected(from_url, target)


def test_rel_on_the_sites_own_urls() -> None:
    task = "comparisons/c/tasks/t-0-abc/index.html"
    assert rel(task, "comparisons/c/tasks/t-1-def/index.html") == "../t-1-def/index.html"
    assert rel(task, "comparisons/c/data.json") == "../../data.json"
    assert rel(task, "comparisons/c/tasks/t-0-abc/data.json") == "data.json"
    assert rel("index.html", "index.html") == "index.html"
    assert rel("comparisons/c/index.html", "comparisons/c") == "."
    assert rel("comparisons/c/index.html", "comparisons/c/index.html#top") == "index.html#top"
