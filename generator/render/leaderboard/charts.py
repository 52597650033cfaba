"""Plotly figures of the leaderboard: the pairwise heatmap and the cost (or duration) frontier.

Same rules as :mod:`generator.render.charts` (graph_objects only, ``template="none"``,
deterministic JSON, labels entity-escaped, JSON escaped for ``<script>``); its
helpers are reused.
"""

from __future__ import annotations

import plotly.graph_objects as go  # type: ignore[import-untyped]
import plotly.io as pio  # type: ignore[import-untyped]
from markupsafe import Markup

from generator.pages.leaderboard.models import HeatmapChart, ScatterChart
from generator.render.charts import _axis, _layout, _script_safe, plot_text

__all__ = ["leaderboard_figure", "leaderboard_figure_json"]


def _heatmap(spec: HeatmapChart) -> go.Figure:
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
            colorbar={"title": {"text": "points"}},
            text=[[plot_text(h, 200) for h in row] for row in spec.hover],
            customdata=[list(row) for row in spec.links],
            hovertemplate="%{text}<extra></extra>",
            xgap=1,
            ygap=1,
        )
    )
    fig.update_xaxes(_axis("column", type="category", side="top"))
    fig.update_yaxes(_axis("row", type="category", autorange="reversed"))
    return fig


def _scatter(spec: ScatterChart) -> go.Figure:
    fig = go.Figure(layout=_layout(420))
    on = set(spec.frontier)
    fig.add_trace(
        go.Scatter(
            x=list(spec.x),
            y=list(spec.y),
            mode="markers+text",
            name="systems",
            text=[plot_text(label, 32) for label in spec.labels],
            textposition="top center",
            marker={"size": 10, "color": ["#1a7f37" if label in on else "#4d5a66" for label in spec.labels]},
            hovertemplate="%{text}<br>%{x:.3g}, pass@1 %{y:.3f}<extra></extra>",
        )
    )
    frontier = [(x, y) for label, x, y in zip(spec.labels, spec.x, spec.y, strict=True) if label in on]
    frontier.sort()
    fig.add_trace(
        go.Scatter(
            x=[x for x, _ in frontier],
            y=[y for _, y in frontier],
            mode="lines",
            name="Pareto frontier",
            line={"color": "#1a7f37", "dash": "dash"},
            hoverinfo="skip",
        )
    )
    fig.update_xaxes(_axis(spec.x_title))
    fig.update_yaxes(_axis("task-macro pass@1", range=[0, 1.05]))
    return fig


def leaderboard_figure(spec: HeatmapChart | ScatterChart) -> go.Figure:
    return _heatmap(spec) if isinstance(spec, HeatmapChart) else _scatter(spec)


def leaderboard_figure_json(spec: HeatmapChart | ScatterChart) -> Markup:
    raw = pio.to_json(leaderboard_figure(spec), validate=True, pretty=False, remove_uids=True, engine="json")
    safe = _script_safe(raw)
    assert "</" not in safe and "<!--" not in safe
    return Markup(safe)
