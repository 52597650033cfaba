"""Page models of a leaderboard: the board, one page per system, one light page per pair.

Plain frozen data like :mod:`generator.pages.models` (whose blocks they reuse);
the leaderboard renderer (``generator.render.leaderboard.html``) lays them out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from generator.pages.models import Headline, Link, Notice, PageMeta, Table

__all__ = [
    "HeatmapChart",
    "LeaderboardBundle",
    "LeaderboardPage",
    "PairPage",
    "ScatterChart",
    "SystemPage",
]


@dataclass(frozen=True, slots=True)
class HeatmapChart:
    """Pairwise paired differences; ``links[i][j]`` is the pair page of row i and column j (or "")."""

    id: str
    title: str
    caption: str
    labels: tuple[str, ...]
    values: tuple[tuple[float | None, ...], ...]  # row minus column, percentage points
    hover: tuple[tuple[str, ...], ...]
    links: tuple[tuple[str, ...], ...]
    kind: ClassVar[str] = "heatmap"


@dataclass(frozen=True, slots=True)
class ScatterChart:
    """One point per system; ``frontier`` labels are joined by a line (the Pareto frontier)."""

    id: str
    title: str
    caption: str
    x_title: str
    labels: tuple[str, ...]
    x: tuple[float, ...]
    y: tuple[float, ...]
    frontier: tuple[str, ...]
    kind: ClassVar[str] = "scatter"


@dataclass(frozen=True, slots=True)
class LeaderboardPage:
    meta: PageMeta
    leaderboard_id: str
    facts: tuple[tuple[str, str], ...]
    ranking_table: Table
    tier_rule: str
    tiers: tuple[tuple[str, str], ...]  # ("Tier 1", "a, b")
    baseline_table: Table | None
    verdicts: tuple[Notice, ...]
    matrix_table: Table
    matrix_chart: HeatmapChart
    frontier_chart: ScatterChart | None
    frontier_note: str
    coverage_table: Table
    issues_table: Table
    template: ClassVar[str] = "leaderboard.html"


@dataclass(frozen=True, slots=True)
class SystemPage:
    meta: PageMeta
    facts: tuple[tuple[str, str], ...]
    tasks_table: Table
    runs_table: Table
    issues_table: Table
    skipped_table: Table
    template: ClassVar[str] = "leaderboard_system.html"


@dataclass(frozen=True, slots=True)
class PairPage:
    meta: PageMeta
    facts: tuple[tuple[str, str], ...]
    systems: tuple[Link, Link]
    verdict: str
    tasks_table: Table
    issues_table: Table
    template: ClassVar[str] = "leaderboard_pair.html"


@dataclass(frozen=True, slots=True)
class LeaderboardBundle:
    page: LeaderboardPage | SystemPage | PairPage
    data: object  # the page's data.json; None: the page links the leaderboard's instead (a system page)
    extras: tuple[tuple[str, object], ...] = ()


@dataclass(frozen=True, slots=True)
class LeaderboardPages:
    headline: Headline
    bundles: tuple[LeaderboardBundle, ...]
    comparison_links: Mapping[str, tuple[Link, ...]] = field(default_factory=dict)  # comparison id -> links here
