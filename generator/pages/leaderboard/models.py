"""What the leaderboard page builder returns: its pages (plain :class:`~generator.pages.models.PageBundle`
items, like every other page kind) plus the index headline and the links other pages get."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from generator.pages.models import Headline, Link, PageBundle

__all__ = ["LeaderboardPageJob", "LeaderboardPages"]


@dataclass(frozen=True, slots=True)
class LeaderboardPageJob:
    """A system or pair page whose model is made only when it is written (by a forked worker on a
    large site, like a comparison's task pages); its URL and the paths it writes are known before."""

    make: Callable[[], PageBundle]
    url: str
    paths: tuple[str, ...]

    def bundle(self) -> PageBundle:
        return self.make()


@dataclass(frozen=True, slots=True)
class LeaderboardPages:
    headline: Headline
    board: PageBundle
    jobs: tuple[LeaderboardPageJob, ...]  # one page per system, then one per pair, written after the board
    comparison_links: Mapping[str, tuple[Link, ...]] = field(default_factory=dict)  # comparison id -> links here

