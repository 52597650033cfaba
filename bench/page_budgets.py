"""The page budgets of issue 28, measured in headless Chromium on a built site, per page kind.

Budgets (``docs/performance.md``):

* no HTML page over 600 KB (the HTML file alone; scripts and Plotly are shared and cached);
* no page taller than 15,000 px at 1280 px wide or 25,000 px at 375 px (as first shown);
* at 1280 px no table wider than its box, except a deliberately wide data table that scrolls inside
  its box (``.table-wrap``, ``overflow-x: auto``) with a sticky first column (every ``<details>``
  opened for this check, so a collapsed table counts too);
* the first screen: a comparison's verdict facts end within the first screen (800 px at 1280 px,
  812 px at 375 px); a leaderboard's ranking starts within the first screen on a phone.

Every page's weight is counted; heights and tables are measured on every page of a kind with at
most ``SAMPLE`` pages, otherwise on its ``SAMPLE`` heaviest pages (the tallest in practice).
Used by ``bench_pages.py``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MAX_HTML = 600_000
MAX_HEIGHT = {1280: 15_000, 375: 25_000}
VIEWPORTS = ((1280, 800), (375, 812))
SAMPLE = 6

# (kind, pattern of the page's folder relative to the site)
KINDS: tuple[tuple[str, str], ...] = (
    ("index", r""),
    ("glossary", r"glossary"),
    ("comparison", r"comparisons/[^/]+"),
    ("comparison task", r"comparisons/[^/]+/tasks/[^/]+"),
    ("comparison run/pair", r"comparisons/[^/]+/(runs|pairs)/.+"),
    ("leaderboard", r"leaderboards/[^/]+"),
    ("leaderboard system", r"leaderboards/[^/]+/systems/[^/]+"),
    ("leaderboard pair", r"leaderboards/[^/]+/pairs/[^/]+"),
    ("ledger", r"ledgers/[^/]+"),
    ("ledger arm", r"ledgers/[^/]+/.+"),
    ("comparison trend", r"trends/comparisons/[^/]+"),
    ("leaderboard trend", r"trends/leaderboards/[^/]+"),
    ("report", r"reports/[^/]+"),
)

TABLES = """() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const main = document.querySelector('main') || document.body;
  const right = main.getBoundingClientRect().right;
  let overflow = 0, scrolling = 0, widest = 0, where = '';
  for (const t of document.querySelectorAll('main table')) {
    const box = t.parentElement;
    const ratio = t.scrollWidth / Math.max(1, box.clientWidth);
    if (ratio <= 1.01) continue;
    const style = getComputedStyle(box);
    const scrolls = ['auto', 'scroll'].includes(style.overflowX);
    const fits = box.getBoundingClientRect().right <= right + 1;
    const first = t.tBodies.length && t.tBodies[0].rows.length ? t.tBodies[0].rows[0].cells[0] : null;
    const sticky = first !== null && getComputedStyle(first).position === 'sticky';
    if (scrolls && fits && sticky) { scrolling += 1; widest = Math.max(widest, ratio); continue; }
    if (ratio > overflow) { overflow = ratio; where = t.id || (t.caption ? t.caption.textContent : '?'); }
  }
  return {overflow, scrolling, widest, where: where.slice(0, 40),
          page: document.documentElement.scrollWidth / window.innerWidth};
}"""

FIRST_SCREEN = """() => {
  const at = (sel, edge) => {
    const el = document.querySelector(sel);
    return el ? el.getBoundingClientRect()[edge] + window.scrollY : null;
  };
  const bottom = sel => at(sel, 'bottom'), top = sel => at(sel, 'top');
  return {verdict: bottom('#verdict .decision-facts') ?? bottom('#verdict'), ranking: top('#ranking-s')};
}"""


@dataclass
class KindResult:
    kind: str
    pages: int = 0
    heaviest: int = 0
    heaviest_page: str = ""
    measured: int = 0
    height: dict[int, int] = field(default_factory=lambda: {1280: 0, 375: 0})
    tallest: dict[int, str] = field(default_factory=lambda: {1280: "", 375: ""})
    overflow: float = 0.0  # the widest table / its box among tables that neither fit nor scroll properly
    overflow_where: str = ""
    scrolling: int = 0  # wide tables scrolling in their box with a sticky first column
    page_overflow: float = 0.0  # document width / viewport width at 375 px
    verdict: dict[int, float] = field(default_factory=dict)  # worst bottom of the verdict facts
    ranking: dict[int, float] = field(default_factory=dict)  # worst top of the ranking

    def failures(self) -> list[str]:
        out = []
        if self.heaviest > MAX_HTML:
            out.append(f"HTML {self.heaviest / 1000:,.0f} KB > 600 KB")
        for width, limit in MAX_HEIGHT.items():
            if self.height[width] > limit:
                out.append(f"{self.height[width]:,} px > {limit:,} px at {width}")
        if self.overflow > 1.01:
            out.append(f"table {self.overflow:.2f}x its box at 1280 ({self.overflow_where})")
        if self.page_overflow > 1.01:
            out.append(f"page {self.page_overflow:.2f}x wide at 375")
        for width, height in VIEWPORTS:
            if self.verdict.get(width, 0) > height:
                out.append(f"verdict facts end at {self.verdict[width]:,.0f} px at {width}")
        if self.ranking.get(375, 0) > VIEWPORTS[1][1]:
            out.append(f"ranking starts at {self.ranking[375]:,.0f} px at 375")
        return out


def kind_of(site: Path, page: Path) -> str | None:
    folder = page.parent.relative_to(site).as_posix()
    folder = "" if folder == "." else folder
    for kind, pattern in KINDS:
        if re.fullmatch(pattern, folder):
            return kind
    return None


def _sample(pages: list[Path]) -> list[Path]:
    if len(pages) <= SAMPLE:
        return pages
    return sorted(pages, key=lambda p: (-p.stat().st_size, p.as_posix()))[:SAMPLE]


def _wait_charts(view: Any) -> None:
    view.wait_for_function(
        """() => [...document.querySelectorAll('div.chart[data-figure]')].every(
            el => el.getBoundingClientRect().top >= window.innerHeight
              || el.getAttribute('data-rendered') === 'true')""",
        timeout=120_000,
    )


def _measure(browser: Any, site: Path, result: KindResult, page: Path) -> None:
    name = page.parent.relative_to(site).as_posix()
    for width, height in VIEWPORTS:
        view = browser.new_page(viewport={"width": width, "height": height})
        view.goto(page.as_uri(), wait_until="load")
        _wait_charts(view)
        tall = view.evaluate("() => document.documentElement.scrollHeight")
        if tall > result.height[width]:
            result.height[width], result.tallest[width] = tall, name
        first = view.evaluate(FIRST_SCREEN)
        if first["verdict"] is not None:
            result.verdict[width] = max(result.verdict.get(width, 0), first["verdict"])
        if first["ranking"] is not None:
            result.ranking[width] = max(result.ranking.get(width, 0), first["ranking"])
        tables = view.evaluate(TABLES)
        if width == 1280:
            result.scrolling += tables["scrolling"]
            if tables["overflow"] > result.overflow:
                result.overflow, result.overflow_where = tables["overflow"], f"{name}: {tables['where']}"
        else:
            result.page_overflow = max(result.page_overflow, tables["page"])
        view.close()
    result.measured += 1


def measure(browser: Any, site: Path) -> list[KindResult]:
    """Every page's weight; heights, tables and the first screen of each kind's sample."""
    groups: dict[str, list[Path]] = {}
    for page in sorted(site.rglob("*.html")):
        kind = kind_of(site, page)
        if kind is not None:
            groups.setdefault(kind, []).append(page)
    results = []
    for kind, _pattern in KINDS:
        pages = groups.get(kind, [])
        if not pages:
            continue
        result = KindResult(kind, pages=len(pages))
        for page in pages:
            size = page.stat().st_size
            if size > result.heaviest:
                result.heaviest, result.heaviest_page = size, page.parent.relative_to(site).as_posix()
        for page in _sample(pages):
            _measure(browser, site, result, page)
        results.append(result)
    return results


def report(results: Iterable[KindResult]) -> int:
    """Print one line per page kind and every budget missed; the number of kinds over a budget."""
    results = list(results)
    print(
        f"\n{'page kind':<20} {'pages':>5} {'max HTML':>9} {'meas.':>5} {'max h@1280':>11} {'max h@375':>10} "
        f"{'table/box':>9} {'scroll':>6} {'verdict@1280/375':>17} {'ranking@375':>11}"
    )
    for r in results:
        verdict = f"{r.verdict.get(1280, 0):,.0f}/{r.verdict.get(375, 0):,.0f}" if r.verdict else "-"
        ranking = f"{r.ranking[375]:,.0f}" if 375 in r.ranking else "-"
        print(
            f"{r.kind:<20} {r.pages:>5} {r.heaviest / 1000:>6,.0f} KB {r.measured:>5} {r.height[1280]:>9,}px "
            f"{r.height[375]:>8,}px {r.overflow:>8.2f}x {r.scrolling:>6} {verdict:>17} {ranking:>11}"
        )
    over = 0
    print(
        "\nbudgets (HTML <= 600 KB; height <= 15,000 px at 1280, <= 25,000 px at 375; tables fit or scroll "
        "with a sticky first column; verdict facts and phone ranking on the first screen):"
    )
    for r in results:
        failures = r.failures()
        if failures:
            over += 1
            print(f"  OVER  {r.kind}: " + "; ".join(failures))
            print(f"        heaviest {r.heaviest_page}; tallest {r.tallest[1280]} / {r.tallest[375]}")
        else:
            print(f"  ok    {r.kind}")
    return over
