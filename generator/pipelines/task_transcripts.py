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

from collections.abc import Callable, Sequence
from pathlib import Path

from generator.model.common import SIDES
from generator.model.comparison_view import ComparisonView
from generator.model.redaction import Redactor
from generator.model.transcript import TASK_GROUPED_ABOVE, StepAlignment, TranscriptRef
from generator.pages.models import SiteInfo
from generator.pages.runs.grouped import RunItem
from generator.render.env import render_page

__all__ = ["groups_per_task", "write_grouped"]

#: (url, html, data) -> None: how ``build.py`` writes one page and its ``data.json``.
WritePage = Callable[[str, str, object], None]


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


def write_grouped(
    cid: str,
    title: str,
    view: ComparisonView,
    refs: Sequence[TranscriptRef],
    write: WritePage,
    redactor: Redactor,
    site: SiteInfo,
    templates: Path,
) -> int:
    """Every task's grouped transcript pages; how many pages were written."""
    from generator.pages.runs.grouped import TaskRuns
    from generator.read.safe_io import Refusal
    from generator.read.transcripts import InspectLogs, read_ref

    treatments: dict[str, str] = {side: view.sides[side].treatment for side in SIDES}
    matched = {(pair.task, int(pair.rep)) for pair in view.pairs}
    logs: dict[str, InspectLogs] = {side: InspectLogs() for side in SIDES}  # the last log read, per side
    written = 0
    for task, reps in sorted(_by_task(refs).items()):
        pages = TaskRuns(site, cid, title, task)
        for rep, group in sorted(reps.items()):
            runs = []
            for ref in group:
                got = read_ref(ref, logs.get(ref.side, InspectLogs()))
                transcript = None if isinstance(got, Refusal) else got
                problem = got.reason if isinstance(got, Refusal) else None
                runs.append(RunItem(ref.side, rep, ref.variant, treatments.get(ref.side, ""), transcript, problem))
            plain = {run.side: run for run in runs if not run.variant}
            alignment, problem = None, None
            if (task, rep) in matched and set(SIDES) <= set(plain):
                alignment, problem = _aligned(plain)
            for page, data in pages.add(rep, runs, alignment, problem):
                write(page.meta.url, render_page(page, templates, redactor), data)  # type: ignore[arg-type]
            del runs, plain
        for page, data in pages.finish():
            write(page.meta.url, render_page(page, templates, redactor), data)  # type: ignore[arg-type]
        written += pages.pages_written
    return written


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
