"""Links between a leaderboard and the configured comparisons that read the same evidence.

A leaderboard system *is* a comparison side when both read the same experiment with the same
treatment and format (the pipeline decides that from the config, :class:`SideMatch`).  Then:

* the system's page links the comparison ("this system is its candidate/baseline");
* when a comparison's candidate and baseline are both systems of one leaderboard, that pair's page
  links the comparison, and each task row of the pair links the comparison's task page (the
  paired per-task evidence, runs side by side);
* the comparison page links back to the pair page and to both system pages.

Nothing is recomputed: the links only say where the same evidence is already shown.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from generator.pages.leaderboard.common import pair_url, system_url
from generator.pages.models import Link, Notice, PageBundle
from generator.pages.names import phrase
from generator.pages.urls import comparison_url, rel, task_url

__all__ = [
    "SideMatch",
    "comparison_links",
    "pair_comparisons",
    "pair_related",
    "pair_task_href",
    "system_links",
    "with_related",
]


@dataclass(frozen=True, slots=True)
class SideMatch:
    """Leaderboard *board*'s system *label* reads the same evidence as *side* of comparison *comparison*."""

    board: str
    board_title: str
    label: str
    comparison: str
    comparison_title: str
    side: str  # "candidate" | "baseline"
    same_metric: bool = True  # the comparison decides by the board's metric (pass@k or mean, issue 29)


def system_links(url: str, matches: Iterable[SideMatch], label: str) -> tuple[Link, ...]:
    """The system page's links: every comparison one of whose sides is this system."""
    return tuple(
        Link(
            phrase(f"Comparison “{{}}” (this system is its {m.side})", m.comparison_title),
            rel(url, comparison_url(m.comparison)),
        )
        for m in matches
        if m.label == label
    )


def pair_comparisons(matches: Sequence[SideMatch], a: str, b: str) -> tuple[tuple[str, str, bool], ...]:
    """(comparison id, title, whether *a* is its candidate) of each comparison of exactly *a* and *b*."""
    found = []
    for c in matches:
        if c.side != "candidate" or c.label not in (a, b):
            continue
        other = b if c.label == a else a
        if any(m.comparison == c.comparison and m.side == "baseline" and m.label == other for m in matches):
            found.append((c.comparison, c.comparison_title, c.label == a))
    return tuple(sorted(set(found)))


def pair_task_href(url: str, comparisons: Sequence[tuple[str, str, bool]], task: str) -> str | None:
    """The first matching comparison's page of *task*, relative to the pair page at *url*."""
    return rel(url, task_url(comparisons[0][0], task)) if comparisons else None


def pair_related(url: str, comparisons: Sequence[tuple[str, str, bool]], a: str) -> tuple[Link, ...]:
    """The pair page's links to each comparison of exactly its two systems."""
    side = {True: "candidate", False: "baseline"}
    return tuple(
        Link(
            phrase(f"Comparison “{{}}” ({{}} is its {side[first]}; runs side by side)", name, a),
            rel(url, comparison_url(cid)),
        )
        for cid, name, first in comparisons
    )


def comparison_links(matches: Sequence[SideMatch], pairs: Iterable[tuple[str, str]]) -> dict[str, tuple[Link, ...]]:
    """Per comparison id, its links to one leaderboard's pages of the same evidence; *matches* are
    that board's, *pairs* its pairs (a, b) in page order."""
    order = {frozenset(pair): pair for pair in pairs}
    links: dict[str, list[Link]] = {}
    for m in matches:
        url = comparison_url(m.comparison)
        items = links.setdefault(m.comparison, [])
        text = phrase(f"Leaderboard “{{}}”: system {{}} ({m.side})", m.board_title, m.label)
        items.append(Link(text, rel(url, system_url(m.board, m.label))))
        if m.side != "candidate":
            continue
        for other in matches:
            if other.board == m.board and other.comparison == m.comparison and other.side == "baseline":
                pair = order.get(frozenset((m.label, other.label)))
                if pair is not None:
                    items.append(
                        Link(
                            phrase("Leaderboard “{}”: pair {} vs {}", m.board_title, pair[0], pair[1]),
                            rel(url, pair_url(m.board, *pair)),
                        )
                    )
    return {key: tuple(dict.fromkeys(value)) for key, value in links.items()}


def with_related(
    bundles: Sequence[PageBundle],
    links: Mapping[str, tuple[Link, ...]],
    notices: Mapping[str, tuple[Notice, ...]] | None = None,
) -> list[PageBundle]:
    """*bundles* with each comparison page's ``related`` links and leaderboard notices (the family
    sentences of :mod:`.family`) set; other pages unchanged."""
    by_url = {comparison_url(key): value for key, value in links.items()}
    notes = {comparison_url(key): value for key, value in (notices or {}).items()}
    out = []
    for bundle in bundles:
        url = bundle.page.meta.url
        if by_url.get(url) or notes.get(url):
            meta = replace(
                bundle.page.meta,
                related=bundle.page.meta.related + by_url.get(url, ()),
                notices=bundle.page.meta.notices + notes.get(url, ()),
            )
            bundle = replace(bundle, page=replace(bundle.page, meta=meta))
        out.append(bundle)
    return out
