"""What the Comet reader produces: runs, their manifests and quality, experiments, raw artifacts.

These are the types that the reader (``generator.read.comet``) builds, the
analysis (``generator.analyze.comparison``) pairs and measures, and the renderers
(``generator.render.comparison``) print.  Plain immutable data: reading,
verifying and hashing stay in the reader.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from generator.model.cases import MatrixCases, MatrixKeys, reps_of
from generator.model.common import Side, cap_text, sha256_bytes
from generator.model.formats import NOT_HASHED
from generator.model.logs import SideLogs

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
    "MatrixCases",
    "MatrixKeys",
    "MatrixLoad",
    "Quality",
    "ReportSummary",
    "RunRecord",
    "SkippedReport",
    "Telemetry",
    "artifact_reference",
    "part_state",
    "report_summary",
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

    def field_value(self, key: str) -> str | None:
        """A field as the document's manifest object names it: ``source``, ``schema``, or a hash (``value``)."""
        if key == "source":
            return self.source
        if key == "schema":
            return self.schema
        return self.value(key)

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
    cases: Sequence[tuple[str, str, int]]  # (task, treatment, rep), canonical order; kept as MatrixCases
    # keys_for's answers, made once per treatment (a set of every key is not rebuilt per caller)
    _keys: dict[str, MatrixKeys] = field(default_factory=dict, compare=False, repr=False, hash=False)

    def __post_init__(self) -> None:
        if not isinstance(self.cases, MatrixCases):
            object.__setattr__(self, "cases", MatrixCases(self.cases))

    def keys_for(self, treatment: str) -> MatrixKeys:
        keys = self._keys.get(treatment)
        if keys is None:
            found: dict[str, list[Sequence[int]]] = {}
            assert isinstance(self.cases, MatrixCases)
            for task, t, reps in self.cases.groups():
                if t == treatment:
                    found.setdefault(task, []).append(reps)
            by_task = {
                task: parts[0]
                if len(parts) == 1 and (isinstance(parts[0], range) or len(set(parts[0])) == len(parts[0]))
                else reps_of(sorted({rep for part in parts for rep in part}))
                for task, parts in found.items()
            }
            keys = self._keys.setdefault(treatment, MatrixKeys(by_task))  # type: ignore[arg-type]
        return keys


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

#: The parts of a Comet report that anything reads once the report is loaded: the outcome, the
#: identity the artifact binder checks, the provenance, the importers' fields, and from
#: ``events_summary`` only the artifact references and the reported figures.
_SUMMARY_KEYS: Final = (
    "name",
    "rep",
    "passed",
    "checks_failed",
    "model",
    "source",
    "agent_stdout",
    "trial_name",
    "reported_telemetry",
)
_PROVENANCE_SOURCE_KEYS: Final = ("run", "trial_name", "failure_mode", "agent_run_id")
_ARTIFACT_KEYS: Final = ("raw_stdout", "raw_stderr")


#: Where a summary keeps a report's resolved artifact reference: a key that is not a string, so
#: no JSON report can hold it.
_REFERENCE_KEYS: Final = {key: ("artifact reference", key) for key in _ARTIFACT_KEYS}


def _bound_reference(report: Mapping[str, Any], key: str) -> str | None:
    """``events_summary.artifact_references[key]`` when it is a non-empty string, else None."""
    events = report.get("events_summary")
    refs = events.get("artifact_references") if isinstance(events, dict) else None
    value = refs.get(key) if isinstance(refs, dict) else None
    return value if isinstance(value, str) and value else None


def artifact_reference(report: Mapping[str, Any], key: str) -> str | None:
    """The report's reference to its ``raw_stdout`` or ``raw_stderr`` file, or None.

    The one reading of ``events_summary.artifact_references``, for a whole report and for its
    :func:`report_summary` (which keeps the resolved reference alone).
    """
    held = report.get(_REFERENCE_KEYS[key])  # type: ignore[call-overload]
    return held if held is not None else _bound_reference(report, key)


