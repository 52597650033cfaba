"""Chart specs (``generator.pages.models``) to Plotly figure JSON.

Rules (see the ecosystem notes, section 1):
- ``plotly.graph_objects`` only (plotly.express needs numpy), plain lists.
- ``template="none"`` plus a small explicit layout, so each figure is a few KB.
- ``plotly.io.to_json(..., engine="json")``: byte-identical across machines
  with or without orjson; it escapes ``<``, ``>`` and ``/`` so the text can
  sit inside ``<script type="application/json">``.  :func:`figure_json`
  escapes once more (idempotently) and checks, so safety does not depend on a
  plotly implementation detail.
- Labels are untrusted: Plotly interprets a subset of HTML in text (``<a>``,
  ``<b>``, ``<br>``), so every label is entity-escaped first and shows
  literally.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise
from typing import Any

import plotly.graph_objects as go  # type: ignore[import-untyped]
import plotly.io as pio  # type: ignore[import-untyped]
from markupsafe import Markup

from generator.pages.models import ChartSpec, DotChart, ForestChart, ForestRow, HeatmapChart, LineChart, ScatterChart
from generator.pages.names import visible

__all__ = ["build_figure", "figure_json", "fitted_range", "plot_text"]

_FONT = {"family": "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif", "size": 13, "color": "#1f2328"}
_GRID = "#d8dee4"
_COLORS = ("#0969da", "#bc4c00", "#1a7f37", "#8250df", "#cf222e", "#4d5a66", "#bf8700", "#1b7c83")
_MAX_LABEL = 48


def plot_text(value: str, limit: int = _MAX_LABEL) -> str:
    """Untrusted text made inert for Plotly's pseudo-HTML labels (invisible characters made visible)."""
    value = visible(" ".join(value.split()))
    if len(value) > limit:
        value = value[: limit - 1] + "…"
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _axis(title: str, **extra: Any) -> dict[str, Any]:
    return {
        "title": {"text": plot_text(title, 80)},
        "gridcolor": _GRID,
        "zerolinecolor": "#8c959f",
        "automargin": True,
        **extra,
    }


def _layout(height: int, **extra: Any) -> dict[str, Any]:
    """No Plotly title: the page's <figcaption> (above the chart) names it and wraps on phones.
    The legend sits at the bottom of the figure, below the x-axis title, not over it."""
    return {
        "template": "none",
        "font": _FONT,
        "height": height,
        "margin": {"l": 10, "r": 10, "t": 28, "b": 10},
        "paper_bgcolor": "#ffffff",
        "plot_bgcolor": "#ffffff",
        "legend": {
            "orientation": "h",
            "xref": "container",
            "x": 0,
            "xanchor": "left",
            "yref": "container",
            "y": 0,
            "yanchor": "bottom",
        },
        "hoverlabel": {"align": "left"},
        **extra,
    }


_SYMBOLS = ("circle", "diamond", "square", "triangle-up", "cross", "x", "star", "hexagon")


def _line_figure(spec: LineChart) -> go.Figure:
    # Series that share a value (pass@1 = pass^1 on both sides when k = 1) would print over each
    # other: each series has its own marker symbol (open for dashed series) and its own slot next
    # to the category (scattermode "group"), so four series at one k show as four markers.
    fig = go.Figure(layout=_layout(380, scattermode="group", scattergap=0.6))
    for index, series in enumerate(spec.series):
        symbol = _SYMBOLS[index % len(_SYMBOLS)] + ("-open" if series.dash != "solid" else "")
        fig.add_trace(
            go.Scatter(
                x=[str(x) for x in series.x],
                y=list(series.y),
                name=plot_text(series.name),
                mode="lines+markers",
                connectgaps=False,
                offsetgroup=str(index),
                marker={"symbol": symbol, "size": 9, "line": {"width": 2, "color": _COLORS[index % len(_COLORS)]}},
                line={"color": _COLORS[index % len(_COLORS)], "dash": series.dash},
                hovertemplate="%{fullData.name}<br>k=%{x}: %{y:.3f}<extra></extra>",
            )
        )
    fig.update_xaxes(_axis(spec.x_title, type="category"))
    fig.update_yaxes(_axis(spec.y_title, range=list(spec.y_range) if spec.y_range else None))
    return fig


