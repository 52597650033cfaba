"""Groups of systems that cannot be told apart, sound in both directions.

Every pair of systems is compared on the tasks both have with the rule of
:mod:`generator.analyze.stats.rule` (task-clustered interval and sign-flip test, the comparison
pages' rule); the sign-flip p-values of the whole family of comparable pairs are corrected together
(:func:`generator.analyze.leaderboard.multiplicity.adjust`: Holm by default, so the probability of
calling *any* pair of truly equal systems distinguishable is at most alpha).  A pair is
distinguishable when its adjusted p-value is below alpha and its interval excludes zero.

The groups are the maximal cliques of the graph whose edges join the comparable pairs that are *not*
distinguishable.  Each system carries the labels of the cliques it belongs to, so two systems share
a label exactly when they are not distinguishable: an edge lies in some maximal clique, and two
systems in one clique are adjacent.  A compact letter display with one letter per system cannot
express a non-transitive "not distinguishable" (a ~ b, b ~ c, a != c); clique labels can.  Pairs
with fewer than :data:`~generator.analyze.stats.rule.MIN_SHARED_TASKS` shared tasks are not
comparable: no edge, no shared label, listed in ``not_comparable``.

Deterministic and independent of the order of the input mapping: systems are handled in sorted
name order and cliques are labelled a, b, c, ... by the best mean score among their members
(higher first), then by their sorted member names.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from generator.analyze.leaderboard.multiplicity import adjust
from generator.analyze.stats.rule import (
    MIN_SHARED_TASKS,
    RuleResult,
    decide,
    paired_scores,
)
from generator.model.leaderboard import Correction

__all__ = ["Board", "PairResult", "board", "group_labels", "maximal_cliques"]

MAX_SYSTEMS = 200
MAX_CLIQUES = 10_000


@dataclass(frozen=True)
class PairResult:
    """Systems ``a`` < ``c`` (by name); ``difference`` is a - c.  ``distinguishable`` None: not comparable."""

    a: str
    c: str
    rule: RuleResult
    p_adjusted: float | None
    distinguishable: bool | None


@dataclass(frozen=True)
class Board:
    """All-pairs comparisons, corrected, and the groups they imply."""

    systems: tuple[str, ...]
    means: Mapping[str, float | None]
    pairs: Mapping[tuple[str, str], PairResult]
    groups: Mapping[str, frozenset[str]]
    members: Mapping[str, frozenset[str]]
    not_comparable: tuple[tuple[str, str], ...]
    alpha: float
    correction: Correction

    def pair(self, a: str, c: str) -> PairResult:
        if a not in self.means or c not in self.means:
            raise KeyError(f"unknown system {a if a not in self.means else c!r}")
        return self.pairs[(a, c) if a < c else (c, a)]

    def distinguishable(self, a: str, c: str) -> bool | None:
        """True / False, or None when the two share fewer than the minimum number of tasks."""
        if a == c:
            if a not in self.means:
                raise KeyError(f"unknown system {a!r}")
            return False
        return self.pair(a, c).distinguishable


def _mean(scores: Mapping[str, Sequence[float]]) -> float | None:
    per_task = [float(np.mean([float(x) for x in v])) for v in scores.values() if len(v)]
    return float(np.mean(per_task)) if per_task else None


def maximal_cliques(nodes: Sequence[str], adjacent: Mapping[str, frozenset[str]]) -> list[frozenset[str]]:
    """Every maximal clique (isolated nodes are cliques of one), by Bron-Kerbosch with pivoting.

    Hand-written (twelve lines) rather than ``networkx.find_cliques``: networkx is not a runtime
    dependency of evalsite, and boards have at most :data:`MAX_SYSTEMS` systems.
    """
    out: list[frozenset[str]] = []

    def expand(r: frozenset[str], p: set[str], x: set[str]) -> Iterator[frozenset[str]]:
        if not p and not x:
            yield r
            return
        pivot = max(sorted(p | x), key=lambda u: len(adjacent[u] & p))
        for v in sorted(p - adjacent[pivot]):
            yield from expand(r | {v}, p & adjacent[v], x & adjacent[v])
            p.discard(v)
            x.add(v)

    for clique in expand(frozenset(), set(nodes), set()):
        out.append(clique)
        if len(out) > MAX_CLIQUES:
            raise ValueError(f"the board has more than {MAX_CLIQUES:,} groups")
    return out


def group_labels() -> Iterator[str]:
    """a, b, ..., z, aa, ab, ...: the labels of groups, in order."""
    n = 0
    while True:
        label, k = "", n
        while True:
            label = chr(ord("a") + k % 26) + label
            k = k // 26 - 1
            if k < 0:
                break
        yield label
        n += 1


def board(
    systems: Mapping[str, Mapping[str, Sequence[float]]],
    *,
    correction: Correction = "holm",
    alpha: float = 0.05,
) -> Board:
    """Compare every pair, correct the family, and group (see the module docstring)."""
    if not isinstance(systems, Mapping) or any(not isinstance(k, str) for k in systems):
        raise ValueError("systems must map system names to {task: scores}")
    if len(systems) > MAX_SYSTEMS:
        raise ValueError(f"more than {MAX_SYSTEMS} systems")
    if correction not in ("holm", "bh", "none"):
        raise ValueError(f"correction must be 'holm', 'bh' or 'none', got {correction!r}")
    names = tuple(sorted(systems))
    results = {
        (a, c): decide(paired_scores(systems[a], systems[c]), alpha)
        for i, a in enumerate(names)
        for c in names[i + 1 :]
    }
    comparable = [key for key, r in results.items() if r.tasks >= MIN_SHARED_TASKS and r.p_value is not None]
    adjusted = dict(zip(comparable, adjust([results[k].p_value or 1.0 for k in comparable], correction), strict=True))
    pairs: dict[tuple[str, str], PairResult] = {}
    for key, r in results.items():
        p_adj = adjusted.get(key)
        called = None
        if p_adj is not None and r.interval is not None:
            low, high = r.interval
            called = p_adj < alpha and (low > 0.0 or high < 0.0)
        pairs[key] = PairResult(key[0], key[1], r, p_adj, called)
    adjacent = {name: set[str]() for name in names}
    for (a, c), pr in pairs.items():
        if pr.distinguishable is False:
            adjacent[a].add(c)
            adjacent[c].add(a)
    frozen = {name: frozenset(v) for name, v in adjacent.items()}
    means = {name: _mean(systems[name]) for name in names}
    cliques = maximal_cliques(names, frozen)
    best = {name: -1.0 if mean is None else mean for name, mean in means.items()}
    cliques.sort(key=lambda q: (-max(best[m] for m in q), sorted(q)))
    members = dict(zip(group_labels(), cliques, strict=False))
    groups = {name: frozenset(label for label, q in members.items() if name in q) for name in names}
    not_comparable = tuple(key for key, pr in pairs.items() if pr.distinguishable is None)
    return Board(names, means, pairs, groups, members, not_comparable, alpha, correction)
