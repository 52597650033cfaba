"""Compare two Comet experiments: read -> align -> measure, once, then render.

:func:`compare_experiments` is the whole computation for one candidate/baseline
pair and returns a typed :class:`~generator.model.comparison.ComparisonResult`
(pure data).  :func:`run_comparison` adds its two renderings, made once from
that result: the ``evalsite.comparison.v1`` JSON document (see
``docs/comparison-json.md``) and the Markdown report.  The CLI and the site
builder use :func:`run_comparison`; :func:`report_text` and
:func:`write_report` are what ``evalsite compare`` prints or writes.
"""

from __future__ import annotations

import contextlib
import json
from array import array
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from generator.analyze.comparison.alignment import align, matrix_issues
from generator.analyze.comparison.efficiency import duration_summary, efficiency_table
from generator.analyze.comparison.passk import normalize_ks, task_macro
from generator.analyze.comparison.scores import score_section
from generator.analyze.comparison.view import comparison_view
from generator.model.common import SIDES, Side
from generator.model.comparison import ALL_ALIGNED, STRICT_SUCCESS, ComparisonInputs, ComparisonResult, Pair
from generator.model.comparison_view import ComparisonView
from generator.model.errors import EvalsiteError
from generator.model.formats import NOT_HASHED
from generator.model.jsonfmt import json_text
from generator.model.packed import ArtifactTable, LazySequence, PairedArtifacts, reported_of, telemetry_of
from generator.model.runs import Artifact, CaseManifest, Experiment, Key, RunRecord, SkippedReport
from generator.model.stats import ExperimentComparison
from generator.pipelines import parallel
from generator.pipelines.progress import stage
from generator.read.comet.experiment import (
    ExperimentPlan,
    LoadedRun,
    finish_experiment,
    open_experiment,
    read_report,
    treatment_hint,
)
from generator.read.comet.manifest import fallback_manifest
from generator.read.comet.matrix import load_matrix
from generator.read.formats import AUTO, check_shape, detect_format, load_side, run_telemetry, telemetry_reads_file
from generator.read.ledger.files import gc_paused
from generator.read.safe_io import batched_reads
from generator.render.comparison.document import STREAMED, comparison_document
from generator.write.files import write_text_atomic
from generator.write.guard import check_output_file

__all__ = [
    "ComparisonInputs",
    "ComparisonOutput",
    "ComparisonResult",
    "compare_experiments",
    "render_comparison",
    "report_chunks",
    "report_text",
    "check_report_path",
    "run_comparison",
    "write_report",
]

ReportFormat = Literal["markdown", "json"]


@dataclass(frozen=True)
class ComparisonOutput:
    """A comparison result with its two renderings (each made once, from the result)."""

    result: ComparisonResult
    document: Mapping[str, Any]
    markdown: str
    view: ComparisonView  # what the document and the report render, typed (the site's pages take it)

    def text(self, format: ReportFormat) -> str:
        """What ``evalsite compare --format <format>`` prints."""
        if format == "json" and "runs" in self.document:
            return json_text(self.document)
        return "".join(self.chunks(format))

    def chunks(self, format: ReportFormat) -> Iterator[str]:
        """:meth:`text` in pieces; a document made without ``runs`` gets them written one by one."""
        if format != "json":
            yield self.markdown
        elif "runs" in self.document:
            yield json_text(self.document)
        else:
            yield from _document_chunks(self.view, self.document)


