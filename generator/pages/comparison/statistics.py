"""The statistics slot of the comparison page (issue 6): the typed statistics, formatted.

:func:`comparison_statistics` turns the :class:`~generator.model.stats.ExperimentComparison`
that the comparison computed (once, in ``generator.pipelines.compare``) into a
:class:`StatisticsSection`: the verdict sentence (shown above the tables),
intervals over tasks for every metric and k, the paired tests, and a forest
plot of the paired difference.  Every number is shown next to the name of its
method.  Nothing here computes a statistic.
"""

from __future__ import annotations

from collections.abc import Sequence

from generator.model.scores import ScoreSection, deciding_verdict
from generator.model.stats import BETTER, WORSE, ExperimentComparison, Interval, MacroSummary
from generator.model.stats import Verdict as StatisticsVerdict
from generator.pages import format as fmt
from generator.pages.comparison.scores import effect_text, score_tables, score_verdict
from generator.pages.comparison.stat_tables import facts_table, metric_row, metric_table, p_text
from generator.pages.models import (
    ForestChart,
    ForestRow,
    Notice,
    RefLine,
    StatisticsSection,
    Table,
    Verdict,
)

__all__ = [
    "comparison_statistics",
    "decided_verdict",
    "effect_text",
    "intervals_table",
    "pp",
    "pp_interval",
    "verdict_sentence",
]

_VERDICT_KIND = {BETTER: "better", WORSE: "worse"}
_METHOD = (
    "decided when the 95% task-clustered interval excludes zero and the exact sign-flip test over tasks agrees "
    "(p < 0.05)"
)
_PAGE = "comparisons/_/index.html"  # every comparison page sits at this depth: glossary links are relative to it


def decided_verdict(
    statistics: ExperimentComparison | None, scores: ScoreSection | None = None
) -> StatisticsVerdict | None:
    """The verdict that decides a comparison (the mean score's under ``metric: mean``, else pass@1's),
    or None when there is none to show (no matched pairs)."""
    return deciding_verdict(statistics, scores)


def verdict_sentence(verdict: StatisticsVerdict) -> str:
    """The verdict as a sentence of its own (first letter upper case), as the page and the index show it."""
    return verdict.sentence[:1].upper() + verdict.sentence[1:]


pp = fmt.pp  # one place for the format: pages/format.py
pp_interval = fmt.pp_interval


def _iv_pp(iv: Interval | None) -> str:
    if iv is None or iv.lower is None or iv.upper is None:
        note = iv.note if iv is not None else None
        return f"N/A ({note})" if note else fmt.NA
    return pp_interval(iv.lower, iv.upper)


def comparison_statistics(
    statistics: ExperimentComparison | None, scores: ScoreSection | None = None
) -> StatisticsSection:
    """Verdict, intervals and paired tests for one comparison; a notice only when there are no pairs.

    ``scores`` (issue 29): under ``metric: mean`` the mean score's verdict box and tables come first
    (pass@1's tables follow, not deciding); a log's other scorers add their table."""
    verdict = decided_verdict(statistics)
    if statistics is None or verdict is None:
        return StatisticsSection(
            notices=(Notice("warning", "No strictly matched pairs: no paired statistics and no verdict."),)
        )
    result = statistics
    sentence = verdict_sentence(verdict)
    decision = _decision_facts(verdict, result)
    notices = [Notice("warning", str(w)) for w in result.warnings]
    intervals = _intervals_table(result)
    few = next((m.warning for s in result.candidate for m in s.metrics if m.few_tasks and m.warning), None)
    if few:
        notices.append(Notice("warning", f"Intervals over tasks: {few}."))
    tests = _paired_table(result)
    charts = _paired_chart(result)
    box = Verdict(sentence, _VERDICT_KIND.get(verdict.outcome, "undecided"), _METHOD, decision)
    tables: tuple[Table, ...] = (intervals, tests)
    if scores is not None:  # metric mean decides, and a log's other scorers (issue 29): a block of its own
        box = score_verdict(scores) or box
        notices += [Notice("warning", w) for w in scores.comparison.warnings] if scores.comparison else []
        tables = (*score_tables(scores), *tables)
    return StatisticsSection(verdict=box, notices=tuple(notices), tables=tables, charts=charts)


