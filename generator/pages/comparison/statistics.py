"""The statistics slot of the comparison page (issue 6): the typed statistics, formatted.

:func:`comparison_statistics` turns the :class:`~generator.model.stats.ExperimentComparison`
that the comparison computed (once, in ``generator.pipelines.compare``) into a
:class:`StatisticsSection`: the verdict sentence (shown above the tables),
intervals over tasks for every metric and k, the paired tests, and a forest
plot of the paired difference.  Every number is shown next to the name of its
method.  Nothing here computes a statistic.
"""

from __future__ import annotations

from generator.model.stats import BETTER, WORSE, ExperimentComparison, Interval
from generator.model.stats import Verdict as StatisticsVerdict
from generator.pages import format as fmt
from generator.pages.models import (
    Cell,
    Column,
    ForestChart,
    ForestRow,
    Notice,
    RefLine,
    Row,
    StatisticsSection,
    Table,
    Verdict,
)

__all__ = ["comparison_statistics", "decided_verdict", "verdict_sentence"]

_VERDICT_KIND = {BETTER: "better", WORSE: "worse"}


def decided_verdict(statistics: ExperimentComparison | None) -> StatisticsVerdict | None:
    """The verdict of a comparison, or None when there is none to show (no matched pairs)."""
    if statistics is None or not statistics.pairs:
        return None
    return statistics.verdict


def verdict_sentence(verdict: StatisticsVerdict) -> str:
    """The verdict as a sentence of its own (first letter upper case), as the page and the index show it."""
    return verdict.sentence[:1].upper() + verdict.sentence[1:]


def _interval_text(iv: Interval | None, digits: int = 3) -> str:
    if iv is None or iv.lower is None:
        note = iv.note if iv is not None else None
        return f"N/A ({note})" if note else fmt.NA
    return fmt.interval(iv.lower, iv.upper, digits)


def comparison_statistics(statistics: ExperimentComparison | None) -> StatisticsSection:
    """Verdict, intervals and paired tests for one comparison; a notice only when there are no pairs."""
    verdict = decided_verdict(statistics)
    if statistics is None or verdict is None:
        return StatisticsSection(
            notices=(Notice("warning", "No strictly matched pairs: no paired statistics and no verdict."),)
        )
    result = statistics
    sentence = verdict_sentence(verdict)
    if verdict.reasons:
        sentence += " — " + "; ".join(verdict.reasons)
    notices = [Notice("warning", str(w)) for w in result.warnings]

    rows = []
    for side, summaries in (("Candidate", result.candidate), ("Baseline", result.baseline)):
        for summary in summaries:
            for metric in summary.metrics:
                rows.append(
                    Row(
                        (
                            Cell(side),
                            Cell(metric.label),
                            fmt.num_cell(metric.k),
                            fmt.num_cell(
                                metric.estimate,
                                fmt.fixed(metric.estimate, 3) if metric.estimate is not None else "undefined",
                            ),
                            Cell(_interval_text(metric.interval), fmt.sort_key(metric.interval.lower)),
                            Cell(_interval_text(metric.betting), fmt.sort_key(metric.betting.lower)),
                            Cell(
                                f"{metric.eligible_tasks}/{metric.total_tasks}",
                                fmt.sort_key(metric.eligible_tasks),
                                None,
                                "num",
                            ),
                            Cell(
                                "approximate: few tasks" if metric.few_tasks else "",
                                None,
                                None,
                                "warn" if metric.few_tasks else "",
                                metric.warning,
                            ),
                        )
                    )
                )
    intervals = Table(
        id="stats-intervals-table",
        caption=(
            "Task-macro metrics with 95% intervals over tasks "
            "(t interval clipped to [0, 1]; betting interval valid at any task count)"
        ),
        columns=(
            Column("Side"),
            Column("Metric"),
            Column("k", True),
            Column("Estimate", True),
            Column("t interval"),
            Column("Betting interval"),
            Column("Eligible tasks", True),
            Column("Note"),
        ),
        rows=tuple(rows),
    )
    few = next((m.warning for s in result.candidate for m in s.metrics if m.few_tasks and m.warning), None)
    if few:
        notices.append(Notice("warning", f"Intervals over tasks: {few}."))

    paired = result.paired
    diff = paired.difference
    power = result.power
    facts = [
        (
            "Wins / losses / ties over runs",
            f"{paired.runs.wins} / {paired.runs.losses} / {paired.runs.ties}",
            paired.runs.method,
        ),
        (
            "Wins / losses / ties over tasks",
            f"{paired.tasks.wins} / {paired.tasks.losses} / {paired.tasks.ties}",
            paired.tasks.method,
        ),
        (
            "Difference in pass@1 (candidate − baseline)",
            f"{fmt.fixed(diff.estimate, 4)} {_interval_text(diff.interval, 4)}",
            diff.interval.method,
        ),
        ("Naive run-level interval", _interval_text(diff.naive_interval, 4), diff.naive_interval.method),
        (
            "Design effect",
            fmt.fixed(diff.design_effect, 2),
            "variance of the task-clustered estimate / variance assuming independent runs",
        ),
        ("Sign-flip test over tasks", f"p = {fmt.p_value(paired.sign_flip.p_value)}", paired.sign_flip.method),
        (
            "McNemar exact / mid-p (run pairs)",
            f"p = {fmt.p_value(paired.mcnemar.p_value)} / {fmt.p_value(paired.mcnemar.p_mid)}",
            paired.mcnemar.method,
        ),
        ("Tango score interval (run pairs)", _interval_text(paired.tango, 4), paired.tango.method),
        (
            "Minimum detectable difference",
            f"{fmt.pct(power.mde)} at {power.power:.0%} power with {power.tasks} tasks"
            if power.mde is not None
            else fmt.NA,
            power.method,
        ),
    ]
    tests = Table(
        id="stats-paired-table",
        caption="Paired statistics over strictly matched pairs",
        columns=(Column("Statistic"), Column("Value"), Column("Method")),
        rows=tuple(
            Row((Cell(label), Cell(value, None, None, "num"), Cell(str(method)))) for label, value, method in facts
        ),
        sortable=False,
    )
    forest_rows = []
    for label, iv, estimate in (
        ("pass@1, task-clustered", diff.interval, diff.estimate),
        ("pass@1, naive run-level", diff.naive_interval, diff.estimate),
        ("Tango, run pairs", paired.tango, paired.tango.estimate),
    ):
        if iv.lower is not None and iv.upper is not None:
            forest_rows.append(
                ForestRow(
                    label,
                    "paired difference",
                    estimate,
                    iv.lower,
                    iv.upper,
                    f"{label}: {_interval_text(iv, 4)} ({iv.method})",
                )
            )
    charts: tuple[ForestChart, ...] = ()
    if forest_rows:
        charts = (
            ForestChart(
                id="chart-paired-difference",
                title="Paired difference in pass@1 (candidate − baseline)",
                caption=(
                    "Marker: observed difference; bar: 95% interval. Right of the zero line favours the candidate. "
                    "The task-clustered interval is the one the verdict uses; the run-level intervals ignore that "
                    "repetitions of one task are correlated."
                ),
                x_title="difference in pass rate",
                rows=tuple(forest_rows),
                lines=(RefLine(0.0, "0"),),
                x_range=(-1.02, 1.02),
            ),
        )
    return StatisticsSection(
        verdict=Verdict(sentence, _VERDICT_KIND.get(verdict.outcome, "undecided"), verdict.method),
        notices=tuple(notices),
        tables=(intervals, tests),
        charts=charts,
    )
