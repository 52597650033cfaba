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


def test_unchanged_systems_are_counted_not_listed() -> None:
    """Issue 25: a leaderboard's trend cell listed 12 unchanged systems as "+0.0 within noise"."""
    from generator.model.history import BuildTrend, StepDifference, Trend

    same = tuple(StepDifference(f"system-{n}", 0.0, 0.0, 0.0, 12, "within noise") for n in range(12))
    drop = StepDifference("system-x", -0.4, -0.6, -0.2, 12, "regression")
    first = BuildTrend(1, "hist1:a", None, None, None, 0, (), ())
    second = BuildTrend(2, "hist1:b", None, None, None, 0, (), (*same, drop))
    trend = Trend("leaderboard", "lb", "Board", (first, second), ())
    item = SummaryItem(
        "leaderboard", "lb", "Board", "leaderboards/lb/index.html#tiers", "x", None, None, None, None,
        (("system-x",),), 0, trend, "trends/leaderboards/lb/index.html",
    )  # fmt: skip
    text = render_summary([item], None)
    assert "12 unchanged" in text and "system-0" not in text and "**regression**" in text


def test_a_tier_move_with_unchanged_results_says_why() -> None:
    from generator.model.history import BuildTrend, TierMove, Trend

    first = BuildTrend(1, "hist1:a", None, None, None, 0, (), ())
    moved = (TierMove("system-y", 1, 2, False), TierMove("system-z", 2, 1, True))
    second = BuildTrend(2, "hist1:b", None, None, None, 0, (), (), moved)
    trend = Trend("leaderboard", "lb", "Board", (first, second), ())
    item = SummaryItem(
        "leaderboard", "lb", "Board", "leaderboards/lb/index.html#tiers", "x", None, None, None, None,
        (("system-z",), ("system-y",)), 0, trend, "trends/leaderboards/lb/index.html",
    )  # fmt: skip
    text = render_summary([item], None)
    assert "moved with unchanged results: `system-y` tier 1 → 2" in text
    assert "`system-z` tier 2" not in text  # its own results changed: the move is its own
