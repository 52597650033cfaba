"""The build summary: Markdown for ``$GITHUB_STEP_SUMMARY`` or a pull-request comment.

It starts with the marker line ``<!-- evalsite summary -->`` (the output guard recognises it, so
``--summary`` replaces only an earlier summary).  The gate's reasons come first (when it failed),
then each comparison with its verdict, effect and interval, each leaderboard with its tiers, and
the step against the previous build (regressions first), each linked to the exact page and anchor:
absolute from ``base_url`` when the config sets it, else relative to the site root.

Safe to post on GitHub (issue 26): every text from the evidence or the config (titles, system
labels, step labels, error messages, the gate's reasons) is one **code span**
(:func:`~generator.render.comparison.report.code`: cut to ``FIELD_CAP`` characters, invisible
characters written as ``[U+XXXX]``, whitespace collapsed, fenced by one more backtick than its
longest run of backticks).  GitHub makes nothing live inside code: no ``@user`` or ``@org/team``
mention, no ``#1``, ``GH-1``, ``owner/repo#1`` or ``owner/repo@sha`` reference, no commit-SHA,
URL, ``www.`` or custom autolink, no emoji, HTML or Markdown.  Inside a table a ``|`` is written
``\\|`` (GFM splits cells before it parses code spans and takes back exactly that escape).  Only
the links the summary makes itself (to the site's pages) are live.

The whole text, redacted, is capped at :data:`SUMMARY_CAP` UTF-8 bytes (below GitHub's 65,536
characters for a comment however it counts, with room for the workflow's link to the run), cut
at a line boundary, so never inside a character, a code span, a link or a table row; a last
paragraph says how much was left out and where the rest is.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from generator.model.common import SIDES
from generator.model.history import SummaryItem
from generator.pages.comparison.price import price_line
from generator.pages.format import pp, pp_interval
from generator.pages.trends.page import build_anchor
from generator.render.comparison.report import code

__all__ = ["MARKER", "SUMMARY_CAP", "cap_summary", "render_summary"]

MARKER = "<!-- evalsite summary -->"
SUMMARY_CAP = 60_000  # UTF-8 bytes; GitHub refuses a comment body over 65,536 characters
_UNSAFE_IN_LINK = re.compile(r"[()<>\s`\\]")
_WORDS = re.compile(r"[a-z]+(?: [a-z]+)*")


def _name(value: object, *, in_table: bool = True) -> str:
    """An untrusted text as an inert code span (``—`` when empty)."""
    text = code(value)
    if not text.strip("`"):
        return "—"
    return text.replace("|", "\\|") if in_table else text


def _link(base_url: str | None, url: str) -> str:
    href = (base_url.rstrip("/") + "/" + url) if base_url else url
    return _UNSAFE_IN_LINK.sub(lambda found: f"%{ord(found.group()):02X}", href)


def _signed(value: float | None) -> str:
    """A difference in pass@1 in percentage points, as the pages show it (``pages/format.py``)."""
    return "—" if value is None else pp(value)


def _bounds(lower: float | None, upper: float | None) -> str:
    return "—" if lower is None or upper is None else pp_interval(lower, upper)


def _price(item: SummaryItem) -> str:
    """Cost per run of both sides (else duration), as the verdict box words it; a ``$`` written ``\\$`` so
    GitHub never reads two amounts as the ends of inline math."""
    line = price_line(item.price) if item.price is not None else None
    return "—" if line is None else line.replace("$", "\\$")


def _step(item: SummaryItem, label: str) -> str:
    """A comparison's side is evalsite's own word; a leaderboard's system label is untrusted."""
    return label if item.kind == "comparison" and label in SIDES else _name(label)


_NO_VERDICT = {
    None: "no verdict: no matched pairs",
    "no verdict": "no verdict: fewer than two tasks with matched pairs",
}


def _verdict(verdict: str | None) -> str:
    """The statistics' own outcome words (plain when they are only lowercase words); a comparison that
    was not made says so, with why, never "not distinguishable" (issue 25)."""
    text = _NO_VERDICT.get(verdict) or str(verdict)
    return text if _WORDS.fullmatch(text.replace(": ", " ")) else _name(text)


def _trend_line(item: SummaryItem, base_url: str | None) -> str:
    trend = item.trend
    if trend is None or item.trend_url is None or trend.latest is None:
        return "no build history"
    latest = trend.latest
    href = _link(base_url, f"{item.trend_url}#{build_anchor(latest.number)}")
    if latest.number == 1:
        return f"[first recorded build]({href})"
    parts = []
    unchanged = 0
    for step in latest.steps:
        if step.status == "within noise" and step.estimate == step.lower == step.upper == 0.0:
            unchanged += 1  # every shared task passed as often as before: counted, not listed
            continue
        if step.status == "not compared":
            parts.append(f"{_step(item, step.label)} not compared ({step.tasks} shared task(s))")
            continue
        word = "**regression**" if step.status == "regression" else step.status
        parts.append(f"{_step(item, step.label)} {_signed(step.estimate)} vs build {step.reference}: {word}")
    if unchanged:
        parts.append(f"{unchanged} unchanged")
    return f"[build {latest.number}, regression gate]({href}): " + "; ".join(parts)


