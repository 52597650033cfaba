"""A single-system report (``reports:`` in the site config): read -> align -> measure, then its page.

The system is read as a comparison side (:func:`generator.pipelines.leaderboard.read_system`, every
importer), aligned against itself as a leaderboard system is, and measured by
:func:`generator.analyze.report.report_result`; its page and its ``evalsite.report.v1`` document are
renderings of that one result.  A data problem raises (the build turns it into the entry's error
page and a warning, as for a comparison).
"""

from __future__ import annotations

from generator.analyze.leaderboard.systems import observed_keys, system_alignment
from generator.analyze.report import report_result, status_of
from generator.model.errors import EvalsiteError
from generator.model.jsonfmt import json_text
from generator.model.leaderboard import SystemSpec
from generator.model.report import REPORT_SCHEMA, ReportResult
from generator.model.runs import CaseManifest
from generator.pages.models import Headline, InputDigest, PageBundle, SiteInfo
from generator.pages.report.page import build_report_page, report_headline
from generator.pipelines.inputs import digest, tree_input
from generator.pipelines.leaderboard import read_system
from generator.read.comet.experiment import treatment_hint
from generator.read.comet.manifest import fallback_manifest
from generator.read.config import ReportConfig
from generator.read.formats import run_telemetry
from generator.read.safe_io import recording_digests
from generator.render.report.document import report_document

__all__ = ["compute_report", "report_pages"]


def compute_report(entry: ReportConfig) -> ReportResult:
    """Read the report's system and measure it; raises :class:`EvalsiteError` when it has no reports."""
    side = entry.system
    manifests: dict[str, CaseManifest] = {}

    def manifest_for(task: str) -> CaseManifest:
        if task not in manifests:
            manifests[task] = fallback_manifest(task, entry.tasks, None)
        return manifests[task]

    experiment = read_system(side.format, side.experiment, side.treatment, manifest_for, entry.import_options())
    if not experiment.records:
        raise EvalsiteError(
            f"no {side.treatment} reports found in experiment {experiment.label!r}"
            + (treatment_hint(side.experiment, side.treatment) if side.format in ("comet", "auto") else "")
        )
    alignment = system_alignment(experiment)
    common = observed_keys(experiment, alignment)
    artifacts = {
        pair.key: run_telemetry(side.format, experiment, pair.candidate, rebase=False)
        for pair in alignment.pairs
        if pair.key in common
    }
    spec = SystemSpec(side.treatment, side.experiment, side.treatment, side.format)
    return report_result(spec, experiment, alignment, artifacts, entry.ks, status_of(experiment.logs))


def report_pages(entry: ReportConfig, site: SiteInfo) -> tuple[Headline, PageBundle]:
    """The report's index headline and its page (with ``data.json``)."""
    with recording_digests():  # "Built from" reuses the SHA-256 of every file the report read
        result = compute_report(entry)
        document = report_document(result)
        inputs = [
            InputDigest("report document", "data.json", digest(json_text(document)), REPORT_SCHEMA),
            *(tree_input("system experiment", path) for path in entry.system.paths),
        ]
        if entry.tasks is not None:
            inputs.append(tree_input("tasks", entry.tasks))
    page = build_report_page(entry.id, entry.title, result, document, inputs, site)
    return report_headline(entry.id, entry.title, result), page
