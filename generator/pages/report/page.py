"""The single-system report page from a :class:`~generator.model.report.ReportResult`.

Select and format only: every number was computed by :func:`generator.analyze.report.report_result`.
pass^k is shown under the site's two names (``pass^k``: Comet's all-repetitions floor; ``pass^k
(unbiased)``: C(c,k)/C(n,k)), each with the 95% intervals over tasks the comparison page shows.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from generator.model.report import ReportResult
from generator.model.stats import MacroSummary, MetricEstimate
from generator.pages import format as fmt
from generator.pages.comparison.context import MATRIX_STATUS
from generator.pages.comparison.statistics import intervals_table
from generator.pages.glossary import GLOSSARY_URL, reason_term, term_href
from generator.pages.models import (
    Cell,
    Column,
    Headline,
    InputDigest,
    LineChart,
    Notice,
    PageBundle,
    PageMeta,
    ReportPage,
    Row,
    Series,
    SiteInfo,
    Table,
)
from generator.pages.urls import name_slug, rel, report_url

__all__ = ["build_report_page", "report_headline"]


def _pass_at_k(summary: MacroSummary) -> MetricEstimate:
    return summary.pass_at_k


def _pass_pow_k(summary: MacroSummary) -> MetricEstimate:
    return summary.pass_pow_k_observed


def _pass_pow_k_unbiased(summary: MacroSummary) -> MetricEstimate:
    return summary.pass_pow_k_unbiased


#: The three task-macro metrics of each k as the site names them (glossary terms), and how to take them.
_METRICS = (
    ("pass@k", "pass-at-k", _pass_at_k),
    ("pass^k", "pass-pow-k", _pass_pow_k),
    ("pass^k (unbiased)", "pass-pow-k-unbiased", _pass_pow_k_unbiased),
)
_SOURCES = {False: "re-derived from the agent's own stdout", True: "reported by the harness (not re-derived)"}


def _estimate_text(metric: MetricEstimate) -> str:
    if metric.estimate is None:
        return f"N/A ({metric.interval.note})" if metric.interval.note else fmt.NA
    iv = metric.interval
    shown = f"{metric.estimate:.3f}"
    return shown + (f" [{iv.lower:.3f}, {iv.upper:.3f}]" if iv.lower is not None and iv.upper is not None else "")


class _Report:
    def __init__(self, report_id: str, result: ReportResult) -> None:
        self.id, self.result, self.url = report_id, result, report_url(report_id)

    def metrics_table(self) -> Table:
        """One row per metric, one column per k: the estimate with its 95% t interval over tasks."""
        macro = self.result.system.macro
        rows = []
        for label, term, field in _METRICS:
            cells = [Cell(label, None, term_href(self.url, term))]
            for summary in macro:
                metric = field(summary)
                cells.append(fmt.num_cell(metric.estimate, _estimate_text(metric)))
            rows.append(Row(tuple(cells), "", f"metric-{term}"))
        return Table(
            id="report-metrics-table",
            caption="pass@k and pass^k — task macro average, with the 95% t interval over tasks",
            columns=(Column("Metric"), *(Column(f"k={summary.k}", True) for summary in macro)),
            rows=tuple(rows),
            sortable=False,
        )

    def intervals_table(self) -> Table:
        """Every metric and k with both intervals, as the comparison's statistics show a side's."""
        system = self.result.system
        return intervals_table("report-intervals-table", "System", ((system.treatment, system.macro),))

    def metrics_chart(self) -> LineChart | None:
        """The three metrics against k; None at k = 1 alone or with no value defined."""
        macro = self.result.system.macro
        ks = tuple(summary.k for summary in macro)
        if len(ks) < 2:
            return None
        dashes = ("solid", "dash", "dot")
        series = tuple(
            Series(label, ks, tuple(field(summary).estimate for summary in macro), dash)
            for (label, _term, field), dash in zip(_METRICS, dashes, strict=True)
        )
        if all(y is None for s in series for y in s.y):
            return None
        return LineChart(
            id="chart-report-by-k",
            title="pass@k and pass^k per k",
            caption=(
                "Task-macro pass@k (solid), pass^k as Comet defines it (every repetition passed; dashed, it does "
                "not depend on k) and unbiased pass^k (dotted) at each k. Undefined values are gaps, never zero."
            ),
            x_title="k",
            y_title="task-macro rate",
            series=series,
            y_range=(0.0, 1.05),
        )

    def failure_table(self) -> Table:
        rows = []
        for item in self.result.failures:
            term = "quality-excluded" if item.excluded else "checks-failed"
            rows.append(
                Row(
                    (
                        Cell(item.reason, None, term_href(self.url, term), "mono"),
                        fmt.num_cell(item.runs, f"{item.runs:,} run{'s' if item.runs != 1 else ''}"),
                        fmt.num_cell(item.tasks, f"{item.tasks:,} task{'s' if item.tasks != 1 else ''}"),
                    ),
                    "",
                    f"failure-{name_slug(item.reason)}",
                )
            )
        return Table(
            id="failure-reasons-table",
            caption="Failure reasons (failed checks of each run, and quality exclusions)",
            columns=(Column("Reason"), Column("Runs", True), Column("Tasks", True)),
            rows=tuple(rows),
            empty="No run failed a check and none was excluded.",
        )

    def efficiency_table(self) -> Table:
        rows = []
        for metric in self.result.efficiency:
            note = f"; the reported value differs in {metric.disagreements:,} run(s)" if metric.disagreements else ""
            rows.append(
                Row(
                    (
                        Cell(
                            metric.label + (" — reported by the harness" if metric.reported else ""),
                            None,
                            None,
                            "warn" if metric.reported else "",
                            metric.key,
                        ),
                        Cell(f"{metric.runs:,}/{metric.aligned_runs:,}", fmt.sort_key(metric.runs), None, "num"),
                        fmt.num_cell(metric.average, fmt.by_kind(metric.average, metric.kind)),
                        Cell(_SOURCES[metric.reported] + note, None, None, "warn" if metric.reported else ""),
                    ),
                    "reported" if metric.reported else "",
                )
            )
        return Table(
            id="efficiency-table",
            caption="Efficiency: average per aligned run that has the value",
            columns=(Column("Metric"), Column("Runs with a value", True), Column("Average", True), Column("Source")),
            rows=tuple(rows),
            empty="No run has cost, duration, token or turn counts (re-derived or reported).",
            sortable=False,
        )

    def tasks_table(self) -> Table:
        s = self.result.system
        failed: dict[str, Counter[str]] = defaultdict(Counter)
        for run in s.runs:
            if run.aligned:
                failed[run.task].update(run.checks_failed)
        rows = tuple(
            Row(
                (
                    Cell(task),
                    fmt.num_cell(len(s.outcomes[task])),
                    fmt.num_cell(sum(s.outcomes[task])),
                    fmt.num_cell(
                        sum(s.outcomes[task]) / len(s.outcomes[task]),
                        fmt.pct(sum(s.outcomes[task]) / len(s.outcomes[task])),
                    ),
                    Cell("; ".join(f"{r} ×{n}" if n > 1 else r for r, n in sorted(failed[task].items())) or "—"),
                ),
                "",
                f"task-{name_slug(task)}",
            )
            for task in sorted(s.outcomes)
        )
        return Table(
            id="tasks-table",
            caption="Per-task outcomes over aligned runs",
            columns=(
                Column("Task"),
                Column("Aligned runs", True),
                Column("Passes", True),
                Column("Pass rate", True),
                Column("Failed checks"),
            ),
            rows=rows,
            filterable=len(rows) > 10,
            collapsed=fmt.collapsed(len(rows), f"All {len(rows):,} tasks"),
        )

    def runs_table(self) -> Table:
        runs = self.result.system.runs
        rows = tuple(
            Row(
                (
                    Cell(run.task),
                    fmt.num_cell(run.rep),
                    fmt.bool_cell(run.passed),
                    Cell(", ".join(run.checks_failed) or "—"),
                    Cell("yes" if run.aligned else "no", None, None, "" if run.aligned else "warn"),
                    Cell(run.quality),
                    Cell(run.file, None, None, "mono"),
                ),
                "" if run.aligned else "muted",
            )
            for run in runs
        )
        return Table(
            id="runs-table",
            caption="Every report of the treatment (aligned or not)",
            columns=(
                Column("Task"),
                Column("Rep", True),
                Column("Result"),
                Column("Failed checks"),
                Column("Aligned"),
                Column("Quality"),
                Column("Report file"),
            ),
            rows=rows,
            filterable=len(rows) > 10,
            collapsed=fmt.collapsed(len(rows), f"All {len(rows):,} runs"),
        )

    def issues_table(self) -> Table:
        rows = tuple(
            Row(
                (
                    Cell(issue.task),
                    fmt.num_cell(issue.rep),
                    Cell(issue.reason, None, _reason_href(self.url, issue.reason), "mono"),
                    Cell(issue.detail),
                )
            )
            for issue in self.result.system.issues
        )
        counts = Counter(issue.reason for issue in self.result.system.issues)
        summary = ", ".join(f"{reason}: {n:,}" for reason, n in sorted(counts.items()))
        return Table(
            id="issues-table",
            caption="Issues: runs that did not verify or are missing (never counted)",
            columns=(Column("Task"), Column("Rep", True), Column("Reason"), Column("Detail")),
            rows=rows,
            filterable=len(rows) > 10,
            collapsed=fmt.collapsed(len(rows), f"{len(rows):,} issues ({summary})"),
        )

    def skipped_table(self) -> Table:
        return Table(
            id="skipped-reports-table",
            caption="Report files that could not be read or parsed",
            columns=(Column("File"), Column("Reason")),
            rows=tuple(Row((Cell(f, None, None, "mono"), Cell(reason))) for f, reason in self.result.system.skipped),
        )

    def facts(self) -> tuple[tuple[str, str], ...]:
        r, s = self.result, self.result.system
        ra = s.run_accuracy
        accuracy = (
            ()
            if ra.mean is None
            else (
                (
                    "Run accuracy",
                    f"{100 * ra.mean:.1f}%"
                    + (f" ± {100 * ra.stderr:.1f}" if ra.stderr is not None else "")
                    + f" over {ra.runs} run(s)",
                ),
            )
        )
        aligned = s.aligned_keys
        return (
            ("Treatment", s.treatment),
            *((("Experiment", s.experiment),) if s.experiment != s.treatment else ()),  # said once when the same
            ("Format", s.format),
            ("Tasks", f"{len(r.tasks):,}"),
            ("Aligned runs / expected task/rep keys", f"{aligned:,} / {s.expected_keys:,} ({fmt.pct(s.coverage)})"),
            (
                "Passed (aligned runs)",
                f"{r.passes:,} / {aligned:,} ({fmt.pct(r.passes / aligned if aligned else None)})",
            ),
            *accuracy,
            ("Expected case matrix", MATRIX_STATUS.get(r.matrix_status, r.matrix_status)),
            ("Reports read", f"{s.reports:,}" + (f" ({len(s.skipped):,} skipped)" if s.skipped else "")),
        )

    def notices(self) -> tuple[Notice, ...]:
        r = self.result
        notices = [Notice("warning", sentence) for sentence in r.run_status]
        if r.matrix_status == "invalid":
            notices.append(
                Notice(
                    "error",
                    f"The expected case matrix failed validation ({r.matrix_error}): its reports are not used "
                    "(fail closed).",
                )
            )
        elif r.matrix_status == "historical-fallback":
            notices.append(
                Notice(
                    "warning",
                    "No expected case matrix: the expected cases are the reports that exist, so a repetition that "
                    "never produced a report cannot be detected as missing.",
                )
            )
        if not r.system.aligned_keys:
            notices.append(Notice("error", "No run verified: no pass@k or pass^k can be stated."))
        few = next(
            (m.warning for summary in r.system.macro for m in summary.metrics if m.few_tasks and m.warning), None
        )
        if few:
            notices.append(Notice("warning", f"Intervals over tasks: {few}."))
        return tuple(notices)


def _reason_href(url: str, reason: str) -> str | None:
    term = reason_term(reason)
    return term_href(url, term) if term else None


def build_report_page(
    report_id: str,
    title: str,
    result: ReportResult,
    document: Mapping[str, Any],
    inputs: Sequence[InputDigest],
    site: SiteInfo,
) -> PageBundle:
    """The report page, written with its ``data.json`` (the ``evalsite.report.v1`` document)."""
    report = _Report(report_id, result)
    url = report.url
    meta = PageMeta.of_entry(url, title, site, inputs)
    page = ReportPage(
        meta=meta,
        report_id=report_id,
        facts=report.facts(),
        notices=report.notices(),
        metrics_table=report.metrics_table(),
        intervals_table=report.intervals_table(),
        metrics_chart=report.metrics_chart(),
        failure_table=report.failure_table(),
        efficiency_table=report.efficiency_table(),
        tasks_table=report.tasks_table(),
        runs_table=report.runs_table(),
        issues_table=report.issues_table(),
        skipped_table=report.skipped_table(),
        glossary_href=rel(url, GLOSSARY_URL),
    )
    return PageBundle(page, document)


def report_headline(report_id: str, title: str, result: ReportResult) -> Headline:
    """The index's entry for a report: its pass@k and both pass^k per k."""
    macro = result.system.macro
    rows = tuple(
        Row(
            (
                Cell(label),
                *(fmt.num_cell(field(summary).estimate, fmt.fixed(field(summary).estimate, 3)) for summary in macro),
            )
        )
        for label, _term, field in _METRICS
    )
    table = Table(
        id=f"headline-{report_id}",
        caption="Task-macro pass@k and pass^k per k",
        columns=(Column("Metric"), *(Column(f"k={summary.k}", True) for summary in macro)),
        rows=rows,
        sortable=False,
    )
    s = result.system
    summary = (
        f"{s.treatment} ({s.format}): {len(result.tasks):,} tasks, {s.aligned_keys:,} aligned runs",
        f"{result.passes:,} passed ({fmt.pct(result.passes / s.aligned_keys if s.aligned_keys else None)})",
        f"{len(s.issues):,} issue{'s' if len(s.issues) != 1 else ''}",
    )
    return Headline("report", report_id, title, report_url(report_id), True, None, summary, table)
