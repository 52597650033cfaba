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

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from generator.analyze.comparison.alignment import align, matrix_issues
from generator.analyze.comparison.efficiency import duration_summary, efficiency_table
from generator.analyze.comparison.passk import normalize_ks, task_macro
from generator.analyze.stats.experiment import paired_comparison
from generator.model.common import SIDES, Side
from generator.model.comparison import ComparisonInputs, ComparisonResult
from generator.model.errors import EvalsiteError
from generator.model.formats import NOT_HASHED
from generator.model.jsonfmt import json_text
from generator.model.runs import CaseManifest, Experiment, Key, Telemetry
from generator.read.comet.manifest import fallback_manifest
from generator.read.formats import load_side, run_telemetry
from generator.render.comparison.document import comparison_document
from generator.render.comparison.report import comparison_markdown
from generator.write.files import write_text_atomic
from generator.write.guard import check_output_file

__all__ = [
    "ComparisonInputs",
    "ComparisonOutput",
    "ComparisonResult",
    "compare_experiments",
    "render_comparison",
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

    def text(self, format: ReportFormat) -> str:
        """What ``evalsite compare --format <format>`` prints."""
        if format == "json":
            return json_text(self.document)
        return self.markdown


def _check_folder(path: Path | None, what: str) -> None:
    if path is not None and not path.is_dir():
        raise EvalsiteError(f"{what} folder {path.name or str(path)!r} does not exist or is not a folder")


def _check_treatment(name: str, side: str) -> None:
    if not name or not name.strip():
        raise EvalsiteError(f"the {side} treatment name is empty")


def _expected_keys(experiment: Experiment) -> frozenset[Key] | None:
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


def compare_experiments(inputs: ComparisonInputs) -> ComparisonResult:
    """Read both experiments, align them strictly, and compute every metric and statistic."""
    ks = normalize_ks(list(inputs.ks))
    _check_treatment(inputs.candidate_treatment, "candidate")
    _check_treatment(inputs.baseline_treatment, "baseline")
    _check_folder(inputs.tasks_dir, "tasks")
    _check_folder(inputs.eval_root, "eval root")

    manifests: dict[str, CaseManifest] = {}

    def manifest_for(task: str) -> CaseManifest:
        if task not in manifests:
            manifests[task] = fallback_manifest(task, inputs.tasks_dir, inputs.eval_root)
        return manifests[task]

    formats: dict[Side, str] = {}
    experiments: dict[Side, Experiment] = {}
    sides: tuple[tuple[Side, Path, str, str], ...] = (
        ("candidate", inputs.candidate_dir, inputs.candidate_treatment, inputs.candidate_format),
        ("baseline", inputs.baseline_dir, inputs.baseline_treatment, inputs.baseline_format),
    )
    for side, path, treatment, fmt in sides:
        formats[side], experiments[side] = load_side(
            fmt, side, path, treatment, options=inputs.import_options, manifest_for=manifest_for
        )
    for side in SIDES:
        experiment = experiments[side]
        if not experiment.records:
            if formats[side] == "comet":
                raise EvalsiteError(
                    f"no {experiment.treatment} reports found in {side} experiment {experiment.label!r}"
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
    statistics = paired_comparison(results["candidate"], results["baseline"], ks, total_tasks=len(alignment.tasks))
    artifacts = {
        side: tuple(
            run_telemetry(formats[side], experiments[side], pair.side(side), rebase=inputs.rebase_artifacts)
            for pair in alignment.pairs
        )
        for side in SIDES
    }
    keys = [pair.key for pair in alignment.pairs]
    duration = {
        side: duration_summary(
            keys,
            [artifact.telemetry for artifact in artifacts[side]],
            [artifact.reported for artifact in artifacts[side]],
        )
        for side in SIDES
    }
    stated: list[tuple[Telemetry, Telemetry]] = list(
        zip([a.reported for a in artifacts["candidate"]], [a.reported for a in artifacts["baseline"]], strict=True)
    )
    both: list[tuple[Telemetry, Telemetry]] = list(
        zip(
            [a.telemetry for a in artifacts["candidate"]],
            [a.telemetry for a in artifacts["baseline"]],
            strict=True,
        )
    )
    successes = [
        telemetry
        for pair, telemetry in zip(alignment.pairs, both, strict=True)
        if pair.candidate.passed and pair.baseline.passed
    ]
    strict = [pair.candidate.passed and pair.baseline.passed for pair in alignment.pairs]
    stated_successes = [reported for reported, keep in zip(stated, strict, strict=True) if keep]
    efficiency = {
        "strict_success": efficiency_table(successes, stated_successes),
        "all_aligned": efficiency_table(both, stated),
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
    )


def render_comparison(result: ComparisonResult) -> ComparisonOutput:
    """The JSON document and the Markdown report of one result (the report is made from the document)."""
    document = comparison_document(result)
    return ComparisonOutput(result, document, comparison_markdown(result, document))


def run_comparison(inputs: ComparisonInputs) -> ComparisonOutput:
    """Compute the comparison once and render it."""
    return render_comparison(compare_experiments(inputs))


def report_text(inputs: ComparisonInputs, format: ReportFormat) -> str:
    """The Markdown report or the JSON document text of one comparison."""
    return run_comparison(inputs).text(format)


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
