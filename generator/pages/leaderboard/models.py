"""What the leaderboard page builder returns: its pages (plain :class:`~generator.pages.models.PageBundle`
items, like every other page kind) plus the index headline and the links other pages get."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from generator.pages.models import Headline, Link, Notice, PageBundle, PageJob

__all__ = ["LeaderboardPages"]


@dataclass(frozen=True, slots=True)
class LeaderboardPages:
    headline: Headline
    board: PageBundle
    jobs: tuple[PageJob, ...]  # one page per system, then one per pair, written after the board
    comparison_links: Mapping[str, tuple[Link, ...]] = field(default_factory=dict)  # comparison id -> links here
    comparison_notices: Mapping[str, tuple[Notice, ...]] = field(default_factory=dict)  # the family sentences
