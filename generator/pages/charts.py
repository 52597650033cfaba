"""Chart specs: what a chart shows, decided and formatted; drawn by ``render/charts.py``'s ``figure_json``.

Re-exported by :mod:`generator.pages.models` (every page kind's building blocks are named there).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

__all__ = [
    "Band",
    "ChartSpec",
    "Dot",
    "DotChart",
    "ForestChart",
    "ForestRow",
    "HeatmapChart",
    "LineChart",
    "RefLine",
    "ScatterChart",
    "ScatterPoint",
    "Series",
]


@dataclass(frozen=True, slots=True)
class Series:
    name: str
    x: tuple[int | str, ...]
    y: tuple[float | None, ...]  # None = undefined: a gap, never a zero
    dash: str = "solid"  # solid | dash | dot


@dataclass(frozen=True, slots=True)
class LineChart:
    id: str
    title: str
    caption: str
    x_title: str
    y_title: str
    series: tuple[Series, ...]
    y_range: tuple[float, float] | None = None
    kind: ClassVar[str] = "line"


@dataclass(frozen=True, slots=True)
class ForestRow:
    label: str  # one y-axis category; unique within the chart
    group: str  # one legend entry (trace) per group
    estimate: float | None
    lower: float | None
    upper: float | None
    hover: str


@dataclass(frozen=True, slots=True)
class RefLine:
    x: float
    label: str


@dataclass(frozen=True, slots=True)
class Band:
    lower: float
    upper: float
    label: str


@dataclass(frozen=True, slots=True)
class ForestChart:
    id: str
    title: str
    caption: str
    x_title: str
    rows: tuple[ForestRow, ...]
    lines: tuple[RefLine, ...] = ()
    band: Band | None = None
    x_range: tuple[float, float] | None = None  # a fixed axis; None: fitted to the data (and zero)
    x_limits: tuple[float, float] | None = None  # a fitted axis never reaches past these (the possible values)
    x_unit: str = ""  # "pp": rates differences drawn in percentage points (values x 100, ticks "+5 pp")
    kind: ClassVar[str] = "forest"


@dataclass(frozen=True, slots=True)
class Dot:
    label: str  # one y-axis category; unique within the chart
    group: str  # one legend entry (trace) per group
    x: float
    hover: str


@dataclass(frozen=True, slots=True)
class DotChart:
    """One marker per category (for example the tasks that drive a difference), in the given order."""

    id: str
    title: str
    caption: str
    x_title: str
    dots: tuple[Dot, ...]
    x_limits: tuple[float, float] | None = None
    x_unit: str = ""  # as ForestChart.x_unit
    kind: ClassVar[str] = "dots"


@dataclass(frozen=True, slots=True)
class ScatterPoint:
    """One side's point: a cost (or duration) per run against its pass@1 with a vertical interval."""

    group: str  # one legend entry (trace) per point
    x: float
    y: float
    y_lower: float | None
    y_upper: float | None
    hover: str


@dataclass(frozen=True, slots=True)
class ScatterChart:
    """Points in two numeric dimensions (for example cost per run against pass@1)."""

    id: str
    title: str
    caption: str
    x_title: str
    y_title: str
    points: tuple[ScatterPoint, ...]
    x_kind: str = ""  # "usd" or "seconds": how x ticks read ($0.12, 40 s)
    y_unit: str = ""  # "pp": rates drawn as percentages (0-100)
    frontier: tuple[str, ...] = ()  # groups on the Pareto frontier, joined by a line (a leaderboard's)
    kind: ClassVar[str] = "scatter"


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
    marks: tuple[tuple[bool, ...], ...] = ()  # cells to star (pairs distinguishable after correction)
    kind: ClassVar[str] = "heatmap"


ChartSpec = LineChart | ForestChart | DotChart | ScatterChart | HeatmapChart
