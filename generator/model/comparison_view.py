"""A comparison as its renderings and pages show it: typed records, made once from a result.

``generator.analyze.comparison.view.comparison_view`` makes a :class:`ComparisonView` from a
:class:`~generator.model.comparison.ComparisonResult`.  The ``evalsite.comparison.v1`` document
(``generator.render.comparison.document``: each record's ``to_json`` is its entry there), the
Markdown report and the site's comparison, task and index pages are renderings of it; none of
them reads another rendering back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from generator.model.common import Side
from generator.model.comparison import REPORTED_SOURCE_LABEL, DurationSummary, EfficiencyTable, Issue, MacroMetrics
from generator.model.logs import SideLogs
from generator.model.price import Price
from generator.model.runs import REPORTED_ONLY_FIELDS, TELEMETRY_FIELDS, V2_PARTS, Artifact, CaseManifest, Quality
from generator.model.runs import SkippedReport as SkippedReport
from generator.model.scores import ScoreSection, deciding_verdict
from generator.model.stats import ExperimentComparison, Verdict

__all__ = [
    "AUDIT_PARTS",
    "AuditRow",
    "ComparisonView",
    "EfficiencyTables",
    "Limitations",
    "Matched",
    "MatrixSummary",
    "PairOutcome",
    "RebasedRun",
    "RunEntry",
    "SideSummary",
    "SkippedReport",
    "TaskOutcome",
]

#: The hashed parts the audit states cover, in page order.
AUDIT_PARTS: Final = ("case_hash", "core_hash", *V2_PARTS)


@dataclass(frozen=True, slots=True)
class MatrixSummary:
    """A side's expected case matrix: report-bound, historical fallback or invalid."""

    status: str
    matrix_hash: str | None
    target_cases: int | None
    error: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "matrix_hash": self.matrix_hash,
            "target_cases": self.target_cases,
            "error": self.error,
        }


@dataclass(frozen=True, slots=True)
class SideSummary:
    """One side: its treatment, experiment folder name, runs, matrix and (imported) format."""

    treatment: str
    experiment: str
    runs: int
    matrix: MatrixSummary
    format: str = "comet"
    format_notes: tuple[str, ...] = ()
    logs: SideLogs | None = None  # several logs, or one that did not finish (only then in the document)

    @property
    def imported(self) -> bool:
        return self.format != "comet"

    def to_json(self) -> dict[str, Any]:
        # a Comet side has no "format" key, so Comet documents keep their bytes
        imported = {"format": self.format, "format_notes": list(self.format_notes)} if self.imported else {}
        # several logs, or one that did not finish: each log's status and how the logs merged
        logs = {"logs": self.logs.to_json()} if self.logs is not None and self.logs.notable else {}
        return {
            **imported,
            **logs,
            "treatment": self.treatment,
            "experiment": self.experiment,
            "runs": self.runs,
            "matrix": self.matrix.to_json(),
        }


@dataclass(frozen=True, slots=True)
class PairOutcome:
    """One strictly matched pair: its key, the hash both sides agreed on and both outcomes."""

    task: str
    rep: int
    case_hash: str
    candidate_passed: bool
    baseline_passed: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "rep": self.rep,
            "case_hash": self.case_hash,
            "candidate_passed": self.candidate_passed,
            "baseline_passed": self.baseline_passed,
        }


@dataclass(frozen=True, slots=True)
class Matched:
    """One side's passes over the strictly matched pairs."""

    passes: int
    runs: int

    def to_json(self) -> dict[str, int]:
        return {"passes": self.passes, "runs": self.runs}


@dataclass(frozen=True, slots=True)
class Limitations:
    """What the evidence cannot prove: sides without (or with an invalid) matrix, unbound records."""

    missing_matrix: tuple[str, ...]
    invalid_matrix: tuple[str, ...]
    fallback_records: int
    execution_unbound_records: int
    fallback_without_task_files: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "missing_matrix": list(self.missing_matrix),
            "invalid_matrix": list(self.invalid_matrix),
            "fallback_records": self.fallback_records,
            "execution_unbound_records": self.execution_unbound_records,
            "fallback_without_task_files": self.fallback_without_task_files,
        }


@dataclass(frozen=True, slots=True)
class AuditRow:
    """A task's first case manifest on each side and the audit state of every hashed part."""

    task: str
    candidate: CaseManifest | None
    baseline: CaseManifest | None
    states: Mapping[str, str]  # part (AUDIT_PARTS) -> key of PART_STATES

    def to_json(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "candidate": self.candidate.to_json() if self.candidate else None,
            "baseline": self.baseline.to_json() if self.baseline else None,
            "states": dict(self.states),
        }


@dataclass(frozen=True, slots=True)
class TaskOutcome:
    """One task's strictly matched repetitions and each side's passes among them."""

    task: str
    reps: tuple[int, ...]
    pairs: int
    candidate_passes: int
    baseline_passes: int

    @property
    def difference(self) -> float | None:
        """Candidate − baseline difference in matched pass rate; None without pairs."""
        return (self.candidate_passes - self.baseline_passes) / self.pairs if self.pairs else None

    def passes(self, side: Side) -> int:
        return self.candidate_passes if side == "candidate" else self.baseline_passes

    def to_json(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "reps": list(self.reps),
            "pairs": self.pairs,
            "candidate_passes": self.candidate_passes,
            "baseline_passes": self.baseline_passes,
        }


