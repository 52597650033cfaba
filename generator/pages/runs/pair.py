"""The paired step view page: two runs' tool calls side by side, aligned, the first divergence marked.

Formats the :class:`StepAlignment` computed by ``analyze/transcripts/steps.py``; computes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from generator.model.common import SIDES
from generator.model.transcript import StepAlignment
from generator.pages.models import Cell, Column, Link, PageMeta, Row, SiteInfo, Table
from generator.pages.urls import comparison_url, index_url, pair_url, rel, run_url, task_url

__all__ = ["MAX_PAIR_ROWS", "PairPage", "aligned_rows", "pair_facts", "pair_page", "steps_table"]

#: Rows shown on one pair page (each row is a few hundred bytes: the page stays under 2 MB).
MAX_PAIR_ROWS = 4000

_OP_WORDS = {"same": "same", "changed": "differs", "candidate-only": "candidate only", "baseline-only": "baseline only"}


@dataclass(frozen=True, slots=True)
class PairPage:
    meta: PageMeta
    facts: tuple[tuple[str, str], ...]
    divergence: str
    diverged: bool
    table: Table
    note: str | None
    runs: tuple[Link, ...]
    template: ClassVar[str] = "pair.html"


#: side, step index -> the step's link (relative to the page the table is on).
StepHref = Callable[[str, int], str]


def _cell(call: tuple[str, str, int] | None, side: str, href: StepHref) -> tuple[Cell, Cell]:
    if call is None:
        return Cell("—", "", None, "na"), Cell("—", None, None, "na")
    name, args, index = call
    return Cell(f"step {index}", str(index), href(side, index), "num"), Cell(f"{name}: {args}", None, None, "mono")


def steps_table(alignment: StepAlignment, href: StepHref, table_id: str = "steps-table") -> Table:
    """The two runs' tool calls aligned, one row each (the first :data:`MAX_PAIR_ROWS`)."""
    rows = []
    for number, aligned in enumerate(alignment.rows[:MAX_PAIR_ROWS], 1):
        (c_step, c_call), (b_step, b_call) = (
            _cell(call, side, href) for side, call in zip(SIDES, (aligned.candidate, aligned.baseline), strict=True)
        )
        first = number == alignment.first_divergence
        op = Cell(
            _OP_WORDS[aligned.op] + (" (first divergence)" if first else ""),
            None,
            None,
            "same" if aligned.op == "same" else "diff",
        )
        rows.append(
            Row(
                (Cell(str(number), str(number), None, "num"), c_step, c_call, b_step, b_call, op),
                "" if aligned.op == "same" else "mismatch",
                f"row-{number}" if table_id == "steps-table" else f"{table_id}-row-{number}",
            )
        )
    return Table(
        id=table_id,
        caption="Tool calls of the two runs, aligned (tool name and short arguments)",
        columns=(
            Column("Row", True),
            Column("Candidate step", True),
            Column("Candidate tool call"),
            Column("Baseline step", True),
            Column("Baseline tool call"),
            Column("Alignment"),
        ),
        rows=tuple(rows),
        empty="Neither run made a tool call.",
        filterable=True,
    )


def pair_facts(task: str, rep: int, alignment: StepAlignment) -> tuple[tuple[tuple[str, str], ...], str | None]:
    """The pair's facts (the aligned rows counted by kind) and the note when rows were cut."""
    note = None
    if len(alignment.rows) > MAX_PAIR_ROWS:
        note = f"The first {MAX_PAIR_ROWS:,} of {len(alignment.rows):,} aligned rows are shown."
    counts = {op: sum(1 for r in alignment.rows if r.op == op) for op in _OP_WORDS}
    facts = (
        ("Pair", f"task {task}, repetition {rep}"),
        (
            "Aligned rows",
            f"{len(alignment.rows):,}: " + ", ".join(f"{counts[op]:,} {_OP_WORDS[op]}" for op in _OP_WORDS),
        ),
        ("Alignment", "difflib.SequenceMatcher over (tool name, short arguments), junk heuristic off"),
    )
    return facts, note


def aligned_rows(alignment: StepAlignment) -> list[dict[str, Any]]:
    """The aligned rows of a pair's ``data.json`` (the first :data:`MAX_PAIR_ROWS`)."""
    return [
        {
            "op": r.op,
            "candidate": list(r.candidate) if r.candidate else None,
            "baseline": list(r.baseline) if r.baseline else None,
        }
        for r in alignment.rows[:MAX_PAIR_ROWS]
    ]


def pair_page(
    site: SiteInfo,
    cid: str,
    ctitle: str,
    task: str,
    rep: int,
    alignment: StepAlignment,
    pages: dict[str, dict[int, int]],  # side -> step index -> run page number
    problem: str | None = None,  # set when a side's transcript could not be read: nothing is aligned
) -> tuple[PairPage, dict[str, Any]]:
    url = pair_url(cid, task, rep)

    def href(side: str, index: int) -> str:
        return rel(url, run_url(cid, task, side, rep, pages.get(side, {}).get(index, 1))) + f"#step-{index}"

    table = steps_table(alignment, href)
    facts, note = pair_facts(task, rep, alignment)
    crumbs = (
        Link("Home", rel(url, index_url())),
        Link(ctitle, rel(url, comparison_url(cid))),
        Link(f"Task {task}", rel(url, task_url(cid, task))),
    )
    runs = (
        Link("candidate run", rel(url, run_url(cid, task, "candidate", rep))),
        Link("baseline run", rel(url, run_url(cid, task, "baseline", rep))),
    )
    meta = PageMeta(url, f"Steps of pair {rep} · {task}", site, crumbs, (), (Link("data.json", "data.json"),))
    words = f"not aligned: {problem}" if problem else alignment.words
    page = PairPage(meta, facts, words, alignment.first_divergence is not None, table, note, runs)
    data = {
        "schema": "evalsite.site.pair-steps.v1",
        "comparison": cid,
        "task": task,
        "rep": rep,
        "first_divergence": alignment.first_divergence,
        "words": words,
        "rows": aligned_rows(alignment),
    }
    return page, data
