"""Helpers for the browser tests: open a page and record what went wrong, read
the page's embedded chart figures, check charts, tables and layout.

Nothing here imports playwright at module level, so collecting the tests works
without it (the fixtures in conftest.py skip or fail instead).
"""

from __future__ import annotations

import html
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import pytest


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() == "true"


def unavailable(reason: str) -> NoReturn:
    """Skip on a developer machine; fail under CI=true (a missing browser is a CI bug)."""
    if in_ci():
        pytest.fail(f"browser tests cannot run and CI=true: {reason}", pytrace=False)
    pytest.skip(f"browser tests skipped: {reason} (install the Debian package 'chromium' and the 'browser' extra)")


PAGE_KINDS = ("index", "comparison", "task", "ledger", "arm", "entry-error")
LEADERBOARD_KINDS = ("leaderboard", "leaderboard-system", "leaderboard-pair")
RUN_KINDS = ("run", "pair")  # transcripts (issue 14): a run's pages and a pair's aligned steps
REPORT_KINDS = ("report",)  # reports/<id>/: a single-system report (issue 28)
HISTORY_KINDS = ("trend",)  # trends/<kind>s/<id>/: only a site with a build history (the example has one)
DESKTOP = {"width": 1280, "height": 900}
MOBILE = {"width": 375, "height": 812}

_FIGURE = re.compile(r'<script type="application/json" id="([^"]+)">(.*?)</script>', re.DOTALL)

CHARTS_READY = """() => [...document.querySelectorAll('div.chart[data-figure]')].every(
    el => el.getAttribute('data-rendered') === 'true' && el.querySelector('svg.main-svg'))"""
TABLES_READY = """() => [...document.querySelectorAll('table.sortable')].every(
    t => t.tHead.rows[0].cells[0].querySelector('button.sort'))"""


def pages_of_kind(root: Path, kind: str) -> list[Path]:
    """Every page of one kind in a built site, by its place in the URL layout."""
    return [path for path in sorted(root.rglob("index.html")) if page_kind(root, path) == kind]


def page_kind(root: Path, path: Path) -> str:
    parts = path.relative_to(root).parts
    if parts == ("index.html",):
        return "index"
    error = 'class="page-entry_error"' in path.read_text(encoding="utf-8")
    if error:
        return "entry-error"
    if parts[0] == "comparisons":
        if len(parts) > 5:  # tasks/<slug>/runs/<run>/[page-N/] and tasks/<slug>/pairs/<rep>/ (issue 14)
            return {"runs": "run", "pairs": "pair"}[parts[4]]
        return "comparison" if len(parts) == 3 else "task"
    if parts[0] == "ledgers":
        return "ledger" if len(parts) == 3 else "arm"
    if parts[0] == "leaderboards":
        if len(parts) == 3:
            return "leaderboard"
        return {"systems": "leaderboard-system", "pairs": "leaderboard-pair"}[parts[2]]
    if parts[0] == "reports" and len(parts) == 3:
        return "report"
    if parts[0] == "trends" and len(parts) == 4:
        return "trend"
    raise AssertionError(f"unknown page {path}")


def figures(path: Path) -> dict[str, dict[str, Any]]:
    """The Plotly figures embedded in a page, by chart element id (read from the HTML file)."""
    text = path.read_text(encoding="utf-8")
    out = {}
    for script_id, body in _FIGURE.findall(text):
        assert script_id.endswith("-data"), script_id
        out[script_id[: -len("-data")]] = json.loads(body)
    return out


def defined_points(trace: dict[str, Any]) -> list[int]:
    """Indexes of a scatter trace's points that Plotly draws (x and y both defined)."""
    xs, ys = trace.get("x") or [], trace.get("y") or []
    return [i for i, (x, y) in enumerate(zip(xs, ys, strict=False)) if x is not None and y is not None]


def plotly_text(value: str) -> str:
    """What Plotly shows for a label: entities decoded, <br> as a line break (dropped here)."""
    return html.unescape(re.sub(r"<br\s*/?>", "", value))


_TOKEN = re.compile(r"%\{([^}:]+)(?::([^}]*))?\}")