def _label_anchors(xs: list[float], x_range: tuple[float, float] | None) -> list[str]:
    """xanchor for each reference line's label: inwards near an end of the axis (not cut
    off), and apart when two lines are close (the labels do not overprint each other)."""
    anchors = ["center"] * len(xs)
    if not x_range or x_range[1] <= x_range[0]:
        return anchors
    low, span = x_range[0], x_range[1] - x_range[0]
    where = [(x - low) / span for x in xs]
    for i, w in enumerate(where):
        anchors[i] = "right" if w > 0.8 else "left" if w < 0.2 else "center"
    order = sorted(range(len(xs)), key=lambda i: where[i])
    for a, b in pairwise(order):
        if where[b] - where[a] < 0.15:
            anchors[a], anchors[b] = "right", "left"
    return anchors


def _bounds(row: ForestRow) -> tuple[float, float]:
    """The interval of a row that is plotted (rows without both bounds are left out before)."""
    if row.lower is None or row.upper is None:
        raise ValueError("a forest row without both bounds cannot be plotted")
    return row.lower, row.upper


def fitted_range(values: list[float], limits: tuple[float, float] | None) -> tuple[float, float]:
    """An axis that holds every value and zero with a margin, never reaching past *limits*.

    A ±0.035 interval on a [-1, 1] axis is a dash; fitted, it fills the plot and stays readable.
    Zero is always inside, so the reader sees on which side of "no difference" each interval lies.
    """
    low, high = min([0.0, *values]), max([0.0, *values])
    span = max(high - low, 0.02)
    pad = 0.08 * span
    low, high = low - pad, high + pad
    if limits is not None:
        margin = 0.02 * (limits[1] - limits[0])
        low, high = max(low, limits[0] - margin), min(high, limits[1] + margin)
    return round(low, 6), round(high, 6)


def _unit_axis(unit: str) -> tuple[float, dict[str, Any]]:
    """(scale, axis settings) for a spec's x unit: "pp" draws rate differences in percentage points."""
    if unit == "pp":
        return 100.0, {"ticksuffix": " pp", "tickformat": "+.0f", "hoverformat": "+.1f"}
    return 1.0, {}


def _zero_axis(title: str, x_range: tuple[float, float], scale: float, extra: dict[str, Any]) -> dict[str, Any]:
    return _axis(
        title,
        range=[round(x_range[0] * scale, 6), round(x_range[1] * scale, 6)],
        zeroline=True,
        zerolinewidth=1.5,
        zerolinecolor="#57606a",
        **extra,
    )


def _forest_range(spec: ForestChart, rows: list[ForestRow]) -> tuple[float, float]:
    if spec.x_range is not None:
        return spec.x_range
    values = [x for row in rows for x in (*_bounds(row), row.estimate) if x is not None]
    values += [line.x for line in spec.lines]
    if spec.band is not None:
        values += [spec.band.lower, spec.band.upper]
    return fitted_range(values, spec.x_limits)


