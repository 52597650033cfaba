"""The statistics slot of the ledger page: each paired gate beside Tango, exact McNemar and design effect.

Filled from the extended analyses (``extended.json``); the admission decision stays the reference
summary's, these numbers explain it.
"""

from __future__ import annotations

from typing import Any

from generator.model.ledger_result import GateStatistics, LedgerResult
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


def _gate_row(arm_id: str, gate: GateStatistics) -> Row:
    return Row(
        (
            Cell(arm_id),
            Cell(_GATE_LABELS.get(gate.condition, gate.condition)),
            Cell("passed" if gate.passed else "failed", None, None, "pass" if gate.passed else "fail"),
            fmt.num_cell(gate.pairs, f"{fmt.count(gate.pairs)} ({fmt.count(gate.cases)} cases)"),
            Cell(f"{gate.wins} / {gate.losses}", None, None, "num"),
            Cell(_bounds_text(gate.reference_lower, gate.reference_upper), fmt.sort_key(gate.reference_lower)),
            Cell(
                _bounds_text(gate.tango_lower, gate.tango_upper),
                fmt.sort_key(gate.tango_lower),
                None,
                "",
                gate.tango_method,
            ),
            Cell(f"p = {fmt.p_value(gate.mcnemar_p)}", fmt.sort_key(gate.mcnemar_p), None, "num", gate.mcnemar_method),
            Cell(
                fmt.fixed(gate.design_effect, 2),
                fmt.sort_key(gate.design_effect),
                None,
                "num",
                gate.clustering_method,
            ),
            Cell(gate.sentence),
        )
    )


def ledger_statistics(result: LedgerResult) -> StatisticsSection:
    """Statistics beside the reference gate: Tango, exact McNemar, design effect, and why a gate failed.

    The admission decision stays the reference summary's; these numbers explain it.
    """
    extended = result.facts.extended if result.facts is not None else None
    candidates = extended.candidates if extended is not None else ()
    rows = [_gate_row(candidate.arm_id, gate) for candidate in candidates for gate in candidate.gates]
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
