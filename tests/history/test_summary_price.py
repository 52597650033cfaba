"""The build summary's comparison row carries the price of the decision (issue 28, item 1)."""

from __future__ import annotations

from generator.model.history import SummaryItem
from generator.model.price import DERIVED, REPORTED, Price, PricedQuantity, SideLevel
from generator.model.stats import Interval
from generator.render.summary import render_summary

_NONE = Interval(None, None, None, 0.95, "task-clustered t interval over per-task mean paired differences")


def _item(subject: str, price: Price | None) -> SummaryItem:
    return SummaryItem(
        "comparison", subject, subject, f"comparisons/{subject}/index.html#verdict",
        f"comparisons/{subject}/index.html#issues", "candidate worse", -0.074, -0.12, -0.03, None, 0, None, None,
        price=price,
    )  # fmt: skip


def _quantity(key: str, kind: str, source: str, totals: tuple[float, float], runs: int) -> PricedQuantity:
    c, b = (SideLevel(source, runs, runs, total, runs // 3) for total in totals)
    return PricedQuantity(key, "Cost" if kind == "usd" else "Duration", kind, c, b, runs, runs, _NONE)


def _rows(text: str) -> dict[str, str]:
    return {line.split("]")[0]: line for line in text.splitlines() if line.startswith("| [")}


def test_cost_per_run_of_both_sides_with_the_relative_difference_and_its_source() -> None:
    cost = _quantity("total_cost_usd", "usd", REPORTED, (1320.7772, 8303.3755), 730)  # $1.81 and $11.37 a run
    duration = _quantity("duration_seconds", "seconds", DERIVED, (4100.0, 4090.0), 10)
    text = render_summary(
        [_item("swe", Price((cost, duration))), _item("tb", Price((duration,))), _item("none", Price())], None
    )
    assert "| cost per run, candidate vs baseline |" in text.splitlines()[3]
    rows = _rows(text)
    # "$" escaped: GitHub would read "$1.81 vs $" as the ends of inline math
    assert r"| \$1.81 vs \$11.37 (−84%, reported by the harness) |" in rows["| [`swe`"]
    assert "| duration 410s vs 409s (+0%, re-derived from raw stdout) |" in rows["| [`tb`"]
    assert "| −7.4 pp | [−12.0, −3.0] pp | — | 0 |" in rows["| [`none`"]
    assert all(line.count("|") == text.splitlines()[3].count("|") for line in rows.values())