def _dumps(value: object) -> str:
    """One value as :func:`~generator.model.jsonfmt.json_text` writes it inside a document."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, allow_nan=False)


#: Runs written per piece of streamed output.
_RUNS_PER_CHUNK = 256


def _document_chunks(view: ComparisonView, document: Mapping[str, Any]) -> Iterator[str]:
    """``json_text`` of the whole document, byte for byte, never holding every run.

    The keys are written in sorted order with ``json.dumps``' separators (``", "`` and ``": "``);
    each key of :data:`STREAMED` the document leaves out (``runs``, and with
    ``comparison_document(streamed=True)`` also ``pairs`` and ``manifest_audit``) has its entries
    made and written a few at a time.
    """
    streamed = [key for key in STREAMED if key not in document]
    yield "{"
    for position, key in enumerate(sorted([*document, *streamed])):
        head = (", " if position else "") + _dumps(key) + ": "
        if key in document:
            yield head + _dumps(document[key])
            continue
        yield head + "["
        batch: list[str] = []
        first = True
        for entry in STREAMED[key](view):
            batch.append(_dumps(entry))
            if len(batch) == _RUNS_PER_CHUNK:
                yield ("" if first else ", ") + ", ".join(batch)
                first, batch = False, []
        if batch:
            yield ("" if first else ", ") + ", ".join(batch)
        yield "]"
    yield "}\n"


def _check_folder(path: Path | None, what: str) -> None:
    if path is not None and not path.is_dir():
        raise EvalsiteError(f"{what} folder {path.name or str(path)!r} does not exist or is not a folder")


def _check_treatment(name: str, side: str) -> None:
    if not name or not name.strip():
        raise EvalsiteError(f"the {side} treatment name is empty")


def _expected_keys(experiment: Experiment) -> AbstractSet[Key] | None:
    """The matrix's keys for the treatment; empty when the matrix is invalid, None without one."""
    load = experiment.matrix
    if load.matrix is not None:
        return load.matrix.keys_for(experiment.treatment)
    return frozenset() if load.error else None


def _unhashed(experiment: Experiment, formats: Mapping[Side, str]) -> Experiment:
    """Sides of different formats hash different things: their runs pair by task and repetition only.

    Every manifest keeps its own components, but its comparison hash becomes "not hashed", so no
    page or document claims that the two sides' cases agree.
    """
    source = f"not hashed across formats ({formats['candidate']} vs {formats['baseline']})"

    def unhashed(manifest: CaseManifest) -> CaseManifest:
        return replace(manifest, source=source, case_hash=NOT_HASHED, core_hash=NOT_HASHED)

    records = tuple(replace(record, manifest=unhashed(record.manifest)) for record in experiment.records)
    return replace(experiment, records=records)


#: Below this many runs a process pool costs more to start than it saves.
POOL_MIN_RUNS = 4000


@dataclass(frozen=True, slots=True)
class _Job:
    format: str
    experiment: Experiment
    record: RunRecord
    rebase: bool

    def run(self) -> Artifact:
        return run_telemetry(self.format, self.experiment, self.record, rebase=self.rebase)

    @property
    def reads_file(self) -> bool:
        return telemetry_reads_file(self.format, self.record)


def _workers(runs: int) -> int:
    """How many processes read raw stdout: 1 for small inputs, else one per usable core.

    ``EVALSITE_WORKERS`` overrides the choice (``1`` never starts a pool): ``parallel.workers``.
    """
    return parallel.workers(runs, POOL_MIN_RUNS)


#: Jobs (raw stdout files) per task of the pool.
_JOBS_PER_TASK = 64


def _artifacts_task(jobs: Sequence[_Job], indices: range) -> list[Artifact]:
    return [jobs[index].run() for index in indices]


def _read_artifacts(jobs: list[_Job], tick: Callable[[], None]) -> list[Artifact]:
    """Every job's artifact, in job order: in this process, or in forked workers for many file reads.

    Each run's telemetry depends on that run's files alone and the results come back in job
    order, so the outcome is the same whichever way it is read.  Jobs that read no file (telemetry
    as an imported log reports it) are too cheap to send to a worker and back.
    """
    tasks = [range(start, min(start + _JOBS_PER_TASK, len(jobs))) for start in range(0, len(jobs), _JOBS_PER_TASK)]
    read: list[Artifact] = []
    workers = _workers(sum(1 for job in jobs if job.reads_file))
    with contextlib.closing(parallel.ordered_map(_artifacts_task, jobs, tasks, workers)) as done:
        for artifacts in done:
            for artifact in artifacts:
                read.append(artifact)
                tick()
    return read


#: Report files read per task of the pool (their runs' raw stdout is read with them).
_REPORTS_PER_TASK = 32

Loaded = LoadedRun | SkippedReport | None
_Plans = tuple[Sequence[ExperimentPlan], bool]  # the plans and whether artifact paths are rebased


def _read_reports_task(plans: _Plans, task: tuple[int, int, int]) -> list[Loaded]:
    """Reports ``start:stop`` of one plan, each with its raw stdout's telemetry (a pool task)."""
    index, start, stop = task
    return _read_batch(plans[0][index], start, stop, plans[1])


