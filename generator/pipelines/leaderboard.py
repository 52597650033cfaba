"""Rank many systems on the same tasks: read -> align -> measure -> test, once, then render.

:func:`compute_leaderboard` returns a typed
:class:`~generator.model.leaderboard.LeaderboardResult` (pure data);
:func:`render_leaderboard` makes its two renderings from it, once: the
``evalsite.leaderboard.v1`` document (docs/leaderboard.md) and the Markdown report.
Systems are read through :func:`read_system`, the one place that dispatches on a
system's ``format`` (``comet``, ``inspect``, ``harbor``, ``swebench``, ``records``), with the comparison
sides' readers (:func:`generator.read.formats.load_side`), and are aligned, measured and tested
with the comparison's aligner and paired statistics.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from generator.analyze.comparison.passk import normalize_ks
from generator.analyze.leaderboard.board import assemble
from generator.analyze.leaderboard.systems import observed_keys, system_alignment, system_result
from generator.model.errors import EvalsiteError
from generator.model.formats import ImportOptions
from generator.model.jsonfmt import json_text
from generator.model.leaderboard import (
    SYSTEM_FORMATS,
    LeaderboardInputs,
    LeaderboardResult,
    SystemResult,
    check_alpha,
    check_correction,
)
from generator.model.runs import CaseManifest, Experiment, Key
from generator.model.scores import check_metric
from generator.pages.leaderboard.links import SideMatch
from generator.read.comet.experiment import treatment_hint
from generator.read.comet.manifest import fallback_manifest
from generator.read.config import SiteConfig
from generator.read.formats import load_side, run_telemetry
from generator.render.leaderboard.document import leaderboard_document
from generator.render.leaderboard.report import leaderboard_markdown
from generator.write.files import write_text_atomic
from generator.write.guard import check_output_file

__all__ = [
    "LeaderboardOutput",
    "check_leaderboard_inputs",
    "check_report_path",
    "compute_leaderboard",
    "evidence_matches",
    "read_system",
    "render_leaderboard",
    "run_leaderboard",
    "write_report",
]

ReportFormat = Literal["markdown", "json"]
MAX_SYSTEMS = 64


@dataclass(frozen=True)
class LeaderboardOutput:
    result: LeaderboardResult
    document: Mapping[str, Any]
    markdown: str

    def text(self, format: ReportFormat) -> str:
        return json_text(self.document) if format == "json" else self.markdown


def check_leaderboard_inputs(inputs: LeaderboardInputs) -> None:
    """The bad-input rules (one clear error each), before anything is read."""
    if len(inputs.systems) < 2:
        raise EvalsiteError("a leaderboard needs at least two systems")
    if len(inputs.systems) > MAX_SYSTEMS:
        raise EvalsiteError(f"a leaderboard takes at most {MAX_SYSTEMS} systems")
    seen: set[str] = set()
    for spec in inputs.systems:
        if not spec.label or not spec.label.strip() or "\n" in spec.label:
            raise EvalsiteError("a system label is empty or not one line")
        if spec.label in seen:
            raise EvalsiteError(f"duplicate system label {spec.label!r}")
        seen.add(spec.label)
        if not spec.treatment or not spec.treatment.strip():
            raise EvalsiteError(f"system {spec.label!r}: the treatment name is empty")
        if spec.format not in SYSTEM_FORMATS:
            raise EvalsiteError(
                f"system {spec.label!r}: unknown format {spec.format!r} (known: {', '.join(SYSTEM_FORMATS)})"
            )
        name = spec.experiment.name or str(spec.experiment)
        if spec.format == "comet" and not spec.experiment.is_dir():
            raise EvalsiteError(f"system {spec.label!r}: experiment folder {name!r} does not exist or is not a folder")
        if not spec.experiment.exists():  # an imported format may be one log file (docs/importers.md)
            raise EvalsiteError(f"system {spec.label!r}: experiment {name!r} does not exist")
    if inputs.baseline is not None and inputs.baseline not in seen:
        raise EvalsiteError(f"baseline {inputs.baseline!r} is not one of the system labels")
    if inputs.tasks_dir is not None and not inputs.tasks_dir.is_dir():
        raise EvalsiteError(f"tasks folder {inputs.tasks_dir.name!r} does not exist or is not a folder")
    try:
        check_alpha(inputs.alpha)
        check_correction(inputs.correction)
        normalize_ks(list(inputs.ks))
        check_metric(inputs.metric)
    except ValueError as error:
        raise EvalsiteError(str(error)) from None


def read_system(
    format: str,
    path: Path,
    treatment: str,
    manifest_for: Callable[[str], CaseManifest],
    options: ImportOptions | None = None,
) -> Experiment:
    """Read one system's runs in its input format: the comparison sides' one dispatch point
    (:func:`generator.read.formats.load_side`), so every importer serves leaderboards too."""
    if format not in SYSTEM_FORMATS:
        raise EvalsiteError(f"unknown system format {format!r} (known: {', '.join(SYSTEM_FORMATS)})")
    options = options or ImportOptions()
    return load_side(format, "candidate", path, treatment, options=options, manifest_for=manifest_for)[1]


def evidence_matches(config: SiteConfig, built: Collection[str]) -> tuple[SideMatch, ...]:
    """Every (leaderboard system, comparison side) pair that reads the same evidence: the same
    experiment (resolved path), treatment and format; only comparisons in *built* (their pages exist)."""

    def key(paths: tuple[Path, ...], treatment: str, fmt: str) -> tuple[tuple[str, ...], str, str]:
        return (tuple(os.path.realpath(path) for path in paths), treatment, fmt)

    found = []
    for board in config.leaderboards:
        systems = {key((s.experiment,), s.treatment, s.format): s.label for s in board.systems}
        for comparison in config.comparisons:
            if comparison.id not in built:
                continue
            for side, spec in (("candidate", comparison.candidate), ("baseline", comparison.baseline)):
                label = systems.get(key(spec.paths, spec.treatment, spec.format))  # a list of logs is no one file
                if label is not None:
                    same = comparison.metric == board.metric
                    found.append(SideMatch(board.id, board.title, label, comparison.id, comparison.title, side, same))
    return tuple(found)


def compute_leaderboard(inputs: LeaderboardInputs) -> LeaderboardResult:
    """Read every system, align each strictly, measure, test every pair and rank."""
    check_leaderboard_inputs(inputs)
    ks = normalize_ks(list(inputs.ks))
    manifests: dict[str, CaseManifest] = {}

    def manifest_for(task: str) -> CaseManifest:
        if task not in manifests:
            manifests[task] = fallback_manifest(task, inputs.tasks_dir, None)
        return manifests[task]

    experiments: dict[str, Experiment] = {}
    for spec in inputs.systems:
        experiment = read_system(spec.format, spec.experiment, spec.treatment, manifest_for, inputs.import_options)
        if not experiment.records:
            raise EvalsiteError(
                f"system {spec.label!r}: no {spec.treatment} reports found in experiment {experiment.label!r}"
                + (treatment_hint(spec.experiment, spec.treatment) if spec.format in ("comet", "auto") else "")
            )
        experiments[spec.label] = experiment
    alignments = {label: system_alignment(experiment) for label, experiment in experiments.items()}
    common: frozenset[Key] = frozenset().union(
        *(observed_keys(experiments[label], alignments[label]) for label in experiments)
    )
    systems: list[SystemResult] = []
    for spec in inputs.systems:
        experiment, alignment = experiments[spec.label], alignments[spec.label]
        artifacts = {
            pair.key: run_telemetry(spec.format, experiment, pair.candidate, rebase=inputs.rebase_artifacts)
            for pair in alignment.pairs
            if pair.key in common
        }
        telemetry = {key: artifact.telemetry for key, artifact in artifacts.items()}
        reported = {key: artifact.reported for key, artifact in artifacts.items()}
        systems.append(system_result(spec, experiment, alignment, common, telemetry, ks, reported, inputs.metric))
    return assemble(
        LeaderboardInputs(
            inputs.systems,
            inputs.baseline,
            inputs.tasks_dir,
            ks,
            check_alpha(inputs.alpha),
            check_correction(inputs.correction),
            inputs.rebase_artifacts,
            inputs.import_options,
            check_metric(inputs.metric),
        ),
        systems,
        experiments,
        common,
    )


def render_leaderboard(result: LeaderboardResult) -> LeaderboardOutput:
    document = leaderboard_document(result)
    return LeaderboardOutput(result, document, leaderboard_markdown(result))


def run_leaderboard(inputs: LeaderboardInputs) -> LeaderboardOutput:
    return render_leaderboard(compute_leaderboard(inputs))


def check_report_path(path: Path, inputs: LeaderboardInputs, format: ReportFormat, *, force: bool = False) -> None:
    """Refuse an ``--out`` inside an input folder or over a file that is not a leaderboard output."""
    folders = [spec.experiment for spec in inputs.systems]
    if inputs.tasks_dir is not None:
        folders.append(inputs.tasks_dir)
    check_output_file(
        path,
        kind="leaderboard-json" if format == "json" else "leaderboard-markdown",
        input_folders=folders,
        force=force,
    )


def write_report(path: Path, text: str) -> None:
    write_text_atomic(path, text)
