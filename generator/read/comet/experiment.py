"""Comet experiment directories: reports, their identity, and their raw artifacts.

Only ``reports/*.json`` (top level, sorted by file name) defines the runs of an
experiment.  A report belongs to treatment ``T`` when its ``name`` reads
``<task>-<T>`` with an optional ``-r<N>`` repetition suffix; reports of other
treatments are ignored.  The repetition is, in order of precedence, the
``_sample<N>_from_<source>`` marker of a combined experiment's report file
name, the name's ``-r<N>``, then the report's ``rep`` field.

A report's raw stdout is reached only through its own
``events_summary.artifact_references`` entry and only when that file is bound
to the same task and repetition by its name and lies inside the experiment
(or, for a combined report, inside the named sibling source experiment),
with every folder on the way a real folder.  With ``rebase`` on, a reference
that fails those rules is looked up once more by its exact expected file name
in the experiment's own ``raw/`` folder, under the same rules, and the run is
marked as rebased.  Report files that cannot be read or parsed are kept as
:class:`SkippedReport` entries so they can be disclosed; so are reports that
hold text that is not valid Unicode (a lone surrogate such as ``"\\ud800"``,
which no page or JSON file can carry), a non-finite number (``NaN``,
``Infinity``, ``1e309``) or an integer too long to parse, and report files
whose own name is not valid UTF-8.
"""

from __future__ import annotations

import difflib
import json
import math
import os
import re
import stat
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from generator.model.common import Side
from generator.model.errors import EvalsiteError
from generator.model.packed import ArtifactTable, TelemetryValues
from generator.model.runs import (
    Artifact,
    CaseManifest,
    Experiment,
    MatrixLoad,
    Quality,
    ReportSummary,
    RunRecord,
    SkippedReport,
    artifact_reference,
    report_summary,
)
from generator.read.comet.manifest import raw_manifest_of, verify_embedded
from generator.read.comet.matrix import load_matrix
from generator.read.comet.quality import sample_quality
from generator.read.comet.telemetry import InvalidTelemetry, extract_telemetry, reported_telemetry
from generator.read.jsonfast import has_long_digit_run, shallow
from generator.read.safe_io import Refusal, is_real_directory, read_contained, real_folder_info

MAX_REPORT_BYTES = 16 * 1024 * 1024
MAX_RAW_BYTES = 64 * 1024 * 1024
MAX_REPETITION = 10**9  # a larger repetition number is not a real run
_SAMPLE_MARK = re.compile(r"_sample(?P<rep>\d+)_from_")
_COMBINED_STEM = re.compile(r"_sample(?P<rep>\d+)_from_(?P<source>[A-Za-z0-9._-]+)$")
_ARTIFACT_SUFFIX = {"raw_stdout": "_stdout.json", "raw_stderr": "_stderr.txt"}

__all__ = [
    "Artifact",
    "ArtifactBinder",
    "Experiment",
    "ExperimentPlan",
    "LoadedRun",
    "RunRecord",
    "SkippedReport",
    "finish_experiment",
    "load_experiment",
    "open_experiment",
    "read_report",
    "read_run_telemetry",
    "treatment_hint",
]


class _Identity:
    """Parses ``(task, rep)`` from a report for one treatment."""

    def __init__(self, treatment: str) -> None:
        self.pattern = re.compile(rf"^(?P<task>.+)-{re.escape(treatment)}(?:-r(?P<rep>\d+))?$")

    def matches(self, report: Mapping[str, Any]) -> re.Match[str] | None:
        return self.pattern.match(str(report.get("name") or ""))

    @staticmethod
    def repetition(match: re.Match[str], report: Mapping[str, Any], stem: str) -> int | None:
        sample = _SAMPLE_MARK.search(stem)
        if sample:
            raw: Any = sample.group("rep")
        elif match.group("rep") is not None:
            raw = match.group("rep")
        else:
            raw = report.get("rep", 1)
        return _positive_int(raw)


def _is_within(path: str, folder: str) -> bool:
    """Lexical containment, like ``PurePath.is_relative_to`` on normalised paths."""
    folder = folder.rstrip(os.sep) or os.sep
    return path == folder or path.startswith(folder if folder == os.sep else folder + os.sep)