def _read_batch(plan: ExperimentPlan, start: int, stop: int, rebase: bool) -> list[Loaded]:
    """Reports ``start:stop`` of ``plan`` with their telemetry, the folders looked at once for all.

    When a folder changed while they were read (``batched_reads``), they are read again, each
    with its own checks.
    """
    names = plan.names[start:stop]
    shared: dict[Any, Any] = {}
    with batched_reads() as batch:
        loaded = [read_report(plan, name, shared, telemetry=True, rebase=rebase) for name in names]
    if not batch.unchanged:
        loaded = [read_report(plan, name, shared, telemetry=True, rebase=rebase) for name in names]
    return loaded


StatisticsData = tuple[Mapping[str, list[bool]], Mapping[str, list[bool]], tuple[int, ...], int]


def _paired_statistics(data: StatisticsData) -> ExperimentComparison:
    """The paired statistics of both sides' outcomes per task (``stats.experiment.paired_comparison``)."""
    from generator.analyze.stats.experiment import paired_comparison

    candidate, baseline, ks, total = data
    return paired_comparison(candidate, baseline, ks, total_tasks=total)


def _pool_reports(plans: _Plans, task: tuple[int, int, int]) -> list[Loaded]:
    return _read_reports_task(plans, task)  # looked up when called (so tests can watch it)


def _read_plans(plans: list[ExperimentPlan], rebase: bool, tick: Callable[[], None]) -> Generator[Loaded, None, None]:
    """Every report of every plan, in plan and file order, read in this process or in forked workers."""
    tasks = [
        (index, start, min(start + _REPORTS_PER_TASK, len(plan.names)))
        for index, plan in enumerate(plans)
        for start in range(0, len(plan.names), _REPORTS_PER_TASK)
    ]
    runs = sum(len(plan.names) for plan in plans)
    # closed when the reading stops early (an error): the workers are ended then
    with contextlib.closing(parallel.ordered_map(_pool_reports, (plans, rebase), tasks, _workers(runs))) as done:
        for loaded in done:
            for item in loaded:
                tick()
                yield item


def _comet_format(fmt: str, path: Path) -> bool:
    return fmt == "comet" or (fmt == AUTO and detect_format(path) == "comet")


def _load_comet_pair(
    inputs: ComparisonInputs, manifest_for: Callable[[str], CaseManifest]
) -> tuple[dict[Side, Experiment], dict[Side, ArtifactTable]] | None:
    """Both Comet sides, every run read with its raw stdout in one pass (None: not both Comet).

    What :func:`load_side` does side by side, with the same first error: the candidate is opened
    (and its errors raised) first; an error of the baseline is raised only after the candidate's
    runs are complete (their fallback manifests are made in file order, as they would be).
    """
    if not _comet_format(inputs.candidate_format, inputs.candidate_dir):
        return None
    deferred: EvalsiteError | None = None
    try:
        if not _comet_format(inputs.baseline_format, inputs.baseline_dir):
            return None
    except EvalsiteError as error:
        deferred = error
    candidate = open_experiment("candidate", inputs.candidate_dir, inputs.candidate_treatment)
    plans = [candidate]
    if deferred is None:
        try:
            plans.append(open_experiment("baseline", inputs.baseline_dir, inputs.baseline_treatment))
        except EvalsiteError as error:
            deferred = error
    # each matrix is read before the runs: its decoded file is freed before they are held
    matrices = {plan.side: load_matrix(plan.root) for plan in plans}
    total = sum(len(plan.names) for plan in plans)
    loaded = _read_plans(plans, inputs.rebase_artifacts, stage("reading reports and raw stdout", total))
    try:
        experiments: dict[Side, Experiment] = {}
        artifacts: dict[Side, ArtifactTable] = {}
        for plan in plans:
            runs = (next(loaded) for _name in plan.names)
            experiments[plan.side], artifacts[plan.side] = finish_experiment(
                plan, runs, manifest_for=manifest_for, matrix=matrices[plan.side]
            )
            if deferred is not None:
                raise deferred
    finally:
        loaded.close()
    return experiments, artifacts


