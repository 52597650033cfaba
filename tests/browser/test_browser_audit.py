"""Honest audits, reported telemetry and provenance in the browser (issue 10, "data").

On the example site (report-bound manifests whose Data part hashes a missing path) and on the
synthetic real-scale site (tests/support/realscale.py: no manifests, no tasks folder, no raw
stdout, harness-reported telemetry and upstream provenance).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from generator.pages.urls import name_slug  # noqa: E402

pytestmark = pytest.mark.browser

CELLS = """(id) => [...document.querySelectorAll('#' + id + ' tbody tr')].map(
    tr => [...tr.querySelectorAll('td, th')].map(td => ({text: td.textContent.trim(), cls: td.className})))"""


def _table(page, table_id: str) -> list[list[dict[str, str]]]:
    return page.evaluate(CELLS, table_id)


def _task_page(root: Path, comparison: str, task: str) -> Path:
    return root / "comparisons" / comparison / "tasks" / name_slug(task) / "index.html"


def test_example_task_page_never_calls_a_missing_part_same(visit, example_site):
    result = visit(_task_page(example_site, "native-vs-beta", "api-retry-backoff"), example_site)
    rows = {row[0]["text"]: row for row in _table(result.page, "hashes-table")}
    data = rows["Data"][3]
    assert data["text"] == "not hashed (missing on both sides)"
    assert "same" not in data["cls"].split()
    assert rows["Task"][3]["text"] == "same" and "same" in rows["Task"][3]["cls"].split()
    assert not result.problems()


def test_realscale_task_page_shows_audit_states_reported_telemetry_and_provenance(visit, realscale_site):
    task = "build-task-00.v1"
    result = visit(_task_page(realscale_site, "deep", task), realscale_site)
    page = result.page
    hashes = {row[0]["text"]: row[3]["text"] for row in _table(page, "hashes-table")}
    for part in ("Task", "Instruction", "Environment", "Data", "Validator", "Prompt"):
        assert hashes[part] == "not hashed (missing on both sides)", part
    assert "same" not in {hashes[part] for part in ("Task", "Data", "Runner")}
    telemetry = _table(page, "telemetry-table")
    reported = [row for row in telemetry if row[2]["text"] == "reported by the harness"]
    assert len(reported) == 10  # 5 repetitions x 2 sides, each in a row of its own
    headers = page.evaluate("[...document.querySelectorAll('#telemetry-table thead th')].map(th => th.textContent)")
    duration = next(i for i, text in enumerate(headers) if "Wall duration" in text)
    agent = next(i for i, text in enumerate(headers) if "Agent duration" in text)
    assert all(row[duration]["text"] not in ("", "N/A") for row in reported)
    assert all(row[agent]["text"] not in ("", "N/A") for row in reported)
    derived = [row for row in telemetry if row[2]["text"] == "raw stdout"]
    assert all(row[duration]["text"] == "N/A" for row in derived)  # nothing was re-derived
    upstream = [row[-1]["text"] for row in _table(page, "runs-table")]
    assert any(f"trial: {task}.1-of-1.droid_deep_run_1" in text for text in upstream), upstream
    assert all(text.startswith("run: ") for text in upstream)
    assert not result.problems()


def test_realscale_comparison_labels_reported_rows_and_missing_task_files(visit, realscale_site):
    result = visit(realscale_site / "comparisons" / "wide" / "index.html", realscale_site)
    page = result.page
    notices = page.evaluate(
        "[...document.querySelectorAll('.notice, [role=note], .notices *')].map(n => n.textContent)"
    )
    assert any("task files were not available" in text for text in notices) or (
        "task files were not available" in page.content()
    )
    labels = [row[0]["text"] for row in _table(page, "efficiency-all-aligned")]
    assert any(label.startswith("Model cost — reported by the harness") for label in labels), labels
    assert any(label.startswith("Tool execution time — reported by the harness") for label in labels)
    caption = page.locator("#manifest-audit-table caption").text_content() or ""
    assert "not hashed (missing on both sides)" in caption
    assert not result.problems()
