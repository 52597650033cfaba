"""Accessibility (axe-core in the page) and the narrow phone viewport, for every
page kind of the example site and of the hostile site (which also has the
entry-error pages).  Writes a phone screenshot per page kind and the full axe
results (all impacts) to test-artifacts/."""

from __future__ import annotations

import json
from pathlib import Path

import browsing
import pytest
from test_browser_pages import representative

pytestmark = pytest.mark.browser

AXE_OPTIONS = {
    "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]},
    "resultTypes": ["violations"],
    # axe would fetch the stylesheets again with XHR, which file:// refuses
    # (a console error that is axe's, not the site's)
    "preload": False,
}
BLOCKING = ("serious", "critical")

CASES = [
    ("example", kind)
    for kind in (
        "index",
        "comparison",
        "task",
        "ledger",
        "arm",
        *browsing.LEADERBOARD_KINDS,
        *browsing.REPORT_KINDS,
        *browsing.HISTORY_KINDS,
    )
] + [("hostile", kind) for kind in ("index", "comparison", "task", "ledger", "arm", "entry-error")]


def _site(request, which: str) -> Path:
    return request.getfixturevalue("example_site" if which == "example" else "hostile_site")


def _pages(root: Path, which: str, kind: str) -> list[Path]:
    if which == "hostile" and kind == "entry-error":
        return browsing.pages_of_kind(root, kind)  # one comparison, one ledger with details
    return [representative(root, kind)]


@pytest.fixture(scope="session")
def axe():
    from axe_playwright_python.sync_playwright import Axe

    return Axe()


@pytest.mark.parametrize(("which", "kind"), CASES, ids=[f"{w}-{k}" for w, k in CASES])
def test_axe_finds_no_serious_or_critical_violation(which, kind, request, site_page, axe, screenshots):
    root = _site(request, which)
    report_dir = screenshots.parent / "axe"
    report_dir.mkdir(exist_ok=True)
    problems = []
    for path in _pages(root, which, kind):
        page = site_page(path, root)
        results = axe.run(page.page, options=AXE_OPTIONS).response
        violations = results["violations"]
        name = f"{which}-{kind}-{path.parent.name}"
        (report_dir / f"{name}.json").write_text(json.dumps(violations, indent=1, sort_keys=True), encoding="utf-8")
        for v in violations:
            if v["impact"] in BLOCKING:
                targets = "; ".join(", ".join(map(str, n["target"])) for n in v["nodes"][:5])
                problems.append(
                    f"{page.name}: {v['impact']} {v['id']}: {v['help']} ({len(v['nodes'])} nodes: {targets})"
                )
        problems += page.problems()
    assert not problems, "\n".join(problems)


def test_axe_can_fail(visit, axe, tmp_path):
    """The check is live: a page with an unlabeled input and no alt text is caught."""
    bad = tmp_path / "bad.html"
    bad.write_text('<!DOCTYPE html><html><body><input type="text"><img src="x.png"></body></html>', encoding="utf-8")
    page = visit(bad, tmp_path)
    impacts = {v["id"]: v["impact"] for v in axe.run(page.page, options=AXE_OPTIONS).response["violations"]}
    assert impacts.get("image-alt") in BLOCKING and impacts.get("label") in BLOCKING, impacts


@pytest.mark.parametrize(("which", "kind"), CASES, ids=[f"{w}-{k}" for w, k in CASES])
def test_phone_viewport_has_no_sideways_scroll_and_readable_charts(which, kind, request, visit, screenshots):
    root = _site(request, which)
    problems = []
    for number, path in enumerate(_pages(root, which, kind)):
        page = visit(path, root, viewport=browsing.MOBILE)
        problems += [f"{page.name}: {p}" for p in browsing.mobile_problems(page.page)]
        problems += [f"{page.name}: {p}" for p in browsing.chart_problems(page.page, path)]
        problems += [f"{page.name}: {p}" for p in browsing.chart_layout_problems(page.page, path)]
        problems += page.problems()
        suffix = f"-{number}" if number else ""
        page.page.screenshot(path=screenshots / f"{which}-{kind}{suffix}-mobile.png", full_page=True)
    assert not problems, "\n".join(problems)
