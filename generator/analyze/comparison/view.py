"""The :class:`~generator.model.comparison_view.ComparisonView` of a comparison result.

Pure functions: the side summaries, the matched pairs' outcomes, the task outcomes, the
manifest audit with its summary, the limitations and every run's entry, computed once here
for the JSON document, the Markdown report and the site's pages.  A run's entry (and a pair's)
is made when it is read, so a view holds no list of every run.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from generator.analyze.comparison.price import price_facts
from generator.model.common import SIDES
from generator.model.comparison import ALL_ALIGNED, STRICT_SUCCESS, ComparisonResult, Pair
from generator.model.comparison_view import (
    AUDIT_PARTS,
    AuditRow,
    ComparisonView,
    EfficiencyTables,
    Limitations,
    Matched,
    MatrixSummary,
    PairOutcome,
    RebasedRun,
    RunEntry,
    SideSummary,
    TaskOutcome,
)
from generator.model.formats import FORMAT_NOTES
from generator.model.packed import LazySequence, PairedArtifacts, reported_of, telemetry_of
from generator.model.runs import PART_STATES, Artifact, CaseManifest, Experiment, part_state

__all__ = ["PROVENANCE_KEYS", "comparison_view", "provenance"]

#: The upstream identities a report may carry (``source.<key>``), shown as its provenance.
PROVENANCE_KEYS = ("run", "trial_name", "failure_mode", "agent_run_id")


def provenance(report: Any) -> tuple[tuple[str, str], ...]:
    """The report's upstream identities (strings and numbers only), in document order."""
    out: list[tuple[str, str]] = []
    source = report.get("source")
    if isinstance(source, dict):
        for key in PROVENANCE_KEYS:
            value = source.get(key)
            if isinstance(value, (str, int, float)) and not isinstance(value, bool) and str(value):
                out.append((key, str(value)))
    model = report.get("model")
    if isinstance(model, str) and model:
        out.append(("model", model))
    return tuple(out)


def _side_summary(experiment: Experiment, fmt: str) -> SideSummary:
    load = experiment.matrix
    return SideSummary(
        treatment=experiment.treatment,
        experiment=experiment.label,
        runs=len(experiment.records),
        matrix=MatrixSummary(
            status=load.status,
            matrix_hash=load.matrix.matrix_hash if load.matrix else None,
            target_cases=len(load.matrix.keys_for(experiment.treatment)) if load.matrix else None,
            error=load.error,
        ),
        format=fmt,
        format_notes=tuple(FORMAT_NOTES.get(fmt, ())) if fmt != "comet" else (),
        logs=experiment.logs,
    )


class _Runs(Sequence[RunEntry]):
    """Every run of both sides in (side, task, rep, file) order, each entry made when read."""

    __slots__ = ("_artifacts", "_experiments", "_order", "_positions", "_sides")

    def __init__(self, result: ComparisonResult) -> None:
        self._experiments = [result.experiments[side] for side in SIDES]
        self._artifacts = [result.artifacts[side] for side in SIDES]
        self._sides: array[int] = array("b")
        self._order: array[int] = array("l")
        self._positions: list[array[int]] = []  # per side: record index -> pair position, -1 unpaired
        for number, side in enumerate(SIDES):
            records = result.experiments[side].records
            index_of = {id(record): index for index, record in enumerate(records)}
            positions = array("l", [-1]) * len(records)
            for position, pair in enumerate(result.alignment.pairs):
                index = index_of.get(id(pair.side(side)))
                if index is not None:
                    positions[index] = position
            self._positions.append(positions)
            order = sorted(range(len(records)), key=lambda i: (records[i].task, records[i].rep, records[i].file))
            self._order.extend(order)
            self._sides.extend([number] * len(order))

    def __len__(self) -> int:
        return len(self._order)

    def _entry(self, index: int) -> RunEntry:
        number, at = self._sides[index], self._order[index]
        record = self._experiments[number].records[at]
        position = self._positions[number][at]
        artifact: Artifact | None = self._artifacts[number][position] if position >= 0 else None
        return RunEntry(
            side=record.side,
            task=record.task,
            rep=record.rep,
            file=record.file,
            passed=record.passed,
            checks_failed=record.checks_failed,
            quality=record.quality,
            manifest=record.manifest,
            manifest_valid=record.manifest_valid,
            paired=position >= 0,
            artifact=artifact,
            provenance=provenance(record.report),
        )

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self._entry(i) for i in range(*index.indices(len(self)))]
        return self._entry(range(len(self))[index])

    def __iter__(self) -> Iterator[RunEntry]:
        return (self._entry(index) for index in range(len(self)))


def _pair_outcome(pair: Pair) -> PairOutcome:
    return PairOutcome(pair.task, pair.rep, pair.case_hash, pair.candidate.passed, pair.baseline.passed)


