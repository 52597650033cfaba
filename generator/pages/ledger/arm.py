"""One arm's page: its definition, rates, latency, usage, decoding, per-case cells and extended tables."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from generator.pages import format as fmt
from generator.pages.ledger.common import RATES, ms, num, rate_text, short_id
from generator.pages.ledger.context import LedgerContext
from generator.pages.models import ArmPage, Cell, Column, Link, PageBundle, Row, Table
from generator.pages.names import phrase
from generator.pages.urls import arm_url, index_url

__all__ = ["ArmPageBuilder"]


class ArmPageBuilder(LedgerContext):
    """Builds the page of one arm (the baseline or a candidate)."""

    def extended_tables(self, arm_id: str) -> tuple[Table, ...]:
        extended = self.source.extended
        if not extended:
            return ()
        arm = (extended.get("arms") or {}).get(arm_id) or {}
        candidate = (extended.get("candidates") or {}).get(arm_id) or {}
        tables = (
            _identity_table(arm.get("identityMismatches")),
            _case_rates_table(arm.get("cases") or []),
            _reruns_table(arm.get("reruns") or []),
            _feasibility_table(candidate.get("feasibility") or {}),
        )
        return tuple(table for table in tables if table is not None)

    # ------------------------------------------------------------------ pages

    def arm_page(self, arm_id: str) -> PageBundle:
        m = self.summary["arms"][arm_id]
        url = arm_url(self.id, arm_id)
        definition = m.get("arm", {})
        facts = (
            ("Side", "baseline" if arm_id == self.baseline else "candidate"),
            ("Attempts", fmt.count(m.get("attempts"))),
            ("Quality attempts", fmt.count(m.get("qualityAttempts"))),
            ("Reruns", fmt.count(m.get("reruns"))),
            ("Identity mismatches", fmt.count(m.get("identityMismatches"))),
        )
        definition_table = _definition_table(definition)
        rates_table = _rates_table(m)
        latency_table = _latency_table(m.get("latency") or {})
        usage_table = _usage_table(m.get("usage") or {})
        decoding_table = _decoding_table(m.get("decodingProfiles") or [])
        cells_table = _cells_table(m.get("cells") or [])
        row = self.rows.get(arm_id)
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
            definition_table=definition_table,
            rates_table=rates_table,
            latency_table=latency_table,
            usage_table=usage_table,
            decoding_table=decoding_table,
            cells_table=cells_table,
            candidate=self.candidate_block(row, url) if row is not None else None,
            extended_tables=self.extended_tables(arm_id),
            side="baseline" if arm_id == self.baseline else "candidate",
        )
        data = {
            "schema": "evalsite.site.arm.v1",
            "ledger": self.id,
            "armId": arm_id,
            "metrics": m,
            "candidate": row,
        }
        return PageBundle(page, data)


def _definition_table(definition: Mapping[str, Any]) -> Table:
    """The arm as the campaign manifest defines it."""
    return Table(
        id="definition-table",
        caption="Arm definition (from the campaign manifest)",
        columns=(Column("Field"), Column("Value")),
        rows=tuple(Row((Cell(str(k), None, None, "mono"), Cell(fmt.text(v)))) for k, v in sorted(definition.items())),
        sortable=False,
    )


def _rates_table(m: Mapping[str, Any]) -> Table:
    """Rates with exact Clopper-Pearson intervals."""
    rates_rows = []
    for key, label in RATES:
        rate = m.get(key) or {}
        interval = rate.get("interval95") or {}
        rates_rows.append(
            Row(
                (
                    Cell(label, None, None, "", key),
                    fmt.num_cell(rate.get("successes")),
                    fmt.num_cell(rate.get("total")),
                    fmt.num_cell(rate.get("rate"), num(rate.get("rate"))),
                    Cell(
                        fmt.interval(interval.get("lower"), interval.get("upper")),
                        fmt.sort_key(interval.get("lower")),
                    ),
                )
            )
        )
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


def _latency_table(latency: Mapping[str, Any]) -> Table:
    """Latency of quality receipts by class."""
    return Table(
        id="latency-table",
        caption="Latency of quality receipts by class",
        columns=(Column("Class"), Column("Count", True), Column("Median (ms)", True), Column("p90 (ms)", True)),
        rows=tuple(
            Row(
                (
                    Cell(klass),
                    fmt.num_cell(latency.get(klass, {}).get("count")),
                    fmt.num_cell(latency.get(klass, {}).get("medianMs"), ms(latency.get(klass, {}).get("medianMs"))),
                    fmt.num_cell(latency.get(klass, {}).get("p90Ms"), ms(latency.get(klass, {}).get("p90Ms"))),
                )
            )
            for klass in sorted(latency)
        ),
        sortable=False,
    )


def _usage_table(usage: Mapping[str, Any]) -> Table:
    """Tokens and provider cost over all receipts (never estimated)."""
    usage_rows = [
        Row((Cell(str(field), None, None, "mono"), fmt.num_cell(v.get("reported")), fmt.num_cell(v.get("total"))))
        for field, v in sorted((usage.get("tokens") or {}).items())
    ]
    cost = usage.get("providerCost") or {}
    usage_rows.append(
        Row(
            (
                Cell("provider cost (USD)"),
                fmt.num_cell(cost.get("reported")),
                fmt.num_cell(
                    cost.get("totalUsd"),
                    f"${cost['totalUsd']:,.4f}" if fmt.is_number(cost.get("totalUsd")) else None,
                ),
            )
        )
    )
    return Table(
        id="usage-table",
        caption=(
            f"Usage over all {fmt.count(usage.get('attempts'))} receipts "
            f"({fmt.count(usage.get('receiptsWithUsage'))} report usage; costs are never estimated)"
        ),
        columns=(Column("Field"), Column("Receipts reporting", True), Column("Total", True)),
        rows=tuple(usage_rows),
        sortable=False,
    )


def _decoding_table(profiles: list[Mapping[str, Any]]) -> Table:
    """Decoding profiles and their attempts."""
    return Table(
        id="decoding-table",
        caption="Decoding profiles",
        columns=(Column("Temperature", True), Column("Seed"), Column("Pinned"), Column("Attempts", True)),
        rows=tuple(
            Row(
                (
                    fmt.num_cell((p.get("decoding") or {}).get("temperature")),
                    Cell(fmt.text((p.get("decoding") or {}).get("seed")), None, None, "mono"),
                    Cell(fmt.text((p.get("decoding") or {}).get("pinned"))),
                    fmt.num_cell(p.get("attempts")),
                )
            )
            for p in profiles
        ),
    )


def _cells_table(cells: list[Mapping[str, Any]]) -> Table:
    """Per-case cells with flakiness, latency, tokens and cost."""
    cells_rows = []
    for cell in cells:
        flak = cell.get("flakiness") or {}
        lat = cell.get("latency") or {}
        cold, resident = lat.get("cold") or {}, lat.get("resident") or {}
        tokens = ((cell.get("usage") or {}).get("tokens") or {}).get("totalTokens") or {}
        cost_total = ((cell.get("usage") or {}).get("providerCost") or {}).get("totalUsd")
        cells_rows.append(
            Row(
                (
                    Cell(str(cell["caseId"])),
                    Cell(str(cell["caseKind"])),
                    fmt.num_cell(cell.get("attempts")),
                    fmt.num_cell(cell.get("reruns")),
                    fmt.num_cell(flak.get("uniqueOutcomes")),
                    fmt.num_cell(flak.get("disagreements"), cls="warn" if flak.get("disagreements") else ""),
                    fmt.num_cell(flak.get("fraction"), fmt.pct(flak.get("fraction"))),
                    fmt.num_cell(cold.get("medianMs"), ms(cold.get("medianMs"))),
                    fmt.num_cell(cold.get("p90Ms"), ms(cold.get("p90Ms"))),
                    fmt.num_cell(resident.get("medianMs"), ms(resident.get("medianMs"))),
                    fmt.num_cell(resident.get("p90Ms"), ms(resident.get("p90Ms"))),
                    fmt.num_cell(tokens.get("total")),
                    fmt.num_cell(cost_total, f"${cost_total:,.4f}" if fmt.is_number(cost_total) else None),
                    fmt.num_cell(len(cell.get("decodingProfiles") or [])),
                ),
                "mismatch" if flak.get("disagreements") else "",
            )
        )
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


def _identity_table(split: object) -> Table | None:
    """Identity mismatches by where they happened (the extended analyses split them)."""
    if not isinstance(split, Mapping):
        return None
    labels = (
        ("all", "All receipts (what identityHonesty counts)"),
        ("silent", "Silent: ran quality receipts"),
        ("notRan", "Quality receipts whose normalizer did not run"),
        ("killPath", "Kill-path receipts"),
    )
    return Table(
        id="identity-split-table",
        caption="Identity mismatches by where they happened",
        columns=(Column("Receipts"), Column("identityMatch false", True)),
        rows=tuple(Row((Cell(label), fmt.num_cell(split.get(key)))) for key, label in labels if key in split),
        sortable=False,
    )


def _case_rates_table(cases: list[Mapping[str, Any]]) -> Table | None:
    """Per-case rates with exact intervals."""
    if not cases:
        return None
    rows = []
    for case in cases:
        rate_key = next((k for k in ("recall", "falsePositive") if k in case), None)
        rate = (case.get(rate_key) if rate_key else None) or {}
        wall = case.get("wallMs") or {}
        rows.append(
            Row(
                (
                    Cell(str(case.get("caseId"))),
                    Cell(str(case.get("kind"))),
                    fmt.num_cell(case.get("attempts")),
                    fmt.num_cell(case.get("ran")),
                    fmt.num_cell((case.get("validity") or {}).get("rate"), rate_text(case.get("validity") or {})),
                    Cell(
                        (("recall " if rate_key == "recall" else "false positives ") + rate_text(rate))
                        if rate_key
                        else (
                            f"kill passes {case['killPathPassed']}/{case.get('attempts')}"
                            if "killPathPassed" in case
                            else fmt.NA
                        ),
                        fmt.sort_key(rate.get("rate")) if rate_key else None,
                    ),
                    fmt.num_cell(wall.get("minMs"), ms(wall.get("minMs"))),
                    fmt.num_cell(wall.get("medianMs"), ms(wall.get("medianMs"))),
                    fmt.num_cell(wall.get("maxMs"), ms(wall.get("maxMs"))),
                )
            )
        )
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


def _reruns_table(reruns: list[Mapping[str, Any]]) -> Table:
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
                    Cell(str(r.get("caseId"))),
                    fmt.num_cell(r.get("repeat")),
                    fmt.num_cell(r.get("originalRepeat")),
                    Cell(short_id(r.get("receiptId")), None, None, "mono", r.get("receiptId")),
                    Cell(short_id(r.get("rerunOf")), None, None, "mono", r.get("rerunOf")),
                )
            )
            for r in reruns
        ),
        empty="No reruns.",
    )


def _feasibility_table(feasibility: Mapping[str, Any]) -> Table | None:
    """The best bound each gate's sample size allows if every outcome were perfect."""
    if not feasibility:
        return None
    rows = []
    for key, label, bound_key, needed_key, unit in (
        (
            "validity",
            "Structured-output validity (lower bound)",
            "bestPossibleLower",
            "attemptsNeededIfAllValid",
            "attempts",
        ),
        (
            "recall",
            "Recall difference (lower bound)",
            "bestPossibleLower",
            "pairsNeededIfNoDiscordance",
            "pairs",
        ),
        (
            "falsePositive",
            "False-positive difference (upper bound)",
            "bestPossibleUpper",
            "pairsNeededIfNoDiscordance",
            "pairs",
        ),
    ):
        f = feasibility.get(key) or {}
        observed = f.get("attempts", f.get("pairs"))
        rows.append(
            Row(
                (
                    Cell(label),
                    fmt.num_cell(observed, f"{fmt.count(observed)} {unit}" if fmt.is_number(observed) else None),
                    fmt.num_cell(f.get(bound_key), num(f.get(bound_key))),
                    fmt.num_cell(f.get("bar"), f"{f['bar']:g}" if fmt.is_number(f.get("bar")) else None),
                    fmt.num_cell(f.get(needed_key)),
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
