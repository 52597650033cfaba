"""A task's published runs and pairs on pages of their own (``run_pages: task``, ``docs/transcripts.md``).

Instead of a page per run (and more for a long transcript) and a page per pair, a task's runs are
laid out in order -- each repetition's paired step view, then its candidate and baseline
transcripts -- on ``tasks/<task>/transcripts/`` pages of at most :data:`PAGE_BUDGET` bytes of step
text (a long run continues on the next page).  The first page indexes every run and pair with an
anchor the task page links to (``#run-candidate-r2``, ``#pair-r2``) and a link to where it is.

:class:`TaskRuns` is filled one repetition at a time and hands back each page once the next one has
started, so memory holds the first page, the page being filled and the repetition being read; the
first page is made last, when the pages are counted.  Formats and places; computes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from generator.model.transcript import StepAlignment, Transcript
from generator.pages.models import InputDigest, Link, PageMeta, SiteInfo, Table
from generator.pages.runs.page import PAGE_BUDGET, StepView, run_facts, step_cost, step_view
from generator.pages.runs.pair import pair_facts, steps_table
from generator.pages.urls import comparison_url, index_url, rel, task_transcripts_url, task_url

__all__ = [
    "GROUPED_SCHEMA",
    "GroupedBundle",
    "IndexEntry",
    "PairBlock",
    "RunBlock",
    "RunItem",
    "TaskRuns",
    "TaskRunsPage",
    "run_key",
]

#: The ``data.json`` of a grouped page (``docs/comparison-json.md``).
GROUPED_SCHEMA = "evalsite.site.task-transcripts.v1"
_HEADING = 2048  # bytes of page budget counted for a run's or a pair's heading and facts
_ROW = 320  # bytes counted for one aligned row of a pair


def run_key(side: str, rep: int, variant: str = "") -> str:
    """A run's anchor stem on the grouped pages: ``candidate-r2`` (``-<variant>`` for a second report)."""
    return f"{side}-r{rep}" + (f"-{variant}" if variant else "")


@dataclass(frozen=True, slots=True)
class RunItem:
    """One run of a repetition to lay out: its transcript, or why it is not shown."""

    side: str
    rep: int
    variant: str
    treatment: str
    transcript: Transcript | None
    problem: str | None = None


@dataclass(frozen=True, slots=True)
class RunBlock:
    anchor: str | None  # "transcript-candidate-r2" on the part that starts the run, else None
    title: str
    facts: tuple[tuple[str, str], ...]
    steps: tuple[StepView, ...]
    prefix: str  # each step's id is prefix + "step-N"
    problem: str | None = None
    kind: ClassVar[str] = "run"


@dataclass(frozen=True, slots=True)
class PairBlock:
    anchor: str  # "steps-r2"
    title: str
    divergence: str
    diverged: bool
    facts: tuple[tuple[str, str], ...]
    table: Table
    note: str | None
    kind: ClassVar[str] = "pair"


@dataclass(frozen=True, slots=True)
class IndexEntry:
    anchor: str  # what the task page links to: "run-candidate-r2" or "pair-r2"
    text: str
    link: Link  # where it is shown (this page or a later one)


@dataclass(frozen=True, slots=True)
class TaskRunsPage:
    meta: PageMeta
    intro: str
    index: tuple[IndexEntry, ...]  # the first page only
    blocks: tuple[RunBlock | PairBlock, ...]
    pages: tuple[Link, ...]  # the first page only: every page, href "" for this one
    previous: Link | None
    next: Link | None
    first: Link | None  # later pages: back to the first page (the index)
    template: ClassVar[str] = "task_runs.html"


#: One grouped page and its ``data.json``.
GroupedBundle = tuple[TaskRunsPage, dict[str, Any]]


_Data = dict[str, Any] | None


@dataclass
class _Page:
    number: int
    blocks: list[RunBlock | PairBlock] = field(default_factory=list)
    runs: list[dict[str, Any]] = field(default_factory=list)
    pairs: list[dict[str, Any]] = field(default_factory=list)


