"""The statistics slot of the comparison page (issue 6), filled from ``generator.analyze.stats.experiment``.

:func:`comparison_statistics` turns the strictly matched pairs of an
``evalsite.comparison.v1`` document into a :class:`StatisticsSection`: the
verdict sentence (shown above the tables), intervals over tasks for every
metric and k, the paired tests, and a forest plot of the paired difference.
Every number is shown next to the name of its method.

The ledger page has the same slot (``LedgerSource.statistics``); it stays
empty until the ledger statistics provide a section.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

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

__all__ = ["comparison_statistics"]

_VERDICT_KIND = {"candidate better": "better", "candidate worse": "worse"}


def _outcomes(document: Mapping[str, Any]) -> tuple[dict[str, list[bool]], dict[str, list[bool]]]:
    candidate: dict[str, list[tuple[int, bool]]] = defaultdict(list)
    baseline: dict[str, list[tuple[int, bool]]] = defaultdict(list)
    for pair in document["pairs"]:
        candidate[pair["task"]].append((pair["rep"], bool(pair["candidate_passed"])))
        baseline[pair["task"]].append((pair["rep"], bool(pair["baseline_passed"])))
    order = sorted(candidate)
    return (
        {task: [v for _, v in sorted(candidate[task])] for task in order},
        {task: [v for _, v in sorted(baseline[task])] for task in order},
    )


def _interval_text(iv: Any, digits: int = 3) -> str:
    if iv is None or getattr(iv, "lower", None) is None:
        note = getattr(iv, "note", None)
        return f"N/A ({note})" if note else fmt.NA
    return fmt.interval(iv.lower, iv.upper, digits)


def _p(value: Any) -> str:
    return f"{value:.4g}" if fmt.is_number(value) else fmt.NA


def comparison_statistics(document: Mapping[str, Any]) -> StatisticsSection:
    """Verdict, intervals and paired tests for one comparison; empty when there are no pairs."""
    from generator.analyze.stats.experiment import compare_experiments  # lazy: scipy/numpy load only when used

    if not document["pairs"]:
        return StatisticsSection(
            notices=(Notice("warning", "No strictly matched pairs: no paired statistics and no verdict."),)
        )
    candidate, baseline = _outcomes(document)
    result = compare_experiments(candidate, baseline, tuple(document["ks"]), total_tasks=len(document["tasks"]))
    verdict = result.verdict
    sentence = verdict.sentence[:1].upper() + verdict.sentence[1:]
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
        caption="Task-macro metrics with 95% intervals over tasks (t interval clipped to [0, 1]; betting interval valid at any task count)",
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
        ("Sign-flip test over tasks", f"p = {_p(paired.sign_flip.p_value)}", paired.sign_flip.method),
        (
            "McNemar exact / mid-p (run pairs)",
            f"p = {_p(paired.mcnemar.p_value)} / {_p(paired.mcnemar.p_mid)}",
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
    charts = ()
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


_GATE_LABELS = {
    "recallNonInferior": "Recall non-inferiority",
    "falsePositiveMargin": "False-positive margin",
}


def _bounds_text(lower: Any, upper: Any, digits: int = 4) -> str:
    if not (fmt.is_number(lower) and fmt.is_number(upper)):
        return fmt.NA
    return fmt.interval(lower, upper, digits)


def ledger_statistics(extended: Mapping[str, Any]) -> StatisticsSection:
    """Statistics beside the reference gate: Tango, exact McNemar, design effect, and why a gate failed.

    The admission decision stays the reference summary's; these numbers explain it.
    """
    from generator.analyze.stats.intervals import REFERENCE_PAIRED_LABEL

    rows = []
    for arm_id, candidate in sorted((extended.get("candidates") or {}).items()):
        for condition, gate in sorted((candidate.get("gates") or {}).items()):
            reference, tango, mcnemar = gate["reference"], gate["tango"], gate["mcnemar"]
            clustering, diagnosis = gate["clustering"], gate["diagnosis"]
            rows.append(
                Row(
                    (
                        Cell(arm_id),
                        Cell(_GATE_LABELS.get(condition, condition)),
                        Cell(
                            "passed" if diagnosis["passed"] else "failed",
                            None,
                            None,
                            "pass" if diagnosis["passed"] else "fail",
                        ),
                        fmt.num_cell(gate["pairs"], f"{fmt.count(gate['pairs'])} ({fmt.count(gate['cases'])} cases)"),
                        Cell(f"{gate['wins']} / {gate['losses']}", None, None, "num"),
                        Cell(_bounds_text(reference["lower"], reference["upper"]), fmt.sort_key(reference["lower"])),
                        Cell(
                            _bounds_text(tango["lower"], tango["upper"]),
                            fmt.sort_key(tango["lower"]),
                            None,
                            "",
                            tango["method"],
                        ),
                        Cell(
                            f"p = {_p(mcnemar['p_value'])}",
                            fmt.sort_key(mcnemar["p_value"]),
                            None,
                            "num",
                            mcnemar["method"],
                        ),
                        Cell(
                            fmt.fixed(clustering["design_effect"], 2),
                            fmt.sort_key(clustering["design_effect"]),
                            None,
                            "num",
                            clustering["method"],
                        ),
                        Cell(str(diagnosis["sentence"])),
                    )
                )
            )
    if not rows:
        return StatisticsSection()
    table = Table(
        id="ledger-gate-statistics-table",
        caption="Each paired gate next to its Tango interval, exact McNemar test and design effect by case",
        columns=(
            Column("Candidate"),
            Column("Gate"),
            Column("Result"),
            Column("Pairs", True),
            Column("Candidate-only / baseline-only"),
            Column("Reference bounds"),
            Column("Tango 90%"),
            Column("McNemar exact", True),
            Column("Design effect", True),
            Column("Why"),
        ),
        rows=tuple(rows),
    )
    notices = (
        Notice("info", "How to read the gate: " + REFERENCE_PAIRED_LABEL + "."),
        Notice(
            "info",
            "A design effect above 1 means repeats of one case agree with each other more than independent "
            "pairs would, so the reference bounds (which treat them as independent) are narrower than the "
            "evidence supports.",
        ),
    )
    return StatisticsSection(notices=notices, tables=(table,))
