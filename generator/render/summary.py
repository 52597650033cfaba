"""The build summary: Markdown for ``$GITHUB_STEP_SUMMARY`` or a pull-request comment.

It starts with the marker line ``<!-- evalsite summary -->`` (the output guard recognises it, so
``--summary`` replaces only an earlier summary).  Each comparison shows its verdict with the
effect and interval, each leaderboard its tiers, then the steps against the previous build
(regressions first) and the alignment issues, each linked to the exact page and anchor: absolute
from ``base_url`` when the config sets it, else relative to the site root.  Every name from the
evidence is escaped (the Markdown report's :func:`~generator.render.comparison.report.untrusted`).
"""

from __future__ import annotations

from collections.abc import Sequence

from generator.model.history import SummaryItem
from generator.pages.format import pp, pp_interval
from generator.pages.trends.page import build_anchor
from generator.render.comparison.report import cell, untrusted

__all__ = ["MARKER", "render_summary"]

MARKER = "<!-- evalsite summary -->"


def escape_markdown(value: object) -> str:
    return cell(untrusted(value))


def _link(base_url: str | None, url: str) -> str:
    return (base_url.rstrip("/") + "/" + url) if base_url else url


def _signed(value: float | None) -> str:
    """A difference in pass@1 in percentage points, as the pages show it (``pages/format.py``)."""
    return "—" if value is None else pp(value)


def _bounds(lower: float | None, upper: float | None) -> str:
    return "—" if lower is None or upper is None else pp_interval(lower, upper)


def _trend_line(item: SummaryItem, base_url: str | None) -> str:
    trend = item.trend
    if trend is None or item.trend_url is None or trend.latest is None:
        return "no build history"
    latest = trend.latest
    href = _link(base_url, f"{item.trend_url}#{build_anchor(latest.number)}")
    if latest.number == 1:
        return f"[first recorded build]({href})"
    parts = []
    for step in latest.steps:
        if step.status == "not compared":
            parts.append(f"{escape_markdown(step.label)} not compared ({step.tasks} shared task(s))")
            continue
        word = "**regression**" if step.status == "regression" else step.status
        parts.append(f"{escape_markdown(step.label)} {_signed(step.estimate)} {_bounds(step.lower, step.upper)} {word}")
    return f"[build {latest.number} vs {latest.number - 1}]({href}): " + "; ".join(parts)


def render_summary(items: Sequence[SummaryItem], base_url: str | None, reasons: Sequence[str] = ()) -> str:
    lines = [MARKER, "## evalsite build summary", ""]
    comparisons = [i for i in items if i.kind == "comparison"]
    boards = [i for i in items if i.kind == "leaderboard"]
    if comparisons:
        lines += ["| comparison | verdict | effect (pass@1, pp) | 95% interval | issues | against the previous build |"]
        lines += ["| --- | --- | --- | --- | --- | --- |"]
        for i in comparisons:
            title = f"[{escape_markdown(i.title)}]({_link(base_url, i.url)})"
            if i.error is not None:
                lines.append(f"| {title} | could not be built | — | — | — | {escape_markdown(i.error)} |")
                continue
            issues = f"[{i.issues}]({_link(base_url, i.issues_url)})" if i.issues else "0"
            lines.append(
                f"| {title} | {escape_markdown(i.verdict or 'no paired statistics')} | {_signed(i.effect)} | "
                f"{_bounds(i.lower, i.upper)} | {issues} | {_trend_line(i, base_url)} |"
            )
        lines.append("")
    if boards:
        lines += ["| leaderboard | tiers | issues | against the previous build |", "| --- | --- | --- | --- |"]
        for i in boards:
            title = f"[{escape_markdown(i.title)}]({_link(base_url, i.url)})"
            if i.error is not None:
                lines.append(f"| {title} | could not be built | — | {escape_markdown(i.error)} |")
                continue
            tiers = " › ".join(
                f"tier {n}: " + ", ".join(escape_markdown(x) for x in tier) for n, tier in enumerate(i.tiers or (), 1)
            )
            issues = f"[{i.issues}]({_link(base_url, i.issues_url)})" if i.issues else "0"
            lines.append(f"| {title} | {tiers or '—'} | {issues} | {_trend_line(i, base_url)} |")
        lines.append("")
    if reasons:
        lines += ["**The CI gate failed:**", ""] + [f"- {escape_markdown(r)}" for r in reasons] + [""]
    if not items:
        lines += ["The site has no comparisons or leaderboards.", ""]
    return "\n".join(lines)