class TaskRuns:
    """The grouped pages of one task, filled one repetition at a time (:meth:`add`), then :meth:`finish`."""

    def __init__(self, site: SiteInfo, cid: str, ctitle: str, task: str) -> None:
        self.site, self.cid, self.ctitle, self.task = site, cid, ctitle, task
        self._page, self._used = 1, 0  # the page being laid out and its budget used
        self._first = _Page(1)
        self._open = self._first  # the page being filled (the first page is kept until finish)
        self._index: list[tuple[str, str, int, str]] = []  # anchor, text, page, target id
        self.pages_written = 0

    def _place(self, cost: int) -> int:
        if self._used and self._used + cost > PAGE_BUDGET:
            self._page, self._used = self._page + 1, 0
        self._used += cost
        return self._page

    def _url(self, page: int) -> str:
        return task_transcripts_url(self.cid, self.task, page)

    def _href(self, here: int, there: int, anchor: str) -> str:
        """The link from page *here* to *anchor* on page *there* (``#anchor`` on the same page)."""
        return f"#{anchor}" if here == there else f"{rel(self._url(here), self._url(there))}#{anchor}"

    def add(
        self, rep: int, runs: Sequence[RunItem], pair: StepAlignment | None, pair_problem: str | None = None
    ) -> list[GroupedBundle]:
        """Lay out one repetition (its pair's aligned steps when *pair* or *pair_problem*, then its
        runs); the pages it completed, to write now."""
        pair_page = self._place(_HEADING + _ROW * len(pair.rows)) if pair is not None else None
        placed = [self._place_run(run) for run in runs]
        steps_at = {
            run.side: {index: page for page, views in parts for index in (v.index for v in views)}
            for run, parts in zip(runs, placed, strict=True)
            if not run.variant
        }
        done: list[GroupedBundle] = []
        if pair is not None and pair_page is not None:
            shown = self._pair_block(rep, pair, pair_problem, pair_page, steps_at)
            facts = {"rep": rep, "first_divergence": pair.first_divergence, "words": shown.divergence}
            done += self._put(pair_page, shown, pair=facts | {"rows": len(pair.rows)})
            self._index.append((f"pair-r{rep}", f"pair, repetition {rep}: aligned steps", pair_page, f"steps-r{rep}"))
        for run, parts in zip(runs, placed, strict=True):
            key = run_key(run.side, run.rep, run.variant)
            label = f"{run.side} run, repetition {run.rep}" + (f" (report {run.variant})" if run.variant else "")
            self._index.append((f"run-{key}", label, parts[0][0], f"transcript-{key}"))
            for number, (page, views) in enumerate(parts):
                block = RunBlock(
                    f"transcript-{key}" if number == 0 else None,
                    label[0].upper() + label[1:] + (" (continued)" if number else ""),
                    run_facts(run.transcript, run.side, run.treatment, run.rep)
                    if run.transcript is not None and number == 0
                    else (),
                    views,
                    f"{key}-",
                    run.problem,
                )
                done += self._put(page, block, run=_run_data(run, views, number > 0))
        return done

    def _place_run(self, run: RunItem) -> list[tuple[int, tuple[StepView, ...]]]:
        """(page, the run's steps on it) for each page the run is on (one, with no steps, when not shown)."""
        parts: list[tuple[int, list[StepView]]] = [(self._place(_HEADING), [])]
        for step in run.transcript.steps if run.transcript is not None else ():
            page = self._place(step_cost(step))
            if page != parts[-1][0]:
                parts.append((page, []))
            parts[-1][1].append(step_view(step))
        return [(page, tuple(views)) for page, views in parts]

    def _pair_block(
        self, rep: int, pair: StepAlignment, problem: str | None, page: int, steps_at: dict[str, dict[int, int]]
    ) -> PairBlock:

        def href(side: str, index: int) -> str:
            return self._href(page, steps_at.get(side, {}).get(index, page), f"{run_key(side, rep)}-step-{index}")

        facts, note = pair_facts(self.task, rep, pair)
        words = f"not aligned: {problem}" if problem else pair.words
        table = steps_table(pair, href, f"steps-r{rep}-table")
        return PairBlock(
            f"steps-r{rep}", f"Pair, repetition {rep}: aligned steps", words, pair.first_divergence is not None,
            facts, table, note,
        )  # fmt: skip

    def _put(
        self,
        page: int,
        block: RunBlock | PairBlock,
        *,
        run: dict[str, Any] | None = None,
        pair: dict[str, Any] | None = None,
    ) -> list[GroupedBundle]:
        done: list[GroupedBundle] = []
        if page != self._open.number:
            if self._open is not self._first:
                done.append(self._bundle(self._open, last=False))
            self._open = _Page(page)
        self._open.blocks.append(block)
        if run is not None:
            self._open.runs.append(run)
        if pair is not None:
            self._open.pairs.append(pair)
        return done

    def finish(self) -> list[GroupedBundle]:
        """The last page (when not the first) and the first page with its index of every run and pair."""
        done = [] if self._open is self._first else [self._bundle(self._open, last=True)]
        done.append(self._bundle(self._first, last=self._page == 1))
        return done

    def _meta(self, url: str, page: int) -> PageMeta:
        crumbs = (
            Link("Home", rel(url, index_url())),
            Link(self.ctitle, rel(url, comparison_url(self.cid))),
            Link(f"Task {self.task}", rel(url, task_url(self.cid, self.task))),
        )
        title = f"Transcripts · {self.task}" + (f" (page {page})" if page > 1 else "")
        inputs: tuple[InputDigest, ...] = ()
        return PageMeta(url, title, self.site, crumbs, inputs, (Link("data.json", "data.json"),))

    def _bundle(self, page: _Page, *, last: bool) -> GroupedBundle:
        url = self._url(page.number)
        first = page.number == 1
        index: tuple[IndexEntry, ...] = ()
        pages: tuple[Link, ...] = ()
        if first:
            index = tuple(
                IndexEntry(anchor, text, Link(f"page {at}" if at > 1 else "below", self._href(1, at, target)))
                for anchor, text, at, target in self._index
            )
            pages = tuple(Link(str(n), "" if n == 1 else rel(url, self._url(n))) for n in range(1, self._page + 1))
        self.pages_written += 1
        view = TaskRunsPage(
            self._meta(url, page.number),
            f"The published transcripts of task {self.task}: each repetition's aligned steps, then its runs.",
            index,
            tuple(page.blocks),
            pages,
            Link("previous page", rel(url, self._url(page.number - 1))) if page.number > 1 else None,
            None if last else Link("next page", rel(url, self._url(page.number + 1))),
            None if first else Link("first page (the index)", rel(url, self._url(1))),
        )
        data: dict[str, Any] = {
            "schema": GROUPED_SCHEMA,
            "comparison": self.cid,
            "task": self.task,
            "page": page.number,
            "runs": page.runs,
            "pairs": page.pairs,
        }
        if first:
            data.update(
                pages=self._page,
                index=[{"anchor": a, "page": at, "target": target} for a, _text, at, target in self._index],
            )
        return view, data


def _run_data(run: RunItem, views: tuple[StepView, ...], continued: bool) -> dict[str, Any]:
    """One run's part of a page's ``data.json`` (its steps on that page)."""
    data: dict[str, Any] = {"side": run.side, "rep": run.rep, "variant": run.variant, "continued": continued}
    transcript = run.transcript
    if transcript is None:
        return data | {"problem": run.problem}
    return data | {
        "format": transcript.format,
        "raw_stdout": {"bytes": transcript.bytes, "sha256": transcript.sha256, "source": transcript.source},
        "steps": [[v.index, v.kind, v.name] for v in views],
    }
