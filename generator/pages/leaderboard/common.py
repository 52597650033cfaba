"""URLs, number formats, the index headline and the error page of the leaderboard pages."""

from __future__ import annotations

from collections.abc import Sequence

from generator.model.leaderboard import LeaderboardResult
from generator.model.stats import Interval
from generator.pages import format as fmt
from generator.pages.models import (
    Cell,
    Column,
    EntryErrorPage,
    Headline,
    InputDigest,
    PageBundle,
    PageMeta,
    Row,
    SiteInfo,
    Table,
)
from generator.pages.urls import name_slug

__all__ = ["board_headline", "leaderboard_error", "leaderboard_url", "pair_url", "system_url"]


def leaderboard_url(board_id: str) -> str:
    return f"leaderboards/{board_id}/index.html"


def system_url(board_id: str, label: str) -> str:
    return f"leaderboards/{board_id}/systems/{name_slug(label)}/index.html"


def pair_url(board_id: str, a: str, b: str) -> str:
    return f"leaderboards/{board_id}/pairs/{name_slug(a + chr(0) + b)}/index.html"


def _points(value: float | None) -> str:
    if value is None:
        return fmt.NA
    return "0.0" if abs(value) < 0.0005 else f"{100 * value:+.1f}".replace("-", "−")


def _pct_interval(iv: Interval) -> str:
    if iv.lower is None or iv.upper is None:
        return fmt.NA
    return f"[{100 * iv.lower:.1f}, {100 * iv.upper:.1f}]"


def _diff_interval(iv: Interval) -> str:
    if iv.lower is None or iv.upper is None:
        return fmt.NA
    return f"[{100 * iv.lower:+.1f}, {100 * iv.upper:+.1f}]".replace("-", "−")  # a minus sign, not a hyphen


def _pct(value: float | None) -> Cell:
    return fmt.num_cell(value, fmt.pct(value))


def leaderboard_error(
    board_id: str, title: str, message: str, site: SiteInfo, inputs: Sequence[InputDigest] = ()
) -> tuple[Headline, PageBundle]:
    """A leaderboard whose data could not be ranked: an error page at its URL and a marked headline."""
    url = leaderboard_url(board_id)
    meta = PageMeta.of_entry(url, title, site, inputs)
    data = {"schema": "evalsite.site.error.v1", "kind": "leaderboard", "id": board_id, "error": message, "details": []}
    page = EntryErrorPage(meta, "leaderboard", board_id, message, ())
    return Headline("leaderboard", board_id, title, url, False, message, (), None), PageBundle(page, data)


def board_headline(board_id: str, title: str, url: str, r: LeaderboardResult) -> Headline:
    """The index's entry for a leaderboard: its systems by rank, tier and standing against the baseline."""
    by_label = {b.label: b for b in r.against_baseline}
    rows = []
    for s in r.systems:
        b = by_label.get(s.label)
        vs = (
            "baseline"
            if s.label == r.baseline
            else (
                {"candidate better": "better", "candidate worse": "worse"}.get(b.outcome, "not distinguishable")
                if b is not None
                else "—"
            )
        )
        value = fmt.num_cell(s.ranked_value, fmt.fixed(s.ranked_value, 3)) if s.mean is not None else _pct(s.pass_at_1)
        rows.append(Row((fmt.num_cell(s.rank), tier_cell(s.tier), Cell(s.label), value, Cell(vs))))
    table = Table(
        f"headline-{board_id}",
        f"Systems by task-macro {r.ranked_by}",
        (
            Column("Rank", True),
            Column("Tier", True),
            Column("System"),
            Column("Mean score" if r.metric == "mean" else "pass@1", True),
            Column("vs baseline"),
        ),
        tuple(rows),
        sortable=False,
    )
    summary = (
        f"{len(r.systems)} systems on {len(r.tasks):,} tasks",
        f"{len(r.tiers)} tier{'s' if len(r.tiers) != 1 else ''} at alpha {r.alpha:g} ({r.correction})",
        f"baseline {r.baseline}" if r.baseline else "no baseline",
    )
    return Headline("leaderboard", board_id, title, url, True, None, summary, table)


def tier_cell(tier: int) -> Cell:
    """A system's tier; 0: compared with no other system, so in no tier."""
    return fmt.num_cell(tier) if tier else fmt.num_cell(None, "not comparable")
