"""The sections of a comparison page, in the Markdown report's order.

Alignment summary, expected-matrix audit, pass@k / pass^k, duration and
efficiency from raw stdout, the case-manifest audit, task outcomes, alignment
issues and skipped report files: each one table (or notice) built from the
document.  Hashes are shown by their first 12 hex digits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from generator.model.common import SIDES, Side, is_number, short_hash
from generator.model.comparison import DurationSummary, EfficiencyRow, EfficiencyTable, MacroMetrics
from generator.model.runs import PART_STATES
from generator.pages import format as fmt
from generator.pages.comparison.context import (
    AUDIT_COLUMNS,
    MANIFEST_FIELDS,
    MATRIX_STATUS,
    V1_UNBOUND,
    ComparisonContext,
    side_label,
)
from generator.pages.models import (
    Cell,
    Column,
    Dot,
    DotChart,
    LineChart,
    Link,
    Notice,
    Row,
    ScatterChart,
    ScatterPoint,
    Series,
    Table,
)

__all__ = ["ComparisonSections"]


class ComparisonSections(ComparisonContext):
    """The comparison page's tables, charts and notices."""

    def side_facts(self, side: Side) -> tuple[tuple[str, str], ...]:
        info = self.view.sides[side]
        status = info.matrix.status
        return (
            ("Treatment", str(info.treatment)),
            ("Experiment", str(info.experiment)),
            ("Runs", fmt.count(info.runs)),
            ("Expected case matrix", MATRIX_STATUS.get(status, str(status))),
        )

    def summary_table(self) -> Table:
        view = self.view
        values = (
            *(view.sides[side].runs for side in SIDES),
            view.expected_keys,
            len(view.pairs),
            len(view.tasks),
            len(view.issues),
        )
        columns = (
            "Candidate runs",
            "Baseline runs",
            "Expected task/rep keys",
            "Strictly matched pairs",
            "Tasks",
            "Issues",
        )
        return Table(
            id="alignment-summary-table",
            caption="Alignment summary",
            columns=tuple(Column(label, numeric=True) for label in columns),
            rows=(Row(tuple(fmt.num_cell(v) for v in values)),),
            sortable=False,
        )

    def matrix_table(self) -> Table:
        rows = []
        for side in SIDES:
            matrix = self.view.sides[side].matrix
            status = matrix.status
            cls = {"report-bound": "pass", "invalid": "fail"}.get(status, "warn")
            rows.append(
                Row(
                    (
                        Cell(side_label(side)),
                        Cell(MATRIX_STATUS.get(status, str(status)), None, None, cls),
                        Cell(fmt.hash12(matrix.matrix_hash), None, None, "mono", matrix.matrix_hash),
                        fmt.num_cell(matrix.target_cases),
                        fmt.text_cell(matrix.error),
                    ),
                    "mismatch" if status == "invalid" else "",
                )
            )
        return Table(
            id="matrix-table",
            caption="Expected case matrix audit",
            columns=(
                Column("Side"),
                Column("Status"),
                Column("Matrix hash"),
                Column("Target cases", True),
                Column("Error"),
            ),
            rows=tuple(rows),
            sortable=False,
        )

    def matrix_notices(self) -> tuple[Notice, ...]:
        lim = self.view.limitations
        notices = []
        missing = [s for s in SIDES if s in lim.missing_matrix]
        if missing:
            who = " and ".join(missing)
            notices.append(
                Notice(
                    "warning",
                    f"Expected-matrix limitation: the {who} experiment{'s' if len(missing) > 1 else ''} "
                    "predate a valid controller-written expected case matrix. Their expected cases are "
                    "the reports that exist, so a repetition that never produced a report cannot be "
                    "detected as missing.",
                )
            )
        invalid = [s for s in SIDES if s in lim.invalid_matrix]
        if invalid:
            notices.append(
                Notice(
                    "error",
                    f"Invalid-matrix handling: the {' and '.join(invalid)} expected case matrix failed "
                    "validation. Its reports are excluded (fail closed) instead of being treated as a "
                    "historical fallback.",
                )
            )
        if lim.fallback_records:
            notices.append(
                Notice(
                    "warning",
                    f"Audit limitation: {lim.fallback_records:,} run record(s) predate report-bound case "
                    "manifests; their hashes were rebuilt from the tasks folder.",
                )
            )
        if lim.execution_unbound_records:
            notices.append(
                Notice(
                    "warning",
                    f"Execution-identity limitation: {lim.execution_unbound_records:,} run record(s) use "
                    "v1 or reconstructed manifests, which do not prove the exact execution identity.",
                )
            )
        return tuple(notices)

    def metrics_table(self) -> Table:
        ks = self.view.ks
        # at k = 1 alone pass@1, pass^1 and its unbiased form are one number: one row, not three (issue 28)
        names = _METRIC_NAMES if ks != (1,) else ((_pass_at_k, "pass@1 (= pass^1)"),)
        rows = []
        for side in SIDES:
            metrics = self.view.metrics[side]
            matched = self.view.matched[side]
            for value_of, label in names:
                cells = [Cell(self.treatment[side]), Cell(label)]
                for k in ks:
                    m = metrics.get(k)
                    value = value_of(m) if m is not None else None
                    tasks_text = f" ({m.eligible_tasks if m else 0}/{m.total_tasks if m else 0} tasks)"
                    shown = (fmt.fixed(value) if value is not None else "N/A (undefined)") + tasks_text
                    cells.append(fmt.num_cell(value, shown))
                cells.append(Cell(f"{matched.passes}/{matched.runs}", fmt.sort_key(matched.passes), None, "num"))
                rows.append(Row(tuple(cells)))
        return Table(
            id="pass-at-k-table",
            caption="pass@k / pass^k — task macro average",
            columns=(Column("Treatment"), Column("Metric"))
            + tuple(Column(f"k={k}", True) for k in ks)
            + (Column("Matched pass/fail", True, "passes / runs over strictly matched pairs"),),
            rows=tuple(rows),
        )

    def metrics_chart(self) -> LineChart | None:
        """The per-k chart, or None when no value is defined (an empty plot would only mislead) or only
        k = 1 was asked for (the table's one row per side says it all)."""
        ks = self.view.ks
        if tuple(ks) == (1,):
            return None
        series = []
        for side in SIDES:
            metrics = self.view.metrics[side]
            for value_of, label, dash in ((_pass_at_k, "pass@k", "solid"), (_pass_pow_k, "pass^k", "dash")):
                ys = tuple(value_of(m) if (m := metrics.get(k)) is not None else None for k in ks)
                series.append(Series(f"{side_label(side)} {label} ({self.treatment[side]})", ks, ys, dash))
        if all(y is None for s in series for y in s.y):
            return None
        return LineChart(
            id="chart-metrics-by-k",
            title="pass@k and pass^k per k",
            caption=(
                "Task-macro pass@k (solid) and pass^k (dashed) for both sides at each requested k. "
                "Undefined values (k larger than a task's repetitions) are gaps, never zero."
            ),
            x_title="k",
            y_title="task-macro rate",
            series=tuple(series),
            y_range=(0.0, 1.05),
        )

    def efficiency_chart(self) -> ScatterChart | None:
        """Cost per run (else wall duration per run) against pass@1, one point per side with its 95%
        interval; None without such telemetry on both sides or without pass@1 (k = 1 not requested)."""
        found = self._efficiency_row()
        if found is None:
            return None
        row, kind, what, source = found
        statistics = self.view.statistics
        points = []
        for side in SIDES:
            summaries = (
                () if statistics is None else statistics.candidate if side == "candidate" else statistics.baseline
            )
            metric = next((summary.pass_at_k for summary in summaries if summary.k == 1), None)
            estimate = _finite(metric.estimate) if metric is not None else None
            if metric is None or estimate is None:
                return None
            average = row.candidate_average if side == "candidate" else row.baseline_average
            assert average is not None  # _efficiency_row keeps only rows with both averages
            points.append(
                ScatterPoint(
                    f"{side_label(side)} ({self.treatment[side]})",
                    float(average),
                    estimate,
                    _finite(metric.interval.lower),
                    _finite(metric.interval.upper),
                    f"{side_label(side)} ({self.treatment[side]}): pass@1 {estimate * 100:.1f}%, "
                    f"{what} {fmt.by_kind(average, row.kind)} per run",
                )
            )
        return ScatterChart(
            id="chart-efficiency",
            title=f"{what.capitalize()} per run against pass@1",
            caption=(
                f"Each side's average {what} per run ({source}; over the {row.complete:,} aligned pairs where both "
                "sides have it) against its task-macro pass@1, with the 95% interval of pass@1 as a vertical bar. "
                f"Up is better; left is {'cheaper' if kind == 'usd' else 'faster'}."
            ),
            x_title=f"{what} per run ({source})",
            y_title="pass@1 (%)",
            points=tuple(points),
            x_kind=kind,
            y_unit="pp",
        )

    def _efficiency_row(self) -> tuple[EfficiencyRow, str, str, str] | None:
        """The all-aligned row the efficiency chart plots (cost, else duration; re-derived, else reported)."""
        block = self.view.efficiency.all_aligned
        for key, kind, what in (("total_cost_usd", "usd", "model cost"), ("duration_seconds", "seconds", "duration")):
            for rows, source in (
                (block.rows, "re-derived from the agent's own stdout"),
                (block.reported_rows, "reported by the harness"),
            ):
                row = next((r for r in rows if r.key == key and r.complete), None)
                if row is not None and fmt.is_number(row.candidate_average) and fmt.is_number(row.baseline_average):
                    return row, kind, what, source
        return None

    def task_difference_chart(self, per_direction: int = 10) -> DotChart | None:
        """The tasks that drive the result: the largest per-task differences in matched pass rate
        (candidate − baseline), up to *per_direction* each way, most positive first; None when no
        task differs."""
        moved = []
        for row in self.view.task_outcomes:
            pairs, cand, base = row.pairs, row.candidate_passes, row.baseline_passes
            diff = row.difference
            if diff is not None and cand != base:
                moved.append((row.task, diff, cand, base, pairs))
        if not moved:
            return None
        moved.sort(key=lambda item: (-item[1], item[0]))
        better = [item for item in moved if item[1] > 0]
        worse = [item for item in moved if item[1] < 0]
        shown = better[:per_direction] + worse[-per_direction:] if worse else better[:per_direction]
        dots = tuple(
            Dot(
                task,
                "candidate better" if diff > 0 else "candidate worse",
                diff,
                # the minus sign for the number only: the task name is shown exactly as it is
                f"{task}: {cand}/{pairs} vs {base}/{pairs} matched passes ({diff * 100:+.0f} pp)".replace("(-", "(−"),
            )
            for task, diff, cand, base, pairs in shown
        )
        cut = len(shown) < len(moved)
        return DotChart(
            id="chart-task-differences",
            title="Tasks that drive the difference",
            caption=(
                f"{len(better):,} task{'s' if len(better) != 1 else ''} better for the candidate, {len(worse):,} worse"
                f"{f'; the {per_direction} largest each way are shown' if cut else ''}. Marker: the task's "
                "matched pass rate, candidate − baseline, in percentage points; tasks with the same result are "
                "left out. The task outcome table below lists every task."
            ),
            x_title="per-task difference in pass rate (percentage points)",
            dots=dots,
            x_limits=(-1.0, 1.0),
            x_unit="pp",
        )

    def duration_table(self) -> tuple[Table, tuple[tuple[str, int, tuple[Link, ...]], ...]]:
        rows = []
        missing = []
        for side in SIDES:
            d = self.view.duration[side]
            rows.append(
                Row(
                    (
                        Cell(self.treatment[side]),
                        fmt.num_cell(d.matched),
                        Cell(f"{d.covered}/{d.matched}", fmt.sort_key(d.covered), None, "num"),
                        fmt.num_cell(d.total_seconds, fmt.seconds(d.total_seconds)),
                        fmt.num_cell(d.average_seconds, fmt.seconds(d.average_seconds)),
                        Cell("raw stdout (extract_events)" + _disagreement_note(d)),
                    )
                )
            )
            stated = d.reported
            if stated.covered:  # runs without raw stdout whose report states a duration: labelled
                rows.append(
                    Row(
                        (
                            Cell(self.treatment[side]),
                            fmt.num_cell(len(d.missing)),
                            Cell(f"{stated.covered}/{len(d.missing)}", fmt.sort_key(stated.covered), None, "num"),
                            fmt.num_cell(stated.total_seconds, fmt.seconds(stated.total_seconds)),
                            fmt.num_cell(stated.average_seconds, fmt.seconds(stated.average_seconds)),
                            Cell(
                                "reported by the harness (runs without raw stdout; not re-derived)", None, None, "warn"
                            ),
                        ),
                        "reported",
                    )
                )
            if d.missing:
                # when no run has one, the count says it all: 730 links to "no raw stdout" weighed 17% of a page
                links = (
                    ()
                    if not d.covered
                    else tuple(Link(f"{task}#r{rep}", self.task_link(task, self.url) or "") for task, rep in d.missing)
                )
                missing.append((self.treatment[side], len(d.missing), links))
        table = Table(
            id="duration-table",
            caption="Duration" if self.view.imported else "Duration from raw stdout",
            columns=(
                Column("Treatment"),
                Column("Matched pairs", True),
                Column("Covered", True),
                Column("Total", True),
                Column("Average", True),
                Column("Source"),
            ),
            rows=tuple(rows),
            sortable=False,
        )
        return table, tuple(missing)

    def efficiency_tables(self) -> tuple[Table, ...]:
        tables = []
        for (_key, block), (caption, anchor) in zip(self.view.efficiency.named(), _EFFICIENCY_TABLES, strict=True):
            pairs = block.pairs
            rows = []
            for row in block.rows:
                complete = row.complete
                complete_text = (
                    f"{complete}/{pairs}"
                    if isinstance(complete, int) and not isinstance(complete, bool)
                    else str(complete)
                )
                rows.append(
                    Row(
                        (
                            Cell(
                                str(row.label) + _row_disagreement(row),
                                None,
                                None,
                                "warn" if row.disagreements else "",
                                str(row.key),
                            ),
                            Cell(
                                complete_text, fmt.sort_key(complete) if fmt.is_number(complete) else None, None, "num"
                            ),
                            *_average_cells(row),
                        )
                    )
                )
            rows.extend(_reported_rows(block))
            tables.append(
                Table(
                    id=anchor,
                    caption=f"{caption} ({pairs:,} paired runs)",
                    columns=(
                        Column("Metric"),
                        Column("Complete pairs", True),
                        Column("Candidate average", True),
                        Column("Baseline average", True),
                        Column(
                            "Candidate delta",
                            True,
                            "(baseline − candidate) / baseline; 'less' means the candidate uses less",
                        ),
                    ),
                    rows=tuple(rows),
                )
            )
        return tuple(tables)

    def manifest_table(self) -> Table:
        rows = []
        for entry in self.view.manifest_audit:
            cand, base = entry.candidate, entry.baseline
            if cand is None and base is None:
                continue
            source = "/".join(
                (
                    str(cand.source) if cand else "candidate-missing",
                    str(base.source) if base else "baseline-missing",
                )
            )
            differs = False
            cells = [self.task_cell(entry.task, self.url)]
            case_differs = bool(cand and base and cand.case_hash != base.case_hash)
            differs |= case_differs
            for manifest in (cand, base):
                value = manifest.case_hash if manifest else None
                cells.append(
                    Cell(
                        fmt.hash12(value) if manifest else "—",
                        None,
                        None,
                        "mono diff" if case_differs else "mono",
                        value if case_differs else None,
                    )
                )
            cells.append(Cell(source, None, None, "warn" if not (cand and base) else ""))
            states = entry.states
            for key, _label in AUDIT_COLUMNS:
                c_val = cand.field_value(key) if cand else None
                b_val = base.field_value(key) if base else None
                state = states.get(key)
                if state in ("missing-both", "missing-candidate", "missing-baseline", "not-hashed"):
                    # a missing or unhashed part is never shown as a hash both sides agree on
                    differs |= state != "missing-both" and state != "not-hashed"
                    cells.append(Cell(PART_STATES[state], None, None, "warn", f"candidate {c_val}, baseline {b_val}"))
                elif cand and base and c_val != b_val:
                    differs = True
                    shown = f"{self._short(key, c_val)} ≠ {self._short(key, b_val)}"
                    cells.append(Cell(shown, None, None, "mono diff", f"candidate {c_val}, baseline {b_val}"))
                else:
                    value = c_val if cand else b_val
                    cells.append(Cell(self._short(key, value), None, None, "mono"))
            rows.append(Row(tuple(cells), "mismatch" if differs else ""))
        return Table(
            id="manifest-audit-table",
            caption="Case manifest audit (first record of each task per side; differences marked ≠)"
            + _audit_summary_text(self.view.audit_summary),
            columns=(Column("Task"), Column("Candidate case"), Column("Baseline case"), Column("Source"))
            + tuple(Column(label) for _key, label in AUDIT_COLUMNS),
            rows=_same_rows_counted(rows),
            filterable=True,
        )

    @staticmethod
    def _short(key: str, value: Any) -> str:
        if not value:
            return "v1-unbound" if key in V1_UNBOUND else fmt.NA
        return short_hash(value, empty=fmt.NA)

    def skipped_table(self) -> Table:
        rows = tuple(
            Row((Cell(side_label(item.side)), Cell(str(item.file), None, None, "mono"), Cell(str(item.reason))))
            for item in self.view.skipped_reports
        )
        return Table(
            id="skipped-reports-table",
            caption="Report files that could not be read or parsed",
            columns=(Column("Side"), Column("File"), Column("Reason")),
            rows=rows,
            filterable=len(rows) > 10,
        )


