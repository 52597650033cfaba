"""Comparison and task page models from an ``evalsite.comparison.v1`` document.

One comparison page shows every section of the Markdown report as tables, in
the report's order; one task page per task shows its instruction, its hash
components side by side, every repetition of both sides and its issues.  The
document is the single source: nothing here re-reads evidence files.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from generator.analyze.comparison.efficiency import METRICS as EFFICIENCY_METRICS
from generator.pages import format as fmt
from generator.pages.models import (
    Cell,
    Column,
    ComparisonPage,
    InputDigest,
    LineChart,
    Link,
    Notice,
    PageBundle,
    PageMeta,
    Row,
    Series,
    SiteInfo,
    StatisticsSection,
    Table,
    TaskPage,
)
from generator.pages.urls import comparison_url, index_url, rel, task_url

__all__ = ["COMPARISON_SCHEMA", "ComparisonSource", "build_comparison_pages", "side_label"]

COMPARISON_SCHEMA = "evalsite.comparison.v1"
SIDES = ("candidate", "baseline")

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
    for metric in EFFICIENCY_METRICS
    for field in ((metric.key, metric.label, metric.kind), *_EXPLAINED_BY.get(metric.key, ()))
)

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
    document: Mapping[str, Any]
    markdown: str
    instructions: Mapping[str, str | None]
    inputs: tuple[InputDigest, ...]
    tasks_configured: bool
    statistics: StatisticsSection = StatisticsSection()


def side_label(side: str) -> str:
    return "Candidate" if side == "candidate" else "Baseline"


def _task_label(task: str) -> str:
    return "(experiment)" if task == "*" else task


def _rep_label(rep: Any) -> str:
    return "—" if rep in (0, None) else str(rep)


class _Builder:
    """Holds the indexes of one document while its pages are built."""

    def __init__(self, source: ComparisonSource, site: SiteInfo) -> None:
        doc = source.document
        if not isinstance(doc, Mapping) or doc.get("schema") != COMPARISON_SCHEMA:
            raise ValueError(f"comparison document is not {COMPARISON_SCHEMA}")
        self.source = source
        self.doc = doc
        self.site = site
        self.id = source.id
        self.url = comparison_url(source.id)
        self.tasks: list[str] = list(doc["tasks"])
        self.task_set = set(self.tasks)
        self.treatment = {side: str(doc[side]["treatment"]) for side in SIDES}
        self.runs_by_task: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
        for run in doc["runs"]:
            self.runs_by_task[run["task"]].append(run)
        self.pairs_by_task: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
        for pair in doc["pairs"]:
            self.pairs_by_task[pair["task"]].append(pair)
        self.issues_by_task: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
        for issue in doc["issues"]:
            self.issues_by_task[issue["task"]].append(issue)
        self.audit_by_task = {row["task"]: row for row in doc["manifest_audit"]}
        self.outcome_by_task = {row["task"]: row for row in doc["task_outcomes"]}

    # ------------------------------------------------------------------ helpers

    def task_link(self, task: str, from_url: str) -> str | None:
        return rel(from_url, task_url(self.id, task)) if task in self.task_set else None

    def task_cell(self, task: str, from_url: str) -> Cell:
        return Cell(_task_label(task), None, self.task_link(task, from_url))

    def meta(self, url: str, title: str, crumbs: Sequence[tuple[str, str]], inputs, downloads, notices=()) -> PageMeta:
        return PageMeta(
            url=url,
            title=title,
            site=self.site,
            crumbs=tuple(Link(text, rel(url, target)) for text, target in crumbs),
            inputs=tuple(inputs),
            downloads=tuple(downloads),
            notices=tuple(notices),
        )

    # ------------------------------------------------------------------ comparison page

    def side_facts(self, side: str) -> tuple[tuple[str, str], ...]:
        info = self.doc[side]
        matrix = info["matrix"]
        return (
            ("Treatment", str(info["treatment"])),
            ("Experiment", str(info["experiment"])),
            ("Runs", fmt.count(info["runs"])),
            ("Expected case matrix", MATRIX_STATUS.get(matrix["status"], str(matrix["status"]))),
        )

    def summary_table(self) -> Table:
        doc = self.doc
        values = (
            doc["candidate"]["runs"],
            doc["baseline"]["runs"],
            doc["expected_keys"],
            len(doc["pairs"]),
            len(doc["tasks"]),
            len(doc["issues"]),
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
            matrix = self.doc[side]["matrix"]
            status = matrix["status"]
            cls = {"report-bound": "pass", "invalid": "fail"}.get(status, "warn")
            rows.append(
                Row(
                    (
                        Cell(side_label(side)),
                        Cell(MATRIX_STATUS.get(status, str(status)), None, None, cls),
                        Cell(fmt.hash12(matrix["matrix_hash"]), None, None, "mono", matrix["matrix_hash"]),
                        fmt.num_cell(matrix["target_cases"]),
                        fmt.text_cell(matrix["error"]),
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
        lim = self.doc["limitations"]
        notices = []
        missing = [s for s in SIDES if s in lim["missing_matrix"]]
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
        invalid = [s for s in SIDES if s in lim["invalid_matrix"]]
        if invalid:
            notices.append(
                Notice(
                    "error",
                    f"Invalid-matrix handling: the {' and '.join(invalid)} expected case matrix failed "
                    "validation. Its reports are excluded (fail closed) instead of being treated as a "
                    "historical fallback.",
                )
            )
        if lim["fallback_records"]:
            notices.append(
                Notice(
                    "warning",
                    f"Audit limitation: {lim['fallback_records']:,} run record(s) predate report-bound case "
                    "manifests; their hashes were rebuilt from the tasks folder.",
                )
            )
        if lim["execution_unbound_records"]:
            notices.append(
                Notice(
                    "warning",
                    f"Execution-identity limitation: {lim['execution_unbound_records']:,} run record(s) use "
                    "v1 or reconstructed manifests, which do not prove the exact execution identity.",
                )
            )
        return tuple(notices)

    def metrics_table(self) -> Table:
        ks = list(self.doc["ks"])
        rows = []
        metric_names = (
            ("pass_at_k", "pass@k"),
            ("pass_pow_k", "pass^k"),
            ("pass_pow_k_unbiased", "pass^k (unbiased)"),
        )
        for side in SIDES:
            metrics = self.doc["metrics"][side]
            matched = self.doc["matched"][side]
            for key, label in metric_names:
                cells = [Cell(self.treatment[side]), Cell(label)]
                for k in ks:
                    m = metrics.get(str(k)) or {}
                    value = m.get(key)
                    tasks_text = f" ({m.get('eligible_tasks', 0)}/{m.get('total_tasks', 0)} tasks)"
                    shown = (fmt.fixed(value) if value is not None else "N/A (undefined)") + tasks_text
                    cells.append(fmt.num_cell(value, shown))
                cells.append(
                    Cell(f"{matched['passes']}/{matched['runs']}", fmt.sort_key(matched["passes"]), None, "num")
                )
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
        """The per-k chart, or None when no value is defined (an empty plot would only mislead)."""
        ks = tuple(self.doc["ks"])
        series = []
        for side in SIDES:
            metrics = self.doc["metrics"][side]
            for key, label, dash in (("pass_at_k", "pass@k", "solid"), ("pass_pow_k", "pass^k", "dash")):
                ys = tuple((metrics.get(str(k)) or {}).get(key) for k in ks)
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

    def duration_table(self) -> tuple[Table, tuple[tuple[str, tuple[Link, ...]], ...]]:
        rows = []
        missing = []
        for side in SIDES:
            d = self.doc["duration"][side]
            rows.append(
                Row(
                    (
                        Cell(self.treatment[side]),
                        fmt.num_cell(d["matched"]),
                        Cell(f"{d['covered']}/{d['matched']}", fmt.sort_key(d["covered"]), None, "num"),
                        fmt.num_cell(d["total_seconds"], fmt.seconds(d["total_seconds"])),
                        fmt.num_cell(d["average_seconds"], fmt.seconds(d["average_seconds"])),
                        Cell("raw stdout (extract_events)"),
                    )
                )
            )
            if d["missing"]:
                links = tuple(
                    Link(f"{item['task']}#r{item['rep']}", self.task_link(item["task"], self.url) or "")
                    for item in d["missing"]
                )
                missing.append((self.treatment[side], links))
        table = Table(
            id="duration-table",
            caption="Duration from raw stdout",
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
        for key, caption, anchor in (
            ("strict_success", "Strict-success intersection", "efficiency-strict-success"),
            ("all_aligned", "All aligned runs", "efficiency-all-aligned"),
        ):
            block = self.doc["efficiency"][key]
            pairs = block["pairs"]
            rows = []
            for row in block["rows"]:
                complete = row["complete"]
                complete_text = (
                    f"{complete}/{pairs}"
                    if isinstance(complete, int) and not isinstance(complete, bool)
                    else str(complete)
                )
                rows.append(
                    Row(
                        (
                            Cell(str(row["label"]), None, None, "", str(row["key"])),
                            Cell(
                                complete_text, fmt.sort_key(complete) if fmt.is_number(complete) else None, None, "num"
                            ),
                            fmt.num_cell(row["candidate_average"], fmt.by_kind(row["candidate_average"], row["kind"])),
                            fmt.num_cell(row["baseline_average"], fmt.by_kind(row["baseline_average"], row["kind"])),
                            fmt.num_cell(row["delta_pct"], fmt.change(row["delta_pct"])),
                        )
                    )
                )
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
        for entry in self.doc["manifest_audit"]:
            cand, base = entry["candidate"], entry["baseline"]
            if cand is None and base is None:
                continue
            source = "/".join(
                (
                    str(cand["source"]) if cand else "candidate-missing",
                    str(base["source"]) if base else "baseline-missing",
                )
            )
            differs = False
            cells = [self.task_cell(entry["task"], self.url)]
            case_differs = bool(cand and base and cand["case_hash"] != base["case_hash"])
            differs |= case_differs
            for manifest in (cand, base):
                value = manifest["case_hash"] if manifest else None
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
            for key, _label in AUDIT_COLUMNS:
                c_val = cand.get(key) if cand else None
                b_val = base.get(key) if base else None
                if cand and base and c_val != b_val:
                    differs = True
                    shown = f"{self._short(key, c_val)} ≠ {self._short(key, b_val)}"
                    cells.append(Cell(shown, None, None, "mono diff", f"candidate {c_val}, baseline {b_val}"))
                else:
                    value = c_val if cand else b_val
                    cells.append(Cell(self._short(key, value), None, None, "mono"))
            rows.append(Row(tuple(cells), "mismatch" if differs else ""))
        return Table(
            id="manifest-audit-table",
            caption="Case manifest audit (first record of each task per side; differences marked ≠)",
            columns=(Column("Task"), Column("Candidate case"), Column("Baseline case"), Column("Source"))
            + tuple(Column(label) for _key, label in AUDIT_COLUMNS),
            rows=tuple(rows),
            filterable=True,
        )

    @staticmethod
    def _short(key: str, value: Any) -> str:
        if not value:
            return "v1-unbound" if key in V1_UNBOUND else fmt.NA
        return fmt.hash12(value)

    def outcomes_table(self) -> Table:
        rows = []
        for row in self.doc["task_outcomes"]:
            reps = row["reps"]
            pairs = row["pairs"]
            rows.append(
                Row(
                    (
                        self.task_cell(row["task"], self.url),
                        Cell(",".join(str(r) for r in reps) if reps else "—", str(len(reps))),
                        Cell(f"{row['candidate_passes']}/{pairs}", fmt.sort_key(row["candidate_passes"]), None, "num"),
                        Cell(f"{row['baseline_passes']}/{pairs}", fmt.sort_key(row["baseline_passes"]), None, "num"),
                    ),
                    "mismatch" if row["candidate_passes"] != row["baseline_passes"] else "",
                )
            )
        return Table(
            id="task-outcomes-table",
            caption="Task outcomes on strictly matched repetitions",
            columns=(
                Column("Task"),
                Column("Matched reps"),
                Column(f"{self.treatment['candidate']} passes", True),
                Column(f"{self.treatment['baseline']} passes", True),
            ),
            rows=tuple(rows),
            filterable=True,
        )

    def issues_table(
        self, issues: Sequence[Mapping[str, Any]], from_url: str, *, with_task: bool, anchor: str
    ) -> Table:
        rows = []
        for issue in issues:
            cells = []
            if with_task:
                cells.append(self.task_cell(issue["task"], from_url))
            cells += [
                Cell(_rep_label(issue["rep"]), fmt.sort_key(issue["rep"]), None, "num"),
                Cell(str(issue["reason"]), None, None, "fail"),
                Cell(str(issue["detail"]).replace("|", "/")),
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

    def skipped_table(self) -> Table:
        rows = tuple(
            Row(
                (Cell(side_label(item["side"])), Cell(str(item["file"]), None, None, "mono"), Cell(str(item["reason"])))
            )
            for item in self.doc["skipped_reports"]
        )
        return Table(
            id="skipped-reports-table",
            caption="Report files that could not be read or parsed",
            columns=(Column("Side"), Column("File"), Column("Reason")),
            rows=rows,
            filterable=len(rows) > 10,
        )

    def comparison_page(self) -> PageBundle:
        duration_table, duration_missing = self.duration_table()
        title = self.source.title
        page = ComparisonPage(
            meta=self.meta(
                self.url,
                title,
                (("Home", index_url()),),
                self.source.inputs,
                (Link("data.json", "data.json"), Link("report.md", "report.md")),
            ),
            comparison_id=self.id,
            candidate=self.side_facts("candidate"),
            baseline=self.side_facts("baseline"),
            ks=tuple(self.doc["ks"]),
            summary_table=self.summary_table(),
            matrix_table=self.matrix_table(),
            matrix_notices=self.matrix_notices(),
            metrics_table=self.metrics_table(),
            metrics_chart=self.metrics_chart(),
            duration_table=duration_table,
            duration_missing=duration_missing,
            efficiency_tables=self.efficiency_tables(),
            efficiency_notice=Notice(
                "info",
                "A pair counts for a metric only when both sides have telemetry and both values are numbers. "
                "Context rows need per-message usage on both sides.",
            ),
            manifest_table=self.manifest_table(),
            outcomes_table=self.outcomes_table(),
            issue_counts=tuple(sorted((str(k), int(v)) for k, v in self.doc["issue_counts"].items())),
            issues_table=self.issues_table(self.doc["issues"], self.url, with_task=True, anchor="issues-table"),
            skipped_table=self.skipped_table(),
            statistics=self.source.statistics,
        )
        return PageBundle(page, self.doc, (("report.md", self.source.markdown),))

    # ------------------------------------------------------------------ task pages

    def hashes_table(self, task: str) -> tuple[Table, tuple[str, ...]]:
        entry = self.audit_by_task.get(task) or {"candidate": None, "baseline": None}
        cand, base = entry["candidate"], entry["baseline"]
        rows = []
        differ = []
        for key, label in MANIFEST_FIELDS:
            c_val = cand.get(key) if cand else None
            b_val = base.get(key) if base else None
            if cand and base:
                same = c_val == b_val
                verdict = Cell("same", "1", None, "same") if same else Cell("differs", "0", None, "diff")
                if not same:
                    differ.append(label)
            else:
                verdict = Cell("N/A (one side has no record)", "", None, "na")
            rows.append(
                Row(
                    (
                        Cell(label, None, None, "", key),
                        Cell(fmt.text(c_val) if cand else "no record", None, None, "mono hash"),
                        Cell(fmt.text(b_val) if base else "no record", None, None, "mono hash"),
                        verdict,
                    ),
                    "mismatch" if verdict.cls == "diff" else "",
                )
            )
        table = Table(
            id="hashes-table",
            caption="Case manifest hash components (first record of the task on each side)",
            columns=(Column("Component"), Column("Candidate"), Column("Baseline"), Column("Same?")),
            rows=tuple(rows),
            sortable=False,
        )
        return table, tuple(differ)

    def pairs_table(self, task: str) -> Table:
        rows = tuple(
            Row(
                (
                    fmt.num_cell(pair["rep"]),
                    Cell(fmt.hash12(pair["case_hash"]), None, None, "mono", pair["case_hash"]),
                    fmt.bool_cell(pair["candidate_passed"]),
                    fmt.bool_cell(pair["baseline_passed"]),
                ),
                "mismatch" if pair["candidate_passed"] != pair["baseline_passed"] else "",
            )
            for pair in self.pairs_by_task.get(task, ())
        )
        return Table(
            id="pairs-table",
            caption="Strictly matched pairs",
            columns=(Column("Rep", True), Column("Case hash"), Column("Candidate"), Column("Baseline")),
            rows=rows,
            empty="No strictly matched pairs for this task.",
        )

    def _runs(self, task: str) -> list[Mapping[str, Any]]:
        order = {side: index for index, side in enumerate(SIDES)}
        return sorted(
            self.runs_by_task.get(task, ()),
            key=lambda run: (run["rep"], order.get(run["side"], 9), str(run["file"])),
        )

    def runs_table(self, task: str) -> Table:
        rows = []
        for run in self._runs(task):
            quality = run["quality"] or {}
            manifest = run["manifest"] or {}
            checks = run["checks_failed"] or []
            quality_text = str(quality.get("status", fmt.NA))
            if quality.get("reason_code"):
                quality_text += f" ({quality['reason_code']})"
            rows.append(
                Row(
                    (
                        fmt.num_cell(run["rep"]),
                        Cell(side_label(run["side"])),
                        fmt.bool_cell(run["passed"]),
                        Cell(
                            "; ".join(str(c) for c in checks) if checks else "—",
                            str(len(checks)),
                            None,
                            "fail" if checks else "",
                        ),
                        Cell(quality_text),
                        fmt.bool_cell(quality.get("include_in_analysis"), "included", "excluded"),
                        Cell(
                            f"{'valid' if manifest.get('valid') else 'invalid'} · {manifest.get('source', fmt.NA)}",
                            None,
                            None,
                            "" if manifest.get("valid") else "fail",
                            manifest.get("case_hash"),
                        ),
                        fmt.bool_cell(run["paired"], "paired", "unpaired"),
                        Cell(
                            str(run["artifact"]),
                            None,
                            None,
                            "warn" if run["artifact"] in ("rejected", "absent") else "",
                        ),
                        Cell(str(run["file"]), None, None, "mono"),
                    )
                )
            )
        return Table(
            id="runs-table",
            caption="Every repetition, both sides",
            columns=(
                Column("Rep", True),
                Column("Side"),
                Column("Result"),
                Column("Failed checks"),
                Column("Quality"),
                Column("Analysis"),
                Column("Manifest"),
                Column("Paired"),
                Column("Raw stdout", help="verified, rebased, absent or rejected"),
                Column("Report file"),
            ),
            rows=tuple(rows),
            empty="No reports of either treatment for this task.",
        )

    def telemetry_table(self, task: str) -> Table:
        rows = []
        for run in self._runs(task):
            telemetry = run["telemetry"]
            cells = [fmt.num_cell(run["rep"]), Cell(side_label(run["side"]))]
            for key, _label, kind in TELEMETRY_FIELDS:
                value = telemetry.get(key) if isinstance(telemetry, dict) else None
                if isinstance(value, list):  # a list of tool calls counts as its length
                    value = len(value)
                cells.append(fmt.num_cell(value, fmt.by_kind(value, kind) if kind != "count" else fmt.count(value)))
            rows.append(Row(tuple(cells), "" if telemetry else "muted"))
        return Table(
            id="telemetry-table",
            caption="Telemetry from raw stdout (computed for paired runs only; N/A otherwise)",
            columns=(Column("Rep", True), Column("Side"))
            + tuple(Column(label, True, key) for key, label, _kind in TELEMETRY_FIELDS),
            rows=tuple(rows),
            empty="No runs.",
        )

    def task_page(self, index: int) -> PageBundle:
        task = self.tasks[index]
        url = task_url(self.id, task)
        outcome = self.outcome_by_task.get(task)
        hashes, differ = self.hashes_table(task)
        instruction = self.source.instructions.get(task)
        if instruction is not None:
            note = None
        elif self.source.tasks_configured:
            note = "No readable instruction.md was found for this task in the tasks folder."
        else:
            note = "No tasks folder is configured for this comparison, so the instruction is not shown."
        inputs = list(self.source.inputs)
        if instruction is not None:
            inputs.append(InputDigest("instruction", "instruction.md", _sha256_text(instruction), "UTF-8 text as read"))
        facts = [("Comparison", self.source.title)]
        if outcome is not None:
            facts += [
                ("Matched reps", ",".join(str(r) for r in outcome["reps"]) or "—"),
                (f"{self.treatment['candidate']} passes", f"{outcome['candidate_passes']}/{outcome['pairs']}"),
                (f"{self.treatment['baseline']} passes", f"{outcome['baseline_passes']}/{outcome['pairs']}"),
            ]
        facts.append(("Issues for this task", str(len(self.issues_by_task.get(task, ())))))
        previous = (
            Link(self.tasks[index - 1], rel(url, task_url(self.id, self.tasks[index - 1]))) if index > 0 else None
        )
        following = (
            Link(self.tasks[index + 1], rel(url, task_url(self.id, self.tasks[index + 1])))
            if index + 1 < len(self.tasks)
            else None
        )
        page = TaskPage(
            meta=self.meta(
                url,
                f"Task {task}",
                (("Home", index_url()), (self.source.title, self.url)),
                inputs,
                (Link("data.json", "data.json"),),
            ),
            comparison_id=self.id,
            task=task,
            instruction=instruction,
            instruction_note=note,
            facts=tuple(facts),
            hashes_table=hashes,
            hashes_differ=differ,
            pairs_table=self.pairs_table(task),
            runs_table=self.runs_table(task),
            telemetry_table=self.telemetry_table(task),
            issues_table=self.issues_table(
                self.issues_by_task.get(task, ()), url, with_task=False, anchor="task-issues-table"
            ),
            previous=previous,
            next=following,
        )
        data = {
            "schema": "evalsite.site.task.v1",
            "comparison": self.id,
            "task": task,
            "instruction_sha256": _sha256_text(instruction) if instruction is not None else None,
            "manifest_audit": self.audit_by_task.get(task),
            "task_outcome": outcome,
            "pairs": self.pairs_by_task.get(task, []),
            "runs": self._runs(task),
            "issues": self.issues_by_task.get(task, []),
        }
        return PageBundle(page, data)


def _sha256_text(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def build_comparison_pages(source: ComparisonSource, site: SiteInfo) -> list[PageBundle]:
    """The comparison page followed by one task page per task (document order)."""
    builder = _Builder(source, site)
    bundles = [builder.comparison_page()]
    bundles.extend(builder.task_page(index) for index in range(len(builder.tasks)))
    return bundles
