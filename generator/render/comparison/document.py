"""The ``evalsite.comparison.v1`` JSON document of a comparison.

Field by field description: ``docs/comparison-json.md``.  The document names
experiments by folder name and reports by file name only; it never contains
a local path.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from generator.model.common import SIDES
from generator.model.comparison import COMPARISON_SCHEMA, ComparisonResult, Pair
from generator.model.formats import FORMAT_NOTES
from generator.model.packed import PairedArtifacts
from generator.model.runs import (
    PART_STATES,
    REPORTED_ONLY_FIELDS,
    TELEMETRY_FIELDS,
    V2_PARTS,
    Artifact,
    CaseManifest,
    Experiment,
    RunRecord,
    part_state,
)
from generator.model.stats import as_json

__all__ = ["SCHEMA", "STREAMED", "audit_entries", "comparison_document", "pair_entries", "run_entries"]

SCHEMA = COMPARISON_SCHEMA


def _side_summary(experiment: Experiment, fmt: str) -> dict[str, Any]:
    load = experiment.matrix
    # An imported side says its format and what that format cannot record; a Comet side's
    # summary is unchanged (no "format" key means "comet"), so Comet documents keep their bytes.
    imported = {"format": fmt, "format_notes": list(FORMAT_NOTES.get(fmt, ()))} if fmt != "comet" else {}
    # Several logs, or one that did not finish: each log's status and how the logs merged.
    logs = {"logs": experiment.logs.to_json()} if experiment.logs is not None and experiment.logs.notable else {}
    return {
        **imported,
        **logs,
        "treatment": experiment.treatment,
        "experiment": experiment.label,
        "runs": len(experiment.records),
        "matrix": {
            "status": load.status,
            "matrix_hash": load.matrix.matrix_hash if load.matrix else None,
            "target_cases": len(load.matrix.keys_for(experiment.treatment)) if load.matrix else None,
            "error": load.error,
        },
    }


def _telemetry_json(artifact: Artifact | None) -> dict[str, Any] | None:
    if artifact is None or artifact.telemetry is None:
        return None
    return {name: artifact.telemetry.get(name) for name in TELEMETRY_FIELDS}


#: The upstream identities a report may carry (``source.<key>``), shown as its provenance.
PROVENANCE_KEYS = ("run", "trial_name", "failure_mode", "agent_run_id")
#: The hashed parts the audit states cover, in page order.
AUDIT_PARTS = ("case_hash", "core_hash", *V2_PARTS)


def _reported_json(artifact: Artifact | None) -> dict[str, Any] | None:
    if artifact is None or artifact.reported is None:
        return None
    out: dict[str, Any] = {name: artifact.reported.get(name) for name in (*TELEMETRY_FIELDS, *REPORTED_ONLY_FIELDS)}
    out["source"] = str(artifact.reported.get("source") or "reported by the harness")
    return out


def _provenance(report: Any) -> dict[str, str]:
    """The report's upstream identities (strings and numbers only), or an empty object."""
    out: dict[str, str] = {}
    source = report.get("source")
    if isinstance(source, dict):
        for key in PROVENANCE_KEYS:
            value = source.get(key)
            if isinstance(value, (str, int, float)) and not isinstance(value, bool) and str(value):
                out[key] = str(value)
    model = report.get("model")
    if isinstance(model, str) and model:
        out["model"] = model
    return out


def _run_json(record: RunRecord, artifact: Artifact | None, paired: bool) -> dict[str, Any]:
    return {
        "side": record.side,
        "task": record.task,
        "rep": record.rep,
        "file": record.file,
        "passed": record.passed,
        "checks_failed": list(record.checks_failed),
        "quality": record.quality.to_json(),
        "manifest": {
            "valid": record.manifest_valid,
            "source": record.manifest.source,
            "case_hash": record.manifest.case_hash,
            "core_hash": record.manifest.core_hash,
        },
        "paired": paired,
        "artifact": artifact.status if artifact else "not-read",
        "artifact_reason": artifact.reason if artifact else None,
        "telemetry": _telemetry_json(artifact),
        "reported_telemetry": _reported_json(artifact),
        "provenance": _provenance(record.report),
    }


def run_entries(result: ComparisonResult) -> Iterator[dict[str, Any]]:
    """The document's ``runs``, one entry at a time, in (side, task, rep, file) order.

    Only the order is computed up front, so a caller that writes each entry as it comes
    (``evalsite compare --format json``) never holds them all.
    """
    for side in SIDES:
        artifacts = result.artifacts[side]
        # each paired record's position among the pairs; its artifact is made only as it is written
        read = {id(pair.side(side)): position for position, pair in enumerate(result.alignment.pairs)}
        records = result.experiments[side].records
        order = sorted(range(len(records)), key=lambda i: (records[i].task, records[i].rep, records[i].file))
        for index in order:
            record = records[index]
            position = read.get(id(record))
            yield _run_json(record, None if position is None else artifacts[position], position is not None)


def _runs(result: ComparisonResult) -> list[dict[str, Any]]:
    return list(run_entries(result))


def _first_manifests(result: ComparisonResult) -> dict[str, dict[str, CaseManifest]]:
    first: dict[str, dict[str, CaseManifest]] = {side: {} for side in SIDES}
    for side in SIDES:
        for record in result.experiments[side].records:
            first[side].setdefault(record.task, record.manifest)
    return first


