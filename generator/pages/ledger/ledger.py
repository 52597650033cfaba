"""The ledger page: digests, thresholds, one admission block per candidate, the gate tables and charts."""

from __future__ import annotations

from generator.pages import format as fmt
from generator.pages.ledger.common import RATES, THRESHOLDS, num, rate_text, short, unique_labels
from generator.pages.ledger.context import LedgerContext
from generator.pages.models import (
    Band,
    Cell,
    Column,
    ForestChart,
    ForestRow,
    LedgerPage,
    Link,
    PageBundle,
    RefLine,
    Row,
    Table,
)
from generator.pages.urls import index_url

__all__ = ["LedgerPageBuilder"]


class LedgerPageBuilder(LedgerContext):
    """Builds the ledger's own page."""

    def digests_table(self) -> Table:
        s = self.summary
        rows = (
            ("Campaign digest", s["campaignDigest"], "the normalized campaign manifest"),
            (
                "Execution digest",
                s["executionDigest"],
                "the one execution state every receipt names"
                if s["executionDigest"]
                else "not bound: see evidence envelope",
            ),
            ("Ledger digest", s["ledgerDigest"], "every receipt, in ledger order"),
        )
        return Table(
            id="digests-table",
            caption="Digests",
            columns=(Column("Digest"), Column("Value"), Column("Covers")),
            rows=tuple(
                Row((Cell(label), Cell(fmt.text(value), None, None, "mono hash" if value else "na"), Cell(covers)))
                for label, value, covers in rows
            ),
            sortable=False,
        )

    def thresholds_table(self) -> Table:
        rows = []
        for key, meaning in THRESHOLDS:
            if key in self.thresholds:
                value = self.thresholds[key]
                rows.append(Row((Cell(key, None, None, "mono"), fmt.num_cell(value, f"{value:g}"), Cell(meaning))))
        return Table(
            id="thresholds-table",
            caption="Thresholds (from the campaign manifest)",
            columns=(Column("Threshold"), Column("Value", True), Column("Meaning")),
            rows=tuple(rows),
            sortable=False,
        )

    def paired_table(self) -> Table:
        rows = []
        for row in self.summary["candidates"]:
            href = self.arm_href(row["armId"], self.url)
            for key, label, better, worse, bound, rule in (
                (
                    "recallDifference",
                    "Recall (candidate − baseline)",
                    "candidateWins",
                    "candidateLosses",
                    "lower",
                    f"lower > −{self.thresholds['recallDelta']:g}",
                ),
                (
                    "falsePositiveDifference",
                    "False positives (candidate − baseline)",
                    "candidateLosses",
                    "candidateWins",
                    "upper",
                    f"upper ≤ {self.thresholds['fprEpsilon']:g}",
                ),
            ):
                d = row["paired"][key]
                condition = "recallNonInferior" if key == "recallDifference" else "falsePositiveMargin"
                rows.append(
                    Row(
                        (
                            Cell(row["armId"], None, href),
                            Cell(label),
                            fmt.num_cell(d.get("pairs")),
                            fmt.num_cell(d.get(better)),
                            fmt.num_cell(d.get(worse)),
                            Cell(fmt.interval(d.get("lower"), d.get("upper")), fmt.sort_key(d.get(bound))),
                            Cell(rule),
                            fmt.bool_cell(row["conditions"].get(condition), "passed", "failed"),
                            Cell(str(d.get("method", "")), None, None, "mono"),
                        )
                    )
                )
        return Table(
            id="paired-table",
            caption="Paired differences against the baseline (≥95% one-sided bounds, repeats treated as independent)",
            columns=(
                Column("Candidate"),
                Column("Difference"),
                Column("Pairs", True),
                Column(
                    "Candidate better",
                    True,
                    "recall: found where the baseline missed; false positives: clean where the baseline flagged",
                ),
                Column("Candidate worse", True),
                Column("Interval"),
                Column("Rule"),
                Column("Result"),
                Column("Method"),
            ),
            rows=tuple(rows),
        )

    def arms_table(self) -> Table:
        rows = []
        for arm_id in self.arm_ids:
            m = self.summary["arms"][arm_id]
            definition = m.get("arm", {})
            cells = [
                Cell(arm_id, None, self.arm_href(arm_id, self.url)),
                Cell("baseline" if arm_id == self.baseline else "candidate"),
                Cell(fmt.text(definition.get("role"))),
                Cell(fmt.text(definition.get("backend"))),
                Cell(fmt.text(definition.get("model"))),
                Cell(fmt.text(definition.get("transport"))),
                fmt.num_cell(m.get("attempts")),
                fmt.num_cell(m.get("reruns")),
            ]
            for key, _label in RATES:
                rate = m.get(key) or {}
                cells.append(fmt.num_cell(rate.get("rate"), rate_text(rate)))
            cells.append(fmt.num_cell(m.get("identityMismatches"), cls="fail" if m.get("identityMismatches") else ""))
            rows.append(Row(tuple(cells)))
        return Table(
            id="arms-table",
            caption="Arms (rates with their 95% Clopper-Pearson intervals)",
            columns=(
                Column("Arm"),
                Column("Side"),
                Column("Role"),
                Column("Backend"),
                Column("Model"),
                Column("Transport"),
                Column("Attempts", True),
                Column("Reruns", True),
            )
            + tuple(Column(label, True) for _key, label in RATES)
            + (Column("Identity mismatches", True),),
            rows=tuple(rows),
        )

    def coverage_table(self) -> Table:
        rows = []
        for row in self.summary["candidates"]:
            for gap in row["coverage"]["gaps"]:
                rows.append(
                    Row(
                        (
                            Cell(row["armId"], None, self.arm_href(row["armId"], self.url)),
                            Cell(str(gap["caseId"])),
                            fmt.num_cell(gap["required"]),
                            fmt.num_cell(gap["candidate"], cls="fail" if gap["candidate"] < gap["required"] else ""),
                            fmt.num_cell(gap["baseline"], cls="fail" if gap["baseline"] < gap["required"] else ""),
                            fmt.num_cell(gap["paired"], cls="fail" if gap["paired"] < gap["required"] else ""),
                        )
                    )
                )
        return Table(
            id="coverage-table",
            caption="Coverage gaps (cases below the repetition floor)",
            columns=(
                Column("Candidate"),
                Column("Case"),
                Column("Required", True),
                Column("Candidate repeats", True),
                Column("Baseline repeats", True),
                Column("Paired repeats", True),
            ),
            rows=tuple(rows),
            empty="No coverage gaps: every case has the required repeats for every candidate.",
            filterable=len(rows) > 10,
        )

    def kill_table(self) -> Table:
        rows = []
        for row in self.summary["candidates"]:
            kill = row["killPaths"]
            for case in kill["cases"]:
                rows.append(
                    Row(
                        (
                            Cell(row["armId"], None, self.arm_href(row["armId"], self.url)),
                            Cell(str(case["caseId"])),
                            fmt.num_cell(case["attempts"]),
                            Cell(", ".join(case["modes"]) or "none"),
                            fmt.bool_cell(case["passed"], "passed", "failed"),
                            Cell(
                                "complete" if kill["completeSuite"] else "incomplete",
                                None,
                                None,
                                "" if kill["completeSuite"] else "fail",
                            ),
                        ),
                        "" if case["passed"] else "mismatch",
                    )
                )
        return Table(
            id="kill-table",
            caption=(
                f"Kill paths ({self.thresholds.get('killRepetitions', fmt.NA)} attempts required per case; "
                "all four modes required per arm)"
            ),
            columns=(
                Column("Candidate"),
                Column("Case"),
                Column("Attempts", True),
                Column("Modes"),
                Column("Result"),
                Column("Suite"),
            ),
            rows=tuple(rows),
            empty="No kill-path cases in the campaign.",
        )

    def containment_table(self) -> Table:
        rows = []
        for row in self.summary["candidates"]:
            c = row["containment"]
            applicable = bool(c.get("applicable"))
            rows.append(
                Row(
                    (
                        Cell(row["armId"], None, self.arm_href(row["armId"], self.url)),
                        Cell("yes (maker)" if applicable else "no (not a maker)"),
                        fmt.num_cell(c.get("mutationRuns")),
                        fmt.num_cell(c.get("conclusiveRuns")),
                        fmt.num_cell(c.get("conclusiveRate"), fmt.pct(c.get("conclusiveRate"))),
                        fmt.num_cell(c.get("breaches"), cls="fail" if c.get("breaches") else ""),
                        fmt.num_cell(c.get("ruleOfThreeUpper95"), num(c.get("ruleOfThreeUpper95"))),
                        fmt.bool_cell(c.get("passed"), "passed", "failed"),
                    )
                )
            )
        return Table(
            id="containment-table",
            caption=(
                f"Containment (maker arms need ≥{self.thresholds.get('containmentMinimum', fmt.NA)} conclusive runs, "
                f"no breach, conclusive rate ≥{self.thresholds.get('containmentConclusive', fmt.NA)})"
            ),
            columns=(
                Column("Candidate"),
                Column("Applicable"),
                Column("Mutation runs", True),
                Column("Conclusive", True),
                Column("Conclusive rate", True),
                Column("Breaches", True),
                Column("Rule-of-three 95% upper", True),
                Column("Result"),
            ),
            rows=tuple(rows),
        )

    def transport_table(self) -> Table:
        rows = []
        for pair in self.summary["transportEquivalence"]:
            d = pair["recallDifference90"]
            rows.append(
                Row(
                    (
                        Cell(str(pair["leftArmId"]), None, self.arm_href(pair["leftArmId"], self.url)),
                        Cell(str(pair["rightArmId"]), None, self.arm_href(pair["rightArmId"], self.url)),
                        fmt.num_cell(d.get("pairs")),
                        Cell(fmt.interval(d.get("lower"), d.get("upper")), fmt.sort_key(d.get("lower"))),
                        fmt.num_cell(pair["margin"], f"±{pair['margin']:g}"),
                        fmt.bool_cell(pair["equivalent"], "equivalent", "not shown equivalent"),
                    )
                )
            )
        return Table(
            id="transport-table",
            caption="Transport equivalence (90% recall-difference interval, left − right, on defect cases)",
            columns=(
                Column("Left arm"),
                Column("Right arm"),
                Column("Pairs", True),
                Column("Interval (90%)"),
                Column("Margin", True),
                Column("Result"),
            ),
            rows=tuple(rows),
            empty="No transport pairs are declared in the campaign.",
        )

    # ------------------------------------------------------------------ charts

    def charts(self) -> tuple[ForestChart, ...]:
        return (self._rates_chart(), *self._paired_charts(), *self._transport_charts())

    def _rates_chart(self) -> ForestChart:
        """Per-arm rates with their exact intervals, the validity bar drawn."""
        rate_rows = []
        for key, label in RATES:
            for arm_id in self.arm_ids:
                rate = self.summary["arms"][arm_id].get(key) or {}
                interval = rate.get("interval95") or {}
                rate_rows.append(
                    ForestRow(
                        label=f"{label} · {short(arm_id)}",
                        group=arm_id,
                        estimate=rate.get("rate"),
                        lower=interval.get("lower"),
                        upper=interval.get("upper"),
                        hover=f"{arm_id}: {label} {rate_text(rate)}",
                    )
                )
        return ForestChart(
            id="chart-arm-rates",
            title="Per-arm rates with 95% Clopper-Pearson intervals",
            caption=(
                "One row per metric and arm: the marker is the observed rate, the bar its exact two-sided 95% "
                f"interval. The dashed line is the validity bar ({self.thresholds['validityLower']:g}); it applies "
                "to the validity rows only. Rows without observations are left out."
            ),
            x_title="rate",
            rows=unique_labels(rate_rows),
            lines=(RefLine(self.thresholds["validityLower"], f"validity bar {self.thresholds['validityLower']:g}"),),
            x_limits=(0.0, 1.0),
        )

    def _paired_charts(self) -> list[ForestChart]:
        """The paired recall and false-positive differences of every candidate against their gates."""
        charts = []
        for key, name, line, line_label in (
            (
                "recallDifference",
                "Paired recall difference (candidate − baseline)",
                -self.thresholds["recallDelta"],
                f"−δ = {-self.thresholds['recallDelta']:g}",
            ),
            (
                "falsePositiveDifference",
                "Paired false-positive difference (candidate − baseline)",
                self.thresholds["fprEpsilon"],
                f"ε = {self.thresholds['fprEpsilon']:g}",
            ),
        ):
            rows = []
            for row in self.summary["candidates"]:
                d = row["paired"][key]
                rows.append(
                    ForestRow(
                        label=short(row["armId"]),
                        group=row["armId"],
                        estimate=self.paired_estimate(row["armId"], key),
                        lower=d.get("lower"),
                        upper=d.get("upper"),
                        hover=(
                            f"{row['armId']}: {fmt.interval(d.get('lower'), d.get('upper'))}, "
                            f"{d.get('pairs', 0)} pairs, {d.get('discordant', 0)} discordant"
                        ),
                    )
                )
            rule = "lower bound must be right of" if key == "recallDifference" else "upper bound must be left of"
            charts.append(
                ForestChart(
                    id=f"chart-{'recall' if key == 'recallDifference' else 'fpr'}-difference",
                    title=name,
                    caption=(
                        f"Marker: observed paired difference; bar: the gate's ≥95% bounds. The {rule} the dashed "
                        f"threshold line ({line_label}). The solid line is zero."
                    ),
                    x_title="difference",
                    rows=unique_labels(rows),
                    lines=(RefLine(line, line_label), RefLine(0.0, "0")),
                    x_limits=(-1.0, 1.0),
                )
            )
        return charts

    def _transport_charts(self) -> list[ForestChart]:
        """The transport pairs' 90% intervals inside their equivalence band (none without pairs)."""
        if not self.summary["transportEquivalence"]:
            return []
        margin = self.thresholds["transportDelta"]
        rows = []
        for position, pair in enumerate(self.summary["transportEquivalence"]):
            d = pair["recallDifference90"]
            rows.append(
                ForestRow(
                    label=f"{short(pair['leftArmId'], 20)} vs {short(pair['rightArmId'], 20)}",
                    group="transport pairs",
                    estimate=self.transport_estimate(position),
                    lower=d.get("lower"),
                    upper=d.get("upper"),
                    hover=(
                        f"{pair['leftArmId']} vs {pair['rightArmId']}: {fmt.interval(d.get('lower'), d.get('upper'))}"
                    ),
                )
            )
        return [
            ForestChart(
                id="chart-transport",
                title="Transport equivalence: 90% recall-difference intervals",
                caption=(
                    f"Equivalent only when the whole bar lies strictly inside the shaded margin band ±{margin:g}."
                ),
                x_title="recall difference (left − right)",
                rows=unique_labels(rows),
                band=Band(-margin, margin, f"±{margin:g}"),
                lines=(RefLine(0.0, "0"),),
                x_limits=(-1.0, 1.0),
            )
        ]

    # ------------------------------------------------------------------ extended summary

    def caveats(self) -> tuple[str, ...]:
        extended = self.source.extended or {}
        out = [str(c) for c in extended.get("caveats") or []]
        hygiene = extended.get("transportPairs") or {}
        for item in hygiene.get("duplicates") or []:
            out.append(
                f"Transport pair #{item.get('index')} repeats pair #{item.get('sameAs')}; it is evaluated twice."
            )
        for item in hygiene.get("mirrored") or []:
            out.append(
                f"Transport pair #{item.get('index')} mirrors pair #{item.get('mirrors')}; it is evaluated twice."
            )
        return tuple(out)

    def ledger_page(self) -> PageBundle:
        s = self.summary
        facts = (
            ("Campaign", str(s["campaignId"])),
            ("Corpus version", str(s["corpusVersion"])),
            ("Prompt envelope", str(s["promptEnvelopeVersion"])),
            ("Receipts", f"{s['receiptCount']:,}"),
            ("Receipt schema versions", ", ".join(map(str, s["receiptSchemaVersions"])) or "none"),
            ("Baseline arm", str(s["baselineArmId"])),
            ("Statistical method", str(s["statisticalMethod"])),
        )
        page = LedgerPage(
            meta=self.meta(
                self.url,
                self.source.title,
                (("Home", index_url()),),
                (Link("data.json", "data.json"),)
                + ((Link("extended.json", "extended.json"),) if self.source.extended is not None else ()),
            ),
            ledger_id=self.id,
            facts=facts,
            digests_table=self.digests_table(),
            thresholds_table=self.thresholds_table(),
            candidates=tuple(self.candidate_block(row, self.url) for row in s["candidates"]),
            paired_table=self.paired_table(),
            arms_table=self.arms_table(),
            coverage_table=self.coverage_table(),
            kill_table=self.kill_table(),
            containment_table=self.containment_table(),
            transport_table=self.transport_table(),
            charts=self.charts(),
            note=str(s.get("note", "")),
            caveats=self.caveats(),
            statistics=self.source.statistics,
        )
        extras = (("extended.json", self.source.extended),) if self.source.extended is not None else ()
        return PageBundle(page, s, extras)
