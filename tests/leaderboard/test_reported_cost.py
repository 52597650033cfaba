"""A leaderboard uses the harness-reported cost and duration, labelled, when nothing is re-derived
(issue 28, item 1): the ranking, the system's runs, the Markdown report and the cost frontier."""

from __future__ import annotations

from pathlib import Path

from lbkit import write_system

from generator.model.leaderboard import LeaderboardInputs, SystemSpec
from generator.model.price import REPORTED
from generator.pages.leaderboard.page import build_leaderboard_pages
from generator.pages.models import SiteInfo
from generator.pipelines.leaderboard import compute_leaderboard, render_leaderboard

TASKS = [f"t{i}" for i in range(4)]


def _board(root: Path):
    def alpha(task: str, rep: int) -> dict[str, float] | None:  # $1 and 10 s a run; t0 r1 reports nothing
        return None if (task, rep) == ("t0", 1) else {"cost_usd": 1.0, "duration_s": 10.0}

    def beta(task: str, rep: int) -> dict[str, float]:  # $2 on rep 1, $4 on rep 2: $3 a run
        return {"cost_usd": 2.0 * rep, "duration_s": 20.0}

    write_system(root / "alpha", "alpha", {t: [True, True] for t in TASKS}, alpha)
    write_system(root / "beta", "beta", {t: [True, False] for t in TASKS}, beta)
    write_system(root / "gamma", "gamma", {t: [True, t != "t0"] for t in TASKS})  # no telemetry at all
    specs = tuple(SystemSpec(label, root / label, label) for label in ("alpha", "beta", "gamma"))
    result = compute_leaderboard(LeaderboardInputs(specs, None, None, (1,)))
    return result, render_leaderboard(result)


def test_reported_means_are_used_and_labelled(tmp_path: Path) -> None:
    result, output = _board(tmp_path)
    systems = {s.label: s for s in result.systems}
    alpha, beta, gamma = systems["alpha"], systems["beta"], systems["gamma"]
    assert (alpha.cost.mean, alpha.cost.runs_with_value, alpha.cost.aligned_runs) == (1.0, 7, 8)
    assert (alpha.cost.source, alpha.duration.mean, beta.cost.mean) == (REPORTED, 10.0, 3.0)
    assert (gamma.cost.mean, gamma.cost.source, gamma.duration.mean) == (None, None, None)
    assert [r.cost_usd for r in beta.runs] == [2.0, 4.0] * 4  # each run's reported value
    assert result.frontier_field == "total_cost_usd" and result.frontier == ("alpha",)  # cheaper and better
    document = {s["label"]: s for s in output.document["systems"]}
    assert document["alpha"]["cost_usd"] == {"mean": 1.0, "runs_with_value": 7, "aligned_runs": 8, "source": REPORTED}
    assert "$1.000 (reported)" in output.markdown

    pages = build_leaderboard_pages("lb", "Board", result, output.document, output.markdown, (), SiteInfo("t"))
    board = pages.board.page
    table = board.ranking_table  # type: ignore[attr-defined]
    at = [c.label for c in table.columns].index("Mean cost")
    cells = {row.cells[3].text: row.cells[at] for row in table.rows}
    assert cells["alpha"].text == "$1.000 (reported)" and cells["alpha"].sort == "1.0"
    assert "7 of 8 aligned runs" in str(cells["alpha"].title)
    assert cells["gamma"].text == "N/A"
    chart = board.frontier_chart  # type: ignore[attr-defined]
    assert chart is not None and chart.x_title == "Mean cost per run (USD; reported by the harness)"
    assert {p.group for p in chart.points} == {"alpha", "beta"}
    assert all("(reported)" in p.hover for p in chart.points)
    system_page = next(job.bundle().page for job in pages.jobs if "/systems/alpha-" in job.url)
    runs = system_page.runs_table  # type: ignore[attr-defined]
    assert "Cost (reported)" in [c.label for c in runs.columns]
