"""One answer, explained everywhere: a pair whose verdict differs between its comparison page and a
leaderboard gets one sentence on both pages, with the family size and both p-values (issue 25).

The two pages answer different questions, and each holds its own error rate: the comparison tests
one pair at alpha; the leaderboard tests all of its pairs at once, corrected so that the chance of
*any* false call among them stays at alpha. A pair near the line can be "better" on its own and
"not distinguishable" among many; saying so is the whole fix. Only what both pages already computed
is used: nothing is recomputed here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from generator.model.leaderboard import LeaderboardResult, PairComparison
from generator.model.stats import BETTER, WORSE
from generator.pages.format import p_value
from generator.pages.leaderboard.links import SideMatch
from generator.pages.models import Notice, PageBundle
from generator.pages.names import phrase

__all__ = ["ComparisonCall", "FamilyNotes", "family_notes", "with_notices"]


@dataclass(frozen=True, slots=True)
class ComparisonCall:
    """A comparison page's verdict: its outcome and its sign-flip p-value (one test at ``alpha``)."""

    outcome: str
    p_value: float | None
    alpha: float | None = None  # None: the comparisons' default, 0.05


@dataclass(frozen=True, slots=True)
class FamilyNotes:
    board: tuple[Notice, ...]  # for the leaderboard page
    comparisons: Mapping[str, tuple[Notice, ...]]  # comparison id -> for its page


def _pair(result: LeaderboardResult, a: str, b: str) -> PairComparison | None:
    return next((p for p in result.pairs if {p.a, p.b} == {a, b}), None)


def family_notes(
    board_id: str,
    board_title: str,
    result: LeaderboardResult,
    matches: Sequence[SideMatch],
    calls: Mapping[str, ComparisonCall],
) -> FamilyNotes:
    """The sentences for every comparison whose two sides are both systems of this board, decided by the
    board's metric, and whose verdict (a difference called or not) differs from the board's all-pairs
    decision for that pair (another metric answers another question: no sentence)."""
    sides: dict[str, dict[str, str]] = {}
    titles: dict[str, str] = {}
    for m in matches:
        if m.board == board_id and m.same_metric:
            sides.setdefault(m.comparison, {})[m.side] = m.label
            titles[m.comparison] = m.comparison_title
    family = sum(1 for pair in result.pairs if pair.tasks >= 2)  # the corrected family: pairs actually compared
    a = f"{result.alpha:g}"
    correction = {
        "holm": f"with Holm's correction, so that the chance of any false call among them stays at {a}",
        "bh": f"with the Benjamini-Hochberg correction, so that false calls stay at most {a} of the calls made",
        "none": "without correction (the difference comes from the tasks and runs each one aligned)",
    }[result.correction]
    board: list[Notice] = []
    comparisons: dict[str, tuple[Notice, ...]] = {}
    for cid in sorted(sides):
        cand, base = sides[cid].get("candidate"), sides[cid].get("baseline")
        call = calls.get(cid)
        pair = _pair(result, cand, base) if cand and base else None
        if call is None or pair is None or cand is None or base is None or pair.tasks < 2:
            continue
        called = call.outcome in (BETTER, WORSE)
        if called == pair.distinguishable:
            continue
        here = "not distinguishable" if not pair.distinguishable else "distinguishable"
        there = call.outcome if called else "not distinguishable"
        numbers = (
            f"the comparison tests this one pair at alpha {call.alpha or 0.05:g} (p = {p_value(call.p_value)}); the "
            f"leaderboard tests all {family} compared pairs of its {len(result.systems)} systems together {correction} "
            f"(adjusted p = {p_value(pair.p_adjusted)}). Both hold their error rate for their own question."
        )
        comparisons[cid] = (
            Notice(
                "info",
                phrase(
                    f"On the leaderboard “{{}}” this same pair is {here}, while this page says “{there}”: " + numbers,
                    board_title,
                ),
            ),
        )
        board.append(
            Notice(
                "info",
                phrase(
                    f"The comparison “{{}}” ({{}} vs {{}}) says “{there}”, while here the pair is {here}: " + numbers,
                    titles[cid],
                    cand,
                    base,
                ),
            )
        )
    return FamilyNotes(tuple(board), comparisons)


def with_notices(bundle: PageBundle, notices: Sequence[Notice]) -> PageBundle:
    """*bundle* with *notices* added at the top of its page (after its own)."""
    if not notices:
        return bundle
    meta = bundle.page.meta
    return replace(bundle, page=replace(bundle.page, meta=replace(meta, notices=(*meta.notices, *notices))))
