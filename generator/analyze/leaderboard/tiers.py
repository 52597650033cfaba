"""Tiers of systems that cannot be told apart, and the cost (or duration) Pareto frontier.

Tiers, greedy from the top: walk the systems in ranking order (task-macro pass@1,
best first).  The first system leads tier 1.  Each next system joins the current
tier while it is *not distinguishable* from that tier's leader (the adjusted
pairwise test is not significant at alpha, or the two have no comparable pair);
otherwise it leads a new tier.  Tiers are therefore contiguous in the ranking and
every member of a tier is indistinguishable from its leader (not necessarily from
every other member).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

__all__ = ["greedy_tiers", "pareto_frontier"]


def greedy_tiers(ranked: Sequence[str], distinguishable: Callable[[str, str], bool]) -> tuple[tuple[str, ...], ...]:
    """Tiers over ``ranked`` labels; ``distinguishable(leader, other)`` decides one pair."""
    tiers: list[list[str]] = []
    for label in ranked:
        if tiers and not distinguishable(tiers[-1][0], label):
            tiers[-1].append(label)
        else:
            tiers.append([label])
    return tuple(tuple(tier) for tier in tiers)


def pareto_frontier(points: Mapping[str, tuple[float, float]]) -> tuple[str, ...]:
    """Labels whose (cost, score) no other point beats: lower-or-equal cost and higher-or-equal score,
    one of them strictly.  Returned by ascending cost, then label."""
    frontier = []
    for label, (cost, score) in points.items():
        dominated = any(
            c <= cost and s >= score and (c < cost or s > score) for other, (c, s) in points.items() if other != label
        )
        if not dominated:
            frontier.append(label)
    return tuple(sorted(frontier, key=lambda label: (points[label][0], label)))
