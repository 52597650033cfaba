"""URLs, number formats and the error page of the leaderboard pages."""

from __future__ import annotations

from collections.abc import Sequence

from generator.model.stats import Interval
from generator.pages import format as fmt
from generator.pages.models import Cell, EntryErrorPage, Headline, InputDigest, Link, PageBundle, PageMeta, SiteInfo
from generator.pages.urls import index_url, name_slug, rel

__all__ = ["leaderboard_error", "leaderboard_url", "pair_url", "system_url"]


def leaderboard_url(board_id: str) -> str:
    return f"leaderboards/{board_id}/index.html"


def system_url(board_id: str, label: str) -> str:
    return f"leaderboards/{board_id}/systems/{name_slug(label)}/index.html"


def pair_url(board_id: str, a: str, b: str) -> str:
    return f"leaderboards/{board_id}/pairs/{name_slug(a + chr(0) + b)}/index.html"


def _points(value: float | None) -> str:
    if value is None:
        return fmt.NA
    return "0.0" if abs(value) < 0.0005 else f"{100 * value:+.1f}"


def _pct_interval(iv: Interval) -> str:
    if iv.lower is None or iv.upper is None:
        return fmt.NA
    return f"[{100 * iv.lower:.1f}, {100 * iv.upper:.1f}]"


def _diff_interval(iv: Interval) -> str:
    if iv.lower is None or iv.upper is None:
        return fmt.NA
    return f"[{100 * iv.lower:+.1f}, {100 * iv.upper:+.1f}]"


def _pct(value: float | None) -> Cell:
    return fmt.num_cell(value, fmt.pct(value))


def leaderboard_error(
    board_id: str, title: str, message: str, site: SiteInfo, inputs: Sequence[InputDigest] = ()
) -> tuple[Headline, PageBundle]:
    """A leaderboard whose data could not be ranked: an error page at its URL and a marked headline."""
    url = leaderboard_url(board_id)
    meta = PageMeta(
        url=url,
        title=title,
        site=site,
        crumbs=(Link("Home", rel(url, index_url())),),
        inputs=tuple(inputs),
        downloads=(Link("data.json", "data.json"),),
    )
    data = {"schema": "evalsite.site.error.v1", "kind": "leaderboard", "id": board_id, "error": message, "details": []}
    page = EntryErrorPage(meta, "leaderboard", board_id, message, ())
    return Headline("leaderboard", board_id, title, url, False, message, (), None), PageBundle(page, data)
