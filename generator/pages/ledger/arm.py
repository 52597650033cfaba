"""One arm's page: its definition, rates, latency, usage, decoding, per-case cells and extended tables."""

from __future__ import annotations

from generator.model.ledger_result import (
    CaseCell,
    DecodingProfile,
    ExtendedCase,
    FeasibilityRow,
    IdentitySplit,
    LatencySpread,
    Rate,
    Rerun,
    Usage,
)
from generator.pages import format as fmt
from generator.pages.ledger.common import RATE_LABELS, ms, num, rate_text, short_id
from generator.pages.ledger.context import LedgerContext
from generator.pages.models import ArmPage, Cell, Column, Link, PageBundle, Row, Table
from generator.pages.names import phrase
from generator.pages.urls import arm_url, index_url

__all__ = ["ArmPageBuilder"]


class ArmPageBuilder(LedgerContext):
    """Builds the page of one arm (the baseline or a candidate)."""

    def extended_tables(self, arm_id: str) -> tuple[Table, ...]:
        extended = self.facts.extended
        if extended is None:
            return ()
        arm = extended.arm(arm_id)
        candidate = next((row for row in extended.candidates if row.arm_id == arm_id), None)
        tables = (
            _identity_table(arm.identity),
            _case_rates_table(arm.cases),
            _reruns_table(arm.reruns),
            _feasibility_table(candidate.feasibility if candidate is not None else ()),
        )
        return tuple(table for table in tables if table is not None)

    # ------------------------------------------------------------------ pages

    def arm_page(self, arm_id: str) -> PageBundle:
        m = self.facts.arm(arm_id)
        if m is None:
            raise ValueError("no such arm in the ledger summary")
        url = arm_url(self.id, arm_id)
        side = "baseline" if arm_id == self.baseline else "candidate"
        facts = (
            ("Side", side),
            ("Attempts", fmt.count(m.attempts)),
            ("Quality attempts", fmt.count(m.quality_attempts)),
            ("Reruns", fmt.count(m.reruns)),
            ("Identity mismatches", fmt.count(m.identity_mismatches)),
        )
        row = self.facts.candidate(arm_id)
        page = ArmPage(
            meta=self.meta(
                url,
                phrase("Arm {}", arm_id),
                (("Home", index_url()), (self.source.title, self.url)),
                (Link("data.json", "data.json"),),
            ),
            ledger_id=self.id,
            arm_id=arm_id,
            facts=facts,
            definition_table=_definition_table(m.definition),
            rates_table=_rates_table(m.rates),
            latency_table=_latency_table(m.latency),
            usage_table=_usage_table(m.usage),
            decoding_table=_decoding_table(m.decoding_profiles),
            cells_table=_cells_table(m.cells),
            candidate=self.candidate_block(row, url) if row is not None else None,
            extended_tables=self.extended_tables(arm_id),
            side=side,
        )
        data = {
            "schema": "evalsite.site.arm.v1",
            "ledger": self.id,
            "armId": arm_id,
            "metrics": m.document,
            "candidate": row.document if row is not None else None,
        }
        return PageBundle(page, data)


def _definition_table(definition: tuple[tuple[str, object], ...]) -> Table:
    """The arm as the campaign manifest defines it."""
    return Table(
        id="definition-table",
        caption="Arm definition (from the campaign manifest)",
        columns=(Column("Field"), Column("Value")),
        rows=tuple(Row((Cell(str(k), None, None, "mono"), Cell(fmt.text(v)))) for k, v in definition),
        sortable=False,
    )


def _rates_table(rates: tuple[Rate, ...]) -> Table:
    """Rates with exact Clopper-Pearson intervals."""
    rates_rows = [
        Row(
            (
                Cell(RATE_LABELS[rate.key], None, None, "", rate.key),
                fmt.num_cell(rate.successes),
                fmt.num_cell(rate.total),
                fmt.num_cell(rate.rate, num(rate.rate)),
                Cell(fmt.interval(rate.lower, rate.upper), fmt.sort_key(rate.lower)),
            )
        )
        for rate in rates
    ]
    return Table(
        id="rates-table",
        caption="Rates with exact two-sided 95% Clopper-Pearson intervals",
        columns=(
            Column("Metric"),
            Column("Successes", True),
            Column("Total", True),
            Column("Rate", True),
            Column("95% interval"),
        ),
        rows=tuple(rates_rows),
        sortable=False,
    )