_EFFICIENCY_TABLES = (
    ("Strict-success intersection", "efficiency-strict-success"),
    ("All aligned runs", "efficiency-all-aligned"),
)


def _pass_at_k(metrics: MacroMetrics) -> float | None:
    return metrics.pass_at_k


def _pass_pow_k(metrics: MacroMetrics) -> float | None:
    return metrics.pass_pow_k


def _pass_pow_k_unbiased(metrics: MacroMetrics) -> float | None:
    return metrics.pass_pow_k_unbiased


_METRIC_NAMES = ((_pass_at_k, "pass@k"), (_pass_pow_k, "pass^k"), (_pass_pow_k_unbiased, "pass^k (unbiased)"))


def _finite(value: float | None) -> float | None:
    """A statistic as the document states it: a finite number, else None."""
    return value if is_number(value) else None


def _disagreement_note(duration: DurationSummary) -> str:
    """'; reported differs in N runs' when the harness's numbers disagree with raw stdout (raw stdout wins)."""
    count = len(duration.reported.disagreements)
    return f"; the reported duration differs in {count:,} run(s) (raw stdout used)" if count else ""


def _row_disagreement(row: EfficiencyRow) -> str:
    count = row.disagreements
    return f" (reported value differs in {count:,} run(s); raw stdout used)" if count else ""


