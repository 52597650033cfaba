"""The ledger page: digests, thresholds, one admission block per candidate, the gate tables and charts."""

from __future__ import annotations

from generator.model.ledger_result import RATE_KEYS, PairedDifference
from generator.pages import format as fmt
from generator.pages.ledger.common import RATE_LABELS, THRESHOLDS, num, rate_text, short, unique_labels
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
        s = self.facts
        rows = (
            ("Campaign digest", s.campaign_digest, "the normalized campaign manifest"),
            (
                "Execution digest",
                s.execution_digest,
                "the one execution state every receipt names"
                if s.execution_digest
                else "not bound: see evidence envelope",
            ),
            ("Ledger digest", s.ledger_digest, "every receipt, in ledger order"),
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
            value = self.thresholds.value(key)
            if value is not None:
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
        t = self.thresholds
        for row in self.facts.candidates:
            href = self.arm_href(row.arm_id, self.url)
            for d, label, better, worse, bound, rule, passed in (
                (
                    row.recall,
                    "Recall (candidate − baseline)",
                    row.recall.candidate_wins,
                    row.recall.candidate_losses,
                    row.recall.lower,
                    f"lower > −{t.recall_delta:g}",
                    row.passed("recallNonInferior"),
                ),
                (
                    row.false_positive,
                    "False positives (candidate − baseline)",
                    row.false_positive.candidate_losses,
                    row.false_positive.candidate_wins,
                    row.false_positive.upper,
                    f"upper ≤ {t.fpr_epsilon:g}",
                    row.passed("falsePositiveMargin"),
                ),
            ):
                rows.append(
                    Row(
                        (
                            Cell(row.arm_id, None, href),
                            Cell(label),
                            fmt.num_cell(d.pairs),
                            fmt.num_cell(better),
                            fmt.num_cell(worse),
                            Cell(fmt.interval(d.lower, d.upper), fmt.sort_key(bound)),
                            Cell(rule),
                            fmt.bool_cell(passed, "passed", "failed"),
                            Cell(d.method, None, None, "mono"),
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
        for m in self.facts.arms:
            arm_id = m.arm_id
            cells = [
                Cell(arm_id, None, self.arm_href(arm_id, self.url)),
                Cell("baseline" if arm_id == self.baseline else "candidate"),
                Cell(fmt.text(m.role)),
                Cell(fmt.text(m.backend)),
                Cell(fmt.text(m.model)),
                Cell(fmt.text(m.transport)),
                fmt.num_cell(m.attempts),
                fmt.num_cell(m.reruns),
            ]
            for rate in m.rates:
                cells.append(fmt.num_cell(rate.rate, rate_text(rate)))
            cells.append(fmt.num_cell(m.identity_mismatches, cls="fail" if m.identity_mismatches else ""))
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
            + tuple(Column(RATE_LABELS[key], True) for key in RATE_KEYS)
            + (Column("Identity mismatches", True),),
            rows=tuple(rows),
        )

    def coverage_table(self) -> Table:
        rows = []
        for row in self.facts.candidates:
            for gap in row.coverage_gaps:
                rows.append(
                    Row(
                        (
                            Cell(row.arm_id, None, self.arm_href(row.arm_id, self.url)),
                            Cell(gap.case_id),
                            fmt.num_cell(gap.required),
                            fmt.num_cell(gap.candidate, cls="fail" if gap.candidate < gap.required else ""),
                            fmt.num_cell(gap.baseline, cls="fail" if gap.baseline < gap.required else ""),
                            fmt.num_cell(gap.paired, cls="fail" if gap.paired < gap.required else ""),
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
        for row in self.facts.candidates:
            kill = row.kill
            for case in kill.cases:
                rows.append(
                    Row(
                        (
                            Cell(row.arm_id, None, self.arm_href(row.arm_id, self.url)),
                            Cell(str(case.case_id)),
                            fmt.num_cell(case.attempts),
                            Cell(", ".join(case.modes) or "none"),
                            fmt.bool_cell(case.passed, "passed", "failed"),
                            Cell(
                                "complete" if kill.complete_suite else "incomplete",
                                None,
                                None,
                                "" if kill.complete_suite else "fail",
                            ),
                        ),
                        "" if case.passed else "mismatch",
                    )
                )
        return Table(
            id="kill-table",
            caption=(
                f"Kill paths ({_or_na(self.thresholds.kill_repetitions)} attempts required per case; "
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
        for row in self.facts.candidates:
            c = row.containment
            rows.append(
                Row(
                    (
                        Cell(row.arm_id, None, self.arm_href(row.arm_id, self.url)),
                        Cell("yes (maker)" if c.applicable else "no (not a maker)"),
                        fmt.num_cell(c.mutation_runs),
                        fmt.num_cell(c.conclusive_runs),
                        fmt.num_cell(c.conclusive_rate, fmt.pct(c.conclusive_rate)),
                        fmt.num_cell(c.breaches, cls="fail" if c.breaches else ""),
                        fmt.num_cell(c.rule_of_three_upper95, num(c.rule_of_three_upper95)),
                        fmt.bool_cell(c.passed, "passed", "failed"),
                    )
                )
            )
        t = self.thresholds
        return Table(
            id="containment-table",
            caption=(
                f"Containment (maker arms need ≥{_or_na(t.containment_minimum)} conclusive runs, "
                f"no breach, conclusive rate ≥{_or_na(t.containment_conclusive)})"
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
        for pair in self.facts.transport:
            rows.append(
                Row(
                    (
                        Cell(str(pair.left_arm_id), None, self.arm_href(pair.left_arm_id, self.url)),
                        Cell(str(pair.right_arm_id), None, self.arm_href(pair.right_arm_id, self.url)),
                        fmt.num_cell(pair.pairs),
                        Cell(fmt.interval(pair.lower, pair.upper), fmt.sort_key(pair.lower)),
                        fmt.num_cell(pair.margin, f"±{pair.margin:g}"),
                        fmt.bool_cell(pair.equivalent, "equivalent", "not shown equivalent"),
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
        for position, key in enumerate(RATE_KEYS):
            label = RATE_LABELS[key]
            for arm in self.facts.arms:
                rate = arm.rates[position]
                rate_rows.append(
                    ForestRow(
                        label=f"{label} · {short(arm.arm_id)}",
                        group=arm.arm_id,
                        estimate=rate.rate,
                        lower=rate.lower,
                        upper=rate.upper,
                        hover=f"{arm.arm_id}: {label} {rate_text(rate)}",
                    )
                )
        bar = self.thresholds.validity_lower
        return ForestChart(
            id="chart-arm-rates",
            title="Per-arm rates with 95% Clopper-Pearson intervals",
            caption=(
                "One row per metric and arm: the marker is the observed rate, the bar its exact two-sided 95% "
                f"interval. The dashed line is the validity bar ({bar:g}); it applies "
                "to the validity rows only. Rows without observations are left out."
            ),
            x_title="rate",
            rows=unique_labels(rate_rows),
            lines=(RefLine(bar, f"validity bar {bar:g}"),),
            x_limits=(0.0, 1.0),
        )

    def _paired_chart(self, recall: bool) -> ForestChart:
        """The paired recall or false-positive difference of every candidate against its gate."""
        t = self.thresholds
        line = -t.recall_delta if recall else t.fpr_epsilon
        line_label = f"−δ = {-t.recall_delta:g}" if recall else f"ε = {t.fpr_epsilon:g}"
        rows = []
        for row in self.facts.candidates:
            d: PairedDifference = row.recall if recall else row.false_positive
            rows.append(
                ForestRow(
                    label=short(row.arm_id),
                    group=row.arm_id,
                    estimate=d.estimate,
                    lower=d.lower,
                    upper=d.upper,
                    hover=(
                        f"{row.arm_id}: {fmt.interval(d.lower, d.upper)}, "
                        f"{0 if d.pairs is None else d.pairs} pairs, {d.discordant} discordant"
                    ),
                )
            )
        rule = "lower bound must be right of" if recall else "upper bound must be left of"
        return ForestChart(
            id=f"chart-{'recall' if recall else 'fpr'}-difference",
            title=f"Paired {'recall' if recall else 'false-positive'} difference (candidate − baseline)",
            caption=(
                f"Marker: observed paired difference; bar: the gate's ≥95% bounds. The {rule} the dashed "
                f"threshold line ({line_label}). The solid line is zero."
            ),
            x_title="difference",
            rows=unique_labels(rows),
            lines=(RefLine(line, line_label), RefLine(0.0, "0")),
            x_limits=(-1.0, 1.0),
        )

    def _paired_charts(self) -> list[ForestChart]:
        """The paired recall and false-positive differences of every candidate against their gates."""
        return [self._paired_chart(recall=True), self._paired_chart(recall=False)]

    def _transport_charts(self) -> list[ForestChart]:
        """The transport pairs' 90% intervals inside their equivalence band (none without pairs)."""
        if not self.facts.transport:
            return []
        margin = self.thresholds.transport_delta
        if margin is None:
            raise ValueError("transport pairs are declared but the campaign has no transportDelta")
        rows = [
            ForestRow(
                label=f"{short(pair.left_arm_id, 20)} vs {short(pair.right_arm_id, 20)}",
                group="transport pairs",
                estimate=pair.estimate,
                lower=pair.lower,
                upper=pair.upper,
                hover=f"{pair.left_arm_id} vs {pair.right_arm_id}: {fmt.interval(pair.lower, pair.upper)}",
            )
            for pair in self.facts.transport
        ]
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
        extended = self.facts.extended
        if extended is None:
            return ()
        out = list(extended.caveats)
        for index, same_as in extended.duplicate_pairs:
            out.append(f"Transport pair #{index} repeats pair #{same_as}; it is evaluated twice.")
        for index, mirrors in extended.mirrored_pairs:
            out.append(f"Transport pair #{index} mirrors pair #{mirrors}; it is evaluated twice.")
        return tuple(out)

    def ledger_page(self) -> PageBundle:
        s = self.facts
        facts = (
            ("Campaign", s.campaign_id),
            ("Corpus version", s.corpus_version),
            ("Prompt envelope", s.prompt_envelope_version),
            ("Receipts", f"{s.receipt_count:,}"),
            ("Receipt schema versions", ", ".join(map(str, s.receipt_schema_versions)) or "none"),
            ("Baseline arm", str(s.baseline_arm_id)),
            ("Statistical method", s.statistical_method),
        )
        extended = self.result.extended  # the extended analyses' document, offered as extended.json
        page = LedgerPage(
            meta=self.meta(
                self.url,
                self.source.title,
                (("Home", index_url()),),
                (Link("data.json", "data.json"),)
                + ((Link("extended.json", "extended.json"),) if extended is not None else ()),
            ),
            ledger_id=self.id,
            facts=facts,
            digests_table=self.digests_table(),
            thresholds_table=self.thresholds_table(),
            candidates=tuple(self.candidate_block(row, self.url) for row in s.candidates),
            paired_table=self.paired_table(),
            arms_table=self.arms_table(),
            coverage_table=self.coverage_table(),
            kill_table=self.kill_table(),
            containment_table=self.containment_table(),
            transport_table=self.transport_table(),
            charts=self.charts(),
            note=s.note,
            caveats=self.caveats(),
            statistics=self.source.statistics,
        )
        extras = (("extended.json", extended),) if extended is not None else ()
        return PageBundle(page, self.result.summary, extras)


def _or_na(value: object) -> object:
    return fmt.NA if value is None else value
