"""Run pages and paired step views (``docs/transcripts.md``), written one run at a time.

``build.py`` calls :func:`transcript_refs` when a comparison is computed (where each run's raw
stdout is, never read there), then :func:`write_transcripts` after the other pages: each run is
read, turned into page models, rendered and written before the next is read, so memory stays
bounded by one transcript.  Only the tool-call summaries are kept for the pair pages.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from generator.analyze.transcripts.policy import apply_policy, left_out
from generator.model.common import SIDES
from generator.model.comparison_view import ComparisonView
from generator.model.redaction import Redactor
from generator.model.transcript import TranscriptRef
from generator.pages.models import SiteInfo
from generator.pipelines.site_pool import write_page
from generator.pipelines.task_transcripts import write_grouped
from generator.render.env import render_page
from generator.write.site import SiteWriter

__all__ = ["left_out", "run_page_states", "transcript_refs", "write_transcripts"]

#: (url, html, data) -> None: how ``build.py`` writes one page and its ``data.json``.
WritePage = Callable[[str, str, object], None]
#: One comparison's transcripts to write: (id, title, view, refs, grouped per task).
Job = tuple[str, str, ComparisonView, tuple[TranscriptRef, ...], bool]


def transcript_refs(result: Any, rebase: bool, policy: str = "all") -> tuple[TranscriptRef, ...]:
    """Where each run's transcript is (or why not): a Comet report's bound ``raw_stdout`` artifact
    (with ``rebase_artifacts``, the same fallback place the telemetry reader uses:
    ``ArtifactBinder.locations``), an imported run's ``agent_stdout`` stream or ATIF trajectory
    (Harbor, SWE-bench), an Inspect run's sample in its log; the runs the ``transcripts:``
    *policy* leaves out keep their place with the reason (``analyze/transcripts/policy.py``)."""
    records = {side: experiment.records for side, experiment in result.experiments.items()}
    return apply_policy(policy, _located(result, rebase), result.alignment, records)


def _located(result: Any, rebase: bool) -> tuple[TranscriptRef, ...]:
    from generator.read.comet.experiment import ArtifactBinder

    refs: list[TranscriptRef] = []
    for side, experiment in result.experiments.items():
        fmt = result.formats.get(side, "comet")
        if fmt == "inspect":
            refs += _inspect_refs(side, experiment)
            continue
        if fmt != "comet":
            refs += _imported_refs(side, experiment)
            continue
        for record in experiment.records:
            binder = ArtifactBinder(experiment.root, record.report, record.file, record.rep, rebase=rebase)
            places, refused = binder.locations("raw_stdout")
            if not places:
                if refused is not None and refused.reason != "no artifact reference":
                    refs.append(TranscriptRef(side, record.task, record.rep, None, None, refused.reason, record.file))
                continue
            (path, root, rebased), fallback = places[0], (places[1][:2] if len(places) > 1 else None)
            refs.append(
                TranscriptRef(
                    side, record.task, record.rep, path, root, None, record.file, rebased=rebased, fallback=fallback
                )
            )
    counts = Counter((ref.side, ref.task, ref.rep) for ref in refs)
    return tuple(
        dataclasses.replace(ref, variant=hashlib.sha256(ref.file.encode("utf-8", "replace")).hexdigest()[:12])
        if counts[(ref.side, ref.task, ref.rep)] > 1
        else ref
        for ref in refs
    )


def _imported_refs(side: str, experiment: Any) -> list[TranscriptRef]:
    """Imported runs (Harbor, SWE-bench) whose record names an agent stdout stream inside the experiment."""
    import os

    root = str(experiment.root)
    if not os.path.isdir(root):
        return []
    refs = []
    for record in experiment.records:
        stdout = record.report.get("agent_stdout")
        trial = record.report.get("trial_name")
        if not isinstance(stdout, str) or not stdout:
            stdout = None
            if (
                isinstance(trial, str)
                and trial
                and os.path.isfile(os.path.join(root, trial, "agent", "trajectory.json"))
            ):
                stdout = os.path.join(trial, "agent", "trajectory.json")  # Harbor ATIF, when no stdout stream
        if stdout is None or "\0" in stdout:
            continue
        path = os.path.normpath(os.path.join(root, stdout))
        if not (path + os.sep).startswith(root.rstrip(os.sep) + os.sep):
            refs.append(TranscriptRef(side, record.task, record.rep, None, None, "outside its experiment", record.file))
            continue
        refs.append(TranscriptRef(side, record.task, record.rep, path, root, None, record.file))
    return refs


def _inspect_refs(side: str, experiment: Any) -> list[TranscriptRef]:
    """Inspect runs: the sample each record was read from (``<log>#<member>``), in the side's log
    (or, for a side of several logs, in the log of that name)."""
    import os

    if experiment.logs is None:  # one log, named by the side's label in its folder
        where = {experiment.label: os.path.join(str(experiment.root), experiment.label)}
    else:
        where = {log.name: str(log.path) for log in experiment.logs.logs if log.path is not None}
    refs = []
    for record in experiment.records:
        log, _, member = str(record.file).partition("#")
        if not member or "/" in log or "\0" in log or log not in where:
            continue
        path = where[log]
        refs.append(
            TranscriptRef(side, record.task, record.rep, path, os.path.dirname(path), None, record.file, member=member)
        )
    return refs


def run_page_states(refs: Sequence[TranscriptRef]) -> dict[tuple[str, str, int, str], tuple[str, str | None]]:
    """(side, task, rep, report file) -> (URL variant, why the transcript is not shown or None)."""
    return {(ref.side, ref.task, ref.rep, ref.file): (ref.variant, ref.problem) for ref in refs}


def write_transcripts(
    jobs: Sequence[Job], writer: SiteWriter, on_page: Callable[[str, int], None], site: SiteInfo, templates: Path
) -> int:
    """Every run page, one run at a time (read, page models, render, write), so memory stays bounded;
    a comparison grouped per task (``run_pages:``) by ``task_transcripts.write_grouped``."""
    from generator.analyze.transcripts.steps import tool_calls
    from generator.pages.runs.page import RunBundle, run_pages, run_problem_page, step_pages
    from generator.read.safe_io import Refusal
    from generator.read.transcripts import InspectLogs, read_ref

    redactor = writer.redactor

    def write(url: str, html: str, data: object) -> None:
        on_page(url, write_page(writer, url, html, data))

    written = 0
    for cid, title, view, refs, grouped in jobs:
        if grouped:
            written += write_grouped((cid, title, view, refs), writer, on_page, site, templates)
            continue
        calls: dict[tuple[str, str, int], Any] = {}  # (side, task, rep) -> (tool calls, step pages) or why not
        logs = InspectLogs()  # the Inspect log last read (runs of one log come together)
        for ref in refs:
            if ref.path is None or ref.root is None:
                continue
            transcript = read_ref(ref, logs)
            if not ref.variant:
                calls[(ref.side, ref.task, ref.rep)] = (
                    transcript.reason
                    if isinstance(transcript, Refusal)
                    else (tool_calls(transcript.steps), step_pages(transcript))
                )
            if isinstance(transcript, Refusal):
                pages: Iterable[RunBundle] = [
                    run_problem_page(site, cid, title, ref.task, ref.side, ref.rep, transcript.reason, ref.variant)
                ]
            else:
                treatment = next((view.sides[side].treatment for side in SIDES if side == ref.side), "")
                pages = run_pages(site, cid, title, ref.task, ref.side, treatment, ref.rep, transcript, ref.variant)
            for page, data in pages:
                write(page.meta.url, render_page(page, templates, redactor), data)  # type: ignore[arg-type]
                written += 1
            del transcript, pages
        del logs
        written += _write_pairs(write, redactor, site, templates, cid, title, view, calls)
    return written


def _write_pairs(
    write: WritePage,
    redactor: Redactor,
    site: SiteInfo,
    templates: Path,
    cid: str,
    title: str,
    view: ComparisonView,
    calls: Mapping[tuple[str, str, int], Any],
) -> int:
    """One paired step view per strictly matched pair whose two runs both have a run page."""
    from generator.analyze.transcripts.steps import align_steps
    from generator.model.transcript import StepAlignment
    from generator.pages.runs.pair import pair_page

    written = 0
    for pair in view.pairs:
        task, rep = pair.task, pair.rep
        sides = (calls.get(("candidate", task, rep)), calls.get(("baseline", task, rep)))
        if sides[0] is None or sides[1] is None:
            continue
        problems = [
            f"the {side} transcript is not shown ({got})"
            for side, got in zip(SIDES, sides, strict=True)
            if isinstance(got, str)
        ]
        if problems:
            alignment, pages, problem = StepAlignment((), None), {}, "; ".join(problems)
        else:
            alignment = align_steps(sides[0][0], sides[1][0])
            pages, problem = {"candidate": sides[0][1], "baseline": sides[1][1]}, None
        page, data = pair_page(site, cid, title, task, rep, alignment, pages, problem)
        write(page.meta.url, render_page(page, templates, redactor), data)  # type: ignore[arg-type]
        written += 1
    return written