def _positive_int(raw: Any) -> int | None:
    """``int(raw)`` if that works and gives at least 1; bools are refused."""
    if isinstance(raw, bool):
        return None
    try:
        value = int(raw)
    except (TypeError, ValueError, OverflowError):
        return None
    return value if 1 <= value <= MAX_REPETITION else None


def _unusable_value(report: Any) -> str | None:
    """Why a decoded report cannot be shown or written, or None (an explicit stack: no recursion)."""
    stack = [report]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, str):
            if not value.isascii():
                try:
                    value.encode("utf-8")
                except UnicodeEncodeError:
                    return "holds text that is not valid Unicode (a lone surrogate)"
        elif isinstance(value, float) and not math.isfinite(value):
            return "holds a number that is not finite (NaN or an infinity)"
    return None


def _decode_report(data: bytes) -> Mapping[str, Any] | str:
    """The report object, or the reason it cannot be used.

    The value and the verdict are those of :func:`decode_report_stdlib`: orjson reads the report
    when the text holds no run of 19 digits (the only values it would read otherwise) and cannot
    nest past the standard library's limit; it refuses lone surrogates, NaN, infinities and
    ``1e309``, so a report it reads has nothing unusable.  Anything else is read by the standard
    library.
    """
    if shallow(data) and not has_long_digit_run(data):  # orjson reads it as json does (read/jsonfast.py)
        try:
            fast = orjson.loads(data)
        except orjson.JSONDecodeError:
            pass  # also for text that is not UTF-8: the reference says which
        else:
            return fast if isinstance(fast, dict) else "not a JSON object"
    return decode_report_stdlib(data)


