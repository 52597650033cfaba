#!/usr/bin/env python3
"""How fast do the site's pages become usable in a browser, and how big are they?

Builds a site (by default from the real data in ``../shared/realdata`` when it is present: the
SWE-Bench Pro comparison of its two leaderboard runs, 730 tasks x 1, and two Terminal-Bench 1.0
comparisons, 80 tasks x 5; otherwise the bundled example), then opens pages in headless Chromium
from ``file://`` and prints, measured in one run with the page kinds interleaved:

* the median time until a chart page's first screen is ready (loaded, and every chart that starts
  within the first 900 px drawn; charts.js draws the others as they come near the viewport or when
  the browser is idle), as a ratio to the median time until a page without charts has loaded
  (target <= 3x); and the same for the time until every chart of the page is drawn;
* for each comparison page: its height at 1280 px and 375 px as first shown, and its weight (HTML
  bytes plus the scripts it loads);
* the widest table relative to its box at 1280 px;
* every page budget for every page kind (``page_budgets.py``: HTML weight, height at 1280 and 375 px,
  tables that fit or scroll with a sticky first column, the first screen), on the real-data site with
  a Terminal-Bench leaderboard of its nine systems, a SWE-Bench Pro leaderboard of its four (system
  pages at 730 tasks) and a build history (so trend pages exist); the exit status is 1 when a kind
  is over a budget.  ``--product-root DIR`` builds with another checkout (the before figures).

Nothing from ``realdata`` is written anywhere but the temporary build folder.  Usage:

    python bench/bench_pages.py [--rounds 5] [--example] [--keep DIR] [--budgets-only] [--product-root DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from benchlib import remove  # noqa: E402
from page_budgets import measure, report  # noqa: E402

# ``EVALSITE_REALDATA`` names it from a checkout elsewhere (a git worktree)
REALDATA = Path(os.environ.get("EVALSITE_REALDATA", ROOT.parent / "shared" / "realdata"))
CHROMIUM = Path(os.environ.get("EVALSITE_CHROMIUM", "/usr/bin/chromium"))
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
CHARTS_READY = """() => [...document.querySelectorAll('div.chart[data-figure]')].every(
    el => el.getAttribute('data-rendered') === 'true' && el.querySelector('svg.main-svg'))"""
FIRST_SCREEN_READY = """() => [...document.querySelectorAll('div.chart[data-figure]')].every(
    el => el.getBoundingClientRect().top >= window.innerHeight
      || (el.getAttribute('data-rendered') === 'true' && el.querySelector('svg.main-svg')))"""


def _realdata_config(folder: Path) -> Path:
    swe = REALDATA / "swe-bench-pro" / "experiments"
    tb = REALDATA / "terminal-bench-1" / "experiments"

    def side(root: Path, name: str) -> str:
        return f"{{experiment: {root / name}, treatment: {name}}}"

    def systems(root: Path) -> list[str]:
        names = sorted(p.name for p in root.iterdir() if p.is_dir())
        return [f"      - {{label: {n}, experiment: {root / n}, treatment: {n}}}" for n in names]

    text = "\n".join(
        [
            "title: Real data (local benchmark only)",
            "output: site",
            # a history in the temporary folder: the build appends its entries, so trend pages exist
            f"history: {folder / 'history.jsonl'}",
            "comparisons:",
            "  - id: swe-pro",
            "    title: SWE-Bench Pro, Claude 4.5 Sonnet vs GPT-5",
            f"    candidate: {side(swe, 'claude45sonnet_1013')}",
            f"    baseline: {side(swe, 'gpt5_1013')}",
            "    ks: [1]",
            "  - id: tb-droid",
            "    title: Terminal-Bench 1.0, Droid Opus 4.1 vs Goose Opus 4",
            f"    candidate: {side(tb, 'droid_opus41')}",
            f"    baseline: {side(tb, 'goose_opus4')}",
            "    ks: [1, 2, 5]",
            "  - id: tb-chaterm",
            "    title: Terminal-Bench 1.0, Chaterm vs Orchestrator Qwen3 Coder",
            f"    candidate: {side(tb, 'chaterm_sonnet4')}",
            f"    baseline: {side(tb, 'orchestrator_qwen3coder')}",
            "    ks: [1, 5]",
            "leaderboards:",
            "  - id: tb-board",
            "    title: Terminal-Bench 1.0, nine systems",
            "    ks: [1, 5]",
            "    systems:",
            *systems(tb),
            # system pages at 730 tasks
            "  - id: swe-board",
            "    title: SWE-Bench Pro, four systems",
            "    systems:",
            *systems(swe),
            "",
        ]
    )
    path = folder / "site-config.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def build(folder: Path, example: bool, product: Path = ROOT) -> Path:
    if example or not REALDATA.is_dir():
        config = product / "site-config.yaml"
        out = folder / "site"
    else:
        config = _realdata_config(folder)
        out = folder / "site"
    env = {**os.environ, "CI": "true", "SOURCE_DATE_EPOCH": "1700000000", "PYTHONPATH": str(product)}
    command = [sys.executable, "-m", "generator", "build", "--config", str(config), "--out", str(out)]
    if example or not REALDATA.is_dir():  # a copy of the committed example history, never the file itself
        history = folder / "history.jsonl"
        shutil.copyfile(product / "examples" / "history" / "history.jsonl", history)
        command += ["--history", str(history)]
    subprocess.run(command, check=True, cwd=product, env=env, stdout=subprocess.DEVNULL)
    return out


def _weight(page: Path) -> int:
    """HTML bytes plus every script it loads, the Plotly bundle charts.js loads later included."""
    text = page.read_text(encoding="utf-8")
    total = len(text.encode("utf-8"))
    named = [part.split('"')[0] for marker in ('<script src="', 'data-plotly="') for part in text.split(marker)[1:]]
    for asset in sorted(set(named)):
        target = (page.parent / asset).resolve()
        if target.is_file():
            total += target.stat().st_size
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--example", action="store_true", help="measure the bundled example site instead")
    parser.add_argument("--keep", type=Path, help="build into this folder and keep it")
    parser.add_argument("--budgets-only", action="store_true", help="only the page budgets, no load timings")
    parser.add_argument(
        "--product-root", type=Path, default=ROOT, help="build with the evalsite of this checkout (a before figure)"
    )
    args = parser.parse_args()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("bench_pages: needs the 'browser' extra (playwright)", file=sys.stderr)
        return 2
    if not CHROMIUM.exists():
        print(f"bench_pages: no Chromium at {CHROMIUM}", file=sys.stderr)
        return 2
    folder = args.keep or Path(tempfile.mkdtemp(prefix="evalsite-bench-pages-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        started = time.perf_counter()
        site = build(folder, args.example, args.product_root.resolve())
        source = "the example" if args.example or not REALDATA.is_dir() else "realdata"
        print(f"site built in {time.perf_counter() - started:.1f}s from {source}")
        comparisons = sorted(site.glob("comparisons/*/index.html"))
        plain = site / "index.html"
        chart_times: list[float] = []
        first_times: list[float] = []
        plain_times: list[float] = []
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=LAUNCH_ARGS)
            over = report(measure(browser, site))
            if args.budgets_only:
                browser.close()
                return 1 if over else 0
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            for _ in range(args.rounds):
                for target, bucket in [(plain, plain_times)] + [(c, chart_times) for c in comparisons]:
                    t0 = time.perf_counter()
                    page.goto(target.as_uri(), wait_until="load")
                    if bucket is chart_times:
                        page.wait_for_function(FIRST_SCREEN_READY, timeout=120_000, polling="raf")
                        first_times.append(time.perf_counter() - t0)
                        page.wait_for_function(CHARTS_READY, timeout=120_000, polling="raf")
                    bucket.append(time.perf_counter() - t0)
            print(f"\n{'page':<40} {'height@1280':>12} {'height@375':>11} {'weight':>10} {'widest table/box':>17}")
            for target in comparisons:
                row = []
                for width, height in ((1280, 900), (375, 812)):
                    view = browser.new_page(viewport={"width": width, "height": height})
                    view.goto(target.as_uri(), wait_until="load")
                    view.wait_for_function(CHARTS_READY, timeout=120_000)
                    row.append(view.evaluate("() => document.documentElement.scrollHeight"))
                    if width == 1280:
                        widest = view.evaluate(
                            """() => Math.max(0, ...[...document.querySelectorAll('table')].map(
                                t => t.scrollWidth / Math.max(1, t.parentElement.clientWidth)))"""
                        )
                    view.close()
                name = target.parent.relative_to(site).as_posix()
                print(f"{name:<40} {row[0]:>10,}px {row[1]:>9,}px {_weight(target) / 1e6:>8.2f}MB {widest:>16.2f}x")
            browser.close()
        chart = statistics.median(chart_times)
        first = statistics.median(first_times)
        plain_median = statistics.median(plain_times)
        print(
            f"\nchart page first screen ready: median {first:.3f}s; every chart drawn: median {chart:.3f}s "
            f"(over {len(chart_times)} loads); page without charts: median {plain_median:.3f}s "
            f"over {len(plain_times)} loads"
        )
        print(f"ratio (chart page first screen / plain page): {first / plain_median:.2f}x (target <= 3x)")
        print(f"ratio (chart page, every chart drawn / plain page): {chart / plain_median:.2f}x")
    finally:
        if not args.keep:
            remove(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
