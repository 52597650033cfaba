"""Trends of one comparison or leaderboard across builds.

- **pass@1 per build and side**: the task-macro pass@1 over the side's strictly matched runs with
  its 95% t interval over tasks (:func:`generator.analyze.stats.experiment.task_macro_from_counts`,
  the same numbers the comparison page shows).
- **The regression gate** (:func:`generator.analyze.stats.sequential.gate`, the gate of
  ``generator.stats.history``): for each side, every build is compared with the side's *reference*
  build (its first build; after an improvement, the improved build) over the tasks both ran, by the
  comparison rule (task-clustered t interval and sign-flip test over the per-task differences in
  pass rate; runs of two builds are independent draws, not matched pairs, so the per-task rate
  difference is the paired unit, and tasks are the clusters).  The j-th build after the reference
  is tested at level alpha_j = alpha * 6 / (pi^2 j^2) with alpha = 5% split evenly over the
  subject's sides, so the probability that an unchanged subject is *ever* flagged, over an
  unlimited history, is at most 5%.  **regression** / **improvement** when the rule calls it,
  otherwise **within noise**; fewer than two shared tasks: **not compared** (no alpha spent).
- **Flakiness**: a task's outcome at a build is ``pass`` (every run passed), ``fail`` (none did) or
  ``mixed``; a task is flaky when its outcome differs between builds that both ran it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from generator.analyze.stats.experiment import task_macro_from_counts
from generator.analyze.stats.rule import BETTER, WORSE, PairedScores, RuleResult, decide
from generator.analyze.stats.sequential import gate
from generator.model.history import (
    BuildTrend,
    HistoryEntry,
    SideCounts,
    SidePoint,
    StepDifference,
    StepStatus,
    TaskStrip,
    TierMove,
    Trend,
)

__all__ = ["GATE_ALPHA", "subject_trend", "trends"]

CONFIDENCE = 0.95
#: The probability that an unchanged subject is ever flagged (regression or improvement), all sides together.
GATE_ALPHA = 0.05


def _rate_differences(now: SideCounts, reference: SideCounts) -> PairedScores:
    """Per task both builds ran, this build's pass rate minus the reference's, as exact fractions."""
    a = {t.task: (t.passes, t.runs) for t in now.tasks if t.runs > 0}
    b = {t.task: (t.passes, t.runs) for t in reference.tasks if t.runs > 0}
    shared = sorted(set(a) & set(b))
    num, den = [], []
    for task in shared:
        (pa, ra), (pb, rb) = a[task], b[task]
        n, d = pa * rb - pb * ra, ra * rb
        g = math.gcd(n, d)
        num.append(n // g)
        den.append(d // g)
    pairs = sum(min(a[t][1], b[t][1]) for t in shared)
    return PairedScores(tuple(shared), np.asarray(num, dtype=np.int64), np.asarray(den, dtype=np.int64), pairs)


def _point(side: SideCounts) -> SidePoint:
    counted = [t for t in side.tasks if t.runs > 0]
    if not counted:
        return SidePoint(side.label, None, None, None, 0)
    runs, passes, names = [t.runs for t in counted], [t.passes for t in counted], [t.task for t in counted]
    macro = task_macro_from_counts(runs, passes, 1, confidence=CONFIDENCE, names=names)
    interval = macro.pass_at_k.interval
    return SidePoint(side.label, macro.pass_at_k.estimate, interval.lower, interval.upper, len(counted))


def _side_steps(label: str, entries: Sequence[HistoryEntry], alpha: float) -> list[StepDifference]:
    """The gate over one side's builds: one step per build after the first (1-based build numbers)."""
    sides = [next((s for s in entry.sides if s.label == label), None) for entry in entries]

    def compare(i: int, ref: int, level: float) -> RuleResult | None:
        now, before = sides[i], sides[ref]
        return None if now is None or before is None else decide(_rate_differences(now, before), level)

    # the side's reference starts at its first build (a side added later starts there)
    first = next(i for i, side in enumerate(sides) if side is not None)
    steps = [StepDifference(label, None, None, None, 0, "not compared", 1, 0.0, None)] * first
    for step in gate(len(sides) - first, lambda i, ref, level: compare(i + first, ref + first, level), alpha=alpha):
        if step.index == 0:
            continue
        result = step.comparison
        reference = step.reference + first + 1
        if result is None or step.alpha_spent == 0.0:
            tasks = result.tasks if result is not None else 0
            steps.append(StepDifference(label, None, None, None, tasks, "not compared", reference, 0.0, None))
            continue
        status: StepStatus = {WORSE: "regression", BETTER: "improvement"}.get(result.outcome, "within noise")  # type: ignore[assignment]
        low, high = result.interval or (None, None)
        steps.append(
            StepDifference(
                label, result.difference, low, high, result.tasks, status, reference, step.alpha_spent, result.p_value
            )
        )
    return steps


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


def _tier_moves(now: HistoryEntry, before: HistoryEntry) -> tuple[TierMove, ...]:
    """Systems whose tier differs between two builds, each with whether its own evidence changed.

    Tiers are relative (each system is tested against its tier's leader, corrected over all pairs),
    so a system can move when only the others changed: the pages say so rather than let it look
    like a change of that system.
    """
    if now.tiers is None or before.tiers is None:
        return ()
    tier_now = {label: n for n, tier in enumerate(now.tiers, 1) for label in tier}
    tier_before = {label: n for n, tier in enumerate(before.tiers, 1) for label in tier}
    sides_now = {s.label: s.tasks for s in now.sides}
    sides_before = {s.label: s.tasks for s in before.sides}
    return tuple(
        TierMove(label, tier_before.get(label), tier_now.get(label), sides_now.get(label) != sides_before.get(label))
        for label in sorted(set(tier_now) | set(tier_before))
        if tier_now.get(label) != tier_before.get(label) and label in sides_now and label in sides_before
    )


def subject_trend(entries: Sequence[HistoryEntry]) -> Trend:
    """The trend of one subject; *entries* are its history entries, oldest first (at least one)."""
    labels = sorted({side.label for entry in entries for side in entry.sides})
    alpha = GATE_ALPHA / max(1, len(labels))
    by_label = {label: _side_steps(label, entries, alpha) for label in labels}
    builds: list[BuildTrend] = []
    for number, entry in enumerate(entries, start=1):
        steps: tuple[StepDifference, ...] = ()
        if number > 1:
            present = {s.label for s in entry.sides} | {s.label for s in entries[number - 2].sides}
            steps = tuple(by_label[label][number - 2] for label in labels if label in present)
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
                _tier_moves(entry, entries[number - 2]) if number > 1 else (),
            )
        )
    last = entries[-1]
    return Trend(last.kind, last.subject, last.title, tuple(builds), _strips(entries), alpha)


def trends(entries: Sequence[HistoryEntry]) -> tuple[Trend, ...]:
    """One trend per (kind, subject), in order of first appearance."""
    groups: dict[tuple[str, str], list[HistoryEntry]] = {}
    for entry in entries:
        groups.setdefault((entry.kind, entry.subject), []).append(entry)
    return tuple(subject_trend(group) for group in groups.values())
