"""Rendering: every page kind, escaping of hostile text, Markdown and JSON-in-script safety."""

from __future__ import annotations

import html
import json
import re

import pytest
from markupsafe import Markup
from sitecheck import check_scripts, scan
from sitefixtures import hostile

from generator.pages.models import Band, ForestChart, ForestRow, LineChart, RefLine, Series
from generator.render.charts import figure_json, plot_text
from generator.render.env import default_templates_dir, make_env
from generator.render.markdown import render_markdown

ALLOWED_TAGS = {
    "bdi",  # every name isolated (issue 31)
    "button",  # one-click table views (issue 10)
    "details",  # collapsed long tables (issue 10)
    "summary",
    "html",
    "head",
    "meta",
    "title",
    "link",
    "script",
    "body",
    "a",
    "header",
    "nav",
    "ol",
    "ul",
    "li",
    "main",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "section",
    "p",
    "strong",
    "em",
    "code",
    "pre",
    "div",
    "table",
    "caption",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "dl",
    "dt",
    "dd",
    "label",
    "input",
    "output",
    "figure",
    "figcaption",
    "footer",
    "span",
    "article",
    "s",
    "br",
    "hr",
    "blockquote",
}
JSON_BLOCK = re.compile(r'<script type="application/json" id="([^"]+)">(.*?)</script>', re.S)


def _pages(site):
    return sorted(site.rglob("*.html"))


def test_every_page_kind_is_rendered(hostile_site):
    kinds = {re.search(r'<body class="page-([a-z_]+)"', p.read_text()).group(1) for p in _pages(hostile_site)}
    assert kinds == {"index", "comparison", "task", "ledger", "arm", "glossary"}


def test_hostile_payloads_never_appear_as_markup(hostile_site):
    for page in _pages(hostile_site):
        text = page.read_text(encoding="utf-8")
        for raw in hostile.RAW_MARKUP:
            assert raw not in text, f"{page.relative_to(hostile_site)} contains raw {raw!r}"
        assert 'href="javascript:' not in text.lower()
        tags = set(re.findall(r"<([a-zA-Z][a-zA-Z0-9]*)", text))
        assert tags <= ALLOWED_TAGS, tags - ALLOWED_TAGS


def test_hostile_payloads_are_visible_as_text(hostile_site):
    task_pages = [p for p in _pages(hostile_site) if "/tasks/" in p.as_posix()]
    visible = "\n".join(html.unescape(re.sub(r"<[^>]+>", "", p.read_text())) for p in task_pages)
    for payload in hostile.XSS:
        assert payload in visible
    comparison = (hostile_site / "comparisons" / "cmp-0" / "index.html").read_text()
    assert html.unescape(re.sub(r"<[^>]+>", "", comparison)).count(hostile.XSS[0]) >= 3


def test_no_inline_script_and_a_strict_csp_on_every_page(hostile_site):
    assert check_scripts(hostile_site) == []
    for page in _pages(hostile_site):
        text = page.read_text()
        assert "script-src 'self'" in text and "object-src 'none'" in text and "base-uri 'none'" in text
        assert "cdn" not in text.lower() and "https://" not in text.split("<main", 1)[0]


def test_pages_with_charts_load_the_shared_plotly_once(hostile_site):
    for page in _pages(hostile_site):
        text = page.read_text()
        blocks = JSON_BLOCK.findall(text)
        assert text.count("assets/plotly.min.js") == (1 if blocks else 0)
        for fig_id, body in blocks:
            assert "</" not in body and "<!--" not in body
            figure = json.loads(body)
            assert f'data-figure="{fig_id}"' in text
            assert figure["data"] and figure["layout"]["template"] != "plotly"


def test_chart_json_keeps_payloads_as_inert_data(hostile_site):
    text = (hostile_site / "comparisons" / "cmp-0" / "index.html").read_text()
    body = dict(JSON_BLOCK.findall(text))["chart-metrics-by-k-data"]
    names = [trace["name"] for trace in json.loads(body)["data"]]
    # the label shows the payload literally (entity-escaped for Plotly's pseudo-HTML)
    assert any("COMET_NATIVE_PHASE1&lt;script&gt;" in name for name in names)