@dataclass(frozen=True, slots=True)
class RunEntry:
    """One report of a compared treatment as the task page lists it (paired or not)."""

    side: Side
    task: str
    rep: int
    file: str
    passed: bool
    checks_failed: tuple[str, ...]
    quality: Quality
    manifest: CaseManifest
    manifest_valid: bool
    paired: bool
    artifact: Artifact | None  # None: its raw stdout was not read (an unpaired run)
    provenance: tuple[tuple[str, str], ...] = ()  # the report's upstream identities, (key, value)

    @property
    def artifact_status(self) -> str:
        return self.artifact.status if self.artifact else "not-read"

    @property
    def artifact_reason(self) -> str | None:
        return self.artifact.reason if self.artifact else None

    @property
    def telemetry(self) -> Mapping[str, Any] | None:
        return self.artifact.telemetry if self.artifact else None

    @property
    def reported(self) -> Mapping[str, Any] | None:
        return self.artifact.reported if self.artifact else None

    def to_json(self) -> dict[str, Any]:
        telemetry, reported = self.telemetry, self.reported
        reported_json: dict[str, Any] | None = None
        if reported is not None:
            reported_json = {name: reported.get(name) for name in (*TELEMETRY_FIELDS, *REPORTED_ONLY_FIELDS)}
            reported_json["source"] = str(reported.get("source") or REPORTED_SOURCE_LABEL)
        return {
            "side": self.side,
            "task": self.task,
            "rep": self.rep,
            "file": self.file,
            "passed": self.passed,
            "checks_failed": list(self.checks_failed),
            "quality": self.quality.to_json(),
            "manifest": {
                "valid": self.manifest_valid,
                "source": self.manifest.source,
                "case_hash": self.manifest.case_hash,
                "core_hash": self.manifest.core_hash,
            },
            "paired": self.paired,
            "artifact": self.artifact_status,
            "artifact_reason": self.artifact_reason,
            "telemetry": None if telemetry is None else {name: telemetry.get(name) for name in TELEMETRY_FIELDS},
            "reported_telemetry": reported_json,
            "provenance": dict(self.provenance),
        }


@dataclass(frozen=True, slots=True)
class EfficiencyTables:
    """The two efficiency tables: pairs where both sides passed, and every aligned pair."""

    strict_success: EfficiencyTable
    all_aligned: EfficiencyTable

    def named(self) -> tuple[tuple[str, EfficiencyTable], ...]:
        """(document key, table), in page order."""
        return (("strict_success", self.strict_success), ("all_aligned", self.all_aligned))

    def to_json(self) -> dict[str, Any]:
        return {name: table.to_json() for name, table in self.named()}


@dataclass(frozen=True, slots=True)
class RebasedRun:
    """A paired run whose raw stdout was found by rebasing its artifact reference."""

    side: Side
    task: str
    rep: int
    file: str

    def to_json(self) -> dict[str, Any]:
        return {"side": self.side, "task": self.task, "rep": self.rep, "file": self.file}


@dataclass(frozen=True)
class ComparisonView:
    """Everything a comparison's renderings and pages show, typed; lists in the document's order.

    ``pairs`` and ``runs`` may make their entries as they are read (memory flat in the runs).
    """

    ks: tuple[int, ...]
    expected_keys: int
    tasks: tuple[str, ...]
    sides: Mapping[Side, SideSummary]
    pairs: Sequence[PairOutcome]
    issues: tuple[Issue, ...]
    issue_counts: Mapping[str, int]  # reason -> issues, reasons sorted
    metrics: Mapping[Side, Mapping[int, MacroMetrics]]
    matched: Mapping[Side, Matched]
    duration: Mapping[Side, DurationSummary]
    efficiency: EfficiencyTables
    limitations: Limitations
    statistics: ExperimentComparison | None
    manifest_audit: tuple[AuditRow, ...]
    audit_summary: Mapping[str, Mapping[str, int]]  # part -> state -> tasks (states that occur)
    task_outcomes: tuple[TaskOutcome, ...]
    runs: Sequence[RunEntry]  # (side, task, rep, file) order
    rebased_runs: tuple[RebasedRun, ...] = ()
    rebase_artifacts: bool = False
    skipped_reports: tuple[SkippedReport, ...] = ()
    price: Price = Price()  # cost and duration of both sides over the matched runs (issue 28)
    scores: ScoreSection | None = None  # metric mean, or a log's several scorers (issue 29)

    @property
    def decision(self) -> Verdict | None:
        """The verdict that decides (the mean score's under ``metric: mean``, else pass@1's); None
        without matched pairs."""
        return deciding_verdict(self.statistics, self.scores)

    @property
    def imported(self) -> bool:
        """True when either side is in an imported format (not Comet)."""
        return any(side.imported for side in self.sides.values())
