"""Tiers, the Pareto frontier and the run-accuracy statistic on hand-checked cases."""

from __future__ import annotations

import math

import pytest

from generator.analyze.leaderboard.systems import run_accuracy
from generator.analyze.leaderboard.tiers import greedy_tiers, pareto_frontier


def _rule(pairs: set[frozenset[str]]):
    return lambda a, b: frozenset((a, b)) in pairs


def test_all_indistinguishable_is_one_tier() -> None:
    assert greedy_tiers(["a", "b", "c"], _rule(set())) == (("a", "b", "c"),)


def test_all_distinguishable_is_one_tier_each() -> None:
    every = {frozenset(p) for p in (("a", "b"), ("a", "c"), ("b", "c"))}
    assert greedy_tiers(["a", "b", "c"], _rule(every)) == (("a",), ("b",), ("c",))


def test_membership_is_decided_against_the_leader_only() -> None:
    # c differs from b but not from the leader a: it stays in a's tier; d differs from a and leads tier 2.
    differ = {frozenset(("b", "c")), frozenset(("a", "d")), frozenset(("a", "e"))}
    assert greedy_tiers(["a", "b", "c", "d", "e"], _rule(differ)) == (("a", "b", "c"), ("d", "e"))


def test_a_new_tier_starts_at_the_first_distinguishable_system() -> None:
    differ = {frozenset(("a", "c")), frozenset(("a", "d")), frozenset(("c", "e"))}
    assert greedy_tiers(["a", "b", "c", "d", "e"], _rule(differ)) == (("a", "b"), ("c", "d"), ("e",))


def test_pareto_frontier() -> None:
    points = {"cheap-bad": (1.0, 0.2), "mid": (2.0, 0.5), "dominated": (3.0, 0.4), "best": (5.0, 0.9)}
    assert pareto_frontier(points) == ("cheap-bad", "mid", "best")
    assert pareto_frontier({"x": (1.0, 0.5), "y": (1.0, 0.5)}) == ("x", "y")  # ties dominate nobody


def test_run_accuracy_hand_checked() -> None:
    outcomes = {"t1": [True, False, True], "t2": [True, True, False]}
    reps = {"t1": [1, 2, 3], "t2": [1, 2, 3]}
    ra = run_accuracy(outcomes, reps, ["t1", "t2"])
    assert ra.accuracies == (1.0, 0.5, 0.5)
    assert ra.mean == pytest.approx(2 / 3)
    sd = math.sqrt(((1 / 3) ** 2 + 2 * (1 / 6) ** 2) / 2)
    assert ra.stderr == pytest.approx(sd / math.sqrt(3))


def test_run_accuracy_undefined_unless_every_task_has_the_same_runs() -> None:
    ra = run_accuracy({"t1": [True, True], "t2": [True]}, {"t1": [1, 2], "t2": [1]}, ["t1", "t2"])
    assert ra.mean is None and ra.stderr is None and "different numbers" in (ra.note or "")
    ra = run_accuracy({"t1": [True, True], "t2": [True, False]}, {"t1": [1, 2], "t2": [1, 3]}, ["t1", "t2"])
    assert ra.mean is None and "repetition numbers" in (ra.note or "")
    ra = run_accuracy({"t1": [True]}, {"t1": [1]}, ["t1", "t2"])  # t2 has no aligned run
    assert ra.mean is None
    one = run_accuracy({"t1": [True], "t2": [False]}, {"t1": [1], "t2": [1]}, ["t1", "t2"])
    assert one.mean == 0.5 and one.stderr is None
