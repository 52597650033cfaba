"""What every comparison and task page is built from: the source, its indexes, shared helpers.

A comparison's pages come from one typed :class:`ComparisonView` (plus the
statistics section and the Markdown report); nothing here re-reads evidence
files or the JSON document.  :class:`ComparisonContext` indexes the view once;
the comparison page's sections (:mod:`.sections`) and the task pages
(:mod:`.task`) are built on it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from generator.model.common import SIDES
from generator.model.comparison import METRICS, Issue
from generator.model.comparison_view import AuditRow, ComparisonView, PairOutcome, RunEntry, TaskOutcome
from generator.pages import format as fmt
from generator.pages.models import (
    Cell,
    Column,
    InputDigest,
    Link,
    Notice,
    PageMeta,
    Row,
    SiteInfo,
    StatisticsSection,
    Table,
)
from generator.pages.urls import comparison_url, rel, task_url

__all__ = [
    "AUDIT_COLUMNS",
    "MANIFEST_FIELDS",
    "MATRIX_STATUS",
    "TASK_LISTS",
    "TELEMETRY_FIELDS",
    "V1_UNBOUND",
    "ComparisonContext",
    "ComparisonSource",
    "rep_label",
    "side_label",
    "task_label",
]


MANIFEST_FIELDS = (
    ("source", "Source"),
    ("schema", "Schema"),
    ("case_hash", "Case hash"),
    ("core_hash", "Core hash"),
    ("task_hash", "Task"),
    ("instruction_hash", "Instruction"),
    ("validator_hash", "Validator"),
    ("environment_hash", "Environment"),
    ("data_hash", "Data"),
    ("prompt_hash", "Prompt"),
    ("runner_hash", "Runner"),
    ("controller_hash", "Controller"),
    ("execution_hash", "Execution"),
)
# The Markdown report's manifest-audit columns after the two case hashes.
AUDIT_COLUMNS = (
    ("instruction_hash", "Instruction"),
    ("validator_hash", "Validator"),
    ("environment_hash", "Environment"),
    ("prompt_hash", "Prompt"),
    ("runner_hash", "Runner"),
    ("controller_hash", "Controller"),
    ("execution_hash", "Execution"),
)
V1_UNBOUND = ("runner_hash", "controller_hash", "execution_hash")

# The twelve efficiency metrics, each followed by the telemetry that explains it.
_EXPLAINED_BY = {
    "cache_read_input_tokens": (("cache_creation_input_tokens", "Cache-creation input tokens", "tokens"),),
    "p95_context_input_tokens": (
        ("average_context_input_tokens", "Average context input", "tokens"),
        ("peak_context_window_tokens", "Context window", "tokens"),
    ),
}
TELEMETRY_FIELDS = tuple(
    field
    for metric in METRICS
    for field in ((metric.key, metric.label, metric.kind), *_EXPLAINED_BY.get(metric.key, ()))
)

#: The document's per-task lists: a task page's ``data.json`` gives its entries' positions in each.
TASK_LISTS = ("runs", "pairs", "issues", "manifest_audit", "task_outcomes")

MATRIX_STATUS = {
    "report-bound": "report-bound",
    "historical-fallback": "historical fallback",
    "invalid": "invalid (fail closed)",
}


@dataclass(frozen=True, slots=True)
class ComparisonSource:
    """Everything the comparison pages are built from (no paths)."""

    id: str
    title: str
    view: ComparisonView  # the typed comparison every section and task page formats
    data: object  # the comparison page's data.json (its JSON document, a rendering: never read here)
    markdown: str
    instructions: Mapping[str, str | None]
    inputs: tuple[InputDigest, ...]
    tasks_configured: bool
    statistics: StatisticsSection = StatisticsSection()
    # (side, task, rep, report file) -> (URL variant, None when the run page shows the transcript, else why not)
    run_pages: Mapping[tuple[str, str, int, str], tuple[str, str | None]] = field(default_factory=dict)
    # a side's run that did not finish (``SideLogs.status_sentence``): one notice at the top of the page
    run_status: tuple[str, ...] = ()
    grouped: bool = False  # runs grouped per task (``run_pages:``): links go to the task's transcript pages


def side_label(side: str) -> str:
    return "Candidate" if side == "candidate" else "Baseline"


def task_label(task: str) -> str:
    return "(experiment)" if task == "*" else task


def rep_label(rep: Any) -> str:
    return "—" if rep in (0, None) else str(rep)


_T = TypeVar("_T", Issue, PairOutcome, RunEntry, AuditRow, TaskOutcome)


class ComparisonContext:
    """The indexes of one view and the helpers every comparison and task page uses."""

    def __init__(self, source: ComparisonSource, site: SiteInfo) -> None:
        view = source.view
        self.source = source
        self.view = view
        self.site = site
        self.id = source.id
        self.url = comparison_url(source.id)
        self.tasks: list[str] = list(view.tasks)
        self.task_set = set(self.tasks)
        self.treatment = {side: view.sides[side].treatment for side in SIDES}
        # where each task's entries sit in the document's lists (a task page's data.json points there)
        # a task's runs are made from the view when asked for (runs_of): the pages hold no entry of every run
        self._run_positions: dict[str, list[int]] = defaultdict(list)
        for index, run in enumerate(view.runs):
            self._run_positions[run.task].append(index)
        self.positions: dict[str, dict[str, list[int]]] = {
            key: self._run_positions if key == "runs" else defaultdict(list) for key in TASK_LISTS
        }
        self.pairs_by_task = self._by_task(view.pairs, "pairs")
        self.issues_by_task = self._by_task(view.issues, "issues")
        # one row per task (the last, should a view repeat one)
        self.audit_by_task = {
            task: rows[-1] for task, rows in self._by_task(view.manifest_audit, "manifest_audit").items()
        }
        self.outcome_by_task = {
            task: rows[-1] for task, rows in self._by_task(view.task_outcomes, "task_outcomes").items()
        }

    def _by_task(self, entries: Iterable[_T], key: str) -> dict[str, list[_T]]:
        """The entries per task, in the view's order; their positions go to ``positions[key]``."""
        found: dict[str, list[_T]] = defaultdict(list)
        positions = self.positions[key]
        for index, entry in enumerate(entries):
            found[entry.task].append(entry)
            positions[entry.task].append(index)
        return found

    def runs_of(self, task: str) -> list[RunEntry]:
        """The task's runs of both sides, in the view's order."""
        runs = self.view.runs
        return [runs[index] for index in self._run_positions.get(task, ())]

    # ------------------------------------------------------------------ helpers

    def task_link(self, task: str, from_url: str) -> str | None:
        return rel(from_url, task_url(self.id, task)) if task in self.task_set else None

    def task_cell(self, task: str, from_url: str) -> Cell:
        return Cell(task_label(task), None, self.task_link(task, from_url))

    def meta(
        self,
        url: str,
        title: str,
        crumbs: Sequence[tuple[str, str]],
        inputs: Iterable[InputDigest],
        downloads: Iterable[Link],
        notices: Iterable[Notice] = (),
    ) -> PageMeta:
        return PageMeta(
            url=url,
            title=title,
            site=self.site,
            crumbs=tuple(Link(text, rel(url, target)) for text, target in crumbs),
            inputs=tuple(inputs),
            downloads=tuple(downloads),
            notices=tuple(notices),
        )

    def issues_table(self, issues: Sequence[Issue], from_url: str, *, with_task: bool, anchor: str) -> Table:
        rows = []
        for issue in issues:
            cells = []
            if with_task:
                cells.append(self.task_cell(issue.task, from_url))
            cells += [
                Cell(rep_label(issue.rep), fmt.sort_key(issue.rep), None, "num"),
                Cell(str(issue.reason), None, None, "fail"),
                Cell(str(issue.detail).replace("|", "/")),
            ]
            rows.append(Row(tuple(cells)))
        columns = ((Column("Task"),) if with_task else ()) + (Column("Rep", True), Column("Reason"), Column("Detail"))
        return Table(
            id=anchor,
            caption="Alignment issues",
            columns=columns,
            rows=tuple(rows),
            filterable=with_task,
        )
