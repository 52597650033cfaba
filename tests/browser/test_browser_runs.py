"""Run and pair pages (issue 14) in Chromium: collapse/expand, in-page search, pagination, redaction
shown, no console errors, axe clean, and a phone viewport without sideways scroll."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import browsing
import pytest
from test_browser_a11y import AXE_OPTIONS, BLOCKING

from generator.pipelines.build import build_site
from generator.read.config import load_config

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]


def _largest(root: Path, kind: str) -> Path:
    pages = browsing.pages_of_kind(root, kind)
    assert pages, f"the site has no {kind} page"
    return max(pages, key=lambda p: (p.stat().st_size, p.as_posix()))


@pytest.fixture(scope="session")
def long_run_site(tmp_path_factory) -> Path:
    """The native-vs-beta example with one candidate transcript long enough to fill several pages."""
    root = tmp_path_factory.mktemp("long-run-inputs")
    for name in ("native", "beta"):
        shutil.copytree(REPO / "examples" / "experiments" / name, root / name)
    raw = sorted((root / "native" / "raw").glob("*_stdout.json"))[0]
    lines = raw.read_text(encoding="utf-8").splitlines()
    body = "\n".join(f"output line {i} of a long build log" for i in range(600))
    extra = []
    for n in range(120):
        call = {"type": "tool_use", "id": f"toolu_long{n}", "name": "Bash", "input": {"command": f"make step{n}"}}
        message = {"id": f"msg_long{n}", "model": "m", "content": [call]}
        extra.append(json.dumps({"type": "assistant", "message": message}))
        result = {"type": "tool_result", "tool_use_id": f"toolu_long{n}", "content": f"needle{n}\n{body}"}
        extra.append(json.dumps({"type": "user", "message": {"content": [result]}}))
    raw.write_text("\n".join(lines[:-1] + extra + lines[-1:]) + "\n", encoding="utf-8")
    config = root / "site-config.yaml"
    config.write_text(
        "title: long\noutput: _site\ncomparisons:\n  - id: nb\n    title: nb\n"
        "    candidate: {experiment: native, treatment: COMET_NATIVE_PHASE1}\n"
        "    baseline: {experiment: beta, treatment: COMET_FULL_040_BETA}\n",
        encoding="utf-8",
    )
    out = root / "_site"
    build_site(load_config(config), out)
    return out


def _axe_problems(page: browsing.Visit) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    violations = Axe().run(page.page, options=AXE_OPTIONS).response["violations"]
    return [f"{page.name}: {v['impact']} {v['id']}: {v['help']}" for v in violations if v["impact"] in BLOCKING]


def test_steps_collapse_and_expand(example_site, visit, screenshots):
    path = _largest(example_site, "run")
    page = visit(path, example_site)
    details = page.page.locator(".transcript details.step-body")
    count = details.count()
    assert count > 0
    opened = "() => [...document.querySelectorAll('.transcript details.step-body')].filter(d => d.open).length"
    assert page.page.evaluate(opened) == 0  # tool calls, results and thinking start collapsed
    page.page.click("#run-expand")
    assert page.page.evaluate(opened) == count
    page.page.click("#run-collapse")
    assert page.page.evaluate(opened) == 0
    details.first.locator("summary").click()
    assert page.page.evaluate(opened) == 1
    assert details.first.locator("pre.step-text").is_visible()
    page.page.screenshot(path=str(screenshots / "run-page.png"), full_page=False)
    assert not page.problems(), page.problems()


def test_search_filters_steps_and_opens_matches(example_site, visit):
    path = _largest(example_site, "run")
    page = visit(path, example_site)
    total = page.page.locator(".transcript > li.step").count()
    page.page.fill("#run-search", "overloaded")
    shown = page.page.locator(".transcript > li.step:not([hidden])")
    assert 0 < shown.count() < total
    assert "matching step" in page.page.inner_text("#run-search-count")
    for index in range(shown.count()):
        assert "overloaded" in shown.nth(index).inner_text().lower()
    page.page.fill("#run-search", "")
    assert page.page.locator(".transcript > li.step:not([hidden])").count() == total
    assert not page.problems(), page.problems()


def test_the_planted_token_shows_redacted(example_site, visit):
    pages = [p for p in browsing.pages_of_kind(example_site, "run") if "redacted:github-token" in p.read_text("utf-8")]
    assert pages
    page = visit(pages[0], example_site)
    page.page.click("#run-expand")
    text = page.page.inner_text("main")
    assert "[redacted:github-token sha256:" in text and "ghp_" not in text


def test_pagination_links_walk_every_page(long_run_site, visit):
    first = next(p for p in browsing.pages_of_kind(long_run_site, "run") if (p.parent / "page-2").is_dir())
    page = visit(first, long_run_site)
    seen = [first]
    for _ in range(20):
        following = page.page.locator('nav.run-pages a[rel="next"]')
        if following.count() == 0:
            break
        following.first.click()
        page.page.wait_for_load_state("load")
        seen.append(Path(page.page.url.removeprefix("file://")))
        assert page.page.locator('nav.run-pages a[rel="prev"]').count() == 1
    assert len(seen) >= 3 and all(p.stat().st_size <= 2 * 1024 * 1024 for p in seen)
    page.page.fill("#run-search", "needle119")
    assert page.page.locator(".transcript > li.step:not([hidden])").count() >= 1
    assert not page.problems(), page.problems()


@pytest.mark.parametrize("kind", browsing.RUN_KINDS)
def test_run_and_pair_pages_are_clean_and_accessible(kind, example_site, visit, screenshots):
    path = _largest(example_site, kind)
    page = visit(path, example_site)
    problems = page.problems() + _axe_problems(page)
    phone = visit(path, example_site, viewport=browsing.MOBILE)
    problems += [f"{phone.name}: {p}" for p in browsing.mobile_problems(phone.page)]
    phone.page.screenshot(path=str(screenshots / f"{kind}-phone.png"), full_page=False)
    assert not problems, "\n".join(problems)


def test_every_run_and_pair_page_loads_without_console_errors(example_site, context):
    problems = []
    for kind in browsing.RUN_KINDS:
        for path in browsing.pages_of_kind(example_site, kind)[:40]:
            page = browsing.open_page(context, path, example_site)
            problems += page.problems()
            page.close()
    assert not problems, "\n".join(problems)
