"""Compare two Comet experiments: read -> align -> measure, as one verified result.

:func:`run_comparison` is the whole pipeline for one candidate/baseline pair
and the only entry point the CLI and the site builder use.  Its result holds
the typed analysis plus two renderings: the ``evalsite.comparison.v1`` JSON
document (see ``docs/comparison-json.md``) and the Markdown report.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from generator.analyze.comparison.alignment import Alignment, align, matrix_issues
from generator.analyze.comparison.efficiency import (
    DurationSummary,
    EfficiencyTable,
    duration_summary,
    efficiency_table,
)
from generator.analyze.comparison.passk import MacroMetrics, normalize_ks, parse_ks, task_macro
from generator.analyze.stats.experiment import ExperimentComparison, compare_experiments
from generator.model.errors import EvalsiteError
from generator.read.comet.experiment import Artifact, Experiment, RunRecord, load_experiment, read_run_telemetry
from generator.read.comet.manifest import CaseManifest, fallback_manifest

SIDES = ("candidate", "baseline")


@dataclass(frozen=True)
class ComparisonInputs:
    candidate_dir: Path
    candidate_treatment: str
    baseline_dir: Path
    baseline_treatment: str
    tasks_dir: Path | None = None
    eval_root: Path | None = None
    ks: tuple[int, ...] = (1, 2, 3)
    rebase_artifacts: bool = False


@dataclass(frozen=True)
class ComparisonResult:
    inputs: ComparisonInputs
    ks: tuple[int, ...]
    experiments: dict[str, Experiment]
    alignment: Alignment
    metrics: dict[str, dict[int, MacroMetrics]]
    artifacts: dict[str, tuple[Artifact, ...]]  # per side, in pair order
    duration: dict[str, DurationSummary]
    efficiency: dict[str, EfficiencyTable]  # strict_success, all_aligned
    statistics: ExperimentComparison  # intervals, paired tests, power and verdict over the pairs

    @property
    def candidate(self) -> Experiment:
        return self.experiments["candidate"]

    @property
    def baseline(self) -> Experiment:
        return self.experiments["baseline"]

    @cached_property
    def document(self) -> dict[str, Any]:
        from generator.render.comparison.document import comparison_document

        return comparison_document(self)

    @cached_property
    def markdown(self) -> str:
        from generator.render.comparison.report import comparison_markdown

        return comparison_markdown(self)


def _check_folder(path: Path | None, what: str) -> None:
    if path is not None and not path.is_dir():
        raise EvalsiteError(f"{what} folder {path.name or str(path)!r} does not exist or is not a folder")


def _check_treatment(name: str, side: str) -> None:
    if not name or not name.strip():
        raise EvalsiteError(f"the {side} treatment name is empty")


def run_comparison(inputs: ComparisonInputs) -> ComparisonResult:
    """Read both experiments, align them strictly, and compute every metric."""
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

    experiments = {
        "candidate": load_experiment(
            "candidate", inputs.candidate_dir, inputs.candidate_treatment, manifest_for=manifest_for
        ),
        "baseline": load_experiment(
            "baseline", inputs.baseline_dir, inputs.baseline_treatment, manifest_for=manifest_for
        ),
    }
    for side in SIDES:
        experiment = experiments[side]
        if not experiment.records:
            raise EvalsiteError(f"no {experiment.treatment} reports found in {side} experiment {experiment.label!r}")
    expected = {
        side: (
            experiments[side].matrix.matrix.keys_for(experiments[side].treatment)
            if experiments[side].matrix.matrix is not None
            else (frozenset() if experiments[side].matrix.error else None)
        )
        for side in SIDES
    }
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
    results: dict[str, dict[str, list[bool]]] = {side: {} for side in SIDES}
    for pair in alignment.pairs:  # already in (task, rep) order
        for side in SIDES:
            record: RunRecord = getattr(pair, side)
            results[side].setdefault(pair.task, []).append(record.passed)
    metrics = {side: task_macro(results[side], ks, total_tasks=len(alignment.tasks)) for side in SIDES}
    statistics = compare_experiments(results["candidate"], results["baseline"], ks, total_tasks=len(alignment.tasks))
    artifacts = {
        side: tuple(
            read_run_telemetry(experiments[side], getattr(pair, side), rebase=inputs.rebase_artifacts)
            for pair in alignment.pairs
        )
        for side in SIDES
    }
    keys = [(pair.task, pair.rep) for pair in alignment.pairs]
    duration = {side: duration_summary(keys, [artifact.telemetry for artifact in artifacts[side]]) for side in SIDES}
    both = list(
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
    efficiency = {"strict_success": efficiency_table(successes), "all_aligned": efficiency_table(both)}
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
    )


# ---------------------------------------------------------------------------- command


def _optional_path(value: str | None) -> Path | None:
    return Path(value) if value else None


def run_compare_command(args: argparse.Namespace) -> int:
    """``evalsite compare``: print or write the Markdown or JSON report."""
    try:
        ks = parse_ks(args.k)
    except ValueError as error:
        raise EvalsiteError(f"--k: {error}") from None
    inputs = ComparisonInputs(
        candidate_dir=Path(args.candidate),
        candidate_treatment=args.candidate_treatment,
        baseline_dir=Path(args.baseline),
        baseline_treatment=args.baseline_treatment,
        tasks_dir=_optional_path(args.tasks),
        eval_root=_optional_path(args.eval_root),
        ks=ks,
        rebase_artifacts=bool(args.rebase_artifacts),
    )
    result = run_comparison(inputs)
    if args.format == "json":
        text = json.dumps(result.document, sort_keys=True, ensure_ascii=False) + "\n"
    else:
        text = result.markdown
    if args.out:
        from generator.write.files import write_text_atomic

        write_text_atomic(Path(args.out), text)
    else:
        _print(text)
    return 0


def _print(text: str) -> None:
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. `evalsite compare ... | head`
        pass
