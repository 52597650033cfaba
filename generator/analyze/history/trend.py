"""Trends of one comparison or leaderboard across builds.

- **pass@1 per build and side**: the task-macro pass@1 over the side's strictly matched runs with
  its 95% t interval over tasks (:func:`generator.analyze.stats.experiment.task_macro_from_counts`,
  the same numbers the comparison page shows).
- **The step against the previous build**: for each side, over the tasks *both* builds ran, the
  per-task differences in pass rate (this build minus the previous), and the 95% task-clustered
  t interval over them (:func:`generator.analyze.stats.intervals.t_interval`, the interval
  ``clustered_difference`` uses; runs of two builds are independent draws, not matched pairs,
  so the per-task rate difference is the paired unit, and tasks are the clusters).  The step is a
  **regression** only when that interval's upper bound is below zero, an **improvement** only when
  its lower bound is above zero, and otherwise **within noise** -- a dip inside the noise is shown
  as such.  Fewer than two shared tasks: **not compared**.
- **Flakiness**: a task's outcome at a build is ``pass`` (every run passed), ``fail`` (none did) or
  ``mixed``; a task is flaky when its outcome differs between builds that both ran it.
"""

from __future__ import annotations

from collections.abc import Sequence

from generator.analyze.stats.experiment import task_macro_from_counts
from generator.analyze.stats.intervals import t_interval
from generator.model.history import (
    BuildTrend,
    HistoryEntry,
    SideCounts,
    SidePoint,
    StepDifference,
    StepStatus,
    TaskStrip,
    Trend,
)

__all__ = ["subject_trend", "trends"]

CONFIDENCE = 0.95


def _rates(side: SideCounts) -> dict[str, float]:
    return {t.task: t.passes / t.runs for t in side.tasks if t.runs > 0}


def _point(side: SideCounts) -> SidePoint:
    counted = [t for t in side.tasks if t.runs > 0]
    if not counted:
        return SidePoint(side.label, None, None, None, 0)
    macro = task_macro_from_counts([t.runs for t in counted], [t.passes for t in counted], 1, confidence=CONFIDENCE)
    interval = macro.pass_at_k.interval
    return SidePoint(side.label, macro.pass_at_k.estimate, interval.lower, interval.upper, len(counted))


def _step(label: str, now: SideCounts | None, before: SideCounts | None) -> StepDifference:
    if now is None or before is None:
        return StepDifference(label, None, None, None, 0, "not compared")
    a, b = _rates(now), _rates(before)
    shared = sorted(set(a) & set(b))
    if len(shared) < 2:
        return StepDifference(label, None, None, None, len(shared), "not compared")
    interval = t_interval([a[t] - b[t] for t in shared], CONFIDENCE, clip=(-1.0, 1.0))
    status: StepStatus = "within noise"
    if interval.upper is not None and interval.upper < 0:
        status = "regression"
    elif interval.lower is not None and interval.lower > 0:
        status = "improvement"
    return StepDifference(label, interval.estimate, interval.lower, interval.upper, len(shared), status)


def _outcome(passes: int, runs: int) -> str:
    return "pass" if passes == runs else "fail" if passes == 0 else "mixed"


def _strips(entries: Sequence[HistoryEntry]) -> tuple[TaskStrip, ...]:
    labels = sorted({side.label for entry in entries for side in entry.sides})
    strips = []
    for label in labels:
        per_build: list[dict[str, str]] = []
        for entry in entries:
            side = next((s for s in entry.sides if s.label == label), None)
            per_build.append({} if side is None else {t.task: _outcome(t.passes, t.runs) for t in side.tasks if t.runs})
        for task in sorted({task for build in per_build for task in build}):
            outcomes = tuple(build.get(task) for build in per_build)
            seen = [o for o in outcomes if o is not None]
            strips.append(TaskStrip(label, task, outcomes, len(set(seen)) > 1))
    return tuple(strips)


def subject_trend(entries: Sequence[HistoryEntry]) -> Trend:
    """The trend of one subject; *entries* are its history entries, oldest first (at least one)."""
    builds: list[BuildTrend] = []
    for number, entry in enumerate(entries, start=1):
        steps: tuple[StepDifference, ...] = ()
        if number > 1:
            before = {s.label: s for s in entries[number - 2].sides}
            now = {s.label: s for s in entry.sides}
            steps = tuple(_step(label, now.get(label), before.get(label)) for label in sorted(set(now) | set(before)))
        builds.append(
            BuildTrend(
                number,
                entry.id,
                entry.revision,
                entry.time,
                entry.verdict,
                entry.issues,
                tuple(_point(side) for side in entry.sides),
                steps,
            )
        )
    last = entries[-1]
    return Trend(last.kind, last.subject, last.title, tuple(builds), _strips(entries))


def trends(entries: Sequence[HistoryEntry]) -> tuple[Trend, ...]:
    """One trend per (kind, subject), in order of first appearance."""
    groups: dict[tuple[str, str], list[HistoryEntry]] = {}
    for entry in entries:
        groups.setdefault((entry.kind, entry.subject), []).append(entry)
    return tuple(subject_trend(group) for group in groups.values())