_SHAPES: dict[tuple[Any, ...], dict[Any, int]] = {}  # a summary's keys -> their positions, shared by every run


@dataclass(frozen=True, slots=True)
class _FromRun:
    """A summary value that a run's own task and file name give (kept as this marker, shared by
    the runs it fits, instead of a string per run): ``head + task + tail`` (``cut`` < 0), or
    ``head + file[: len(file) - cut] + tail``."""

    head: str
    cut: int
    tail: str

    def value(self, task: str, file: str) -> str:
        if self.cut < 0:
            return self.head + task + self.tail
        return self.head + file[: len(file) - self.cut] + self.tail


def _from_run(value: Any, task: str, file: str, markers: dict[Any, Any]) -> Any:
    """``value`` as a shared :class:`_FromRun` when the run's task or file name gives it exactly."""
    if type(value) is not str or not value:
        return value
    marker: _FromRun | None = None
    if task and value.startswith(task):
        marker = _FromRun("", -1, value[len(task) :])
    else:
        base = file[: -len("_report.json")] if file.endswith("_report.json") else _stem_of(file)
        at = value.find(base) if base else -1
        if at >= 0:
            marker = _FromRun(value[:at], len(file) - len(base), value[at + len(base) :])
    if marker is None or marker.value(task, file) != value:
        return value
    return markers.setdefault(("from run", marker), marker)


def _stem_of(file_name: str) -> str:
    dot = file_name.rfind(".")
    return file_name[:dot] if dot > 0 else file_name


class ReportSummary(Mapping[Any, Any]):
    """A read-only mapping of a few keys (what :func:`report_summary` keeps of one report).

    Per run it holds four references: the keys' positions (shared by every summary with the same
    keys), a tuple of values (shared by every run with equal values, see :meth:`shared_in`), and
    the run's task and report file name, which give the values kept as :class:`_FromRun` markers
    (the report's ``name``, its artifact reference) -- a tuple and two strings per run would cost
    four times the memory (issue 16).
    """

    __slots__ = ("_file", "_shape", "_task", "_values")

    def __init__(self, items: Mapping[Any, Any], *, task: str = "", file: str = "") -> None:
        keys = tuple(items)
        shape = _SHAPES.get(keys)
        if shape is None:
            shape = _SHAPES.setdefault(keys, {key: index for index, key in enumerate(keys)})
        self._shape = shape
        self._values = tuple(items.values())
        self._task, self._file = task, file

    def _resolve(self, value: Any) -> Any:
        return value.value(self._task, self._file) if type(value) is _FromRun else value

    def __getitem__(self, key: Any) -> Any:
        return self._resolve(self._values[self._shape[key]])

    def get(self, key: Any, default: Any = None) -> Any:
        index = self._shape.get(key)
        return default if index is None else self._resolve(self._values[index])

    def __contains__(self, key: object) -> bool:
        return key in self._shape

    def __iter__(self) -> Iterator[Any]:
        return iter(self._shape)

    def __len__(self) -> int:
        return len(self._values)

    def shared_in(self, kept: dict[Any, Any], task: str, file: str) -> ReportSummary:
        """This summary with its values tuple replaced by an equal one already in ``kept`` (or kept
        there), so runs of one load whose kept values are alike share one tuple, and with the
        record's own ``task`` and ``file`` strings (equal to the summary's: one string each per
        run).  Values compare with their types (``1``, ``1.0`` and ``True`` stay apart);
        unhashable ones are never shared."""
        if (task, file) != (self._task, self._file):
            raise ValueError("a summary is shared only with the names of its own run")
        values = self._values
        try:
            values = kept.setdefault(("summary values", tuple(map(type, values)), values), values)
        except TypeError:  # a list or dict among the values
            pass
        out = ReportSummary.__new__(ReportSummary)
        out._shape, out._values, out._task, out._file = self._shape, values, task, file
        return out

    def __reduce__(self) -> tuple[Any, ...]:
        # keys, values (markers included) and the run's names as they are kept
        return (_report_summary, (tuple(self._shape), self._values, self._task, self._file))

    def __repr__(self) -> str:
        return f"ReportSummary({dict(self)!r})"