def test_ids_are_unique_and_deterministic(hostile_site):
    for page in _pages(hostile_site):
        result = scan(page)
        assert result.duplicate_ids == []
        assert not any(re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-.*", i) for i in result.ids)  # no uuids


@pytest.mark.parametrize(
    "source",
    [
        "[x](javascript:alert(1))",
        "[x](JaVaScRiPt:alert(1))",
        "[x](&#106;avascript:alert(1))",
        "[x]( javascript:alert(1))",
        "[x](java\tscript:alert(1))",
        "[x](vbscript:msgbox(1))",
        "[x](data:text/html;base64,PHNjcmlwdD4=)",
        "[x](file:///etc/passwd)",
        "<javascript:alert(1)>",
        "![x](javascript:alert(1))",
        "![x](data:image/png;base64,iVBORw0KGgo=)",
        "[x](relative/page.md)",
        "[x](/absolute/path)",
        "[x](#fragment)",
        "[x][ref]\n\n[ref]: javascript:alert(1)",
    ],
)
def test_markdown_drops_unsafe_and_dangling_links(source):
    out = str(render_markdown(source))
    assert "<a " not in out and "<img" not in out
    assert "href" not in out and "src=" not in out


def test_markdown_keeps_safe_links_with_rel():
    out = str(
        render_markdown(
            "[docs](https://example.com/a?b=1&c=2) <mailto:x@example.com> ![pic](https://example.com/p.png)"
        )
    )
    assert (
        '<a href="https://example.com/a?b=1&amp;c=2" rel="nofollow noopener noreferrer" class="external">docs</a>'
        in out
    )
    assert 'href="mailto:x@example.com"' in out
    assert "<img" not in out and "[image: pic]" in out  # images are linked, never loaded


def test_markdown_escapes_raw_html_and_shifts_headings():
    out = str(render_markdown("# Title\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n\n- [x] done\n"))
    assert "<script" not in out and "<img" not in out and "&lt;script&gt;" in out
    assert "<h3>Title</h3>" in out and "<h1>" not in out
    assert "<input" not in out and "☑" in out
    assert isinstance(render_markdown("x"), Markup)


def test_markdown_size_cap_is_visible():
    out = str(render_markdown("a" * 50, max_chars=10))
    assert "a" * 11 not in out and "Truncated" in out


def test_figure_json_is_safe_inside_a_script_element():
    nasty = "</script><script>alert(1)</script><!-- \u2028 & '"
    line = LineChart("c", nasty, nasty, "k", "y", (Series(nasty, (1, 2), (0.5, None)),))
    forest = ForestChart(
        "f",
        nasty,
        nasty,
        "x",
        (ForestRow(nasty, nasty, 0.5, 0.1, 0.9, nasty),),
        (RefLine(0.3, nasty),),
        Band(-0.1, 0.1, nasty),
    )
    for spec in (line, forest):
        text = str(figure_json(spec))
        assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
        decoded = json.loads(text)
        assert figure_json(spec) == text  # deterministic
        assert "template" in decoded["layout"]
    assert json.loads(str(figure_json(line)))["data"][0]["y"] == [0.5, None]  # undefined stays a gap


def test_plot_text_neutralises_plotly_pseudo_html():
    assert plot_text('<a href="javascript:x">y</a>') == '&lt;a href="javascript:x"&gt;y&lt;/a&gt;'
    assert plot_text("x" * 100).endswith("…") and len(plot_text("x" * 100)) == 48


def test_templates_autoescape_and_fail_on_undefined(tmp_path):
    from jinja2 import UndefinedError

    env = make_env(default_templates_dir())
    assert env.autoescape is True
    template = env.from_string("{{ x.missing }}")
    with pytest.raises(UndefinedError):
        template.render(x={})
    assert env.from_string("{{ s }}").render(s="<b>") == "&lt;b&gt;"


def test_comparison_page_has_the_statistics_slots(hostile_site):
    text = (hostile_site / "comparisons" / "cmp-0" / "index.html").read_text()
    assert text.index('id="verdict"') < text.index('id="alignment-summary"')  # the verdict sits above the tables
    assert 'id="statistics"' in text and 'id="chart-paired-difference"' in text
