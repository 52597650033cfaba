"""The hostile site in Chromium: inputs whose every string carries script and
markup payloads (tests/site/fixtures/hostile.py, sitefixtures.DIALOG_XSS).

No payload may run: the sentinel ``window.__evalsite_xss`` they would set stays
unset, no dialog opens, the Content-Security-Policy reports nothing (a blocked
inline script would show as a console error), and no element the payloads
would create exists.  Every payload shows as text, in the page, in chart
legends and in tooltips."""

from __future__ import annotations

import html
from pathlib import Path

import browsing
import pytest
from sitefixtures import DIALOG_XSS, hostile
from test_browser_pages import representative

pytestmark = pytest.mark.browser

PAYLOADS = hostile.XSS + DIALOG_XSS
# The task instruction's own payloads (Markdown with raw HTML and javascript: links)
INSTRUCTION = (
    "[evil](javascript:window.__evalsite_xss=5)",
    '<img src=x onerror="window.__evalsite_xss=6">',
    "</script><script>window.__evalsite_xss=7</script>",
)

INJECTED = """() => {
  const found = [];
  const charts = el => el.closest('div.chart, #js-plotly-tester');
  for (const el of document.querySelectorAll('*')) {
    for (const attr of el.getAttributeNames()) {
      if (attr.toLowerCase().startsWith('on')) { found.push(`<${el.tagName}> has ${attr}`); }
      if (['href', 'src', 'xlink:href', 'action', 'formaction', 'srcdoc'].includes(attr.toLowerCase())) {
        const value = el.getAttribute(attr).trim().toLowerCase();
        if (value.startsWith('javascript:') || attr.toLowerCase() === 'srcdoc') { found.push(`<${el.tagName}> ${attr}=${value.slice(0, 40)}`); }
      }
    }
  }
  for (const el of document.querySelectorAll('img, iframe, object, embed, form, base, meta[http-equiv="refresh"]')) {
    found.push(`<${el.tagName.toLowerCase()}> element`);
  }
  for (const el of document.querySelectorAll('svg')) { if (!charts(el)) { found.push('<svg> outside a chart'); } }
  for (const el of document.querySelectorAll('script')) {
    if (!el.src && el.type !== 'application/json') { found.push('inline executable <script>'); }
  }
  return found;
}"""


def _all_pages(root: Path) -> list[Path]:
    return sorted(root.rglob("index.html"))


def _escaped_forms(text: str) -> set[str]:
    """How the templates (Jinja) and the Markdown renderer write *text* into HTML."""
    jinja = html.escape(text, quote=True).replace("&#x27;", "&#39;").replace("&quot;", "&#34;")
    return {jinja, html.escape(text, quote=True), html.escape(text, quote=False)}


def test_the_hostile_site_has_every_page_kind(hostile_site):
    kinds = {browsing.page_kind(hostile_site, p) for p in _all_pages(hostile_site)}
    assert kinds == set(browsing.PAGE_KINDS)


def test_no_payload_runs_on_any_page(hostile_site, site_page):
    problems = []
    for path in _all_pages(hostile_site):
        page = site_page(path, hostile_site)
        sentinel = page.page.evaluate("() => [typeof window.__evalsite_xss, window.__evalsite_xss]")
        if sentinel != ["undefined", None]:
            problems.append(f"{page.name}: window.__evalsite_xss was set: {sentinel}")
        problems += [f"{page.name}: {p}" for p in page.page.evaluate(INJECTED)]
        problems += page.problems()  # dialogs, CSP reports, page errors, requests
        problems += [f"{page.name}: {p}" for p in browsing.chart_problems(page.page, path)]
    assert not problems, "\n".join(problems)


def test_every_payload_shows_as_text(hostile_site, site_page, screenshots):
    """A payload written (escaped) into a page is visible there, verbatim; and the
    pages that must show them do."""
    must_show = {
        "index": hostile.XSS[:3],  # site, comparison and ledger titles
        "comparison": PAYLOADS,  # treatments, experiments, issues, skipped reports
        "task": hostile.XSS[:2] + DIALOG_XSS[:2] + INSTRUCTION,
        "ledger": hostile.XSS[:3],
        "arm": hostile.XSS[:1] + DIALOG_XSS[1:2],
        "entry-error": hostile.XSS[:1],
    }
    problems = []
    seen: set[str] = set()
    for path in _all_pages(hostile_site):
        kind = browsing.page_kind(hostile_site, path)
        source = path.read_text(encoding="utf-8")
        written = {p for p in PAYLOADS + INSTRUCTION if any(form in source for form in _escaped_forms(p))}
        page = site_page(path, hostile_site)
        text = page.page.inner_text("body")
        for payload in sorted(written):
            if payload not in text:
                problems.append(f"{page.name}: {payload!r} is in the HTML but not visible as text")
        seen |= {p for p in PAYLOADS + INSTRUCTION if p in text}
        if path == representative(hostile_site, kind):
            for payload in must_show[kind]:
                if payload not in text:
                    problems.append(f"{page.name}: the {kind} page does not show {payload!r}")
            page.page.screenshot(path=screenshots / f"hostile-{kind}-desktop.png", full_page=True)
    assert not problems, "\n".join(problems)
    assert seen == set(PAYLOADS + INSTRUCTION)


def test_payloads_in_chart_labels_and_tooltips_stay_text(hostile_site, site_page):
    """Plotly reads <a href>, <b>, <br> in labels: the legends and tooltips must show the payloads literally."""
    problems = []
    legends = []
    for kind in ("comparison", "ledger"):
        for path in browsing.pages_of_kind(hostile_site, kind):
            page = site_page(path, hostile_site)
            problems += [f"{page.name}: {p}" for p in browsing.hover_problems(page.page, path, per_chart=3)]
            legends += page.page.eval_on_selector_all("g.legend text.legendtext", "ts => ts.map(t => t.textContent)")
            links = page.page.eval_on_selector_all("div.chart a", "as => as.map(a => a.outerHTML)")
            problems += [f"{page.name}: a link inside a chart: {link}" for link in links]
            problems += page.problems()
    assert any(DIALOG_XSS[0] in text for text in legends), legends  # the comparison's candidate treatment
    assert any(DIALOG_XSS[1] in text for text in legends), legends  # baseline treatment and hostile arm
    assert not problems, "\n".join(problems)


def test_the_sentinel_check_is_live(visit, tmp_path):
    """The same checks flag a page where a payload does run (so a pass means something)."""
    page_file = tmp_path / "bad.html"
    page_file.write_text(
        "<!DOCTYPE html><html><body><p>x</p>" + hostile.XSS[1] + DIALOG_XSS[0] + "</body></html>", encoding="utf-8"
    )
    page = visit(page_file, tmp_path)
    page.page.wait_for_function("() => window.__evalsite_xss === 2")
    assert any("dialog opened: alert: 1" in p for p in page.problems())
    assert page.page.evaluate(INJECTED)
