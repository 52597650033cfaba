"""What a reviewer decides from: the task outcome table with its direction per task, the failure
reasons counted per side, and the one sentence that says why a comparison has no verdict.

Rows carry stable anchors (``task-<slug>``, ``issue-<slug>-r<rep>-<reason>``) so a URL can point at
one row; long tables are shown collapsed (``Table.collapsed``) with one-click views
(``Table.views``, applied by tables.js; without JS every row shows).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from functools import cached_property

from generator.model.common import SIDES
from generator.model.comparison import Issue
from generator.pages import format as fmt
from generator.pages.comparison.context import ComparisonContext, side_label
from generator.pages.glossary import reason_term, term_href
from generator.pages.models import Cell, Column, Row, Table
from generator.pages.names import phrase
from generator.pages.urls import name_slug

__all__ = ["DecisionSections", "anchored", "row_anchor"]


OUTCOME_VIEWS = (
    ("All", ""),
    ("Regressions", "worse"),
    ("Improvements", "better"),
    ("Differing", "worse better"),
    ("Errors / excluded", "excluded"),
)
QUALITY_EXCLUDED = "quality-excluded"  # a run its quality check kept out of the analysis
TREATMENT_MISSING = "expected-treatment-missing"
_DIRECTION = {"better": "candidate better", "worse": "candidate worse", "tie": "same result"}


#: The outcome table's columns of each side's failed checks (0-based; see ``outcomes_table``).
OUTCOME_FAILURE_COLUMNS = (5, 6)


def row_anchor(kind: str, task: str) -> str:
    return f"{kind}-{name_slug(task)}"


class DecisionSections(ComparisonContext):
    """The decision-first parts of the comparison page."""

    @cached_property
    def _failure_counts(self) -> dict[tuple[str, str], Counter[str]]:
        """(task, side) -> its runs' failed checks and quality exclusions, counted in one pass over the runs."""
        counts: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
        for run in self.view.runs:
            reasons = counts[(run.task, run.side)]
            for check in run.checks_failed:
                reasons[str(check)] += 1
            if run.quality.include_in_analysis is False:
                reasons[QUALITY_EXCLUDED] += 1
        return counts

    def _failures(self, task: str, side: str) -> Counter[str]:
        return self._failure_counts.get((task, side)) or Counter()

    @staticmethod
    def _reasons_text(reasons: Counter[str]) -> str:
        return "; ".join(f"{r} ×{n}" if n > 1 else r for r, n in sorted(reasons.items())) or "—"

    def outcomes_table(self) -> Table:
        rows = []
        for row in self.view.task_outcomes:
            task = row.task
            pairs = row.pairs
            cand, base = row.candidate_passes, row.baseline_passes
            diff = row.difference
            direction = "" if diff is None else "better" if cand > base else "worse" if cand < base else "tie"
            excluded = bool(self.issues_by_task.get(task)) or not pairs
            failures = {side: self._failures(task, side) for side in SIDES}
            if any(failures[side][QUALITY_EXCLUDED] for side in SIDES):
                excluded = True
            cls = " ".join(part for part in (direction, "excluded" if excluded else "") if part)
            shown = _DIRECTION.get(direction, "not compared (no matched pair)")
            rows.append(
                Row(
                    (
                        self.task_cell(task, self.url),
                        Cell(shown, {"better": "2", "tie": "1", "worse": "0"}.get(direction, ""), None, direction),
                        fmt.num_cell(diff, pp_text(diff)),
                        Cell(f"{cand}/{pairs}", fmt.sort_key(cand), None, "num"),
                        Cell(f"{base}/{pairs}", fmt.sort_key(base), None, "num"),
                        *(Cell(self._reasons_text(failures[side])) for side in SIDES),
                    ),
                    cls,
                    row_anchor("task", task),
                )
            )
        better, worse, tie = (sum(1 for r in rows if r.cls.split(" ")[0] == way) for way in ("better", "worse", "tie"))
        summary = (
            f"All {len(rows):,} tasks: {better:,} candidate better, {worse:,} candidate worse, {tie:,} same result"
        )
        return Table(
            id="task-outcomes-table",
            caption="Task outcomes on strictly matched repetitions",
            columns=(
                Column("Task"),
                Column("Direction"),
                Column("Difference", True, "candidate pass rate − baseline pass rate on this task, percentage points"),
                *(Column(phrase("{} passes", self.treatment[side]), True) for side in SIDES),
                Column("Candidate failed checks"),
                Column("Baseline failed checks"),
            ),
            rows=tuple(rows),
            filterable=True,
            views=OUTCOME_VIEWS,
            collapsed=fmt.collapsed(len(rows), summary),
        )

    def failure_table(self) -> Table:
        """Failed checks and quality exclusions counted per side (runs, and the tasks they touch)."""
        runs: dict[str, Counter[str]] = {side: Counter() for side in SIDES}
        tasks: dict[str, dict[str, set[str]]] = {side: defaultdict(set) for side in SIDES}
        for task in self.tasks:
            for side in SIDES:
                for reason, n in self._failures(task, side).items():
                    runs[side][reason] += n
                    tasks[side][reason].add(task)
        rows = []
        # a count links to the task outcomes showing that side's tasks with that reason (its own column)
        column = dict(zip(SIDES, OUTCOME_FAILURE_COLUMNS, strict=True))
        for reason in sorted(set().union(*(runs[side] for side in SIDES))):
            term = QUALITY_EXCLUDED if reason == QUALITY_EXCLUDED else "checks-failed"
            cells = [Cell(reason, None, term_href(self.url, term), "mono")]
            for side in SIDES:
                n, t = runs[side][reason], len(tasks[side][reason])
                shown = f"{n:,} run{'s' if n != 1 else ''} / {t:,} task{'s' if t != 1 else ''}" if n else "0"
                cells.append(
                    Cell(
                        shown,
                        str(n),
                        "#task-outcomes-table" if n else None,
                        "num",
                        f"{side_label(side)} tasks with {reason}" if n else None,
                        reason if n else None,
                        column[side] if n else None,
                    )
                )
            rows.append(Row(tuple(cells), "", f"failure-{name_slug(reason)}"))
        return Table(
            id="failure-reasons-table",
            caption="Failure reasons per side (failed checks of each run, and quality exclusions)",
            columns=(Column("Reason"), *(Column(side_label(side), True) for side in SIDES)),
            rows=tuple(rows),
            empty="No run failed a check and none was excluded.",
        )

    def no_verdict_reason(self) -> str | None:
        """Why there is no verdict, in one sentence (None when there are matched pairs)."""
        view = self.view
        if view.pairs:
            return None
        counts = view.issue_counts
        for side in SIDES:
            if view.sides[side].matrix.status == "invalid":
                return (
                    f"No verdict: the {side} expected case matrix failed validation, so its reports are not used "
                    "(fail closed) and no run could be paired."
                )
        if counts.get(TREATMENT_MISSING):
            missing = [
                side
                for side in SIDES
                if any(i.reason == TREATMENT_MISSING and side in str(i.detail) for i in view.issues)
            ]
            which = " and the ".join(missing) if missing else "one side's"
            return (
                f"No verdict: the {which} expected case matrix has no cases of the compared treatment, "
                "so no run could be paired."
            )
        for side in SIDES:
            if not view.sides[side].runs:
                return f"No verdict: the {side} side has no reports of treatment {self.treatment[side]}."
        if counts:
            top = max(sorted(counts), key=lambda reason: counts[reason])
            return f"No verdict: no run pair matched strictly; the most common issue is {top} ({counts[top]:,} rows)."
        return "No verdict: no run pair matched strictly by task, repetition and case hash."

    def anchored_issues(self, issues: Sequence[Issue], table: Table, *, with_task: bool) -> Table:
        """The issues table with a stable anchor per row and each reason linked to the glossary."""
        seen: Counter[str] = Counter()
        rows = []
        reason_at = 2 if with_task else 1
        for issue, row in zip(issues, table.rows, strict=True):
            base = f"issue-{name_slug(str(issue.task))}-r{issue.rep or 0}-{name_slug(str(issue.reason))}"
            seen[base] += 1
            anchor = base if seen[base] == 1 else f"{base}-{seen[base]}"
            cells = list(row.cells)
            term = reason_term(str(issue.reason))
            if term:
                old = cells[reason_at]
                cells[reason_at] = Cell(old.text, old.sort, term_href(self.url, term), old.cls, old.title)
            rows.append(Row(tuple(cells), row.cls, anchor))
        return Table(
            id=table.id,
            caption=table.caption,
            columns=table.columns,
            rows=tuple(rows),
            empty=table.empty,
            sortable=table.sortable,
            filterable=table.filterable,
            collapsed=fmt.collapsed(len(rows), f"All {len(rows):,} alignment issues"),
        )


def anchored(table: Table, kind: str, noun: str) -> Table:
    """``table`` with each row anchored by its first cell (a task) and collapsed when long."""
    rows = tuple(
        Row(r.cells, r.cls, row_anchor(kind, "*" if r.cells[0].text == "(experiment)" else r.cells[0].text))
        for r in table.rows
    )
    marked = sum(1 for r in rows if r.cls)
    summary = f"All {len(rows):,} {noun}" + (f" ({marked:,} highlighted)" if marked else "")
    return Table(
        id=table.id,
        caption=table.caption,
        columns=table.columns,
        rows=rows,
        empty=table.empty,
        sortable=table.sortable,
        filterable=table.filterable,
        views=table.views,
        collapsed=fmt.collapsed(len(rows), summary),
    )


def pp_text(value: float | None) -> str:
    return fmt.NA if value is None else f"{value * 100:+.0f} pp".replace("-", "−")