def _average_cells(row: EfficiencyRow) -> tuple[Cell, Cell, Cell]:
    """An efficiency row's candidate and baseline averages and the candidate's change."""
    return (
        fmt.num_cell(row.candidate_average, fmt.by_kind(row.candidate_average, row.kind)),
        fmt.num_cell(row.baseline_average, fmt.by_kind(row.baseline_average, row.kind)),
        fmt.num_cell(row.delta_pct, fmt.change(row.delta_pct)),
    )


def _reported_rows(block: EfficiencyTable) -> list[Row]:
    """Efficiency rows of numbers the harness reported: their own rows, labelled, never merged."""
    pairs = block.pairs
    rows = []
    for row in block.reported_rows:
        if not row.complete:
            continue
        rows.append(
            Row(
                (
                    Cell(f"{row.label} — reported by the harness", None, None, "warn", str(row.key)),
                    Cell(f"{row.complete}/{pairs}", fmt.sort_key(row.complete), None, "num"),
                    *_average_cells(row),
                ),
                "reported",
            )
        )
    return rows


def _same_rows_counted(rows: Sequence[Row]) -> tuple[Row, ...]:
    """Audit rows where the two sides agree and every part reads the same, one counted line per kind.

    A row that differs stays one row per task; agreeing rows whose source and parts read alike
    (730 converted tasks: "not hashed (missing on both sides)") become "730 tasks" with their common
    cells, at the place of the first (issue 28).  Each task page still shows its own full hashes.
    """
    groups: dict[tuple[tuple[str, str], ...], list[Row]] = {}
    for row in rows:
        if not row.cls:
            groups.setdefault(tuple((str(c.text), c.cls) for c in row.cells[3:]), []).append(row)
    out: list[Row] = []
    for row in rows:
        group = groups.get(tuple((str(c.text), c.cls) for c in row.cells[3:])) if not row.cls else None
        if group is None or len(group) < 2:
            out.append(row)
        elif group[0] is row:
            same = Cell("same on both sides (per task)", None, None, "")
            shared = tuple(Cell(c.text, None, None, c.cls) for c in row.cells[3:])
            out.append(Row((Cell(f"{len(group):,} tasks alike"), same, same, *shared)))
    return tuple(out)


def _audit_summary_text(summary: Mapping[str, Mapping[str, int]]) -> str:
    """'. Not all parts agree: Data: not hashed (missing on both sides) in 7 of 8 tasks; ...' or ''."""
    labels = dict(MANIFEST_FIELDS)
    notes = []
    for part, counts in summary.items():
        total = sum(counts.values())
        for state, count in counts.items():
            if state != "same":
                notes.append(
                    f"{labels.get(part, part)}: {PART_STATES.get(state, state)} in {count:,} of {total:,} tasks"
                )
    return ". Parts not agreeing: " + "; ".join(notes) if notes else ". Every hashed part is the same on both sides"
