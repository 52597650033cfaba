"""A leaderboard's cost (or duration) per run: its ranking cells and the frontier chart against the ranked
metric (pass@1, or the mean score of a ``metric: mean`` board).

Each system's mean is re-derived from raw stdout where it has such values, else as the harness
reported it (``Telemetry.source``, issue 28): a reported mean is labelled "reported" in its cell, in
its point's hover and in the axis title when every point is reported.  Select and format only.
"""

from __future__ import annotations

from generator.model.leaderboard import LeaderboardResult, SystemResult, Telemetry
from generator.model.price import REPORTED
from generator.pages import format as fmt
from generator.pages.leaderboard.metric import ranked_interval, ranked_text
from generator.pages.models import Cell, ScatterChart, ScatterPoint
from generator.pages.names import phrase

__all__ = ["REPORTED_MARK", "frontier_chart", "reported_label", "telemetry_cell"]

REPORTED_MARK = "reported"  # beside a mean the harness reported


def telemetry_cell(telemetry: Telemetry, kind: str) -> Cell:
    """A system's mean cost or duration per run, "(reported)" after it when the harness reported it."""
    shown = fmt.by_kind(telemetry.mean, kind)
    if telemetry.mean is not None and telemetry.source == REPORTED:
        title = f"{REPORTED}: {telemetry.runs_with_value:,} of {telemetry.aligned_runs:,} aligned runs"
        return Cell(f"{shown} ({REPORTED_MARK})", fmt.sort_key(telemetry.mean), None, "num", title)
    return fmt.num_cell(telemetry.mean, shown)


def reported_label(name: str, telemetry: Telemetry) -> str:
    """A column of a system's per-run values, "(reported)" after its name when the harness reported them."""
    return f"{name} ({REPORTED_MARK})" if telemetry.source == REPORTED else name


def _of(system: SystemResult, cost: bool) -> Telemetry:
    return system.cost if cost else system.duration


def frontier_chart(r: LeaderboardResult) -> tuple[ScatterChart | None, str]:
    """The frontier chart and its note (why there is none, or which systems are on the frontier)."""
    if r.frontier_field is None:
        return None, "No cost or duration chart: fewer than two systems have a cost or a duration per run."
    cost = r.frontier_field == "total_cost_usd"
    points = []
    reported = 0
    for s in r.systems:
        telemetry = _of(s, cost)
        x = telemetry.mean
        ranked = s.ranked_estimate
        if x is None or ranked is None or ranked.estimate is None:
            continue
        iv = ranked.interval
        shown = fmt.by_kind(x, "usd") if cost else fmt.seconds(x)
        mark = f" ({REPORTED_MARK})" if telemetry.source == REPORTED else ""
        reported += bool(mark)
        value = f"{r.ranked_by} {ranked_text(r, s)} (95% {ranked_interval(r, iv)})"
        hover = f"{s.label}: {shown} per run{mark}, {value}"
        points.append(ScatterPoint(s.label, float(x), ranked.estimate, iv.lower, iv.upper, hover))
    axis = "Mean cost per run (USD" if cost else "Mean duration per run (seconds"
    axis += "; reported by the harness)" if points and reported == len(points) else ")"
    chart = ScatterChart(
        "frontier-chart",
        ("Cost" if cost else "Duration") + f" versus {r.ranked_by}",
        "Each system's mean over its aligned runs with a value (re-derived from raw stdout, else as the harness "
        "reported it: marked 'reported'), with its 95% interval over tasks; the dashed line joins the Pareto "
        "frontier (no other system is both cheaper and better).",
        axis,
        f"task-macro {r.ranked_by}",
        tuple(points),
        x_kind="usd" if cost else "seconds",
        y_unit="" if r.metric == "mean" else "pp",
        frontier=r.frontier,
    )
    return chart, phrase("Pareto frontier: " + ", ".join(["{}"] * len(r.frontier)) + ".", *r.frontier)