def _paired_artifacts(
    inputs: ComparisonInputs,
    formats: Mapping[Side, str],
    experiments: Mapping[Side, Experiment],
    pairs: Sequence[Pair],
    read_with: Mapping[Side, ArtifactTable] | None,
) -> dict[Side, Sequence[Artifact]]:
    """Each side's artifact of every pair, in pair order: as read with the runs, or read now."""
    if read_with is not None:
        out: dict[Side, Sequence[Artifact]] = {}
        for side in SIDES:
            index_of = {id(record): index for index, record in enumerate(experiments[side].records)}
            out[side] = PairedArtifacts(read_with[side], (index_of[id(pair.side(side))] for pair in pairs))
            del index_of
        return out
    jobs = [
        _Job(formats[side], experiments[side], pair.side(side), inputs.rebase_artifacts)
        for side in SIDES
        for pair in pairs
    ]
    read = _read_artifacts(jobs, stage("reading raw stdout", len(jobs)))
    del jobs
    count = len(pairs)
    return {side: tuple(read[index * count : (index + 1) * count]) for index, side in enumerate(SIDES)}


def _zip(left: Sequence[Any], right: Sequence[Any], indices: Sequence[int]) -> Sequence[tuple[Any, Any]]:
    """``(left[i], right[i])`` of each index, made when read."""
    return LazySequence(lambda index: (left[index], right[index]), indices)


def compare_experiments(inputs: ComparisonInputs) -> ComparisonResult:
    """Read both experiments, align them strictly, and compute every metric and statistic."""
    ks = normalize_ks(list(inputs.ks))
    _check_treatment(inputs.candidate_treatment, "candidate")
    _check_treatment(inputs.baseline_treatment, "baseline")
    _check_folder(inputs.tasks_dir, "tasks")
    _check_folder(inputs.eval_root, "eval root")

    return _compare(inputs, ks)


def _compare(inputs: ComparisonInputs, ks: tuple[int, ...]) -> ComparisonResult:
    manifests: dict[str, CaseManifest] = {}

    def manifest_for(task: str) -> CaseManifest:
        if task not in manifests:
            manifests[task] = fallback_manifest(task, inputs.tasks_dir, inputs.eval_root)
        return manifests[task]

    formats: dict[Side, str] = {}
    experiments: dict[Side, Experiment] = {}
    for side, path, fmt in (
        ("candidate", inputs.candidate_dir, inputs.candidate_format),
        ("baseline", inputs.baseline_dir, inputs.baseline_format),
    ):
        check_shape(fmt, side, path)  # a file where a folder format is named: say which format to set
    comet = _load_comet_pair(inputs, manifest_for)
    read_with: dict[Side, ArtifactTable] | None = None
    if comet is not None:
        experiments, read_with = comet
        formats = {side: "comet" for side in SIDES}
    sides: tuple[tuple[Side, Path, str, str], ...] = (
        ("candidate", inputs.candidate_dir, inputs.candidate_treatment, inputs.candidate_format),
        ("baseline", inputs.baseline_dir, inputs.baseline_treatment, inputs.baseline_format),
    )
    # what the readers build is kept to the end: the cyclic collector's passes over it while it grows
    # would free nothing (a fifth of the reading of two 2,000-sample Inspect logs)
    with gc_paused():
        for side, path, treatment, fmt in sides:
            if comet is None:
                formats[side], experiments[side] = load_side(
                    fmt, side, path, treatment, options=inputs.import_options, manifest_for=manifest_for
                )
    for side in SIDES:
        experiment = experiments[side]
        if not experiment.records:
            if formats[side] == "comet":
                folder = inputs.candidate_dir if side == "candidate" else inputs.baseline_dir
                raise EvalsiteError(
                    f"no {experiment.treatment} reports found in {side} experiment {experiment.label!r}"
                    + treatment_hint(folder, experiment.treatment)
                )
            raise EvalsiteError(f"no runs found in {side} {formats[side]} input {experiment.label!r}")
    if formats["candidate"] != formats["baseline"]:
        experiments = {side: _unhashed(experiments[side], formats) for side in SIDES}
    expected = {side: _expected_keys(experiments[side]) for side in SIDES}
    issues = matrix_issues(
        [(side, experiments[side].treatment, experiments[side].matrix.error, expected[side]) for side in SIDES]
    )
    alignment = align(
        experiments["candidate"].records,
        experiments["baseline"].records,
        candidate_expected=expected["candidate"],
        baseline_expected=expected["baseline"],
        initial_issues=issues,
    )
    results: dict[Side, dict[str, list[bool]]] = {side: {} for side in SIDES}
    for pair in alignment.pairs:  # already in (task, rep) order
        for side in SIDES:
            results[side].setdefault(pair.task, []).append(pair.side(side).passed)
    metrics = {side: task_macro(results[side], ks, total_tasks=len(alignment.tasks)) for side in SIDES}
    data: StatisticsData = (results["candidate"], results["baseline"], ks, len(alignment.tasks))
    statistics = _paired_statistics(data)
    scores = score_section(alignment.pairs, inputs.metric, inputs.import_options.scorer, len(alignment.tasks))
    artifacts = _paired_artifacts(inputs, formats, experiments, alignment.pairs, read_with)
    del read_with  # memory flat in the runs: nothing per run is held longer than it is needed
    pairs = alignment.pairs
    keys = LazySequence(lambda index: pairs[index].key, range(len(pairs)))
    telemetry = {side: telemetry_of(artifacts[side]) for side in SIDES}
    reported = {side: reported_of(artifacts[side]) for side in SIDES}
    duration = {side: duration_summary(keys, telemetry[side], reported[side]) for side in SIDES}
    # the pairs' telemetry side by side, each pair's made as it is read (no list of every pair)
    every = range(len(pairs))
    successes = array(
        "l", (index for index, pair in enumerate(pairs) if pair.candidate.passed and pair.baseline.passed)
    )
    both = _zip(telemetry["candidate"], telemetry["baseline"], every)
    stated = _zip(reported["candidate"], reported["baseline"], every)
    efficiency = {
        STRICT_SUCCESS: efficiency_table(
            _zip(telemetry["candidate"], telemetry["baseline"], successes),
            _zip(reported["candidate"], reported["baseline"], successes),
        ),
        ALL_ALIGNED: efficiency_table(both, stated),
    }
    return ComparisonResult(
        inputs=inputs,
        ks=ks,
        experiments=experiments,
        alignment=alignment,
        metrics=metrics,
        artifacts=artifacts,
        duration=duration,
        efficiency=efficiency,
        statistics=statistics,
        formats=formats,
        scores=scores,
    )


