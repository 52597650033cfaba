"""Ledger and arm page models from the reference summary (``summarize``, spec §3.7).

The summary decides admission; this module only explains it.  Every
admission condition is shown passed/failed *with the numbers that decided it*,
in words, and every interval is charted against its threshold.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from generator.pages import format as fmt
from generator.pages.models import (
    ArmPage,
    Band,
    CandidateBlock,
    Cell,
    Column,
    ForestChart,
    ForestRow,
    InputDigest,
    LedgerPage,
    Link,
    Notice,
    PageBundle,
    PageMeta,
    RefLine,
    Row,
    SiteInfo,
    StatisticsSection,
    Table,
)
from generator.pages.urls import arm_url, index_url, ledger_url, rel

__all__ = ["CONDITIONS", "LedgerSource", "build_ledger_pages", "condition_reasons"]

CONDITIONS = (
    ("evidenceEnvelope", "Evidence envelope"),
    ("coverage", "Coverage"),
    ("structuredOutputValidity", "Structured-output validity"),
    ("recallNonInferior", "Recall non-inferior"),
    ("falsePositiveMargin", "False-positive margin"),
    ("identityHonesty", "Identity honesty"),
    ("killPaths", "Kill paths"),
    ("containment", "Containment"),
    ("transportEquivalence", "Transport equivalence"),
)
RATES = (
    ("validity", "Validity"),
    ("recall", "Recall"),
    ("falsePositive", "False positives"),
    ("toolCallCorrectness", "Tool-call correctness"),
    ("contextSufficiency", "Context sufficiency"),
)
THRESHOLDS = (
    ("validityLower", "Structured-output validity: the 95% Clopper-Pearson lower bound must be at least this."),
    ("recallDelta", "Recall non-inferiority margin δ: the paired recall difference's lower bound must exceed −δ."),
    ("fprEpsilon", "False-positive margin ε: the paired false-positive difference's upper bound must be at most ε."),
    (
        "transportDelta",
        "Transport equivalence margin δt: each 90% recall-difference interval must lie strictly inside ±δt.",
    ),
    ("containmentConclusive", "Share of a maker arm's mutation runs whose containment must be conclusive."),
    ("qualityRepetitions", "Repeats required per quality case, on the candidate, on the baseline and paired."),
    ("killRepetitions", "Repeats required per kill-path case."),
    ("containmentMinimum", "Conclusive mutation runs a maker arm needs."),
)
KILL_MODES = ("abort", "identity_substitution", "malformed_output", "transport_interrupt")
ELIGIBLE = "eligible_for_human_admission"
_TAIL = 0.025  # every bound of the reference gate is computed at a 2.5% tail
_MAX_LISTED = 5


@dataclass(frozen=True, slots=True)
class LedgerSource:
    id: str
    title: str
    summary: Mapping[str, Any]
    inputs: tuple[InputDigest, ...]
    notices: tuple[Notice, ...] = ()
    extended: Mapping[str, Any] | None = None
    statistics: StatisticsSection = StatisticsSection()


# --------------------------------------------------------------------------- words


def _n_needed(bar: float) -> int | None:
    """Smallest n for which an all-success (or all-concordant) bound can reach *bar*.

    With zero failures the lower Clopper-Pearson bound is ``0.025 ** (1/n)``.
    """
    if not 0 < bar < 1:
        return None
    return math.ceil(math.log(_TAIL) / math.log(bar))


def _listed(items: Sequence[str]) -> str:
    shown = "; ".join(items[:_MAX_LISTED])
    return shown + (f"; and {len(items) - _MAX_LISTED} more" if len(items) > _MAX_LISTED else "")


def _num(value: Any, digits: int = 4, signed: bool = False) -> str:
    if not fmt.is_number(value):
        return fmt.NA
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def condition_reasons(
    summary: Mapping[str, Any], row: Mapping[str, Any], extended: Mapping[str, Any] | None = None
) -> list[tuple[str, str, bool | None, str]]:
    """``(key, label, passed, why)`` for every condition of one candidate row.

    *extended* (the extended summary, optional) adds detail: where identity
    mismatches happened and how many attempts of a failed kill case passed.
    """
    thresholds = summary["thresholds"]
    arm_extra = ((extended or {}).get("arms") or {}).get(row["armId"]) or {}
    case_extra = {case.get("caseId"): case for case in arm_extra.get("cases") or []}
    arm = summary["arms"].get(row["armId"], {})
    conditions = row["conditions"]
    why: dict[str, str] = {}

    # evidence envelope
    versions = summary["receiptSchemaVersions"]
    if not summary["receiptCount"]:
        why["evidenceEnvelope"] = "The ledger is empty, so no receipt binds the evidence to one execution."
    elif list(versions) != [2]:
        why["evidenceEnvelope"] = (
            f"Receipt schema versions {', '.join(map(str, versions))} are present; every receipt must be "
            "schemaVersion 2 (v1 receipts carry no campaign or execution digest)."
        )
    elif summary["executionDigest"] is None:
        why["evidenceEnvelope"] = "The receipts do not share exactly one executionDigest."
    else:
        why["evidenceEnvelope"] = (
            f"All {summary['receiptCount']:,} receipts are schemaVersion 2 and share one executionDigest "
            f"({fmt.hash12(summary['executionDigest'].split(':', 1)[-1])}…)."
        )

    # coverage
    gaps = row["coverage"]["gaps"]
    if not gaps:
        why["coverage"] = (
            f"Every case has the required repeats ({thresholds['qualityRepetitions']} per quality case, "
            f"{thresholds['killRepetitions']} per kill-path case) on this arm, on the baseline and paired."
        )
    else:
        why["coverage"] = (
            f"{len(gaps)} case(s) below the repetition floor: "
            + _listed(
                [
                    f"{g['caseId']} has {g['candidate']} candidate, {g['baseline']} baseline, {g['paired']} paired "
                    f"repeats of {g['required']} required"
                    for g in gaps
                ]
            )
            + "."
        )

    # validity
    validity = arm.get("validity") or {}
    interval = validity.get("interval95") or {}
    lower = interval.get("lower")
    bar = thresholds["validityLower"]
    if lower is None:
        why["structuredOutputValidity"] = "There are no quality receipts for this arm, so validity has no interval."
    else:
        passed = conditions.get("structuredOutputValidity")
        text = (
            f"Validity lower bound {lower:.4f} (Clopper-Pearson 95%, normalizer ran on "
            f"{validity['successes']}/{validity['total']} quality receipts) is "
            f"{'at least' if passed else 'below'} the bar {bar:g}."
        )
        needed = _n_needed(bar)
        if not passed and validity["successes"] == validity["total"] and needed:
            text += f" Even with no failures the bound reaches {bar:g} only from {needed:,} attempts: underpowered, not worse."
        why["structuredOutputValidity"] = text

    # recall
    recall = row["paired"]["recallDifference"]
    delta = thresholds["recallDelta"]
    if recall.get("lower") is None:
        why["recallNonInferior"] = (
            "No paired recall observations: no defect case where both arms ran the normalizer on the same repeat."
        )
    else:
        passed = conditions.get("recallNonInferior")
        why["recallNonInferior"] = (
            f"Paired recall difference lower bound {recall['lower']:+.4f} is "
            f"{'above' if passed else 'not above'} −δ = {-delta:+.4f} ({recall['pairs']:,} paired defect "
            f"observations: the candidate found {recall['candidateWins']} the baseline missed and missed "
            f"{recall['candidateLosses']} the baseline found)."
        )

    # false positives (candidateWins counts candidate-only false positives)
    fpr = row["paired"]["falsePositiveDifference"]
    eps = thresholds["fprEpsilon"]
    if fpr.get("upper") is None:
        why["falsePositiveMargin"] = "No paired clean-case observations: the false-positive margin cannot be decided."
    else:
        passed = conditions.get("falsePositiveMargin")
        text = (
            f"Paired false-positive difference upper bound {fpr['upper']:+.4f} is "
            f"{'within' if passed else 'above'} ε = {eps:.4f} ({fpr['pairs']:,} paired clean runs: "
            f"{fpr['candidateWins']} false positive(s) only on the candidate, {fpr['candidateLosses']} only on the baseline)."
        )
        needed = _n_needed(1 - eps) if eps > 0 else None
        if not passed and fpr.get("candidateWins") == 0 and needed and fpr["pairs"] < needed:
            text += (
                f" With no candidate-only false positives the bound still needs at least {needed:,} paired clean "
                "runs to reach ε: underpowered, not worse."
            )
        why["falsePositiveMargin"] = text

    # identity
    mismatches = arm.get("identityMismatches", 0)
    split = arm_extra.get("identityMismatches")
    detail = ""
    if isinstance(split, Mapping) and mismatches:
        detail = (
            f" Of these, {split.get('silent', 0)} on ran quality receipts, {split.get('notRan', 0)} where the "
            f"normalizer did not run and {split.get('killPath', 0)} on kill-path receipts."
        )
    why["identityHonesty"] = (
        "No receipt of this arm reports an identity mismatch."
        if not mismatches
        else f"{mismatches:,} receipt(s) of this arm report identityMatch false (kill-path receipts count too).{detail}"
    )

    # kill paths
    kill = row["killPaths"]
    missing_modes = [m for m in KILL_MODES if m not in kill["modes"]]
    failing = [c for c in kill["cases"] if not c["passed"]]
    if kill["passed"]:
        why["killPaths"] = f"All {len(kill['cases'])} kill-path cases passed, covering all four control modes."
    else:
        parts = []
        if not kill["completeSuite"]:
            parts.append(
                "The suite is incomplete: modes covered "
                + (", ".join(kill["modes"]) or "none")
                + "; missing "
                + ", ".join(missing_modes)
                + "."
            )
        if failing:
            parts.append(
                "Failed kill cases: "
                + _listed(
                    [
                        f"{c['caseId']} ({c['attempts']} attempt(s), {thresholds['killRepetitions']} required, "
                        f"modes {', '.join(c['modes']) or 'none'}"
                        + (
                            f", {case_extra[c['caseId']]['killPathPassed']} attempt(s) passed"
                            if "killPathPassed" in case_extra.get(c["caseId"], {})
                            else ""
                        )
                        + ")"
                        for c in failing
                    ]
                )
                + ". Each case needs enough attempts, exactly one mode, and every attempt passing with "
                "zero provider calls."
            )
        why["killPaths"] = " ".join(parts) or "The kill-path check failed."

    # containment
    containment = row["containment"]
    if not containment.get("applicable"):
        why["containment"] = "Not a maker arm: containment does not apply (passes by definition)."
    else:
        reasons = []
        if containment["conclusiveRuns"] < thresholds["containmentMinimum"]:
            reasons.append(
                f"only {containment['conclusiveRuns']:,} conclusive mutation runs of "
                f"{thresholds['containmentMinimum']:,} required"
            )
        if containment["breaches"]:
            reasons.append(f"{containment['breaches']} breach(es)")
        if containment["conclusiveRate"] < thresholds["containmentConclusive"]:
            reasons.append(
                f"conclusive rate {containment['conclusiveRate']:.1%} below {thresholds['containmentConclusive']:.1%}"
            )
        summary_text = (
            f"{containment['mutationRuns']:,} mutation runs, {containment['conclusiveRuns']:,} conclusive, "
            f"{containment['breaches']} breaches"
        )
        if containment.get("ruleOfThreeUpper95") is not None:
            summary_text += (
                f" (rule-of-three 95% upper bound on the breach rate {containment['ruleOfThreeUpper95']:.4f})"
            )
        why["containment"] = summary_text + (": " + "; ".join(reasons) + "." if reasons else ".")

    # transport
    pairs = row.get("transportPairs") or []
    transport = arm.get("arm", {}).get("transport")
    if not pairs:
        why["transportEquivalence"] = (
            "The arm uses ssh_tunnel, but no declared transport pair tests it."
            if transport == "ssh_tunnel"
            else "No declared transport pair involves this arm; none is required because its transport is not ssh_tunnel."
        )
    else:
        why["transportEquivalence"] = (
            _listed(
                [
                    f"{p['leftArmId']} vs {p['rightArmId']}: 90% recall-difference interval "
                    f"{fmt.interval(p['recallDifference90'].get('lower'), p['recallDifference90'].get('upper'))} is "
                    f"{'strictly inside' if p['equivalent'] else 'not strictly inside'} ±{p['margin']:g}"
                    for p in pairs
                ]
            )
            + "."
        )

    out = []
    known = [key for key, _ in CONDITIONS]
    labels = dict(CONDITIONS)
    for key in known + sorted(k for k in conditions if k not in labels):
        if key not in conditions:
            continue
        value = conditions[key]
        out.append((key, labels.get(key, key), value if isinstance(value, bool) else None, why.get(key, "")))
    return out


# --------------------------------------------------------------------------- builder


class _Builder:
    def __init__(self, source: LedgerSource, site: SiteInfo) -> None:
        summary = source.summary
        if not isinstance(summary, Mapping) or summary.get("schemaVersion") != 1 or "candidates" not in summary:
            raise ValueError("ledger summary is not the reference summary schema (schemaVersion 1)")
        self.source = source
        self.summary = summary
        self.site = site
        self.id = source.id
        self.url = ledger_url(source.id)
        self.thresholds = summary["thresholds"]
        self.baseline = summary["baselineArmId"]
        self.arm_ids = [self.baseline] + [
            row["armId"] for row in summary["candidates"] if row["armId"] != self.baseline
        ]
        self.arm_ids += sorted(a for a in summary["arms"] if a not in self.arm_ids)
        self.rows = {row["armId"]: row for row in summary["candidates"]}

    def arm_href(self, arm_id: str, from_url: str) -> str | None:
        return rel(from_url, arm_url(self.id, arm_id)) if arm_id in self.summary["arms"] else None

    def meta(self, url: str, title: str, crumbs, downloads) -> PageMeta:
        return PageMeta(
            url=url,
            title=title,
            site=self.site,
            crumbs=tuple(Link(text, rel(url, target)) for text, target in crumbs),
            inputs=self.source.inputs,
            downloads=tuple(downloads),
            notices=self.source.notices,
        )

    # ------------------------------------------------------------------ tables

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

    def candidate_block(self, row: Mapping[str, Any], from_url: str) -> CandidateBlock:
        reasons = condition_reasons(self.summary, row, self.source.extended)
        rows = tuple(
            Row(
                (Cell(label, None, None, "", key), fmt.bool_cell(passed, "passed", "failed"), Cell(why)),
                "" if passed else "mismatch",
            )
            for key, label, passed, why in reasons
        )
        eligible = row["recommendation"] == ELIGIBLE
        return CandidateBlock(
            arm_id=row["armId"],
            href=self.arm_href(row["armId"], from_url) or "",
            eligible=eligible,
            recommendation=str(row["recommendation"]),
            conditions_table=Table(
                id=f"conditions-{_index_of(self.summary['candidates'], row)}",
                caption=f"Admission conditions for {row['armId']}",
                columns=(Column("Condition"), Column("Result"), Column("Why")),
                rows=rows,
                sortable=False,
            ),
            failed=tuple(label for _key, label, passed, _why in reasons if not passed),
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
                cells.append(fmt.num_cell(rate.get("rate"), _rate_text(rate)))
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
            caption=f"Kill paths ({self.thresholds.get('killRepetitions', fmt.NA)} attempts required per case; all four modes required per arm)",
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
                        fmt.num_cell(c.get("ruleOfThreeUpper95"), _num(c.get("ruleOfThreeUpper95"))),
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

    def charts(self) -> tuple:
        charts = []
        rate_rows = []
        for key, label in RATES:
            for arm_id in self.arm_ids:
                rate = self.summary["arms"][arm_id].get(key) or {}
                interval = rate.get("interval95") or {}
                rate_rows.append(
                    ForestRow(
                        label=f"{label} · {_short(arm_id)}",
                        group=arm_id,
                        estimate=rate.get("rate"),
                        lower=interval.get("lower"),
                        upper=interval.get("upper"),
                        hover=f"{arm_id}: {label} {_rate_text(rate)}",
                    )
                )
        charts.append(
            ForestChart(
                id="chart-arm-rates",
                title="Per-arm rates with 95% Clopper-Pearson intervals",
                caption=(
                    "One row per metric and arm: the marker is the observed rate, the bar its exact two-sided 95% "
                    f"interval. The dashed line is the validity bar ({self.thresholds['validityLower']:g}); it applies "
                    "to the validity rows only. Rows without observations are left out."
                ),
                x_title="rate",
                rows=_unique_labels(rate_rows),
                lines=(
                    RefLine(self.thresholds["validityLower"], f"validity bar {self.thresholds['validityLower']:g}"),
                ),
                x_range=(-0.02, 1.02),
            )
        )
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
                        label=_short(row["armId"]),
                        group=row["armId"],
                        estimate=_paired_estimate(d),
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
                    rows=_unique_labels(rows),
                    lines=(RefLine(line, line_label), RefLine(0.0, "0")),
                    x_range=(-1.02, 1.02),
                )
            )
        if self.summary["transportEquivalence"]:
            margin = self.thresholds["transportDelta"]
            rows = []
            for pair in self.summary["transportEquivalence"]:
                d = pair["recallDifference90"]
                rows.append(
                    ForestRow(
                        label=f"{_short(pair['leftArmId'], 20)} vs {_short(pair['rightArmId'], 20)}",
                        group="transport pairs",
                        estimate=_paired_estimate(d),
                        lower=d.get("lower"),
                        upper=d.get("upper"),
                        hover=f"{pair['leftArmId']} vs {pair['rightArmId']}: {fmt.interval(d.get('lower'), d.get('upper'))}",
                    )
                )
            charts.append(
                ForestChart(
                    id="chart-transport",
                    title="Transport equivalence: 90% recall-difference intervals",
                    caption=(
                        f"Equivalent only when the whole bar lies strictly inside the shaded margin band ±{margin:g}."
                    ),
                    x_title="recall difference (left − right)",
                    rows=_unique_labels(rows),
                    band=Band(-margin, margin, f"±{margin:g}"),
                    lines=(RefLine(0.0, "0"),),
                    x_range=(-1.02, 1.02),
                )
            )
        return tuple(charts)

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

    def extended_tables(self, arm_id: str) -> tuple[Table, ...]:
        extended = self.source.extended
        if not extended:
            return ()
        arm = (extended.get("arms") or {}).get(arm_id) or {}
        tables = []
        split = arm.get("identityMismatches")
        if isinstance(split, Mapping):
            labels = (
                ("all", "All receipts (what identityHonesty counts)"),
                ("silent", "Silent: ran quality receipts"),
                ("notRan", "Quality receipts whose normalizer did not run"),
                ("killPath", "Kill-path receipts"),
            )
            tables.append(
                Table(
                    id="identity-split-table",
                    caption="Identity mismatches by where they happened",
                    columns=(Column("Receipts"), Column("identityMatch false", True)),
                    rows=tuple(
                        Row((Cell(label), fmt.num_cell(split.get(key)))) for key, label in labels if key in split
                    ),
                    sortable=False,
                )
            )
        cases = arm.get("cases") or []
        if cases:
            rows = []
            for case in cases:
                rate_key = next((k for k in ("recall", "falsePositive") if k in case), None)
                rate = case.get(rate_key) or {}
                wall = case.get("wallMs") or {}
                rows.append(
                    Row(
                        (
                            Cell(str(case.get("caseId"))),
                            Cell(str(case.get("kind"))),
                            fmt.num_cell(case.get("attempts")),
                            fmt.num_cell(case.get("ran")),
                            fmt.num_cell(
                                (case.get("validity") or {}).get("rate"), _rate_text(case.get("validity") or {})
                            ),
                            Cell(
                                (("recall " if rate_key == "recall" else "false positives ") + _rate_text(rate))
                                if rate_key
                                else (
                                    f"kill passes {case['killPathPassed']}/{case.get('attempts')}"
                                    if "killPathPassed" in case
                                    else fmt.NA
                                ),
                                fmt.sort_key(rate.get("rate")) if rate_key else None,
                            ),
                            fmt.num_cell(wall.get("minMs"), _ms(wall.get("minMs"))),
                            fmt.num_cell(wall.get("medianMs"), _ms(wall.get("medianMs"))),
                            fmt.num_cell(wall.get("maxMs"), _ms(wall.get("maxMs"))),
                        )
                    )
                )
            tables.append(
                Table(
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
            )
        reruns = arm.get("reruns") or []
        tables.append(
            Table(
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
                            Cell(_short_id(r.get("receiptId")), None, None, "mono", r.get("receiptId")),
                            Cell(_short_id(r.get("rerunOf")), None, None, "mono", r.get("rerunOf")),
                        )
                    )
                    for r in reruns
                ),
                empty="No reruns.",
            )
        )
        candidate = (extended.get("candidates") or {}).get(arm_id) or {}
        feasibility = candidate.get("feasibility") or {}
        if feasibility:
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
                            fmt.num_cell(
                                observed, f"{fmt.count(observed)} {unit}" if fmt.is_number(observed) else None
                            ),
                            fmt.num_cell(f.get(bound_key), _num(f.get(bound_key))),
                            fmt.num_cell(f.get("bar"), f"{f['bar']:g}" if fmt.is_number(f.get("bar")) else None),
                            fmt.num_cell(f.get(needed_key)),
                        )
                    )
                )
            tables.append(
                Table(
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
            )
        return tuple(tables)

    # ------------------------------------------------------------------ pages

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
        definition_table = Table(
            id="definition-table",
            caption="Arm definition (from the campaign manifest)",
            columns=(Column("Field"), Column("Value")),
            rows=tuple(
                Row((Cell(str(k), None, None, "mono"), Cell(fmt.text(v)))) for k, v in sorted(definition.items())
            ),
            sortable=False,
        )
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
                        fmt.num_cell(rate.get("rate"), _num(rate.get("rate"))),
                        Cell(
                            fmt.interval(interval.get("lower"), interval.get("upper")),
                            fmt.sort_key(interval.get("lower")),
                        ),
                    )
                )
            )
        rates_table = Table(
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
        latency = m.get("latency") or {}
        latency_table = Table(
            id="latency-table",
            caption="Latency of quality receipts by class",
            columns=(Column("Class"), Column("Count", True), Column("Median (ms)", True), Column("p90 (ms)", True)),
            rows=tuple(
                Row(
                    (
                        Cell(klass),
                        fmt.num_cell(latency.get(klass, {}).get("count")),
                        fmt.num_cell(
                            latency.get(klass, {}).get("medianMs"), _ms(latency.get(klass, {}).get("medianMs"))
                        ),
                        fmt.num_cell(latency.get(klass, {}).get("p90Ms"), _ms(latency.get(klass, {}).get("p90Ms"))),
                    )
                )
                for klass in sorted(latency)
            ),
            sortable=False,
        )
        usage = m.get("usage") or {}
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
        usage_table = Table(
            id="usage-table",
            caption=(
                f"Usage over all {fmt.count(usage.get('attempts'))} receipts "
                f"({fmt.count(usage.get('receiptsWithUsage'))} report usage; costs are never estimated)"
            ),
            columns=(Column("Field"), Column("Receipts reporting", True), Column("Total", True)),
            rows=tuple(usage_rows),
            sortable=False,
        )
        decoding_table = Table(
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
                for p in m.get("decodingProfiles") or []
            ),
        )
        cells_rows = []
        for cell in m.get("cells") or []:
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
                        fmt.num_cell(cold.get("medianMs"), _ms(cold.get("medianMs"))),
                        fmt.num_cell(cold.get("p90Ms"), _ms(cold.get("p90Ms"))),
                        fmt.num_cell(resident.get("medianMs"), _ms(resident.get("medianMs"))),
                        fmt.num_cell(resident.get("p90Ms"), _ms(resident.get("p90Ms"))),
                        fmt.num_cell(tokens.get("total")),
                        fmt.num_cell(cost_total, f"${cost_total:,.4f}" if fmt.is_number(cost_total) else None),
                        fmt.num_cell(len(cell.get("decodingProfiles") or [])),
                    ),
                    "mismatch" if flak.get("disagreements") else "",
                )
            )
        cells_table = Table(
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
        row = self.rows.get(arm_id)
        page = ArmPage(
            meta=self.meta(
                url,
                f"Arm {arm_id}",
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
        )
        data = {
            "schema": "evalsite.site.arm.v1",
            "ledger": self.id,
            "armId": arm_id,
            "metrics": m,
            "candidate": row,
        }
        return PageBundle(page, data)


def _rate_text(rate: Mapping[str, Any]) -> str:
    if not rate or not rate.get("total"):
        return "N/A (no observations)"
    interval = rate.get("interval95") or {}
    return f"{rate['rate']:.3f} {fmt.interval(interval.get('lower'), interval.get('upper'), 3)} ({rate['successes']}/{rate['total']})"


def _ms(value: Any) -> str | None:
    return f"{value:,.1f}" if fmt.is_number(value) else None


def _short_id(value: Any) -> str:
    if not isinstance(value, str):
        return fmt.NA
    prefix, _, rest = value.partition(":")
    return f"{prefix}:{rest[:12]}…" if rest else value[:20]


def _paired_estimate(d: Mapping[str, Any]) -> float | None:
    pairs = d.get("pairs")
    if not pairs or d.get("candidateWins") is None or d.get("candidateLosses") is None:
        return None
    return (d["candidateWins"] - d["candidateLosses"]) / pairs


def _short(text: str, limit: int = 32) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _unique_labels(rows: list[ForestRow]) -> tuple[ForestRow, ...]:
    seen: dict[str, int] = {}
    out = []
    for row in rows:
        n = seen.get(row.label, 0)
        seen[row.label] = n + 1
        if n:
            row = ForestRow(f"{row.label} ({n + 1})", row.group, row.estimate, row.lower, row.upper, row.hover)
        out.append(row)
    return tuple(out)


def _index_of(rows: Sequence[Mapping[str, Any]], row: Mapping[str, Any]) -> int:
    for index, candidate in enumerate(rows):
        if candidate is row:
            return index
    return 0


def build_ledger_pages(source: LedgerSource, site: SiteInfo) -> list[PageBundle]:
    """The ledger page followed by one arm page per arm (baseline first)."""
    builder = _Builder(source, site)
    return [builder.ledger_page()] + [builder.arm_page(arm_id) for arm_id in builder.arm_ids]