def _first_manifests(result: ComparisonResult) -> dict[str, dict[str, CaseManifest]]:
    first: dict[str, dict[str, CaseManifest]] = {side: {} for side in SIDES}
    for side in SIDES:
        for record in result.experiments[side].records:
            first[side].setdefault(record.task, record.manifest)
    return first


def _audit(result: ComparisonResult) -> tuple[AuditRow, ...]:
    """Each task's first manifest per side and its parts' states (tasks with no manifest on either side left out)."""
    first = _first_manifests(result)
    rows = []
    for task in result.alignment.tasks:
        candidate, baseline = first["candidate"].get(task), first["baseline"].get(task)
        if candidate is None and baseline is None:
            continue
        rows.append(
            AuditRow(task, candidate, baseline, {part: part_state(part, candidate, baseline) for part in AUDIT_PARTS})
        )
    return tuple(rows)


def _audit_summary(rows: Iterable[AuditRow]) -> dict[str, dict[str, int]]:
    """Per part, how many tasks are in each state (only states that occur)."""
    counts: dict[str, Counter[str]] = {part: Counter() for part in AUDIT_PARTS}
    for row in rows:
        for part in AUDIT_PARTS:
            counts[part][row.states[part]] += 1
    return {part: {state: counts[part][state] for state in PART_STATES if counts[part][state]} for part in AUDIT_PARTS}


def _task_outcomes(result: ComparisonResult) -> tuple[TaskOutcome, ...]:
    by_task: dict[str, list[Pair]] = {task: [] for task in result.alignment.tasks}
    for pair in result.alignment.pairs:
        by_task[pair.task].append(pair)
    return tuple(
        TaskOutcome(
            task=task,
            reps=tuple(pair.rep for pair in pairs),
            pairs=len(pairs),
            candidate_passes=sum(pair.candidate.passed for pair in pairs),
            baseline_passes=sum(pair.baseline.passed for pair in pairs),
        )
        for task, pairs in by_task.items()
    )


def _limitations(result: ComparisonResult) -> Limitations:
    records = [record for side in SIDES for record in result.experiments[side].records]
    return Limitations(
        missing_matrix=tuple(s for s in SIDES if result.experiments[s].matrix.status == "historical-fallback"),
        invalid_matrix=tuple(s for s in SIDES if result.experiments[s].matrix.status == "invalid"),
        fallback_records=sum(1 for record in records if not record.manifest.run_bound),
        execution_unbound_records=sum(1 for record in records if not record.manifest.execution_bound),
        fallback_without_task_files=sum(
            1 for record in records if not record.manifest.run_bound and not record.manifest.task_files
        ),
    )


def _statuses(artifacts: Sequence[Artifact]) -> Iterable[str]:
    """Each artifact's status (a packed side's, without making its artifacts)."""
    if isinstance(artifacts, PairedArtifacts):
        return artifacts.statuses()
    return (artifact.status for artifact in artifacts)


def _rebased(result: ComparisonResult) -> tuple[RebasedRun, ...]:
    pairs = result.alignment.pairs
    return tuple(
        RebasedRun(side, pair.task, pair.rep, pair.side(side).file)
        for side in SIDES
        for pair, status in zip(pairs, _statuses(result.artifacts[side]), strict=True)
        if status == "rebased"
    )


def comparison_view(result: ComparisonResult) -> ComparisonView:
    """The typed view of one result, in the document's order (``docs/comparison-json.md``)."""
    alignment = result.alignment
    pairs = alignment.pairs
    audit = _audit(result)
    return ComparisonView(
        ks=result.ks,
        expected_keys=alignment.expected_keys,
        tasks=alignment.tasks,
        sides={side: _side_summary(result.experiments[side], result.formats.get(side, "comet")) for side in SIDES},
        pairs=LazySequence(lambda position: _pair_outcome(pairs[position]), range(len(pairs))),
        issues=alignment.issues,
        issue_counts=dict(sorted(Counter(issue.reason for issue in alignment.issues).items())),
        metrics=result.metrics,
        matched={side: Matched(sum(pair.side(side).passed for pair in pairs), len(pairs)) for side in SIDES},
        duration=result.duration,
        efficiency=EfficiencyTables(result.efficiency[STRICT_SUCCESS], result.efficiency[ALL_ALIGNED]),
        limitations=_limitations(result),
        statistics=result.statistics,
        manifest_audit=audit,
        audit_summary=_audit_summary(audit),
        task_outcomes=_task_outcomes(result),
        runs=_Runs(result),
        rebased_runs=_rebased(result),
        rebase_artifacts=result.inputs.rebase_artifacts,
        skipped_reports=tuple(skipped for side in SIDES for skipped in result.experiments[side].skipped),
        price=price_facts(
            pairs,
            {side: telemetry_of(result.artifacts[side]) for side in SIDES},
            {side: reported_of(result.artifacts[side]) for side in SIDES},
            result.statistics.paired.difference.interval.confidence,
        ),
        scores=result.scores,
    )