def expected_hover(trace: dict[str, Any], index: int) -> str:
    """The tooltip text of point *index*, from the trace's hovertemplate (textContent, no line breaks)."""
    template = trace.get("hovertemplate")
    assert template, f"trace {trace.get('name')!r} has no hovertemplate"
    template = re.sub(r"<extra>.*?</extra>", "", template)

    def value(match: re.Match[str]) -> str:
        name, fmt = match.group(1), match.group(2)
        if name == "fullData.name":
            raw = trace.get("name", "")
        elif name in ("x", "y", "text"):
            raw = trace[name][index] if isinstance(trace.get(name), list) else trace.get(name)
        else:
            raise AssertionError(f"hovertemplate token %{{{name}}} is not supported by the test")
        if fmt:
            assert re.fullmatch(r"\.\d+f", fmt), f"format {fmt!r} is not supported by the test"
            return format(float(raw), fmt)
        return str(raw)

    return plotly_text(_TOKEN.sub(value, template))


@dataclass
class Visit:
    """One opened page and everything the browser reported while it was open."""

    page: Any
    path: Path
    root: Path
    console: list[tuple[str, str]] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    not_ready: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.path.relative_to(self.root).as_posix()

    def problems(self) -> list[str]:
        """Console errors and warnings, page errors, failed requests, requests outside the site, dialogs."""
        site = self.root.resolve().as_uri() + "/"
        out = [
            f"{self.name}: console {kind}: {text}"
            for kind, text in self.console
            if kind in ("error", "warning", "assert")
        ]
        out += [f"{self.name}: page error: {text}" for text in self.page_errors]
        out += [f"{self.name}: request failed: {url}" for url in self.failed]
        out += [f"{self.name}: request outside the site: {url}" for url in self.requests if not url.startswith(site)]
        out += [f"{self.name}: dialog opened: {text}" for text in self.dialogs]
        out += [f"{self.name}: {text}" for text in self.not_ready]
        return out

    def close(self) -> None:
        if not self.page.is_closed():
            self.page.close()


def open_page(context: Any, path: Path, root: Path, *, viewport: dict[str, int] | None = None) -> Visit:
    """Open *path* from file://, wait until scripts ran and every chart rendered."""
    page = context.new_page()
    visit = Visit(page, path, root)
    if viewport:
        page.set_viewport_size(viewport)
    page.on("console", lambda m: visit.console.append((m.type, m.text)))
    page.on("pageerror", lambda e: visit.page_errors.append(str(e)))
    page.on("requestfailed", lambda r: visit.failed.append(f"{r.url} ({r.failure})"))
    page.on("request", lambda r: visit.requests.append(r.url))

    def on_dialog(dialog: Any) -> None:
        visit.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.goto(path.resolve().as_uri(), wait_until="load")
    visit.not_ready += wait_ready(page, fail=False)
    return visit


def wait_ready(page: Any, *, fail: bool = True, timeout: int = 10_000) -> list[str]:
    """Wait until charts.js drew every chart and tables.js made the tables sortable.

    With ``fail=False`` a timeout is returned as a problem (the checks that
    follow then say what exactly is missing) instead of raised."""
    problems = []
    for condition, what in ((CHARTS_READY, "charts"), (TABLES_READY, "sortable tables")):
        try:
            page.wait_for_function(condition, timeout=timeout)
        except Exception as error:
            if fail:
                raise
            problems.append(f"{what} not ready after {timeout / 1000:g}s ({type(error).__name__})")
            timeout = 1_000
    return problems


# ---------------------------------------------------------------- charts

CHART_STATE = """(id) => {
  const el = document.getElementById(id);
  const traces = [...el.querySelectorAll('g.scatterlayer g.trace')];
  return {
    rendered: el.getAttribute('data-rendered'),
    svgs: el.querySelectorAll('svg.main-svg').length,
    traces: traces.length,
    points: traces.map(t => t.querySelectorAll('path.point').length),
    errorbars: traces.map(t => t.querySelectorAll('g.errorbar').length),
    heatmaps: el.querySelectorAll('g.heatmaplayer g.hm image').length,
    legend: [...el.querySelectorAll('g.legend text.legendtext')].map(t => t.textContent),
  };
}"""