def _decision_facts(verdict: StatisticsVerdict, result: ExperimentComparison) -> tuple[tuple[str, str, str], ...]:
    """The verdict box's facts: difference, pairs, wins/losses/ties, the sign-flip test and the MDE."""
    paired, power = result.paired, result.power
    diff = paired.difference
    levels = _levels(result)
    effect = (f"{levels}: " if levels else "") + effect_text(verdict)  # the levels beside their difference
    return (
        ("Difference in pass@1 (candidate − baseline)", effect, "percentage-points"),
        ("Tasks / strictly matched pairs", f"{diff.tasks:,} tasks / {diff.pairs:,} pairs", "strictly-matched-pair"),
        (
            "Tasks won / lost / tied by the candidate",
            f"{paired.tasks.wins:,} / {paired.tasks.losses:,} / {paired.tasks.ties:,}",
            "wins-losses-ties",
        ),
        ("Sign-flip test over tasks", p_text(paired.sign_flip.p_value), "sign-flip-test"),
    ) + (
        (("Minimum detectable difference", f"{power.mde * 100:.1f} pp at {power.power:.0%} power", "mde"),)
        if power.mde is not None
        else ()
    )


def _levels(result: ExperimentComparison) -> str | None:
    """Both sides' task-macro pass@1 over the matched pairs ("72.2% vs 48.6%"): the levels whose
    difference the verdict weighs (issue 28); None when either is undefined."""
    found = [
        next((m.estimate for summary in side for m in summary.metrics if m.label == "pass@1" and m.k == 1), None)
        for side in (result.candidate, result.baseline)
    ]
    if any(value is None for value in found):
        return None
    return " vs ".join(f"{100 * value:.1f}%" for value in found if value is not None)


def _intervals_table(result: ExperimentComparison) -> Table:
    """Each side's task-macro metrics with 95% intervals over tasks."""
    return intervals_table(
        "stats-intervals-table", "Side", (("Candidate", result.candidate), ("Baseline", result.baseline))
    )


def intervals_table(table_id: str, first: str, groups: Sequence[tuple[str, Sequence[MacroSummary]]]) -> Table:
    """Task-macro metrics with 95% intervals over tasks, one row per metric and k of each group (a
    comparison's side, a report's system); *first* names the groups' column."""
    rows = [
        metric_row(name, metric) for name, summaries in groups for summary in summaries for metric in summary.metrics
    ]
    return metric_table(
        table_id,
        "Task-macro metrics with 95% intervals over tasks "
        "(t interval clipped to [0, 1]; betting interval valid at any task count)",
        rows,
        first,
    )


def _paired_table(result: ExperimentComparison) -> Table:
    """Every paired statistic with its method."""
    paired, power = result.paired, result.power
    diff = paired.difference
    facts = [
        (
            "Wins / losses / ties over runs",
            f"{paired.runs.wins:,} / {paired.runs.losses:,} / {paired.runs.ties:,}",
            paired.runs.method,
            "wins-losses-ties",
        ),
        (
            "Wins / losses / ties over tasks",
            f"{paired.tasks.wins:,} / {paired.tasks.losses:,} / {paired.tasks.ties:,}",
            paired.tasks.method,
            "wins-losses-ties",
        ),
        (
            "Difference in pass@1 (candidate − baseline)",
            f"{pp(diff.estimate)} {_iv_pp(diff.interval)}",
            diff.interval.method,
            "task-clustered-interval",
        ),
        ("Naive run-level interval", _iv_pp(diff.naive_interval), diff.naive_interval.method, "naive-interval"),
        (
            "Design effect",
            fmt.fixed(diff.design_effect, 2),
            "variance of the task-clustered estimate / variance assuming independent runs",
            "design-effect",
        ),
        (
            "Sign-flip test over tasks",
            p_text(paired.sign_flip.p_value),
            paired.sign_flip.method,
            "sign-flip-test",
        ),
        (
            "McNemar exact / mid-p (run pairs)",
            f"{p_text(paired.mcnemar.p_value)} / mid-{p_text(paired.mcnemar.p_mid)}",
            paired.mcnemar.method,
            "mcnemar",
        ),
        ("Tango score interval (run pairs)", _iv_pp(paired.tango), paired.tango.method, "tango"),
        (
            "Minimum detectable difference",
            f"{power.mde * 100:.1f} pp at {power.power:.0%} power with {power.tasks:,} tasks"
            if power.mde is not None
            else fmt.NA,
            power.method,
            "mde",
        ),
    ]
    return facts_table("stats-paired-table", "Paired statistics over strictly matched pairs", facts)


def _paired_chart(result: ExperimentComparison) -> tuple[ForestChart, ...]:
    """The paired difference's intervals as a forest chart (none when no interval is defined)."""
    paired = result.paired
    diff = paired.difference
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
                    f"{label}: {pp(estimate)} {_iv_pp(iv)} ({iv.method})",
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
                x_title="difference in pass@1 (percentage points)",
                rows=tuple(forest_rows),
                lines=(RefLine(0.0, "0"),),
                x_limits=(-1.0, 1.0),
                x_unit="pp",
            ),
        )
    return charts
