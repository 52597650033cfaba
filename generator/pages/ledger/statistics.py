"""The statistics slot of the ledger page: each paired gate beside Tango, exact McNemar and design effect.

Filled from the extended analyses (``extended.json``); the admission decision stays the reference
summary's, these numbers explain it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from generator.model.stats import REFERENCE_PAIRED_LABEL
from generator.pages import format as fmt
from generator.pages.models import Cell, Column, Notice, Row, StatisticsSection, Table

__all__ = ["ledger_statistics"]

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
                            f"p = {fmt.p_value(mcnemar['p_value'])}",
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