def _report_summary(keys: tuple[Any, ...], values: tuple[Any, ...], task: str = "", file: str = "") -> ReportSummary:
    """A :class:`ReportSummary` from its kept form (unpickling): the keys' shape is shared again."""
    return ReportSummary(dict(zip(keys, values, strict=True)), task=task, file=file)


def report_summary(
    report: Mapping[str, Any], shared: dict[Any, Any] | None = None, *, task: str = "", file: str = ""
) -> ReportSummary:
    """What a run keeps of its parsed report (the rest is dropped once the run is read).

    Every later reader sees the same values it would read from the whole report: the keys of
    :data:`_SUMMARY_KEYS` as they are (``source`` cut to the provenance keys); of
    ``events_summary`` only the keys :func:`~generator.read.comet.telemetry.reported_telemetry`
    maps (the key is left out when none is there: that reads as no reported figure), and the
    artifact references as :func:`artifact_reference` resolves them.  ``shared`` interns equal
    ``checks_failed`` lists as one tuple across the runs of a load.  With the run's ``task`` and
    report ``file`` name, a ``name`` or reference that they give is kept as a shared marker.
    """
    out: dict[Any, Any] = {}
    for key in _SUMMARY_KEYS:
        if key in report:
            out[key] = report[key]
    failed = out.get("checks_failed")
    if isinstance(failed, list) and all(type(item) is str for item in failed):
        kept = tuple(failed)
        out["checks_failed"] = kept if shared is None else shared.setdefault(("checks", kept), kept)
    source = out.get("source")
    if isinstance(source, dict):
        out["source"] = {key: source[key] for key in _PROVENANCE_SOURCE_KEYS if key in source}
    events = report.get("events_summary")
    if isinstance(events, dict):
        figures = {key: events[key] for key in events if key in REPORTED_FIELDS}
        if figures:
            out["events_summary"] = figures
    for key in _ARTIFACT_KEYS:
        reference = _bound_reference(report, key)
        if reference is not None:
            out[_REFERENCE_KEYS[key]] = reference
    if task or file:
        markers = {} if shared is None else shared
        for key in ("name", *_REFERENCE_KEYS.values()):  # type: ignore[assignment]
            if key in out:
                out[key] = _from_run(out[key], task, file, markers)
    return ReportSummary(out, task=task, file=file)


@dataclass(frozen=True, slots=True)
class RunRecord:
    """One report of the compared treatment, with everything derived from it.

    ``report`` is what the run keeps of its report: the whole parsed report for imported formats,
    :func:`report_summary` of it for Comet reports (a comparison of many runs holds no whole report).
    """

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
        return self.report.get("passed") is True and isinstance(failed, (list, tuple)) and not failed

    @property
    def checks_failed(self) -> tuple[str, ...]:
        """The failed checks, each cut to :data:`REPORT_TEXT_CAP` characters (the cut disclosed)."""
        failed = self.report.get("checks_failed")
        if not isinstance(failed, (list, tuple)):
            return ()
        return tuple(cap_text(str(item), REPORT_TEXT_CAP) for item in failed)


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
    logs: SideLogs | None = None  # an imported side's logs, their run status and how they merged


@dataclass(frozen=True, slots=True)
class Artifact:
    """Outcome of reading one run's raw stdout for telemetry."""

    status: str  # verified | rebased | no-result-event | absent | rejected | reported
    reason: str | None
    telemetry: Mapping[str, Any] | None  # re-derived from raw stdout only
    # what the harness reported (TELEMETRY_FIELDS + REPORTED_ONLY_FIELDS, numbers or None; "source"
    # says who reported it); never merged into ``telemetry``
    reported: Mapping[str, Any] | None = None