def audit_entries(result: ComparisonResult) -> Iterator[dict[str, Any]]:
    """The document's ``manifest_audit``, one task's row at a time (a writer need not hold them all)."""
    first = _first_manifests(result)
    for task in result.alignment.tasks:
        candidate, baseline = first["candidate"].get(task), first["baseline"].get(task)
        if candidate is None and baseline is None:
            continue
        states = {part: part_state(part, candidate, baseline) for part in AUDIT_PARTS}
        yield {
            "task": task,
            "candidate": candidate.to_json() if candidate else None,
            "baseline": baseline.to_json() if baseline else None,
            "states": states,
        }


def _audit_summary(result: ComparisonResult) -> dict[str, dict[str, int]]:
    """Per part, how many tasks are in each state (only states that occur)."""
    first = _first_manifests(result)
    counts: dict[str, Counter[str]] = {part: Counter() for part in AUDIT_PARTS}
    for task in result.alignment.tasks:
        candidate, baseline = first["candidate"].get(task), first["baseline"].get(task)
        if candidate is None and baseline is None:
            continue
        for part in AUDIT_PARTS:
            counts[part][part_state(part, candidate, baseline)] += 1
    return {part: {state: counts[part][state] for state in PART_STATES if counts[part][state]} for part in AUDIT_PARTS}


def pair_entries(result: ComparisonResult) -> Iterator[dict[str, Any]]:
    """The document's ``pairs``, one at a time, in (task, rep) order."""
    for pair in result.alignment.pairs:
        yield {
            "task": pair.task,
            "rep": pair.rep,
            "case_hash": pair.case_hash,
            "candidate_passed": pair.candidate.passed,
            "baseline_passed": pair.baseline.passed,
        }


#: Document keys whose entries a writer may make one at a time (see ``comparison_document``).
STREAMED = {"runs": run_entries, "pairs": pair_entries, "manifest_audit": audit_entries}


def _task_outcomes(result: ComparisonResult) -> list[dict[str, Any]]:
    by_task: dict[str, list[Pair]] = {task: [] for task in result.alignment.tasks}
    for pair in result.alignment.pairs:
        by_task[pair.task].append(pair)
    return [
        {
            "task": task,
            "reps": [pair.rep for pair in pairs],
            "pairs": len(pairs),
            "candidate_passes": sum(pair.candidate.passed for pair in pairs),
            "baseline_passes": sum(pair.baseline.passed for pair in pairs),
        }
        for task, pairs in by_task.items()
    ]


def _limitations(result: ComparisonResult) -> dict[str, Any]:
    records = [record for side in SIDES for record in result.experiments[side].records]
    return {
        "missing_matrix": [s for s in SIDES if result.experiments[s].matrix.status == "historical-fallback"],
        "invalid_matrix": [s for s in SIDES if result.experiments[s].matrix.status == "invalid"],
        "fallback_records": sum(1 for record in records if not record.manifest.run_bound),
        "execution_unbound_records": sum(1 for record in records if not record.manifest.execution_bound),
        "fallback_without_task_files": sum(
            1 for record in records if not record.manifest.run_bound and not record.manifest.task_files
        ),
    }


def _statuses(artifacts: Sequence[Artifact]) -> Iterable[str]:
    """Each artifact's status (a packed side's, without making its artifacts)."""
    if isinstance(artifacts, PairedArtifacts):
        return artifacts.statuses()
    return (artifact.status for artifact in artifacts)


def comparison_document(result: ComparisonResult, *, runs: bool = True, streamed: bool = False) -> dict[str, Any]:
    """Build the JSON-ready document (plain dicts, lists, str, int, float, bool, None).

    ``runs=False`` leaves out the ``runs`` key, for a caller that writes :func:`run_entries`
    in its place; ``streamed=True`` leaves out every key of :data:`STREAMED` (``runs``,
    ``pairs``, ``manifest_audit``: the ones that grow with the runs or tasks) for a caller that
    writes their entries one at a time.
    """
    alignment = result.alignment
    rebased = [
        {"side": side, "task": pair.task, "rep": pair.rep, "file": pair.side(side).file}
        for side in SIDES
        for pair, status in zip(alignment.pairs, _statuses(result.artifacts[side]), strict=True)
        if status == "rebased"
    ]
    return {
        "schema": SCHEMA,
        "ks": list(result.ks),
        "expected_keys": alignment.expected_keys,
        "tasks": list(alignment.tasks),
        **{side: _side_summary(result.experiments[side], result.formats.get(side, "comet")) for side in SIDES},
        **({} if streamed else {"pairs": list(pair_entries(result))}),
        "issues": [issue.to_json() for issue in alignment.issues],
        "issue_counts": dict(sorted(Counter(issue.reason for issue in alignment.issues).items())),
        "metrics": {side: {str(k): metrics.to_json() for k, metrics in result.metrics[side].items()} for side in SIDES},
        "matched": {
            side: {
                "passes": sum(pair.side(side).passed for pair in alignment.pairs),
                "runs": len(alignment.pairs),
            }
            for side in SIDES
        },
        "duration": {side: result.duration[side].to_json() for side in SIDES},
        "efficiency": {name: table.to_json() for name, table in result.efficiency.items()},
        "limitations": _limitations(result),
        "statistics": as_json(result.statistics),
        **({} if streamed else {"manifest_audit": list(audit_entries(result))}),
        "manifest_audit_summary": _audit_summary(result),
        "task_outcomes": _task_outcomes(result),
        **({"runs": _runs(result)} if runs and not streamed else {}),
        "rebased_runs": rebased,
        "rebase_artifacts": result.inputs.rebase_artifacts,
        "skipped_reports": [
            {"side": skipped.side, "file": skipped.file, "reason": skipped.reason}
            for side in SIDES
            for skipped in result.experiments[side].skipped
        ],
    }