def chart_problems(page: Any, path: Path) -> list[str]:
    """Every chart of the page rendered, with the traces and points of its embedded figure."""
    problems = []
    figs = figures(path)
    dom_ids = page.eval_on_selector_all("div.chart[data-figure]", "els => els.map(e => e.id)")
    if sorted(dom_ids) != sorted(figs):
        problems.append(f"chart elements {sorted(dom_ids)} != embedded figures {sorted(figs)}")
    for chart_id, fig in figs.items():
        state = page.evaluate(CHART_STATE, chart_id)
        every = fig.get("data", [])
        traces = [t for t in every if t.get("type", "scatter") == "scatter"]
        heatmaps = [t for t in every if t.get("type") == "heatmap"]
        # a trace drawn as lines only has no point markers
        want_points = [len(defined_points(t)) if "markers" in t.get("mode", "markers") else 0 for t in traces]
        if state["rendered"] != "true" or state["svgs"] < 1:
            problems.append(f"{chart_id}: not rendered ({state})")
            continue
        if state["traces"] != len(traces):
            problems.append(f"{chart_id}: {state['traces']} traces drawn, figure has {len(traces)}")
        if state["heatmaps"] != len(heatmaps):
            problems.append(f"{chart_id}: {state['heatmaps']} heatmaps drawn, figure has {len(heatmaps)}")
        if state["points"] != want_points:
            problems.append(f"{chart_id}: points drawn {state['points']}, figure has {want_points}")
        if not sum(want_points) and not heatmaps:
            problems.append(f"{chart_id}: the figure has no points at all")
        # horizontal (forest plots) or vertical (cost or duration against pass@1) intervals
        want_bars = [len(defined_points(t)) if t.get("error_x") or t.get("error_y") else 0 for t in traces]
        if state["errorbars"] != want_bars:
            problems.append(f"{chart_id}: error bars drawn {state['errorbars']}, figure has {want_bars}")
        if fig.get("layout", {}).get("showlegend", len(traces) > 1):
            # charts.js may wrap long names on a phone (a line break replaces a space)
            want_legend = ["".join(plotly_text(t.get("name", "")).split()) for t in traces]
            if ["".join(text.split()) for text in state["legend"]] != want_legend:
                problems.append(f"{chart_id}: legend {state['legend']} != trace names {want_legend}")
    return problems


POINT_BOXES = """(id) => [...document.getElementById(id).querySelectorAll('g.scatterlayer g.trace')].map(
  t => [...t.querySelectorAll('path.point')].map(p => { const r = p.getBoundingClientRect();
    return [r.left + r.width / 2, r.top + r.height / 2]; }))"""


def hover_problems(page: Any, path: Path, *, per_chart: int = 2) -> list[str]:
    """Hover isolated points of every chart; the tooltip must show that point's text."""
    problems = []
    for chart_id, fig in figures(path).items():
        traces = fig["data"]
        chart = page.locator(f"#{chart_id}")
        chart.scroll_into_view_if_needed()
        centres = page.evaluate(POINT_BOXES, chart_id)
        everything = [(t, k, xy) for t, pts in enumerate(centres) for k, xy in enumerate(pts)]
        isolated = [
            (t, k, xy)
            for t, k, xy in everything
            if all(abs(xy[0] - o[0]) + abs(xy[1] - o[1]) >= 16 for t2, k2, o in everything if (t2, k2) != (t, k))
        ]
        if not isolated:
            problems.append(f"{chart_id}: no point is far enough from the others to hover")
            continue
        picks = [isolated[0]] + ([isolated[-1]] if per_chart > 1 and len(isolated) > 1 else [])
        for t, k, (x, y) in picks:
            index = defined_points(traces[t])[k]
            want = expected_hover(traces[t], index)
            page.mouse.move(1, 1)
            page.mouse.move(x, y, steps=2)
            try:
                page.wait_for_selector(f"#{chart_id} .hoverlayer .hovertext", timeout=3_000)
            except Exception:  # noqa: BLE001 - reported as a problem below
                problems.append(f"{chart_id}: no tooltip when hovering trace {t} point {index}")
                continue
            got = page.eval_on_selector_all(f"#{chart_id} .hoverlayer .hovertext", "els => els.map(e => e.textContent)")
            if got != [want]:
                problems.append(f"{chart_id}: tooltip of trace {t} point {index} is {got}, expected [{want!r}]")
        page.mouse.move(1, 1)
    return problems


# ---------------------------------------------------------------- tables

ROW_KEYS = """(id) => { const t = document.getElementById(id);
  return [...t.tBodies[0].rows].filter(r => !r.classList.contains('empty')).map((r, i) => {
    if (!r.dataset.testRow) { r.dataset.testRow = String(i); }
    return {row: Number(r.dataset.testRow), hidden: r.hidden || r.offsetParent === null,
            text: r.textContent,
            keys: [...r.cells].map(c => c.hasAttribute('data-sort') ? c.getAttribute('data-sort') : c.textContent.trim())};
  }); }"""

_NUMBER = re.compile(r"-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")


def numeric_key(key: str) -> float | None:
    """tables.js sorts numerically when both keys are numbers; '' (undefined) sorts first."""
    if key == "":
        return float("-inf")
    return float(key) if _NUMBER.fullmatch(key.strip()) else None


