"""The board's pairwise matrix: a table and a heatmap of row-minus-column differences in the ranked
metric (pass@1, or the mean score of a ``metric: mean`` board).

Select and format only. A cell of a pair distinguishable after the board's correction is marked
in both (``*`` in the table, a star drawn on the heatmap cell), so colour alone never suggests a
difference the correction did not find (issue 28, item 5).
"""

from __future__ import annotations

from generator.model.leaderboard import LeaderboardResult
from generator.pages import format as fmt
from generator.pages.leaderboard.common import _points, pair_url, system_url
from generator.pages.models import Cell, Column, HeatmapChart, Row, Table
from generator.pages.names import phrase
from generator.pages.urls import rel

__all__ = ["pairwise_matrix"]


def pairwise_matrix(result: LeaderboardResult, board_id: str, url: str) -> tuple[Table, HeatmapChart]:
    """The pairwise table and heatmap of *result*'s board page at *url*."""
    labels = [s.label for s in result.systems]
    values, hover, links, marks, rows = [], [], [], [], []
    for a in labels:
        v_row: list[float | None] = []
        h_row, l_row, m_row = [], [], []
        cells = [Cell(a, None, rel(url, system_url(board_id, a)))]
        for b in labels:
            if a == b:
                v_row.append(None)
                h_row.append(a)
                l_row.append("")
                m_row.append(False)
                cells.append(Cell("—", "", None, "na"))
                continue
            p = result.pair(a, b)
            sign = 1 if p.a == a else -1
            d = None if p.difference.estimate is None else sign * p.difference.estimate
            href = rel(url, pair_url(board_id, p.a, p.b))
            called = "distinguishable" if p.distinguishable else "not distinguishable"
            v_row.append(None if d is None else round(100 * d, 2))
            h_row.append(
                f"{a} − {b}: {_points(d)} points, n = {p.pairs}, adjusted p = {fmt.p_value(p.p_adjusted)} ({called})"
            )
            l_row.append(href)
            m_row.append(p.distinguishable)
            text = f"{_points(d)}{' *' if p.distinguishable else ''} (n={p.pairs})"
            cells.append(Cell(text, fmt.sort_key(d), href, "num" + (" diff" if p.distinguishable else "")))
        values.append(tuple(v_row))
        hover.append(tuple(h_row))
        links.append(tuple(l_row))
        marks.append(tuple(m_row))
        rows.append(Row(tuple(cells)))
    table = Table(
        "pairwise",
        f"Row minus column in {result.ranked_by} points (n = strictly matched pairs); "
        "* = distinguishable after correction",
        (Column("System"), *(Column(phrase("{}", label), True) for label in labels)),
        tuple(rows),
        sortable=False,
    )
    chart = HeatmapChart(
        "pairwise-chart",
        "Pairwise paired differences",
        f"Row minus column, {result.ranked_by} {'points' if result.metric == 'mean' else 'percentage points'}; "
        "★ = distinguishable after correction; "
        "click a cell for that pair's view.",
        tuple(labels),
        tuple(values),
        tuple(hover),
        tuple(links),
        tuple(marks),
    )
    return table, chart