def _latency_table(latency: tuple[LatencySpread, ...]) -> Table:
    """Latency of quality receipts by class."""
    return Table(
        id="latency-table",
        caption="Latency of quality receipts by class",
        columns=(Column("Class"), Column("Count", True), Column("Median (ms)", True), Column("p90 (ms)", True)),
        rows=tuple(
            Row(
                (
                    Cell(spread.name),
                    fmt.num_cell(spread.count),
                    fmt.num_cell(spread.median_ms, ms(spread.median_ms)),
                    fmt.num_cell(spread.p90_ms, ms(spread.p90_ms)),
                )
            )
            for spread in latency
        ),
        sortable=False,
    )


def _usd(value: object) -> str | None:
    return f"${value:,.4f}" if fmt.is_number(value) else None


def _usage_table(usage: Usage) -> Table:
    """Tokens and provider cost over all receipts (never estimated)."""
    usage_rows = [
        Row((Cell(token.field, None, None, "mono"), fmt.num_cell(token.reported), fmt.num_cell(token.total)))
        for token in usage.tokens
    ]
    usage_rows.append(
        Row(
            (
                Cell("provider cost (USD)"),
                fmt.num_cell(usage.cost_reported),
                fmt.num_cell(usage.cost_total_usd, _usd(usage.cost_total_usd)),
            )
        )
    )
    return Table(
        id="usage-table",
        caption=(
            f"Usage over all {fmt.count(usage.attempts)} receipts "
            f"({fmt.count(usage.receipts_with_usage)} report usage; costs are never estimated)"
        ),
        columns=(Column("Field"), Column("Receipts reporting", True), Column("Total", True)),
        rows=tuple(usage_rows),
        sortable=False,
    )


def _decoding_table(profiles: tuple[DecodingProfile, ...]) -> Table:
    """Decoding profiles and their attempts."""
    return Table(
        id="decoding-table",
        caption="Decoding profiles",
        columns=(Column("Temperature", True), Column("Seed"), Column("Pinned"), Column("Attempts", True)),
        rows=tuple(
            Row(
                (
                    fmt.num_cell(p.temperature),
                    Cell(fmt.text(p.seed), None, None, "mono"),
                    Cell(fmt.text(p.pinned)),
                    fmt.num_cell(p.attempts),
                )
            )
            for p in profiles
        ),
    )


def _cells_table(cells: tuple[CaseCell, ...]) -> Table:
    """Per-case cells with flakiness, latency, tokens and cost."""
    cells_rows = [
        Row(
            (
                Cell(cell.case_id),
                Cell(cell.case_kind),
                fmt.num_cell(cell.attempts),
                fmt.num_cell(cell.reruns),
                fmt.num_cell(cell.unique_outcomes),
                fmt.num_cell(cell.disagreements, cls="warn" if cell.disagreements else ""),
                fmt.num_cell(cell.flaky_fraction, fmt.pct(cell.flaky_fraction)),
                fmt.num_cell(cell.cold.median_ms, ms(cell.cold.median_ms)),
                fmt.num_cell(cell.cold.p90_ms, ms(cell.cold.p90_ms)),
                fmt.num_cell(cell.resident.median_ms, ms(cell.resident.median_ms)),
                fmt.num_cell(cell.resident.p90_ms, ms(cell.resident.p90_ms)),
                fmt.num_cell(cell.total_tokens),
                fmt.num_cell(cell.cost_usd, _usd(cell.cost_usd)),
                fmt.num_cell(cell.decoding_profiles),
            ),
            "mismatch" if cell.disagreements else "",
        )
        for cell in cells
    ]
    return Table(
        id="cells-table",
        caption="Per-case cells (flakiness = attempts that disagree with the most common outcome)",
        columns=(
            Column("Case"),
            Column("Kind"),
            Column("Attempts", True),
            Column("Reruns", True),
            Column("Distinct outcomes", True),
            Column("Disagreements", True),
            Column("Flaky share", True),
            Column("Cold median (ms)", True),
            Column("Cold p90 (ms)", True),
            Column("Resident median (ms)", True),
            Column("Resident p90 (ms)", True),
            Column("Total tokens", True),
            Column("Cost (USD)", True),
            Column("Decoding profiles", True),
        ),
        rows=tuple(cells_rows),
        filterable=True,
    )


