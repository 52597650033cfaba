"""Tables and number words the comparison page's statistics share (pass@1's and the mean score's).

Formats typed results; nothing here computes.
"""

from __future__ import annotations

from collections.abc import Sequence

from generator.model.stats import Interval, MetricEstimate
from generator.pages import format as fmt
from generator.pages.glossary import term_href
from generator.pages.models import Cell, Column, Row, Table

__all__ = ["facts_table", "interval_text", "metric_row", "metric_table", "p_text"]

_PAGE = "comparisons/_/index.html"  # every comparison page sits at this depth: glossary links are relative to it


def p_text(value: float | None) -> str:
    """ "p = 0.042", or "p < 0.001" below that."""
    shown = fmt.p_value_report(value)
    return f"p {shown}" if shown.startswith("<") else f"p = {shown}"


def interval_text(iv: Interval | None, digits: int = 3) -> str:
    if iv is None or iv.lower is None:
        note = iv.note if iv is not None else None
        return f"N/A ({note})" if note else fmt.NA
    return fmt.interval(iv.lower, iv.upper, digits)


def metric_row(side: str, metric: MetricEstimate) -> Row:
    """One side's task-macro metric with its t and betting intervals."""
    return Row(
        (
            Cell(side),
            Cell(metric.label),
            fmt.num_cell(metric.k),
            fmt.num_cell(
                metric.estimate,
                fmt.fixed(metric.estimate, 3) if metric.estimate is not None else "undefined",
            ),
            Cell(interval_text(metric.interval), fmt.sort_key(metric.interval.lower)),
            Cell(interval_text(metric.betting), fmt.sort_key(metric.betting.lower)),
            Cell(
                f"{metric.eligible_tasks}/{metric.total_tasks}",
                fmt.sort_key(metric.eligible_tasks),
                None,
                "num",
            ),
            Cell(
                "approximate: few tasks" if metric.few_tasks else "",
                None,
                None,
                "warn" if metric.few_tasks else "",
                metric.warning,
            ),
        )
    )


def metric_table(table_id: str, caption: str, rows: Sequence[Row], first: str = "Side") -> Table:
    """Task-macro metrics (rows of :func:`metric_row`) with their t and betting intervals; *first* names
    the column of the rows' groups (a comparison's sides, a report's system)."""
    return Table(
        id=table_id,
        caption=caption,
        columns=(
            Column(first),
            Column("Metric"),
            Column("k", True),
            Column("Estimate", True),
            Column("t interval"),
            Column("Betting interval"),
            Column("Eligible tasks", True),
            Column("Note"),
        ),
        rows=tuple(rows),
    )


def facts_table(table_id: str, caption: str, facts: Sequence[tuple[str, str, str, str]]) -> Table:
    """(label, value, method, glossary term) rows: a paired statistic with its method."""
    return Table(
        id=table_id,
        caption=caption,
        columns=(Column("Statistic"), Column("Value"), Column("Method")),
        rows=tuple(
            Row((Cell(label, None, term_href(_PAGE, term)), Cell(value, None, None, "num"), Cell(str(method))))
            for label, value, method, term in facts
        ),
        sortable=False,
    )