def _reference_marks(
    spec: ForestChart, x_range: tuple[float, float], sx: Callable[[float], float]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The shaded margin band and the dashed reference lines of a forest chart, each with its label."""
    shapes: list[dict[str, Any]] = []
    annotations: list[dict[str, Any]] = []
    label_xs = [line.x for line in spec.lines] + ([spec.band.upper] if spec.band is not None else [])
    anchors = _label_anchors(label_xs, x_range)
    if spec.band is not None:
        shapes.append(
            {
                "type": "rect",
                "xref": "x",
                "yref": "paper",
                "x0": sx(spec.band.lower),
                "x1": sx(spec.band.upper),
                "y0": 0,
                "y1": 1,
                "fillcolor": "rgba(26,127,55,0.12)",
                "line": {"width": 0},
                "layer": "below",
            }
        )
        annotations.append(
            {
                "x": sx(spec.band.upper),
                "y": 1,
                "xref": "x",
                "yref": "paper",
                "yanchor": "bottom",
                "xanchor": anchors[-1],
                "showarrow": False,
                "text": plot_text(spec.band.label, 60),
                "font": {"size": 11, "color": "#1a7f37"},
            }
        )
    for line, anchor in zip(spec.lines, anchors, strict=False):  # the band's anchor comes last
        shapes.append(
            {
                "type": "line",
                "xref": "x",
                "yref": "paper",
                "x0": sx(line.x),
                "x1": sx(line.x),
                "y0": 0,
                "y1": 1,
                "line": {"color": "#cf222e", "width": 1.5, "dash": "dash"},
            }
        )
        annotations.append(
            {
                "x": sx(line.x),
                "y": 1,
                "xref": "x",
                "yref": "paper",
                "yanchor": "bottom",
                "xanchor": anchor,
                "showarrow": False,
                "text": plot_text(line.label, 60),
                "font": {"size": 11, "color": "#cf222e"},
            }
        )
    return shapes, annotations


def _forest_figure(spec: ForestChart) -> go.Figure:
    rows = [row for row in spec.rows if row.lower is not None and row.upper is not None]
    categories = [plot_text(row.label) for row in rows]
    height = 140 + 30 * max(len(rows), 1)
    x_range = _forest_range(spec, rows)
    scale, unit_axis = _unit_axis(spec.x_unit)

    def sx(value: float) -> float:
        return round(value * scale, 9)

    shapes, annotations = _reference_marks(spec, x_range, sx)
    fig = go.Figure(layout=_layout(height, shapes=shapes, annotations=annotations))
    groups: list[str] = []
    for row in rows:
        if row.group not in groups:
            groups.append(row.group)
    for index, group in enumerate(groups):
        members = [(row, cat) for row, cat in zip(rows, categories, strict=True) if row.group == group]
        xs = [
            sx(row.estimate if row.estimate is not None else (_bounds(row)[0] + _bounds(row)[1]) / 2)
            for row, _ in members
        ]
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=[cat for _, cat in members],
                name=plot_text(group),
                mode="markers",
                marker={
                    "color": _COLORS[index % len(_COLORS)],
                    "size": 9,
                    "symbol": "diamond",
                    # an interval without a point estimate shows its bar only
                    "opacity": [1 if row.estimate is not None else 0 for row, _ in members],
                },
                error_x={
                    "type": "data",
                    "symmetric": False,
                    "array": [round(sx(_bounds(row)[1]) - x, 9) for (row, _), x in zip(members, xs, strict=True)],
                    "arrayminus": [round(x - sx(_bounds(row)[0]), 9) for (row, _), x in zip(members, xs, strict=True)],
                    "thickness": 2,
                    "width": 6,
                },
                text=[plot_text(row.hover, 200) for row, _ in members],
                hovertemplate="%{text}<extra></extra>",
            )
        )
    fig.update_xaxes(_zero_axis(spec.x_title, x_range, scale, unit_axis))
    fig.update_yaxes(_axis("", type="category", autorange="reversed", categoryorder="array", categoryarray=categories))
    return fig


_DOT_COLORS = {"candidate better": "#1a7f37", "candidate worse": "#cf222e"}


def _dot_figure(spec: DotChart) -> go.Figure:
    """One marker per category on a fitted axis with the zero line; categories top-down in spec order."""
    categories = [plot_text(dot.label) for dot in spec.dots]
    scale, unit_axis = _unit_axis(spec.x_unit)
    fig = go.Figure(layout=_layout(120 + 22 * max(len(categories), 1)))
    groups: list[str] = []
    for dot in spec.dots:
        if dot.group not in groups:
            groups.append(dot.group)
    for index, group in enumerate(groups):
        members = [(dot, cat) for dot, cat in zip(spec.dots, categories, strict=True) if dot.group == group]
        color = _DOT_COLORS.get(group, _COLORS[index % len(_COLORS)])
        fig.add_trace(
            go.Scatter(
                x=[round(dot.x * scale, 9) for dot, _ in members],
                y=[cat for _, cat in members],
                name=plot_text(group),
                mode="markers",
                marker={"color": color, "size": 9, "symbol": "circle" if index == 0 else "diamond"},
                text=[plot_text(dot.hover, 200) for dot, _ in members],
                hovertemplate="%{text}<extra></extra>",
            )
        )
    x_range = fitted_range([dot.x for dot in spec.dots], spec.x_limits)
    fig.update_xaxes(_zero_axis(spec.x_title, x_range, scale, unit_axis))
    fig.update_yaxes(_axis("", type="category", autorange="reversed", categoryorder="array", categoryarray=categories))
    return fig


def _scatter_figure(spec: ScatterChart) -> go.Figure:
    """One marker per point (its own legend entry and symbol) with a vertical interval; the x axis
    holds zero (costs and durations are never negative) and the y axis 0-100%."""
    scale = 100.0 if spec.y_unit == "pp" else 1.0
    fig = go.Figure(layout=_layout(340))
    for index, point in enumerate(spec.points):
        y = round(point.y * scale, 9)
        upper = point.y_upper if point.y_upper is not None else point.y
        lower = point.y_lower if point.y_lower is not None else point.y
        fig.add_trace(
            go.Scatter(
                x=[point.x],
                y=[y],
                name=plot_text(point.group),
                mode="markers",
                marker={"color": _COLORS[index % len(_COLORS)], "size": 11, "symbol": _SYMBOLS[index % len(_SYMBOLS)]},
                error_y={
                    "type": "data",
                    "symmetric": False,
                    "array": [round(upper * scale - y, 9)],
                    "arrayminus": [round(y - lower * scale, 9)],
                    "thickness": 2,
                    "width": 6,
                },
                text=[plot_text(point.hover, 200)],
                hovertemplate="%{text}<extra></extra>",
            )
        )
    on = set(spec.frontier)
    if on:  # a leaderboard's Pareto frontier: no other system is both cheaper (or faster) and better
        line = sorted((point.x, round(point.y * scale, 9)) for point in spec.points if point.group in on)
        fig.add_trace(
            go.Scatter(
                x=[x for x, _ in line],
                y=[y for _, y in line],
                mode="lines",
                name="Pareto frontier",
                line={"color": "#1a7f37", "dash": "dash"},
                hoverinfo="skip",
            )
        )
    high = max((point.x for point in spec.points), default=0.0)
    top = high * 1.2 if high > 0 else 1.0
    # both axes start a little below zero, so the zero lines show and the two "0" tick labels do not
    # meet at the corner
    x_extra: dict[str, Any] = {"range": [round(-0.05 * top, 9), round(top, 9)], "zeroline": True}
    if spec.x_kind == "usd":
        x_extra["tickprefix"] = "$"
    elif spec.x_kind == "seconds":
        x_extra["ticksuffix"] = " s"
    fig.update_xaxes(_axis(spec.x_title, **x_extra))
    fig.update_yaxes(_axis(spec.y_title, range=[-5 if scale == 100.0 else -0.05, 105 if scale == 100.0 else 1.05]))
    return fig


def _heatmap_figure(spec: HeatmapChart) -> go.Figure:
    """Row minus column on a diverging scale centred on zero; each cell's customdata is its link."""
    labels = [plot_text(label, 32) for label in spec.labels]
    finite = [abs(v) for row in spec.values for v in row if v is not None]
    span = max(finite, default=1.0) or 1.0
    fig = go.Figure(layout=_layout(180 + 34 * len(labels)))
    fig.add_trace(
        go.Heatmap(
            z=[list(row) for row in spec.values],
            x=labels,
            y=labels,
            zmin=-span,
            zmax=span,
            zmid=0,
            colorscale="RdBu",
            colorbar={"title": {"text": "points", "side": "right"}},  # "100" overprints a title on top
            text=[[plot_text(h, 200) for h in row] for row in spec.hover],
            customdata=[list(row) for row in spec.links],
            hovertemplate="%{text}<extra></extra>",
            xgap=1,
            ygap=1,
        )
    )
    starred = [(c, r, spec.values[r][c]) for r, row in enumerate(spec.marks) for c, mark in enumerate(row) if mark]
    if starred:  # a mark, not only a colour: the pairs the correction tells apart (white on dark cells)
        fig.add_trace(
            go.Scatter(
                x=[labels[c] for c, _, _ in starred],
                y=[labels[r] for _, r, _ in starred],
                mode="text",
                text=["★"] * len(starred),
                textfont={
                    "size": 15,
                    "color": ["#ffffff" if abs(v or 0) > span / 2 else "#111111" for *_, v in starred],
                },
                hoverinfo="skip",
                showlegend=False,
            )
        )
    fig.update_xaxes(_axis("column", type="category", side="top", tickangle=-90))  # upright labels overprint on a phone
    fig.update_yaxes(_axis("row", type="category", autorange="reversed"))
    return fig


def build_figure(spec: ChartSpec) -> go.Figure:
    if isinstance(spec, HeatmapChart):
        return _heatmap_figure(spec)
    if isinstance(spec, ScatterChart):
        return _scatter_figure(spec)
    if isinstance(spec, LineChart):
        return _line_figure(spec)
    if isinstance(spec, ForestChart):
        return _forest_figure(spec)
    if isinstance(spec, DotChart):
        return _dot_figure(spec)
    raise TypeError(f"unknown chart spec {type(spec).__name__}")


def _script_safe(text: str) -> str:
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def figure_json(spec: ChartSpec) -> Markup:
    """Deterministic figure JSON that is safe inside ``<script type="application/json">``."""
    fig = build_figure(spec)
    raw = pio.to_json(fig, validate=True, pretty=False, remove_uids=True, engine="json")
    safe = _script_safe(raw)
    assert "</" not in safe and "<!--" not in safe
    return Markup(safe)
