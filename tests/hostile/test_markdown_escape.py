"""`report.md` carries no untrusted markup (issue 11, item 11).

A task name such as ``<img src=x onerror=...>`` used to reach the report as
raw HTML, an active tag under any Markdown renderer with HTML on.  Every
untrusted field is now escaped for Markdown and HTML; plain names (the
examples' golden reports) are byte-for-byte unchanged.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from comet_runs import compare, edit_report, pair
from markdown_it import MarkdownIt

from generator.render.comparison.report import code, untrusted

HOSTILE = [
    '<img src=x onerror="window.__evalsite_xss=1">',
    "<script>alert(1)</script>",
    "[click](javascript:alert(1))",
    "![x](http://tracker.example/p.png)",
    "*bold* _em_ ~~gone~~ `code`",
    "a|b|c",
    "line\nbreak",
    "&lt;img src=x onerror=alert(1)&gt;",
    "back\\slash\\<b>",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_untrusted_text_renders_literally(text: str) -> None:
    md = MarkdownIt("commonmark", {"html": True}).enable("table").enable("strikethrough")
    rendered = md.render(f"| a |\n|---|\n| {untrusted(text)} |\n")
    assert "<img" not in rendered and "<script" not in rendered and "<a " not in rendered
    assert "<em>" not in rendered and "<strong>" not in rendered and "<code>" not in rendered
    assert "<s>" not in rendered and rendered.count("<td>") == 1
    inline = md.render(f"- {untrusted(text)}\n")
    assert "<img" not in inline and "<a " not in inline and "<em>" not in inline


@pytest.mark.parametrize("text", [*HOSTILE, "``", "`a`", "x ``` y"])
def test_code_spans_hold_any_text(text: str) -> None:
    md = MarkdownIt("commonmark", {"html": True})
    rendered = md.render(f"- {code(text)}\n")
    assert "<img" not in rendered and "<script" not in rendered and "<a " not in rendered
    assert rendered.count("<code>") == 1


def test_plain_names_are_unchanged() -> None:
    for text in ("csv-dedupe", "COMET_FULL_040_BETA", "log_rotation_COMET_FULL_040_BETA_r9_rep1_report.json", "*"):
        assert untrusted(text) == text
    assert code("COMET_NATIVE_PHASE1") == "`COMET_NATIVE_PHASE1`"


def test_a_hostile_task_name_is_inert_in_report_md(tmp_path: Path) -> None:
    reports = pair(tmp_path, ["good", "bad"])
    edit_report(reports["bad"], name=HOSTILE[0])
    output = compare(tmp_path)
    assert HOSTILE[0] in json.loads(output.text("json"))["tasks"]
    markdown = output.text("markdown")
    assert "<img" not in markdown and "&lt;img src=x onerror=" in markdown
    rendered = MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown)
    assert "<img" not in rendered and "onerror=&quot;" in rendered


def test_hostile_system_labels_are_inert_in_the_leaderboard_report() -> None:
    """A leaderboard's labels (any one-line text) reach its report.md as inert text, as a comparison's do."""
    from tests.support.cli import evalsite

    root = Path(__file__).resolve().parents[2] / "examples" / "leaderboard"
    labels = ["<script>alert(1)</script>", "[click](javascript:alert(1))", "*bold* `code` a|b"]
    systems = [
        f"{label}={root / name}:LB_{name.upper().replace('-', '_')}"
        for label, name in zip(labels, ("agent-a", "agent-b", "agent-c"), strict=True)
    ]
    args = [arg for system in systems for arg in ("--system", system)]
    code_, out, err = evalsite("leaderboard", *args, "--baseline", labels[1], "--format", "markdown")
    assert code_ == 0, err
    rendered = MarkdownIt("commonmark", {"html": True}).enable("table").render(out)
    for active in ("<script", "<a ", "<em>", "<strong>", "<code>"):
        assert active not in rendered, active
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in rendered  # shown, as text