def decode_report_stdlib(data: bytes) -> Mapping[str, Any] | str:
    """:func:`_decode_report` by the standard library alone (the reference the fast path keeps to)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "not valid UTF-8"
    try:
        report = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return "not valid JSON"
    except ValueError:  # an integer longer than Python parses
        return "not usable: it holds an integer with too many digits"
    if not isinstance(report, dict):
        return "not a JSON object"
    problem = _unusable_value(report)
    return f"not usable: it {problem}" if problem else report


def _readable_name(file_name: str) -> str | None:
    """None for a valid UTF-8 file name, else the name with its undecodable bytes escaped."""
    try:
        file_name.encode("utf-8")
    except UnicodeEncodeError:
        return file_name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return None


def _stem(file_name: str) -> str:
    """``PurePath(name).stem`` for a plain file name, without building a path."""
    dot = file_name.rfind(".")
    return file_name[:dot] if dot > 0 else file_name


def _report_files(reports_dir: Path) -> list[str]:
    try:
        with os.scandir(reports_dir) as entries:
            return sorted(entry.name for entry in entries if entry.name.endswith(".json"))
    except OSError:
        return []


_REPETITION_SUFFIX = re.compile(r"-r\d+$")
_LOOKED_AT = 200  # report files read for a hint, at most
_SHOWN_NAMES = 8


def treatment_hint(directory: Path, treatment: str) -> str:
    """Why a treatment has no reports here, in a few words: the treatments the report files name
    (and the closest one), or the folders inside that are experiments.  Empty when nothing helps.

    A report's ``name`` is ``<task>-<TREATMENT>[-r<N>]``; the treatment is taken as its last ``-``
    part, as Comet names treatments (no ``-`` in them), from the first 200 report files.  Names
    only, never a path.
    """
    reports = directory / "reports"
    if not is_real_directory(reports):
        try:
            inside = sorted(e.name for e in os.scandir(directory) if is_real_directory(os.path.join(e.path, "reports")))
        except OSError:
            return ""
        if not inside:
            return ""
        return f"; it has no reports/ folder, but these folders inside it do: {_names(inside)}"
    root = str(reports.resolve())
    named: set[str] = set()
    for file_name in _report_files(reports)[:_LOOKED_AT]:
        data = read_contained(os.path.join(root, file_name), root, max_bytes=MAX_REPORT_BYTES, root_is_resolved=True)
        report = decode_report_stdlib(data) if isinstance(data, bytes) else None
        name = report.get("name") if isinstance(report, Mapping) else None
        if isinstance(name, str):
            named.add(_REPETITION_SUFFIX.sub("", name).rpartition("-")[2])
    found = sorted(name for name in named if name and name.isprintable())
    if not found:
        return ""
    closest = difflib.get_close_matches(treatment, found, n=1, cutoff=0.6)
    guess = f" (did you mean {closest[0][:60]!r}?)" if closest else ""
    return f"; treatments found: {_names(found)}{guess}"


def _names(names: list[str]) -> str:
    shown = ", ".join(name[:60] for name in names[:_SHOWN_NAMES])
    return shown + (f" and {len(names) - _SHOWN_NAMES} more" if len(names) > _SHOWN_NAMES else "")


@dataclass(frozen=True, slots=True)
class ExperimentPlan:
    """An opened experiment: its folder and the report files to read (see :func:`open_experiment`)."""

    side: Side
    treatment: str
    root: Path
    label: str
    reports_dir: str  # resolved; "" when the experiment has no reports/ folder
    names: tuple[str, ...]  # report file names, sorted


#: What :func:`read_report` gives for one report of the compared treatment: task, rep, file name,
#: summary, manifest (None: the task's fallback is needed), manifest valid, quality, and the run's
#: artifact when telemetry was read with it.
LoadedRun = tuple[str, int, str, ReportSummary, CaseManifest | None, bool, Quality, Artifact | None]

_IDENTITIES: dict[str, _Identity] = {}


def open_experiment(side: Side, directory: Path, treatment: str) -> ExperimentPlan:
    """Check an experiment folder and list its report files (raises what :func:`load_experiment` raises first)."""
    if not directory.exists():
        raise EvalsiteError(f"{side} experiment folder {directory.name!r} does not exist")
    if not directory.is_dir():
        raise EvalsiteError(f"{side} experiment {directory.name!r} is not a folder")
    root = directory.resolve()
    reports_dir = root / "reports"
    if is_real_directory(reports_dir):
        reports_text, names = str(reports_dir), tuple(_report_files(reports_dir))
    elif reports_dir.exists() or reports_dir.is_symlink():
        raise EvalsiteError(f"{side} experiment {directory.name!r}: reports/ is not a real folder")
    else:
        reports_text, names = "", ()
    return ExperimentPlan(side, treatment, root, directory.name or root.name, reports_text, names)


def read_report(
    plan: ExperimentPlan, name: str, shared: dict[Any, Any], *, telemetry: bool = False, rebase: bool = False
) -> LoadedRun | SkippedReport | None:
    """One report file of ``plan``: its run, why it is skipped, or None for another treatment's report.

    With ``telemetry``, the run's raw stdout is read at once too (:func:`read_run_telemetry`, from
    the whole report: the same reference and names its summary resolves).  ``shared`` interns equal
    values across the reports of one reader (qualities, failed checks).
    """
    side = plan.side
    shown = _readable_name(name)
    if shown is not None:
        return SkippedReport(side, shown, "report file name is not valid UTF-8")
    reports_text = plan.reports_dir
    data = read_contained(
        os.path.join(reports_text, name), reports_text, max_bytes=MAX_REPORT_BYTES, root_is_resolved=True
    )
    if isinstance(data, Refusal):
        return SkippedReport(side, name, f"report file {data.reason}")
    report = _decode_report(data)
    if isinstance(report, str):
        return SkippedReport(side, name, f"report is {report}")
    identity = _IDENTITIES.get(plan.treatment)
    if identity is None:
        identity = _IDENTITIES.setdefault(plan.treatment, _Identity(plan.treatment))
    match = identity.matches(report)
    if match is None:
        return None  # another treatment's report
    rep = identity.repetition(match, report, _stem(name))
    if rep is None:
        return SkippedReport(side, name, "report has an invalid repetition")
    task = sys.intern(match.group("task"))
    raw_manifest = raw_manifest_of(report)
    manifest = verify_embedded(raw_manifest, task)
    valid = manifest is not None or raw_manifest is None
    if manifest is not None:  # equal manifests of a batch's runs kept (and sent from a worker) once
        manifest = shared.setdefault(("manifest", _manifest_key(manifest)), manifest)
    binder = ArtifactBinder(plan.root, report, name, rep, rebase=False)
    quality = sample_quality(report, binder.read_text)
    quality = shared.setdefault(("quality", quality), quality)
    # the run keeps only what later stages read of its report, never the whole parsed report
    summary = report_summary(report, shared, task=task, file=name)
    artifact = _telemetry_of(plan.root, report, name, rep, rebase=rebase) if telemetry else None
    return (task, rep, name, summary, manifest, valid, quality, artifact)


def finish_experiment(
    plan: ExperimentPlan,
    loaded: Iterable[LoadedRun | SkippedReport | None],
    *,
    manifest_for: Callable[[str], CaseManifest],
    matrix: MatrixLoad | None = None,
) -> tuple[Experiment, ArtifactTable]:
    """The experiment of ``plan`` from its reports as :func:`read_report` read them, in file order.

    ``matrix`` is the experiment's :func:`load_matrix`, when the caller loaded it already (before
    the runs, so the decoded matrix file is freed before they are held); else it is loaded here.

    A run whose manifest is missing or does not verify gets ``manifest_for(task)``, in file order
    (so the first error is the one :func:`load_experiment` raises).  The artifacts read with the
    runs come back beside the records, in the same order.
    """
    records: list[RunRecord] = []
    artifacts = ArtifactTable()  # kept as columns, not an object per run
    skipped: list[SkippedReport] = []
    kept: dict[Any, Any] = {}  # equal manifests and qualities read apart (other workers, batches) kept once
    for item in loaded:
        if item is None:
            continue
        if isinstance(item, SkippedReport):
            skipped.append(item)
            continue
        task, rep, name, summary, manifest, valid, quality, artifact = item
        task = sys.intern(task)
        if manifest is None:
            manifest = manifest_for(task)
        else:
            manifest = kept.setdefault(_manifest_key(manifest), manifest)
        quality = kept.setdefault(quality, quality)
        summary = summary.shared_in(kept, task, name)
        records.append(RunRecord(plan.side, task, rep, name, summary, manifest, valid, quality))
        artifacts.append(artifact)
    experiment = Experiment(
        side=plan.side,
        treatment=plan.treatment,
        root=plan.root,
        label=plan.label,
        records=tuple(records),
        skipped=tuple(skipped),
        matrix=load_matrix(plan.root) if matrix is None else matrix,
    )
    return experiment, artifacts


def _manifest_key(manifest: CaseManifest) -> tuple[Any, ...]:
    return (
        manifest.task,
        manifest.source,
        manifest.schema,
        manifest.case_hash,
        manifest.core_hash,
        tuple(manifest.components.items()),
        manifest.missing,
        manifest.task_files,
    )


def load_experiment(
    side: Side,
    directory: Path,
    treatment: str,
    *,
    manifest_for: Callable[[str], CaseManifest],
) -> Experiment:
    """Read every report of ``treatment`` in ``directory``.

    ``manifest_for(task)`` supplies the fallback manifest of a task (cached by
    the caller so both sides share one tree walk per task).
    """
    plan = open_experiment(side, directory, treatment)
    shared: dict[Any, Any] = {}  # equal values of many runs, kept once (interned)
    loaded = (read_report(plan, name, shared) for name in plan.names)
    return finish_experiment(plan, loaded, manifest_for=manifest_for)[0]


class ArtifactBinder:
    """Finds and reads the raw artifacts one report is allowed to name."""

    def __init__(self, root: Path, report: Mapping[str, Any], file: str, rep: int, *, rebase: bool) -> None:
        self.root = root
        self.root_text = str(root)
        self.report = report
        self.stem = _stem(file)
        self.rep = rep
        self.rebase = rebase

    def _reference(self, key: str) -> str | None:
        return artifact_reference(self.report, key)  # a whole report or a run's summary of it

    def _expected_names(self, key: str) -> set[str] | None:
        name = self.report.get("name")
        own_rep = _positive_int(self.report.get("rep", 1))
        if not isinstance(name, str) or not name or own_rep is None:
            return None
        suffix = f"_rep{own_rep}{_ARTIFACT_SUFFIX[key]}"
        return {name + suffix, name.replace("-", "_") + suffix}

    def _allowed_root(self, path: str) -> str | None:
        if _is_within(path, self.root_text):
            return self.root_text
        combined = _COMBINED_STEM.search(self.stem)
        if combined is None or _positive_int(combined.group("rep")) != self.rep:
            return None
        source = combined.group("source")
        if source in (".", ".."):
            return None
        sibling = os.path.join(os.path.dirname(self.root_text), source)
        return sibling if _is_within(path, sibling) else None

    def locate(self, key: str) -> tuple[str, str] | Refusal:
        """The (file, allowed root) the report's reference binds to, or why not."""
        reference = self._reference(key)
        if reference is None:
            return Refusal("no artifact reference")
        if "\0" in reference:
            return Refusal("outside its experiment")
        path = os.path.abspath(os.path.join(self.root_text, reference))  # an absolute reference wins the join
        allowed = self._allowed_root(path)
        if allowed is None:
            return Refusal("outside its experiment")
        names = self._expected_names(key)
        if names is None:
            return Refusal("report name or repetition is invalid")
        if os.path.basename(path) not in names:
            return Refusal("file name is not bound to this task and repetition")
        try:
            info = real_folder_info(allowed)
        except OSError:
            return Refusal("allowed folder is missing")
        if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
            return Refusal("allowed folder is not a real folder")
        return path, allowed

    def _rebased(self, key: str, tried: str | None) -> tuple[str, str] | None:
        reference = self._reference(key)
        names = self._expected_names(key)
        if reference is None or names is None:
            return None
        name = reference.replace("\\", "/").rsplit("/", 1)[-1]
        if name not in names:
            return None
        path = os.path.join(self.root_text, "raw", name)
        return None if path == tried else (path, self.root_text)

    def locations(self, key: str) -> tuple[tuple[tuple[str, str, bool], ...], Refusal | None]:
        """Where the artifact is read, in order: (file, allowed root, found by rebasing).

        The bound reference first; with ``rebase`` on, its exact expected name in ``raw/`` is tried
        when the first cannot be read.  The refusal is the bound reference's, when it has none.
        The one rule for every reader of a report's artifacts (telemetry and run pages).
        """
        located = self.locate(key)
        places: list[tuple[str, str, bool]] = [] if isinstance(located, Refusal) else [(*located, False)]
        if self.rebase:
            rebased = self._rebased(key, None if isinstance(located, Refusal) else located[0])
            if rebased is not None:
                places.append((*rebased, True))
        return tuple(places), located if isinstance(located, Refusal) else None

    def read(self, key: str) -> tuple[bytes | Refusal, bool]:
        """The artifact's bytes (or the first refusal) and whether it was found by rebasing."""
        places, refused = self.locations(key)
        for path, root, rebased in places:
            result = self._read_within(path, root, MAX_RAW_BYTES)
            if not isinstance(result, Refusal):
                return result, rebased
            if refused is None:  # a Refusal is falsy: test for None, never with ``or``
                refused = result
        return (refused if refused is not None else Refusal("missing")), False

    def _read_within(self, path: str, root: str, max_bytes: int) -> bytes | Refusal:
        own_root = root == self.root_text  # already resolved when the experiment was opened
        return read_contained(path, root, max_bytes=max_bytes, root_is_resolved=own_root)

    def read_text(self, key: str) -> str | None:
        data, _rebased = self.read(key)
        return None if isinstance(data, Refusal) else data.decode("utf-8", errors="replace")


