"""A single-system report: one system read, aligned and measured as a leaderboard system is.

:func:`report_result` takes the system's runs (read by the comparison sides' readers), its own
strict alignment (:func:`generator.analyze.leaderboard.systems.system_alignment`) and each aligned
run's telemetry, and returns one :class:`~generator.model.report.ReportResult`: the leaderboard's
:func:`~generator.analyze.leaderboard.systems.system_result` (pass@k, pass^k as Comet defines it and
its unbiased form C(c,k)/C(n,k), each with the t interval over tasks and the betting interval the
comparison uses), the failure reasons counted over every run of the treatment, and the efficiency
averaged over the aligned runs. No I/O.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from statistics import fmean
from typing import Any

from generator.analyze.comparison.efficiency import disagrees
from generator.analyze.leaderboard.systems import observed_keys, system_result
from generator.model.common import is_json_number
from generator.model.comparison import METRICS, REPORTED_METRICS, Alignment, Metric
from generator.model.leaderboard import SystemSpec
from generator.model.logs import SideLogs
from generator.model.report import DEFAULT_REPORT_K, FailureReason, ReportMetric, ReportResult
from generator.model.runs import Artifact, Experiment, Key, Telemetry

__all__ = ["QUALITY_EXCLUDED", "default_ks", "failure_reasons", "report_efficiency", "report_result", "status_of"]

QUALITY_EXCLUDED = "quality-excluded"  # as the comparison's failure table names a run its quality check kept out


def default_ks(reps: Mapping[str, Sequence[int]]) -> tuple[int, ...]:
    """k = 1 .. the most aligned repetitions any task has, at most :data:`DEFAULT_REPORT_K` (1 without runs)."""
    most = max((len(found) for found in reps.values()), default=1)
    return tuple(range(1, max(1, min(most, DEFAULT_REPORT_K)) + 1))


def failure_reasons(experiment: Experiment) -> tuple[FailureReason, ...]:
    """Every run's failed checks and quality exclusions, counted in runs and in the tasks they touch."""
    runs: Counter[str] = Counter()
    tasks: dict[str, set[str]] = defaultdict(set)
    for record in experiment.records:
        reasons = list(record.checks_failed)
        if record.quality.include_in_analysis is False:
            reasons.append(QUALITY_EXCLUDED)
        for reason in reasons:
            runs[reason] += 1
            tasks[reason].add(record.task)
    return tuple(
        FailureReason(reason, runs[reason], len(tasks[reason]), reason == QUALITY_EXCLUDED) for reason in sorted(runs)
    )


def _value(values: Telemetry, key: str) -> float | None:
    found: Any = values.get(key) if values is not None else None
    return float(found) if is_json_number(found) else None


def _average(
    metric: Metric, numbers: Sequence[float], aligned: int, *, reported: bool = False, disagreements: int = 0
) -> ReportMetric:
    average = fmean(numbers) if numbers else None
    return ReportMetric(metric.key, metric.label, metric.kind, len(numbers), aligned, average, reported, disagreements)


def report_efficiency(artifacts: Sequence[Artifact]) -> tuple[ReportMetric, ...]:
    """Each field's average over the aligned runs that have it: re-derived numbers first; then, labelled,
    what the harness reported, over the runs without a re-derived value of that field (the rule of the
    comparison's efficiency tables, :mod:`generator.analyze.comparison.efficiency`, on one side)."""
    aligned = len(artifacts)
    rows: list[ReportMetric] = []
    for metric in METRICS:
        derived = [_value(artifact.telemetry, metric.key) for artifact in artifacts]
        numbers = [value for value in derived if value is not None]
        differing = sum(
            1
            for artifact, value in zip(artifacts, derived, strict=True)
            if value is not None
            and (stated := _value(artifact.reported, metric.key)) is not None
            and disagrees(value, stated)
        )
        if numbers:
            rows.append(_average(metric, numbers, aligned, disagreements=differing))
    derived_keys = {metric.key for metric in METRICS}
    for metric in REPORTED_METRICS:
        said = [
            value
            for artifact in artifacts
            if (value := _value(artifact.reported, metric.key)) is not None
            and not (metric.key in derived_keys and _value(artifact.telemetry, metric.key) is not None)
        ]
        if said:
            rows.append(_average(metric, said, aligned, reported=True))
    return tuple(rows)


def report_result(
    spec: SystemSpec,
    experiment: Experiment,
    alignment: Alignment,
    artifacts: Mapping[Key, Artifact],
    ks: Sequence[int] | None = None,
    run_status: Sequence[str] = (),
) -> ReportResult:
    """The report of one system; *artifacts* holds each aligned run's telemetry (by key), *ks* None:
    :func:`default_ks` of its aligned repetitions."""
    common = observed_keys(experiment, alignment)
    if ks is None:
        reps: dict[str, list[int]] = defaultdict(list)
        for pair in alignment.pairs:
            if pair.key in common:
                reps[pair.task].append(pair.rep)
        ks = default_ks(reps)
    telemetry = {key: artifact.telemetry for key, artifact in artifacts.items()}
    system = system_result(spec, experiment, alignment, common, telemetry, tuple(ks))
    aligned = [artifacts[key] for key in sorted(artifacts) if key in common]
    load = experiment.matrix
    return ReportResult(
        system=system,
        ks=tuple(ks),
        tasks=tuple(sorted({task for task, _rep in common})),
        matrix_status=load.status,
        matrix_error=load.error,
        failures=failure_reasons(experiment),
        efficiency=report_efficiency(aligned),
        run_status=tuple(run_status),
    )


def status_of(logs: SideLogs | None) -> tuple[str, ...]:
    """The sentence of an imported run that did not finish, worded for a report (none otherwise)."""
    if logs is None:
        return ()
    sentence = logs.status_sentence("system", subject="The system's run", covers="the report")
    return (sentence,) if sentence is not None else ()