def _identity_table(split: IdentitySplit | None) -> Table | None:
    """Identity mismatches by where they happened (the extended analyses split them)."""
    if split is None:
        return None
    rows = (
        ("All receipts (what identityHonesty counts)", split.all),
        ("Silent: ran quality receipts", split.silent),
        ("Quality receipts whose normalizer did not run", split.not_ran),
        ("Kill-path receipts", split.kill_path),
    )
    return Table(
        id="identity-split-table",
        caption="Identity mismatches by where they happened",
        columns=(Column("Receipts"), Column("identityMatch false", True)),
        rows=tuple(Row((Cell(label), fmt.num_cell(value))) for label, value in rows if value is not None),
        sortable=False,
    )


def _outcome_text(case: ExtendedCase) -> str:
    if case.outcome is not None:
        return ("recall " if case.outcome == "recall" else "false positives ") + rate_text(case.outcome_rate)
    if case.kill_path_passed is not None:
        return f"kill passes {case.kill_path_passed}/{case.attempts}"
    return fmt.NA


def _case_rates_table(cases: tuple[ExtendedCase, ...]) -> Table | None:
    """Per-case rates with exact intervals."""
    if not cases:
        return None
    rows = [
        Row(
            (
                Cell(str(case.case_id)),
                Cell(str(case.kind)),
                fmt.num_cell(case.attempts),
                fmt.num_cell(case.ran),
                fmt.num_cell(case.validity.rate, rate_text(case.validity)),
                Cell(_outcome_text(case), fmt.sort_key(case.outcome_rate.rate) if case.outcome is not None else None),
                fmt.num_cell(case.wall_min_ms, ms(case.wall_min_ms)),
                fmt.num_cell(case.wall_median_ms, ms(case.wall_median_ms)),
                fmt.num_cell(case.wall_max_ms, ms(case.wall_max_ms)),
            )
        )
        for case in cases
    ]
    return Table(
        id="case-rates-table",
        caption="Per-case rates with exact 95% intervals (all latency classes)",
        columns=(
            Column("Case"),
            Column("Kind"),
            Column("Attempts", True),
            Column("Ran", True),
            Column("Validity", True),
            Column("Recall / false positives / kill"),
            Column("Wall min (ms)", True),
            Column("Wall median (ms)", True),
            Column("Wall max (ms)", True),
        ),
        rows=tuple(rows),
        filterable=len(rows) > 10,
    )


def _reruns_table(reruns: tuple[Rerun, ...]) -> Table:
    """Reruns: each a new repeat, the original kept in every denominator."""
    return Table(
        id="reruns-table",
        caption="Reruns (a rerun is a new repeat; the original stays in every denominator)",
        columns=(
            Column("Case"),
            Column("Repeat", True),
            Column("Rerun of repeat", True),
            Column("Receipt"),
            Column("Rerun of"),
        ),
        rows=tuple(
            Row(
                (
                    Cell(str(r.case_id)),
                    fmt.num_cell(r.repeat),
                    fmt.num_cell(r.original_repeat),
                    Cell(short_id(r.receipt_id), None, None, "mono", r.receipt_id),
                    Cell(short_id(r.rerun_of), None, None, "mono", r.rerun_of),
                )
            )
            for r in reruns
        ),
        empty="No reruns.",
    )


#: Each gate's feasibility row: what it is called and the unit of its observations.
_FEASIBILITY_WORDS = {
    "validity": ("Structured-output validity (lower bound)", "attempts"),
    "recall": ("Recall difference (lower bound)", "pairs"),
    "falsePositive": ("False-positive difference (upper bound)", "pairs"),
}


def _feasibility_table(feasibility: tuple[FeasibilityRow, ...]) -> Table | None:
    """The best bound each gate's sample size allows if every outcome were perfect."""
    if not feasibility:
        return None
    rows = []
    for f in feasibility:
        label, unit = _FEASIBILITY_WORDS[f.gate]
        rows.append(
            Row(
                (
                    Cell(label),
                    fmt.num_cell(f.observed, f"{fmt.count(f.observed)} {unit}" if fmt.is_number(f.observed) else None),
                    fmt.num_cell(f.best_bound, num(f.best_bound)),
                    fmt.num_cell(f.bar, f"{f.bar:g}" if fmt.is_number(f.bar) else None),
                    fmt.num_cell(f.needed),
                )
            )
        )
    return Table(
        id="feasibility-table",
        caption="Feasibility: the best bound this sample size allows if every outcome were perfect",
        columns=(
            Column("Gate"),
            Column("Observations", True),
            Column("Best possible bound", True),
            Column("Bar", True),
            Column("Needed if perfect", True),
        ),
        rows=tuple(rows),
        sortable=False,
    )
