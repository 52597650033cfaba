"""A comparison's published runs grouped per task (``run_pages: task``; ``docs/transcripts.md``).

:func:`groups_per_task` decides, per comparison, whether its runs are grouped: always with
``run_pages: task``, never with ``run``, and with ``auto`` (the default) when the comparison publishes
more than :data:`TASK_GROUPED_ABOVE` transcripts -- a page per run and per pair would then be
thousands of files, and GitHub Pages takes at most 100,000.

:func:`write_grouped` writes a comparison's grouped pages, one task at a time and one repetition at a
time within it: both runs of a repetition are read, their tool calls aligned, and the repetition laid
out (``pages/runs/grouped.py``) before the next is read, so memory holds at most a repetition's
transcripts and two pages (the task's first page, its index, is written last).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Sequence
from pathlib import Path

from generator.model.common import SIDES
from generator.model.comparison_view import ComparisonView
from generator.model.redaction import Redactor
from generator.model.transcript import TASK_GROUPED_ABOVE, StepAlignment, TranscriptRef
from generator.pages.models import SiteInfo
from generator.pages.runs.grouped import RunItem
from generator.pipelines import parallel
from generator.pipelines.site_pool import write_page
from generator.read.transcripts import InspectLogs
from generator.render.env import render_page
from generator.write.site import SiteWriter

__all__ = ["groups_per_task", "write_grouped"]


def groups_per_task(mode: str, refs: Sequence[TranscriptRef]) -> bool:
    """Whether a comparison's runs are grouped per task under ``run_pages: <mode>``."""
    if mode != "auto":
        return mode == "task"
    return sum(1 for ref in refs if ref.path is not None) > TASK_GROUPED_ABOVE


def _by_task(refs: Sequence[TranscriptRef]) -> dict[str, dict[int, list[TranscriptRef]]]:
    """The refs to read (those with a path), by task and repetition, each in side order."""
    tasks: dict[str, dict[int, list[TranscriptRef]]] = {}
    for ref in refs:
        if ref.path is not None and ref.root is not None:
            tasks.setdefault(ref.task, {}).setdefault(ref.rep, []).append(ref)
    order: dict[str, int] = {side: n for n, side in enumerate(SIDES)}
    for reps in tasks.values():
        for group in reps.values():
            group.sort(key=lambda ref: (ref.variant != "", order.get(ref.side, 9), ref.variant))
    return tasks


#: (id, title, view, refs) of one comparison.
Job = tuple[str, str, ComparisonView, Sequence[TranscriptRef]]
#: Tasks a worker writes per job (results come back in task order), and the fewest tasks for a pool.
_CHUNK = 16
POOL_MIN_TASKS = 64
_Shared = tuple[Job, list[tuple[str, dict[int, list[TranscriptRef]]]], SiteInfo, Path, Path, Redactor]
_Result = tuple[list[tuple[str, int]], dict[str, int], dict[str, str], dict[str, set[str]]]
_LOGS: dict[str, InspectLogs] = {}  # a process's last Inspect log read, per side (runs of one log come together)


def write_grouped(
    job: Job, writer: SiteWriter, on_page: Callable[[str, int], None], site: SiteInfo, templates: Path
) -> int:
    """Every task's grouped transcript pages, written by worker processes a chunk of tasks at a time
    (``pipelines/parallel.py``; in this process for a few tasks or ``EVALSITE_WORKERS=1``), merged in
    task order: each chunk is written by a writer of its own, so the site is the same either way."""
    tasks = sorted(_by_task(job[3]).items())
    chunks = [range(start, min(start + _CHUNK, len(tasks))) for start in range(0, len(tasks), _CHUNK)]
    shared: _Shared = (job, tasks, site, templates, writer.root, writer.redactor)
    written = 0
    gc.freeze()  # what exists now stays out of the collector (and uncopied in forked workers)
    try:
        done = parallel.ordered_map(_write_tasks, shared, chunks, parallel.workers(len(tasks), POOL_MIN_TASKS))
        with contextlib.closing(done):
            for pages, paths, digests, redacted in done:
                for path in paths:
                    writer.claim(path)  # refused as a serial write would be: unsafe, or claimed twice
                writer.merge(paths, digests, redacted)
                for url, size in pages:
                    on_page(url, size)
                written += len(pages)
    finally:
        gc.unfreeze()
        _LOGS.clear()
    return written


def _write_tasks(shared: _Shared, indices: range) -> _Result:
    """The grouped pages of the tasks *indices* (one repetition read at a time), by a writer of its own."""
    from generator.pages.runs.grouped import TaskRuns
    from generator.read.safe_io import Refusal
    from generator.read.transcripts import read_ref

    (cid, title, view, _refs), tasks, site, templates, root, redactor = shared
    writer = SiteWriter(root, redactor)
    pages: list[tuple[str, int]] = []
    treatments: dict[str, str] = {side: view.sides[side].treatment for side in SIDES}
    matched = {(pair.task, int(pair.rep)) for pair in view.pairs}
    for index in indices:
        task, reps = tasks[index]
        grouped = TaskRuns(site, cid, title, task)
        for rep, group in sorted(reps.items()):
            runs = []
            for ref in group:
                got = read_ref(ref, _LOGS.setdefault(ref.side, InspectLogs()))
                transcript = None if isinstance(got, Refusal) else got
                problem = got.reason if isinstance(got, Refusal) else None
                runs.append(RunItem(ref.side, rep, ref.variant, treatments.get(ref.side, ""), transcript, problem))
            plain = {run.side: run for run in runs if not run.variant}
            alignment, problem = None, None
            if (task, rep) in matched and set(SIDES) <= set(plain):
                alignment, problem = _aligned(plain)
            for page, data in grouped.add(rep, runs, alignment, problem):
                html = render_page(page, templates, redactor)  # type: ignore[arg-type]
                pages.append((page.meta.url, write_page(writer, page.meta.url, html, data)))
            del runs, plain
        for page, data in grouped.finish():
            html = render_page(page, templates, redactor)  # type: ignore[arg-type]
            pages.append((page.meta.url, write_page(writer, page.meta.url, html, data)))
    return pages, writer.written, writer.digests, writer.redacted


def _aligned(plain: dict[str, RunItem]) -> tuple[StepAlignment, str | None]:
    """A repetition's two runs aligned, or an empty alignment and why not (a side not shown)."""
    from generator.analyze.transcripts.steps import align_steps, tool_calls

    problems = [
        f"the {side} transcript is not shown ({plain[side].problem})"
        for side in SIDES
        if plain[side].transcript is None
    ]
    if problems:
        return StepAlignment((), None), "; ".join(problems)
    candidate, baseline = (plain[side].transcript for side in SIDES)
    assert candidate is not None and baseline is not None
    return align_steps(tool_calls(candidate.steps), tool_calls(baseline.steps)), None