def rows(page: Any, table_id: str) -> list[dict[str, Any]]:
    return page.evaluate(ROW_KEYS, table_id)


def expected_order(keys: list[float], ascending: bool) -> list[int]:
    """Stable order (ties keep their current order in both directions), as tables.js promises."""
    positions = range(len(keys))
    return sorted(positions, key=lambda i: (keys[i] if ascending else -keys[i], i))


# ---------------------------------------------------------------- layout

CHART_TEXTS = """(id) => {
  const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const el = document.getElementById(id);
  const svg = el.querySelector('svg.main-svg');
  if (!svg) { return null; }  // not drawn: chart_problems says so
  const texts = [...el.querySelectorAll('svg.main-svg text')]
    .filter(t => t.textContent.trim() && !t.closest('.hoverlayer'))
    .map(t => ({text: t.textContent, box: box(t)}))
    .filter(t => t.box[2] > t.box[0] && t.box[3] > t.box[1]);
  return {svg: box(svg), texts: texts};
}"""


def _overlap(a: list[float], b: list[float], slack: float = 1.5) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > slack and min(a[3], b[3]) - max(a[1], b[1]) > slack


def chart_layout_problems(page: Any, path: Path) -> list[str]:
    """Every label of every chart lies inside the chart and no two labels overprint."""
    problems = []
    for chart_id in figures(path):
        state = page.evaluate(CHART_TEXTS, chart_id)
        if state is None:
            continue
        frame, texts = state["svg"], state["texts"]
        for t in texts:
            b = t["box"]
            if b[0] < frame[0] - 1 or b[2] > frame[2] + 1 or b[1] < frame[1] - 1 or b[3] > frame[3] + 1:
                problems.append(f"{chart_id}: label {t['text']!r} is cut off at the chart's edge ({b} outside {frame})")
        for i, a in enumerate(texts):
            for b in texts[i + 1 :]:
                if _overlap(a["box"], b["box"]):
                    problems.append(f"{chart_id}: labels {a['text']!r} and {b['text']!r} overprint")
    return problems


PAGE_OVERFLOW = """() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  const scrollers = el => el.closest('.table-wrap, pre, .chart');
  for (const el of document.body.querySelectorAll('*')) {
    if (scrollers(el) && !el.matches('.table-wrap, pre, .chart')) { continue; }
    if (el.closest('.skip-link, #js-plotly-tester')) { continue; }  // off-screen on purpose
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) { continue; }
    if (r.right > width + 0.5 || r.left < -0.5) {
      out.push(`<${el.tagName.toLowerCase()} class="${el.className}"> spans ${Math.round(r.left)}..${Math.round(r.right)}: ` +
               el.textContent.trim().slice(0, 60));
    }
  }
  // text that overflows its (narrow enough) box, e.g. a long word that does not wrap
  const range = document.createRange();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    if (!node.textContent.trim() || node.parentElement.closest('.table-wrap, pre, .chart, .skip-link, #js-plotly-tester')) { continue; }
    range.selectNodeContents(node);
    const r = range.getBoundingClientRect();
    if (r.right > width + 0.5) {
      out.push(`text in <${node.parentElement.tagName.toLowerCase()}> ends at ${Math.round(r.right)}: ${node.textContent.trim().slice(0, 60)}`);
    }
  }
  return {scrollWidth: document.documentElement.scrollWidth, bodyScrollWidth: document.body.scrollWidth,
          width: width, outside: out.slice(0, 12)};
}"""

SMALL_TEXT = """(minimum) => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    if (!node.textContent.trim()) { continue; }
    const el = node.parentElement;
    if (el.closest('svg, .skip-link')) { continue; }
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.visibility === 'hidden') { continue; }
    const size = parseFloat(style.fontSize);
    if (size < minimum) { out.push(`${size}px: ${node.textContent.trim().slice(0, 40)}`); }
  }
  return out.slice(0, 12);
}"""


def mobile_problems(page: Any) -> list[str]:
    """On a narrow viewport: no horizontal page scroll, nothing sticks out (tables,
    code blocks and charts may scroll or fit inside their own box), text ≥ 12 px."""
    state = page.evaluate(PAGE_OVERFLOW)
    problems = []
    if state["scrollWidth"] > state["width"] or state["bodyScrollWidth"] > state["width"]:
        problems.append(f"the page scrolls sideways: {state['scrollWidth']}px wide in a {state['width']}px viewport")
    problems += [f"sticks out of the viewport: {item}" for item in state["outside"]]
    problems += [f"text smaller than 12px: {item}" for item in page.evaluate(SMALL_TEXT, 12)]
    return problems
