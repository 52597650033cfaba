"""One system of a leaderboard: its strict alignment, coverage, metrics and run accuracy.

A system is aligned through the comparison's strict aligner
(:func:`generator.analyze.comparison.alignment.align`) against itself with its own
expected keys: every single-side rule applies (duplicate runs, missing
repetitions, unexpected runs, invalid manifests, quality exclusions, hash drift
between repetitions).  Its coverage is the share of the leaderboard's common
expected keys (the union of every system's expected keys) that it has as an
aligned run; a common key it has no run for is disclosed as an issue.  Under ``metric: mean``
(issue 29) it also has its task-macro mean score over the same aligned runs, every one of which
must have a score in [0, 1] (one line otherwise: ``checked_score``).
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from generator.analyze.comparison.alignment import align, matrix_issues
from generator.analyze.comparison.price import side_values
from generator.analyze.comparison.scores import checked_score
from generator.analyze.stats.experiment import task_macro_from_counts
from generator.analyze.stats.scores import side_mean
from generator.model.common import is_number
from generator.model.comparison import Alignment, Issue
from generator.model.leaderboard import RunAccuracy, SystemResult, SystemRun, SystemSpec, Telemetry
from generator.model.runs import Experiment, Key
from generator.model.scores import DEFAULT_METRIC, ScoreMetric

__all__ = ["expected_keys", "run_accuracy", "system_alignment", "system_result"]


def expected_keys(experiment: Experiment) -> frozenset[Key] | None:
    """The matrix's keys for the treatment; empty when the matrix is invalid, None without one."""
    load = experiment.matrix
    if load.matrix is not None:
        return frozenset(load.matrix.keys_for(experiment.treatment))  # a set of its own (keys_for is a view)
    return frozenset() if load.error else None


def _own_detail(issue: Issue) -> Issue:
    """The aligner words a self-alignment's issue for two sides; say it once, for the system."""
    reason, detail = issue.reason, issue.detail
    if reason == "duplicate-run":
        detail = detail.split(",")[0].replace("candidate=", "") + " runs"
    elif reason == "missing-repetition":
        detail = "no run"
    elif reason == "unexpected-run":
        detail = "run not listed in the expected case matrix"
    elif reason == "invalid-case-manifest":
        detail = "case manifest does not verify"
    elif reason == "quality-excluded":
        detail = detail.split(",")[0].split(":", 1)[-1]
    elif reason in ("invalid-expected-case-matrix", "expected-treatment-missing"):
        detail = detail.split(": ", 1)[-1] if reason == "invalid-expected-case-matrix" else detail
        detail = detail.replace("candidate matrix", "matrix")
    return Issue(issue.task, issue.rep, reason, detail)


def system_alignment(experiment: Experiment) -> Alignment:
    """The system aligned against itself: the runs that verify, and every issue."""
    expected = expected_keys(experiment)
    issues = matrix_issues([("candidate", experiment.treatment, experiment.matrix.error, expected)])
    alignment = align(
        experiment.records,
        experiment.records,
        candidate_expected=expected,
        baseline_expected=expected,
        initial_issues=issues,
    )
    return Alignment(
        alignment.pairs, tuple(_own_detail(i) for i in alignment.issues), alignment.tasks, alignment.expected_keys
    )


def observed_keys(experiment: Experiment, alignment: Alignment) -> frozenset[Key]:
    """What this system contributes to the common expected keys: its matrix keys, else its runs' keys."""
    expected = expected_keys(experiment)
    if expected is not None and experiment.matrix.matrix is not None:
        return expected
    return frozenset(record.key for record in experiment.records)


def run_accuracy(
    outcomes: Mapping[str, Sequence[bool]], reps: Mapping[str, Sequence[int]], tasks: Iterable[str]
) -> RunAccuracy:
    """Mean of per-run accuracies and its standard error, when every task has the same R complete runs."""
    names = list(tasks)
    if not names:
        return RunAccuracy(0, (), None, None, "no tasks")
    shapes = {tuple(reps.get(task, ())) for task in names}
    if len(shapes) != 1 or not next(iter(shapes)):
        counts = sorted({len(reps.get(task, ())) for task in names})
        note = (
            "undefined: tasks have different numbers of aligned runs (" + ", ".join(str(c) for c in counts) + ")"
            if len(counts) > 1
            else "undefined: tasks have the same number of runs but different repetition numbers"
        )
        if counts == [0]:
            note = "undefined: no aligned runs"
        return RunAccuracy(0, (), None, None, note)
    rep_numbers = next(iter(shapes))
    R = len(rep_numbers)
    accuracies = tuple(sum(1 for task in names if outcomes[task][index]) / len(names) for index in range(R))
    mean = statistics.fmean(accuracies)
    if R < 2:
        return RunAccuracy(R, accuracies, mean, None, "one run: no standard error over runs")
    stderr = statistics.stdev(accuracies) / R**0.5
    return RunAccuracy(R, accuracies, mean, stderr, None)


