"""Trend numbers: the step interval, the regression rule, flakiness, the gate's verdict rule."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.analyze.history import subject_trend
from generator.model.history import HistoryEntry, SideCounts, TaskCounts
from generator.pipelines.history import gate_reasons
from tests.support.hypo import examples


def entry(passes: list[int], runs: int = 3, verdict: str | None = None, number: int = 0) -> HistoryEntry:
    tasks = tuple(TaskCounts(f"t{i}", p, runs, 0) for i, p in enumerate(passes))
    return HistoryEntry(
        f"hist1:{number}", None, "comparison", "a", "A", None, None, "d", verdict, 0, None,
        (SideCounts("candidate", tasks),), number,
    )  # fmt: skip


def test_regression_only_when_the_gate_calls_it() -> None:
    steady = entry([3] * 30)
    dip = entry([2] + [3] * 29)
    drop = entry([0] * 12 + [3] * 18)
    assert subject_trend([steady, dip]).builds[1].steps[0].status == "within noise"
    step = subject_trend([steady, drop]).builds[1].steps[0]
    assert step.status == "regression" and step.upper is not None and step.upper < 0
    assert step.reference == 1 and step.level == pytest.approx(0.05 * 6 / math.pi**2)
    assert step.p_value is not None and step.p_value < step.level
    assert subject_trend([drop, steady]).builds[1].steps[0].status == "improvement"
    # ten tasks cannot show a six-task drop at the gate's level: within noise, never a false "regression"
    assert subject_trend([entry([3] * 10), entry([0] * 6 + [3] * 4)]).builds[1].steps[0].status == "within noise"


def test_the_reference_moves_on_an_improvement_and_a_regression_stays_flagged() -> None:
    start, better, worse = entry([3] * 15 + [0] * 15), entry([3] * 30), entry([0] * 12 + [3] * 18)
    trend = subject_trend([start, better, better, worse, worse])
    steps = [b.steps[0] for b in trend.builds[1:]]
    assert [s.status for s in steps] == ["improvement", "within noise", "regression", "regression"]
    assert [s.reference for s in steps] == [1, 2, 2, 2]  # a rerun of a regressed build cannot pass the gate
    levels = [s.level for s in steps]
    assert levels[1:] == pytest.approx([0.05 * 6 / (math.pi**2 * j * j) for j in (1, 2, 3)])


def test_sides_share_the_gate_alpha_and_it_sums_below_five_percent() -> None:
    two = HistoryEntry(
        "hist1:0", None, "comparison", "a", "A", None, None, "d", None, 0, None,
        (SideCounts("baseline", ()), SideCounts("candidate", ())), 0,
    )  # fmt: skip
    trend = subject_trend([two] * 3)
    assert trend.side_alpha == 0.025
    assert sum(0.025 * 6 / (math.pi**2 * j * j) for j in range(1, 10**6)) * 2 < 0.05


@given(st.integers(0, 2**32 - 1))
@settings(max_examples=examples(200), deadline=None)
def test_an_unchanged_system_is_rarely_flagged_over_many_builds(seed: int) -> None:
    """Property: each step's level is what the gate spends; up to the first flag their sum stays below 5%."""
    rng = random.Random(seed)
    rates = [rng.random() for _ in range(20)]
    builds = [entry([sum(rng.random() < r for _ in range(3)) for r in rates], number=n) for n in range(8)]
    trend = subject_trend(builds)
    steps = [s for b in trend.builds for s in b.steps]
    first = next((i for i, s in enumerate(steps) if s.status in ("regression", "improvement")), len(steps))
    assert sum(s.level for s in steps[: first + 1]) < trend.side_alpha
    for b in trend.builds[1:]:
        for s in b.steps:
            assert s.status != "not compared" or s.level == 0.0
            if s.status in ("regression", "improvement"):
                assert s.p_value is not None and s.p_value < s.level


def test_step_uses_only_shared_tasks() -> None:
    before = entry([3, 3, 3, 0])
    now = entry([3, 3])  # t2 and t3 absent now
    step = subject_trend([before, now]).builds[1].steps[0]
    assert step.tasks == 2 and step.estimate == 0.0
    assert subject_trend([entry([3, 3]), entry([3])]).builds[1].steps[0].status == "not compared"


def test_flaky_marks_only_tasks_whose_outcome_flips() -> None:
    trend = subject_trend([entry([3, 0, 1]), entry([3, 3, 1]), entry([3, 0, 1])])
    flaky = {s.task: s.flaky for s in trend.strips}
    assert flaky == {"t0": False, "t1": True, "t2": False}
    assert trend.strips[2].outcomes == ("mixed", "mixed", "mixed")


@given(st.lists(st.integers(0, 3), min_size=2, max_size=12), st.lists(st.integers(0, 3), min_size=2, max_size=12))
def test_step_estimate_is_the_mean_task_difference(a: list[int], b: list[int]) -> None:
    n = min(len(a), len(b))
    step = subject_trend([entry(a), entry(b)]).builds[1].steps[0]
    assert step.tasks == n
    expected = sum(b[i] / 3 - a[i] / 3 for i in range(n)) / n
    assert step.estimate is not None and abs(step.estimate - expected) < 1e-9
    if step.status == "regression":
        assert step.upper is not None and step.upper < 0
    if step.lower is not None and step.upper is not None:
        assert step.lower - 1e-12 <= step.estimate <= step.upper + 1e-12


def test_verdict_worse_gate() -> None:
    trend = subject_trend([entry([3] * 4, verdict="candidate better"), entry([3] * 4, verdict="not distinguishable")])
    assert gate_reasons(["verdict-worse"], [trend], {}) == [
        "comparison 'a': the verdict went from 'candidate better' to 'not distinguishable'"
    ]
    assert gate_reasons(["regression"], [trend], {}) == []
    assert gate_reasons(["issues"], [], {"comparison 'a'": 2}) == ["comparison 'a': 2 alignment issue(s)"]


def board(tiers: tuple[tuple[str, ...], ...], passes: dict[str, list[int]], number: int) -> HistoryEntry:
    sides = tuple(
        SideCounts(label, tuple(TaskCounts(f"t{i}", p, 3, 0) for i, p in enumerate(ps))) for label, ps in passes.items()
    )
    return HistoryEntry(
        f"hist1:{number}", None, "leaderboard", "b", "B", None, None, "d", None, 0, tiers, sides, number
    )


def test_a_tier_move_with_unchanged_results_is_explained() -> None:
    """Issue 25: tiers churned for systems whose results did not change, and nothing said why."""
    first = board((("x", "y"), ("z",)), {"x": [3, 3], "y": [2, 2], "z": [0, 0]}, 0)
    second = board((("x",), ("y", "z")), {"x": [3, 3], "y": [2, 2], "z": [3, 3]}, 1)  # only z changed
    moves = subject_trend([first, second]).builds[1].tier_moves
    assert [(m.label, m.before, m.now, m.evidence_changed) for m in moves] == [("y", 1, 2, False), ("z", 2, 2, True)][
        :1
    ]
    from generator.pages.trends.page import tier_moves

    assert tier_moves(moves) == "tiers: y 1 → 2 (its results unchanged: tiers are relative to the others)"
    assert subject_trend([first]).builds[0].tier_moves == ()
