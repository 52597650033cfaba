"""The summary never says "not distinguishable" for a comparison that was not made (issue 25)."""

from __future__ import annotations

from generator.model.history import SummaryItem
from generator.render.summary import render_summary


def _item(subject: str, verdict: str | None) -> SummaryItem:
    return SummaryItem(
        "comparison", subject, subject, f"comparisons/{subject}/index.html#verdict",
        f"comparisons/{subject}/index.html#issues", verdict, None, None, None, None, 0, None, None,
    )  # fmt: skip


def test_no_verdict_is_said_with_its_reason() -> None:
    text = render_summary(
        [_item("one-task", "no verdict"), _item("no-pairs", None), _item("made", "not distinguishable")],
        "https://example.org/site",
    )
    rows = {line.split("]")[0]: line for line in text.splitlines() if line.startswith("| [")}
    assert "| no verdict: fewer than two tasks with matched pairs |" in rows["| [`one-task`"]
    assert "| no verdict: no matched pairs |" in rows["| [`no-pairs`"]
    assert "| not distinguishable |" in rows["| [`made`"]
    assert text.count("not distinguishable") == 1
