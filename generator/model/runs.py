"""What the Comet reader produces: runs, their manifests and quality, experiments, raw artifacts.

These are the types that the reader (``generator.read.comet``) builds, the
analysis (``generator.analyze.comparison``) pairs and measures, and the renderers
(``generator.render.comparison``) print.  Plain immutable data: reading,
verifying and hashing stay in the reader.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from generator.model.common import Side, cap_text, sha256_bytes
from generator.model.formats import NOT_HASHED

__all__ = [
    "CORE_PARTS",
    "EFFICIENCY_FIELDS",
    "EXTRA_FIELDS",
    "FALLBACK_SOURCE",
    "MISSING_PATH_HASH",
    "PART_STATES",
    "REPORTED_FIELDS",
    "REPORTED_ONLY_FIELDS",
    "TELEMETRY_FIELDS",
    "V2_PARTS",
    "Artifact",
    "CaseManifest",
    "ExpectedMatrix",
    "Experiment",
    "Key",
    "MatrixLoad",
    "Quality",
    "RunRecord",
    "SkippedReport",
    "Telemetry",
    "part_state",
    "task_folder_problem",
]

#: Report text fields (a failed check's name) are cut to this many characters, the cut disclosed with the
#: digest of the whole, so one huge field cannot bloat the document, the pages or ``compare`` output.
REPORT_TEXT_CAP = 2_000

#: A run's identity within one side: (task, repetition).
Key = tuple[str, int]

# --------------------------------------------------------------------------- case manifests

# The six task-core components (every manifest), then what v2 adds.
CORE_PARTS: Final = tuple(
    f"{name}_hash" for name in ("task", "instruction", "validator", "environment", "data", "prompt")
)
V2_PARTS: Final = CORE_PARTS + tuple(f"{name}_hash" for name in ("runner", "controller", "execution"))
FALLBACK_SOURCE: Final = "current-task-tree-fallback"
#: The tree hash of a path that does not exist (Comet feeds ``missing\0``): proves nothing.
MISSING_PATH_HASH: Final = sha256_bytes(b"missing\0")

#: The audit state of one hashed part, compared across the two sides, with its words.
PART_STATES: Final = {
    "same": "same",
    "differs": "differs",
    "missing-both": "not hashed (missing on both sides)",
    "missing-candidate": "missing on the candidate side",
    "missing-baseline": "missing on the baseline side",
    "not-hashed": "not hashed",
    "not-recorded": "not recorded (v1 manifest)",
    "one-sided": "recorded on one side only",
    "no-record": "N/A (one side has no record)",
}
MAX_NAME_BYTES: Final = 255  # NAME_MAX on Linux, macOS and Windows file systems


def task_folder_problem(task: str) -> str | None:
    """Why ``task`` cannot name one folder of a tasks tree, or None when it can.

    Such a task's tasks-tree paths hash as missing (exactly as for a task the
    tree lacks) and its instruction is not looked up.
    """
    if not task or task in (".", "..") or any(char in task for char in "/\\\0"):
        return "the task name is empty, '.', '..' or holds a path separator or NUL"
    try:
        size = len(task.encode("utf-8"))
    except UnicodeEncodeError:
        return "the task name is not valid Unicode"
    if size > MAX_NAME_BYTES:
        return f"the task name is {size} bytes long, over the {MAX_NAME_BYTES}-byte file-name limit"
    return None


@dataclass(frozen=True)
class CaseManifest:
    """A verified (or rebuilt) manifest.  ``source`` says which."""

    task: str
    source: str  # report-bound-v1 | report-bound-v2 | current-task-tree-fallback
    schema: str
    components: Mapping[str, str]  # the six core hashes, plus runner/controller/execution for v2
    case_hash: str  # as verified (embedded) or computed (fallback)
    core_hash: str  # derived; compares a v1 record with a v2 one
    # parts whose every input was missing when a fallback was hashed (recorded at hashing time)
    missing: frozenset[str] = frozenset()
    task_files: bool = True  # False: a fallback rebuilt without a tasks folder

    def value(self, part: str) -> str | None:
        """A component, or the case/core hash."""
        if part == "case_hash":
            return self.case_hash
        if part == "core_hash":
            return self.core_hash
        return self.components.get(part)

    def part_missing(self, part: str) -> bool:
        """True when ``part`` hashes a path that did not exist.

        A fallback records this while hashing; for a report-bound manifest a part equal to
        :data:`MISSING_PATH_HASH` (the hash of a missing path) is missing.
        """
        if part in self.missing:
            return True
        return self.run_bound and self.components.get(part) == MISSING_PATH_HASH

    @property
    def run_bound(self) -> bool:
        return self.source != FALLBACK_SOURCE

    @property
    def execution_bound(self) -> bool:
        return self.source == "report-bound-v2"

    def get(self, part: str) -> str | None:
        return self.components.get(part)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "source": self.source,
            "schema": self.schema,
            "case_hash": self.case_hash,
            "core_hash": self.core_hash,
        }
        for part in V2_PARTS:
            out[part] = self.components.get(part)
        out["missing_parts"] = [part for part in V2_PARTS if self.part_missing(part)]
        if not self.run_bound:
            out["task_files_available"] = self.task_files
        return out


def part_state(part: str, candidate: CaseManifest | None, baseline: CaseManifest | None) -> str:
    """The audit state of one hashed part (a key of :data:`PART_STATES`); never "same" unless compared."""
    if candidate is None or baseline is None:
        return "no-record"
    if NOT_HASHED in (candidate.case_hash, baseline.case_hash):
        return "not-hashed"  # paired by task and repetition only: nothing was compared
    c_value, b_value = candidate.value(part), baseline.value(part)
    if NOT_HASHED in (c_value, b_value):
        return "not-hashed"
    c_missing, b_missing = candidate.part_missing(part), baseline.part_missing(part)
    if c_missing and b_missing:
        return "missing-both"
    if c_missing or b_missing:
        return "missing-candidate" if c_missing else "missing-baseline"
    if c_value is None and b_value is None:
        comet = all(m.schema.startswith("comet.eval.") for m in (candidate, baseline))
        return "not-recorded" if comet and part in V2_PARTS and part not in CORE_PARTS else "not-hashed"
    if c_value is None or b_value is None:
        return "one-sided"
    return "same" if c_value == b_value else "differs"


# --------------------------------------------------------------------------- sample quality


@dataclass(frozen=True)
class Quality:
    status: str
    reason_code: str
    reason: str
    include_in_analysis: bool
    confidence: str
    evidence: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "reason_code": self.reason_code,
            "include_in_analysis": self.include_in_analysis,
            "confidence": self.confidence,
        }


# --------------------------------------------------------------------------- expected case matrix


@dataclass(frozen=True)
class ExpectedMatrix:
    matrix_hash: str
    cases: tuple[tuple[str, str, int], ...]  # (task, treatment, rep), canonical order

    def keys_for(self, treatment: str) -> frozenset[Key]:
        return frozenset((task, rep) for task, t, rep in self.cases if t == treatment)


@dataclass(frozen=True)
class MatrixLoad:
    """Outcome of looking for a matrix: absent, valid, or invalid with a reason."""

    matrix: ExpectedMatrix | None = None
    error: str | None = None

    @property
    def status(self) -> str:
        if self.matrix is not None:
            return "report-bound"
        return "invalid" if self.error else "historical-fallback"


# --------------------------------------------------------------------------- telemetry

#: One run's telemetry re-derived from raw stdout (numbers or None), or None when unavailable.
Telemetry = Mapping[str, Any] | None

# Telemetry fields a comparison can use, in the order reports list them.
EFFICIENCY_FIELDS: Final = (
    "subject_invocations",
    "num_turns",
    "tool_calls",
    "duration_seconds",
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "total_tokens",
    "total_cost_usd",
    "peak_context_input_tokens",
    "p95_context_input_tokens",
    "peak_context_occupancy_pct",
)
EXTRA_FIELDS: Final = (
    "cache_creation_input_tokens",
    "average_context_input_tokens",
    "peak_context_window_tokens",
)
TELEMETRY_FIELDS: Final = (*EFFICIENCY_FIELDS, *EXTRA_FIELDS)

#: Figures a harness reports but raw stdout does not give (reported telemetry only).
REPORTED_ONLY_FIELDS: Final = (
    "agent_duration_seconds",
    "api_calls",
    "tool_time_seconds",
    "output_tokens_reported",
    "user_sim_cost_usd",
)
#: ``events_summary`` key -> telemetry field, for the numbers a report carries (docs/comparison-json.md).
#: The telemetry field names themselves are accepted too (Comet's own ``events_summary``).
REPORTED_FIELDS: Final = {
    "duration_s": "duration_seconds",
    "agent_duration_s": "agent_duration_seconds",
    "cost_usd": "total_cost_usd",
    "turns": "num_turns",
    "tool_time_s": "tool_time_seconds",
    **{name: name for name in (*TELEMETRY_FIELDS, *REPORTED_ONLY_FIELDS)},
}


# --------------------------------------------------------------------------- runs and experiments


@dataclass(frozen=True)
class RunRecord:
    """One report of the compared treatment, with everything derived from it."""

    side: Side
    task: str
    rep: int
    file: str  # report file name inside reports/
    report: Mapping[str, Any]
    manifest: CaseManifest
    manifest_valid: bool
    quality: Quality

    @property
    def key(self) -> Key:
        return (self.task, self.rep)

    @property
    def passed(self) -> bool:
        """Passed only when ``passed`` is true and ``checks_failed`` is an empty list."""
        failed = self.report.get("checks_failed")
        return self.report.get("passed") is True and isinstance(failed, list) and not failed

    @property
    def checks_failed(self) -> tuple[str, ...]:
        """The failed checks, each cut to :data:`REPORT_TEXT_CAP` characters (the cut disclosed)."""
        failed = self.report.get("checks_failed")
        return tuple(cap_text(str(item), REPORT_TEXT_CAP) for item in failed) if isinstance(failed, list) else ()


@dataclass(frozen=True)
class SkippedReport:
    side: Side
    file: str
    reason: str


@dataclass(frozen=True)
class Experiment:
    side: Side
    treatment: str
    root: Path  # resolved folder; never printed
    label: str  # folder name, safe to print
    records: tuple[RunRecord, ...]
    skipped: tuple[SkippedReport, ...]
    matrix: MatrixLoad


@dataclass(frozen=True)
class Artifact:
    """Outcome of reading one run's raw stdout for telemetry."""

    status: str  # verified | rebased | no-result-event | absent | rejected | reported
    reason: str | None
    telemetry: Mapping[str, Any] | None  # re-derived from raw stdout only
    # what the harness reported (TELEMETRY_FIELDS + REPORTED_ONLY_FIELDS, numbers or None; "source"
    # says who reported it); never merged into ``telemetry``
    reported: Mapping[str, Any] | None = None