def render_comparison(result: ComparisonResult, *, runs: bool = True) -> ComparisonOutput:
    """The JSON document and the Markdown report of one result (the report is made from the document).

    ``runs=False`` keeps the document's ``runs`` out of memory: :meth:`ComparisonOutput.chunks`
    makes them while it writes (the Markdown report does not use them).
    """
    from generator.render.comparison.report import comparison_markdown  # (the pages' formatting: not for JSON)

    view = comparison_view(result)
    document = comparison_document(view, runs=runs)
    return ComparisonOutput(result, document, comparison_markdown(result, document, view.price), view)


def run_comparison(inputs: ComparisonInputs, *, runs: bool = True) -> ComparisonOutput:
    """Compute the comparison once and render it."""
    return render_comparison(compare_experiments(inputs), runs=runs)


def report_text(inputs: ComparisonInputs, format: ReportFormat) -> str:
    """The Markdown report or the JSON document text of one comparison."""
    return run_comparison(inputs, runs=False).text(format)


def report_chunks(inputs: ComparisonInputs, format: ReportFormat) -> Iterator[str]:
    """:func:`report_text` in pieces, to be written as they come (memory flat in the runs).

    The comparison is computed before this returns (so its errors are raised here, before any
    output); only the writing of the text is left to the iterator.  The JSON document is made
    without the entries that grow with the runs (they are written one by one) and without the
    Markdown report, which it does not need.
    """
    result = compare_experiments(inputs)
    if format == "json":
        view = comparison_view(result)
        return _document_chunks(view, comparison_document(view, streamed=True))
    return render_comparison(result, runs=False).chunks(format)


def check_report_path(path: Path, inputs: ComparisonInputs, format: ReportFormat, *, force: bool = False) -> None:
    """Refuse an ``--out`` that lies in an input folder or would replace a file of another kind."""
    folders = [inputs.candidate_dir, inputs.baseline_dir, inputs.tasks_dir, inputs.eval_root]
    # an imported side may be a log file: its folder is the input folder
    folders = [folder.parent if folder is not None and folder.is_file() else folder for folder in folders]
    check_output_file(
        path,
        kind="comparison-json" if format == "json" else "comparison-markdown",
        input_folders=[folder for folder in folders if folder is not None],
        force=force,
    )


def write_report(path: Path, text: str) -> None:
    """Write a report atomically (``evalsite compare --out``), after :func:`check_report_path`."""
    write_text_atomic(path, text)
