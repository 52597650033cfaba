"""Trend numbers: the step interval, the regression rule, flakiness, the gate's verdict rule."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from generator.analyze.history import subject_trend
from generator.model.history import HistoryEntry, SideCounts, TaskCounts
from generator.pipelines.history import gate_reasons


def entry(passes: list[int], runs: int = 3, verdict: str | None = None, number: int = 0) -> HistoryEntry:
    tasks = tuple(TaskCounts(f"t{i}", p, runs, 0) for i, p in enumerate(passes))
    return HistoryEntry(
        f"hist1:{number}", None, "comparison", "a", "A", None, None, "d", verdict, 0, None,
        (SideCounts("candidate", tasks),), number,
    )  # fmt: skip


def test_regression_only_when_the_interval_excludes_zero() -> None:
    steady = entry([3] * 10)
    dip = entry([2] + [3] * 9)
    drop = entry([0] * 6 + [3] * 4)
    assert subject_trend([steady, dip]).builds[1].steps[0].status == "within noise"
    step = subject_trend([steady, drop]).builds[1].steps[0]
    assert step.status == "regression" and step.upper is not None and step.upper < 0
    assert subject_trend([drop, steady]).builds[1].steps[0].status == "improvement"


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
        assert step.lower <= step.estimate <= step.upper


def test_verdict_worse_gate() -> None:
    trend = subject_trend([entry([3] * 4, verdict="candidate better"), entry([3] * 4, verdict="not distinguishable")])
    assert gate_reasons(["verdict-worse"], [trend], {}) == [
        "comparison 'a': the verdict went from 'candidate better' to 'not distinguishable'"
    ]
    assert gate_reasons(["regression"], [trend], {}) == []
    assert gate_reasons(["issues"], [], {"comparison 'a'": 2}) == ["comparison 'a': 2 alignment issue(s)"]
