"""What a leaderboard ranks by, as its pages show it: task-macro pass@1, or (``metric: mean``, issue 29)
the task-macro mean score with pass@1 beside it, not deciding.

Select and format only.  A mean score is shown as a number in [0, 1] with three decimals (as on a
comparison page), its differences in points (x 100, like pass@1's percentage points).  A pass@k
board's cells and words are exactly those it had before mean boards existed.
"""

from __future__ import annotations

from collections.abc import Callable

from generator.model.leaderboard import LeaderboardResult, SystemResult, SystemRun
from generator.model.stats import Interval, MacroSummary
from generator.pages import format as fmt
from generator.pages.leaderboard.common import _pct, _pct_interval
from generator.pages.models import Cell, Column
from generator.pages.names import phrase

__all__ = [
    "NOT_DECIDING",
    "pair_columns",
    "pair_values",
    "ranked_cell",
    "ranked_cells",
    "ranked_columns",
    "ranked_interval",
    "ranked_text",
    "run_columns",
    "score_cell",
    "score_interval",
    "system_facts",
    "task_cells",
    "task_columns",
]

NOT_DECIDING = "not deciding: the board ranks by the task-macro mean score (metric mean)"


def score_text(value: float | None) -> str:
    return fmt.NA if value is None else fmt.fixed(value, 3)


def score_cell(value: float | None) -> Cell:
    return fmt.num_cell(value, score_text(value))


def score_interval(iv: Interval) -> str:
    if iv.lower is None or iv.upper is None:
        return fmt.NA
    return f"[{iv.lower:.3f}, {iv.upper:.3f}]"


def ranked_text(result: LeaderboardResult, s: SystemResult) -> str:
    """The system's ranked value as text: a mean score (0.912) or a pass@1 (91.2%)."""
    return score_text(s.ranked_value) if result.metric == "mean" else fmt.pct(s.ranked_value)


def ranked_cell(result: LeaderboardResult, s: SystemResult) -> Cell:
    return score_cell(s.ranked_value) if result.metric == "mean" else _pct(s.ranked_value)


def ranked_interval(result: LeaderboardResult, iv: Interval) -> str:
    return score_interval(iv) if result.metric == "mean" else _pct_interval(iv)


def ranked_columns(result: LeaderboardResult) -> list[Column]:
    """The ranking's columns of the metric that ranks (and pass@1 beside a mean score)."""
    if result.metric != "mean":
        return [Column("pass@1", True), Column("95% interval (t, over tasks)")]
    return [
        Column("Mean score", True, "task-macro mean score in [0, 1]: the mean over a task's runs, then over tasks"),
        Column("95% interval (t, over tasks)"),
        Column("Betting interval", help="Waudby-Smith-Ramdas: valid at any task count"),
        Column("pass@1", True, NOT_DECIDING),
    ]


def ranked_cells(result: LeaderboardResult, s: SystemResult, first: MacroSummary | None) -> list[Cell]:
    """One system's cells under :func:`ranked_columns`."""
    if s.mean is None:
        return [_pct(s.pass_at_1), Cell(_pct_interval(first.pass_at_k.interval) if first else fmt.NA)]
    return [
        score_cell(s.mean.estimate),
        Cell(score_interval(s.mean.interval)),
        Cell(score_interval(s.mean.betting)),
        _pct(s.pass_at_1),
    ]


def system_facts(s: SystemResult) -> tuple[tuple[str, str], ...]:
    """The system page's facts of the ranked metric."""
    if s.mean is None:
        return (("pass@1", fmt.pct(s.pass_at_1)),)
    return (
        ("Mean score", f"{score_text(s.mean.estimate)}, 95% interval {score_interval(s.mean.interval)} (t)"),
        ("pass@1 (not deciding)", fmt.pct(s.pass_at_1)),
    )


def task_columns(s: SystemResult) -> tuple[Column, ...]:
    """The system page's per-task columns after the task's pass@1 (a mean score on a mean board)."""
    return (Column("Mean score", True),) if s.mean is not None else ()


def task_cells(s: SystemResult, task: str) -> tuple[Cell, ...]:
    if s.mean is None:
        return ()
    return (score_cell(s.task_means.get(task)),)


def run_columns(s: SystemResult) -> list[tuple[Column, Callable[[SystemRun], Cell]]]:
    """The runs table's score column on a mean board (none on a pass@k board)."""
    if s.mean is None:
        return []
    return [(Column("Score", True, "the run's score in [0, 1] (aligned runs)"), lambda run: score_cell(run.score))]


def pair_columns(result: LeaderboardResult, a: str, b: str) -> tuple[Column, Column]:
    """The pair page's per-task columns of each system: its passes, or its mean score on the task."""
    if result.metric == "mean":
        return Column(phrase("{} mean score", a), True), Column(phrase("{} mean score", b), True)
    return Column(phrase("{} passes", a), True), Column(phrase("{} passes", b), True)


def pair_values(result: LeaderboardResult, n: int, x: float, y: float) -> tuple[Cell, Cell]:
    """The two systems' cells of a task row with ``n`` pairs and sums ``x`` and ``y``."""
    if result.metric == "mean":
        return score_cell(x / n), score_cell(y / n)
    return fmt.num_cell(x), fmt.num_cell(y)
