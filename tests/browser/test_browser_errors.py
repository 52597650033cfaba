"""Errors that help, as a reader sees them in Chromium (issue 28, item 7): a comparison whose
treatment name is wrong becomes its error page, which names the treatments found and the likely
one, and the index marks the entry and opens that page."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.pipelines.build import build_site
from generator.read.config import load_config

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def error_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("errors")
    config = root / "site.yaml"
    config.write_text(
        "title: t\noutput: out\ncomparisons:\n  - id: wrong\n    title: A typo in a treatment\n"
        f"    candidate: {{experiment: {REPO}/examples/leaderboard/agent-a, treatment: LB_AGENT_X}}\n"
        f"    baseline: {{experiment: {REPO}/examples/leaderboard/agent-b, treatment: LB_AGENT_B}}\n"
    )
    report = build_site(load_config(config), root / "out")
    assert len(report.warnings) == 1  # a warning and a page, not a failed build (strict: true fails it)
    return root / "out"


def test_a_wrong_treatment_page_names_what_was_found(error_site: Path, visit) -> None:  # type: ignore[no-untyped-def]
    page = visit(error_site / "index.html", error_site).page
    link = page.locator('a[href="comparisons/wrong/index.html"]').first
    with page.expect_navigation():
        link.click()
    text = page.locator("main").inner_text()
    assert "no LB_AGENT_X reports found" in text
    assert "treatments found: LB_AGENT_A (did you mean 'LB_AGENT_A'?)" in text
    assert str(REPO) not in page.content()  # the folder is named, never its path