def _comparison_rows(items: Sequence[SummaryItem], base_url: str | None) -> list[str]:
    lines = [
        "| comparison | verdict | effect (pass@1, pp) | 95% interval | cost per run, candidate vs baseline | issues "
        "| regression gate (vs reference build) |"
    ]
    lines += ["| --- | --- | --- | --- | --- | --- | --- |"]
    for i in items:
        title = f"[{_name(i.title)}]({_link(base_url, i.url)})"
        if i.error is not None:
            lines.append(f"| {title} | could not be built | — | — | — | — | {_name(i.error)} |")
            continue
        issues = f"[{i.issues}]({_link(base_url, i.issues_url)})" if i.issues else "0"
        lines.append(
            f"| {title} | {_verdict(i.verdict)} | {_signed(i.effect)} | "
            f"{_bounds(i.lower, i.upper)} | {_price(i)} | {issues} | {_trend_line(i, base_url)} |"
        )
    return [*lines, "", *_run_status(items)]


def _run_status(items: Sequence[SummaryItem]) -> list[str]:
    """A bullet per side or system whose run did not finish (cancelled, error), below its table."""
    status = [
        f"- **{_name(i.title, in_table=False)}**: {_name(s, in_table=False)}" for i in items for s in i.run_status
    ]
    return ["**Runs that did not finish:**", "", *status, ""] if status else []


def _leaderboard_rows(items: Sequence[SummaryItem], base_url: str | None) -> list[str]:
    lines = ["| leaderboard | tiers | issues | regression gate (vs reference build) |", "| --- | --- | --- | --- |"]
    for i in items:
        title = f"[{_name(i.title)}]({_link(base_url, i.url)})"
        if i.error is not None:
            lines.append(f"| {title} | could not be built | — | {_name(i.error)} |")
            continue
        tiers = " › ".join(f"tier {n}: " + ", ".join(_name(x) for x in tier) for n, tier in enumerate(i.tiers or (), 1))
        issues = f"[{i.issues}]({_link(base_url, i.issues_url)})" if i.issues else "0"
        moved = [m for m in (i.trend.latest.tier_moves if i.trend and i.trend.latest else ()) if not m.evidence_changed]
        if moved:  # a system whose results did not change moved because others did: say so (issue 25)
            tiers += "; moved with unchanged results: " + ", ".join(
                f"{_name(m.label)} tier {m.before or 'none'} → {m.now or 'none'}" for m in moved
            )
            tiers += " (tiers are relative to each tier's leader and corrected over all pairs)"
        lines.append(f"| {title} | {tiers or '—'} | {issues} | {_trend_line(i, base_url)} |")
    return [*lines, "", *_run_status(items)]


def render_summary(
    items: Sequence[SummaryItem],
    base_url: str | None,
    reasons: Sequence[str] = (),
    *,
    redact: Callable[[str], str] | None = None,
) -> str:
    """The summary, redacted by ``redact`` (when given) and then capped by :func:`cap_summary`."""
    lines = [MARKER, "## evalsite build summary", ""]
    if reasons:  # first, so a cut never drops why the gate failed
        lines += ["**The CI gate failed:**", ""] + [f"- {_name(r, in_table=False)}" for r in reasons] + [""]
    comparisons = [i for i in items if i.kind == "comparison"]
    boards = [i for i in items if i.kind == "leaderboard"]
    if comparisons:
        lines += _comparison_rows(comparisons, base_url)
    if boards:
        lines += _leaderboard_rows(boards, base_url)
    if not items:
        lines += ["The site has no comparisons or leaderboards.", ""]
    text = "\n".join(lines)
    return cap_summary(redact(text) if redact is not None else text, base_url)


def cap_summary(text: str, base_url: str | None, limit: int = SUMMARY_CAP) -> str:
    """``text`` when its UTF-8 form fits in ``limit`` bytes; else its first whole lines and a notice.

    The notice is a paragraph of its own (a blank line first, so it cannot become a table row).
    """
    if len(text.encode("utf-8")) <= limit:
        return text
    lines = text.split("\n")
    where = f"[the site]({_link(base_url, 'index.html')})" if base_url else "the built site's index page"
    kept: list[str] = []
    used_bytes = used_chars = 0
    for line in lines:
        notice = _notice(len(lines) - len(kept), len(text) - used_chars, where)
        size = len(line.encode("utf-8")) + 1
        if used_bytes + size + len(notice.encode("utf-8")) + 2 > limit:
            break
        kept.append(line)
        used_bytes += size
        used_chars += len(line) + 1
    notice = _notice(len(lines) - len(kept), len(text) - used_chars, where)
    return "\n".join([*kept, "", notice, ""])


def _notice(lines: int, characters: int, where: str) -> str:
    return (
        f"*The summary was cut here to stay within GitHub's comment limit: {lines:,} more line(s) "
        f"({characters:,} characters) left out. Every entry is on {where}.*"
    )