def read_run_telemetry(experiment: Experiment, record: RunRecord, *, rebase: bool) -> Artifact:
    """Re-derive one run's telemetry from its bound raw stdout; keep what the report says apart.

    The numbers of the report's ``events_summary`` are kept as ``Artifact.reported`` (labelled as
    reported by the harness), never merged into the re-derived telemetry.
    """
    return _telemetry_of(experiment.root, record.report, record.file, record.rep, rebase=rebase)


def _telemetry_of(root: Path, report: Mapping[str, Any], file: str, rep: int, *, rebase: bool) -> Artifact:
    """:func:`read_run_telemetry` of a report (whole, or a run's summary of it)."""
    reported = reported_telemetry(report.get("events_summary"))
    binder = ArtifactBinder(root, report, file, rep, rebase=rebase)
    data, rebased = binder.read("raw_stdout")
    if isinstance(data, Refusal):
        status = "absent" if data.reason in ("no artifact reference", "missing") else "rejected"
        return Artifact(status, data.reason, None, reported)
    try:
        telemetry = extract_telemetry(data.decode("utf-8", errors="replace"))
    except InvalidTelemetry as problem:
        return Artifact("rejected", str(problem), None, reported)
    if telemetry["subject_invocations"] == 0:
        return Artifact("no-result-event", "no result event in raw stdout", None, reported)
    return Artifact("rebased" if rebased else "verified", None, TelemetryValues(telemetry), reported)