def _telemetry(
    field: str,
    keys: Sequence[Key],
    telemetry: Mapping[Key, Mapping[str, Any] | None],
    reported: Mapping[Key, Mapping[str, Any] | None],
) -> tuple[Telemetry, dict[Key, float]]:
    """One field over the aligned ``keys``: its mean and source (re-derived, else reported; one rule
    with the comparison's price, ``side_values``), and each aligned run's value from that source."""
    source, values = side_values(
        [_number((telemetry.get(key) or {}).get(field)) for key in keys],
        [_number((reported.get(key) or {}).get(field)) for key in keys],
    )
    by_key = {key: value for key, value in zip(keys, values, strict=True) if value is not None}
    numbers = list(by_key.values())
    mean = statistics.fmean(numbers) if numbers else None
    return Telemetry(field, mean, len(numbers), len(keys), source), by_key


def system_result(
    spec: SystemSpec,
    experiment: Experiment,
    alignment: Alignment,
    common_keys: frozenset[Key],
    telemetry: Mapping[Key, Mapping[str, Any] | None],
    ks: Sequence[int],
    reported: Mapping[Key, Mapping[str, Any] | None] | None = None,
    metric: ScoreMetric = DEFAULT_METRIC,
) -> SystemResult:
    """Metrics of one system over its aligned runs; ``telemetry`` (re-derived) and ``reported`` (what the
    harness reported) are per aligned key (None: none); ``metric`` mean adds the mean score."""
    common_tasks = sorted({task for task, _rep in common_keys})
    issues = list(alignment.issues)
    seen = {(record.task, record.rep) for record in experiment.records}
    matrix = expected_keys(experiment) or frozenset()
    for task, rep in sorted(common_keys - seen - matrix):
        issues.append(Issue(task, rep, "missing-repetition", "no run (the key is expected by another system)"))
    outcomes: dict[str, list[bool]] = {}
    reps: dict[str, list[int]] = {}
    scores: dict[str, list[float]] = {}
    by_key: dict[Key, float] = {}
    aligned: set[Key] = set()
    for pair in alignment.pairs:  # (task, rep) order
        if pair.key not in common_keys:
            continue
        aligned.add(pair.key)
        outcomes.setdefault(pair.task, []).append(pair.candidate.passed)
        reps.setdefault(pair.task, []).append(pair.rep)
        if metric == "mean":
            by_key[pair.key] = checked_score(pair.candidate, f"system {spec.label!r} run")
            scores.setdefault(pair.task, []).append(by_key[pair.key])
    names = sorted(outcomes)
    means = {t: statistics.fmean(scores[t]) for t in names} if metric == "mean" else {}
    macro = tuple(
        task_macro_from_counts(
            [len(outcomes[t]) for t in names],
            [sum(outcomes[t]) for t in names],
            k,
            total_tasks=len(common_tasks),
            names=names,
        )
        for k in ks
    )
    keys = sorted(aligned)
    cost, costs = _telemetry("total_cost_usd", keys, telemetry, reported or {})
    duration, durations = _telemetry("duration_seconds", keys, telemetry, reported or {})
    runs = tuple(
        SystemRun(
            task=record.task,
            rep=record.rep,
            file=record.file,
            passed=record.passed,
            checks_failed=record.checks_failed,
            aligned=record.key in aligned,
            quality=f"{record.quality.status}/{record.quality.reason_code}",
            manifest=record.manifest.source if record.manifest_valid else "invalid",
            duration_seconds=durations.get(record.key) if record.key in aligned else None,
            cost_usd=costs.get(record.key) if record.key in aligned else None,
            score=by_key.get(record.key) if record.key in aligned else None,
        )
        for record in sorted(experiment.records, key=lambda r: (r.task, r.rep, r.file))
    )
    return SystemResult(
        label=spec.label,
        treatment=spec.treatment,
        experiment=experiment.label,
        format=spec.format,
        reports=len(experiment.records),
        expected_keys=len(common_keys),
        aligned_keys=len(aligned),
        issues=tuple(issues),
        skipped=tuple((s.file, s.reason) for s in experiment.skipped),
        outcomes={t: tuple(v) for t, v in outcomes.items()},
        reps={t: tuple(v) for t, v in reps.items()},
        runs=runs,
        macro=macro,
        run_accuracy=run_accuracy(outcomes, reps, common_tasks),
        cost=cost,
        duration=duration,
        logs=experiment.logs,
        mean=side_mean([means[t] for t in names], len(common_tasks), names=names) if metric == "mean" else None,
        task_means=means,
    )


def _number(value: Any) -> float | None:
    return float(value) if is_number(value) else None
