"""The ledger pipeline's typed result, built once from the reference summary and the extended analyses.

:func:`ledger_result` reads the summary object (``data.json``) and the extended analyses
(``extended.json``) exactly once into :class:`~generator.model.ledger_result.LedgerFacts`, and
derives every decided fact the pages put into words -- how many attempts or pairs a bar needs when
nothing fails, the kill-control modes a candidate misses, the observed paired differences, which
containment floor was missed, each condition's result in the reference's order -- so that the pages
only select and format.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from generator.analyze.stats.binomial import tail_probability
from generator.analyze.stats.power import attempts_needed_if_all_succeed, pairs_needed_if_arms_agree
from generator.model.ledger import CONDITIONS, ELIGIBLE, KILL_MODES
from generator.model.ledger_result import (
    RATE_KEYS,
    ArmMetrics,
    CandidateRow,
    CaseCell,
    Condition,
    Containment,
    CoverageGap,
    DecodingProfile,
    ExtendedArm,
    ExtendedCandidate,
    ExtendedCase,
    ExtendedFacts,
    FeasibilityRow,
    GateStatistics,
    IdentitySplit,
    KillCase,
    KillPaths,
    LatencySpread,
    LedgerFacts,
    LedgerResult,
    PairedDifference,
    Rate,
    Rerun,
    Thresholds,
    TokenTotal,
    TransportPair,
    Usage,
)

__all__ = ["ledger_facts", "ledger_result", "paired_estimate"]

#: The validity bar is a two-sided 95% Clopper-Pearson lower bound.
_VALIDITY_TAIL = tail_probability(0.95, "two")

Doc = Mapping[str, Any]


def paired_estimate(difference: Doc) -> float | None:
    """Observed paired difference (candidate-only minus baseline-only, over all pairs)."""
    pairs = difference.get("pairs")
    wins, losses = difference.get("candidateWins"), difference.get("candidateLosses")
    if not pairs or wins is None or losses is None:
        return None
    return float((wins - losses) / pairs)


def _validity_needed(bar: Any) -> int | None:
    if not isinstance(bar, (int, float)) or not 0 < bar < 1:
        return None
    return attempts_needed_if_all_succeed(float(bar), _VALIDITY_TAIL)


def _false_positive_needed(epsilon: Any) -> int | None:
    if not isinstance(epsilon, (int, float)) or not 0 < epsilon < 1:
        return None
    return pairs_needed_if_arms_agree("upper_margin", float(epsilon))


# --------------------------------------------------------------------------- arms


def _rate(key: str, rate: Doc) -> Rate:
    interval = rate.get("interval95") or {}
    return Rate(
        key, rate.get("successes"), rate.get("total"), rate.get("rate"), interval.get("lower"), interval.get("upper")
    )


def _spread(name: str, latency: Doc) -> LatencySpread:
    return LatencySpread(name, latency.get("count"), latency.get("medianMs"), latency.get("p90Ms"))


def _usage(usage: Doc) -> Usage:
    cost = usage.get("providerCost") or {}
    tokens = tuple(
        TokenTotal(str(name), value.get("reported"), value.get("total"))
        for name, value in sorted((usage.get("tokens") or {}).items())
    )
    return Usage(
        usage.get("attempts"), usage.get("receiptsWithUsage"), tokens, cost.get("reported"), cost.get("totalUsd")
    )


def _profile(profile: Doc) -> DecodingProfile:
    decoding = profile.get("decoding") or {}
    return DecodingProfile(
        decoding.get("temperature"), decoding.get("seed"), decoding.get("pinned"), profile.get("attempts")
    )


def _cell(cell: Doc) -> CaseCell:
    flakiness = cell.get("flakiness") or {}
    latency = cell.get("latency") or {}
    usage = cell.get("usage") or {}
    tokens = (usage.get("tokens") or {}).get("totalTokens") or {}
    return CaseCell(
        case_id=str(cell["caseId"]),
        case_kind=str(cell["caseKind"]),
        attempts=cell.get("attempts"),
        reruns=cell.get("reruns"),
        unique_outcomes=flakiness.get("uniqueOutcomes"),
        disagreements=flakiness.get("disagreements"),
        flaky_fraction=flakiness.get("fraction"),
        cold=_spread("cold", latency.get("cold") or {}),
        resident=_spread("resident", latency.get("resident") or {}),
        total_tokens=tokens.get("total"),
        cost_usd=(usage.get("providerCost") or {}).get("totalUsd"),
        decoding_profiles=len(cell.get("decodingProfiles") or []),
    )


def _arm(arm_id: str, metrics: Doc) -> ArmMetrics:
    definition = metrics.get("arm", {})
    latency = metrics.get("latency") or {}
    return ArmMetrics(
        arm_id=arm_id,
        definition=tuple(sorted(definition.items())),
        role=definition.get("role"),
        backend=definition.get("backend"),
        model=definition.get("model"),
        transport=definition.get("transport"),
        attempts=metrics.get("attempts"),
        quality_attempts=metrics.get("qualityAttempts"),
        reruns=metrics.get("reruns"),
        identity_mismatches=metrics.get("identityMismatches"),
        rates=tuple(_rate(key, metrics.get(key) or {}) for key in RATE_KEYS),
        latency=tuple(_spread(name, latency[name] or {}) for name in sorted(latency)),
        usage=_usage(metrics.get("usage") or {}),
        decoding_profiles=tuple(_profile(profile) for profile in metrics.get("decodingProfiles") or []),
        cells=tuple(_cell(cell) for cell in metrics.get("cells") or []),
        document=metrics,
    )


# --------------------------------------------------------------------------- candidate rows


def _paired(difference: Doc) -> PairedDifference:
    return PairedDifference(
        pairs=difference.get("pairs"),
        candidate_wins=difference.get("candidateWins"),
        candidate_losses=difference.get("candidateLosses"),
        discordant=difference.get("discordant", 0),
        lower=difference.get("lower"),
        upper=difference.get("upper"),
        method=str(difference.get("method", "")),
        estimate=paired_estimate(difference),
    )


def _transport_pair(pair: Doc) -> TransportPair:
    difference = pair["recallDifference90"]
    return TransportPair(
        left_arm_id=pair["leftArmId"],
        right_arm_id=pair["rightArmId"],
        pairs=difference.get("pairs"),
        lower=difference.get("lower"),
        upper=difference.get("upper"),
        margin=pair["margin"],
        equivalent=pair["equivalent"],
        estimate=paired_estimate(difference),
    )


def _conditions(conditions: Doc) -> tuple[Condition, ...]:
    """Every condition of a row: the reference's nine in their order, then any other key sorted."""
    labels = dict(CONDITIONS)
    order = [key for key, _label in CONDITIONS] + sorted(key for key in conditions if key not in labels)
    return tuple(
        Condition(key, labels[key] if key in labels else str(key), value if isinstance(value, bool) else None)
        for key in order
        if key in conditions
        for value in (conditions[key],)
    )


def _kill_paths(kill: Doc) -> KillPaths:
    cases = tuple(
        KillCase(case["caseId"], case["attempts"], tuple(case["modes"]), case["passed"]) for case in kill["cases"]
    )
    missing = tuple(mode for mode in sorted(KILL_MODES) if mode not in kill["modes"])
    return KillPaths(kill["passed"], kill["completeSuite"], tuple(kill["modes"]), cases, missing)


def _containment(containment: Doc, thresholds: Doc) -> Containment:
    applicable = bool(containment.get("applicable"))
    return Containment(
        applicable=applicable,
        passed=containment.get("passed"),
        mutation_runs=containment.get("mutationRuns"),
        conclusive_runs=containment.get("conclusiveRuns"),
        conclusive_rate=containment.get("conclusiveRate"),
        breaches=containment.get("breaches"),
        rule_of_three_upper95=containment.get("ruleOfThreeUpper95"),
        runs_short=applicable and containment["conclusiveRuns"] < thresholds["containmentMinimum"],
        rate_short=applicable and containment["conclusiveRate"] < thresholds["containmentConclusive"],
    )


def _candidate(position: int, row: Doc, thresholds: Doc, needed: tuple[int | None, int | None]) -> CandidateRow:
    gaps = tuple(
        CoverageGap(str(gap["caseId"]), gap["required"], gap["candidate"], gap["baseline"], gap["paired"])
        for gap in row["coverage"]["gaps"]
    )
    return CandidateRow(
        arm_id=row["armId"],
        position=position,
        recommendation=str(row["recommendation"]),
        eligible=row["recommendation"] == ELIGIBLE,
        conditions=_conditions(row["conditions"]),
        coverage_gaps=gaps,
        recall=_paired(row["paired"]["recallDifference"]),
        false_positive=_paired(row["paired"]["falsePositiveDifference"]),
        kill=_kill_paths(row["killPaths"]),
        containment=_containment(row["containment"], thresholds),
        transport_pairs=tuple(_transport_pair(pair) for pair in row.get("transportPairs") or []),
        validity_attempts_needed=needed[0],
        false_positive_pairs_needed=needed[1],
        document=row,
    )


def _thresholds(thresholds: Doc) -> Thresholds:
    return Thresholds(
        validity_lower=thresholds["validityLower"],
        recall_delta=thresholds["recallDelta"],
        fpr_epsilon=thresholds["fprEpsilon"],
        transport_delta=thresholds.get("transportDelta"),
        containment_conclusive=thresholds.get("containmentConclusive"),
        containment_minimum=thresholds.get("containmentMinimum"),
        quality_repetitions=thresholds.get("qualityRepetitions"),
        kill_repetitions=thresholds.get("killRepetitions"),
        present=tuple(thresholds.items()),
    )


# --------------------------------------------------------------------------- the extended analyses


def _identity_split(split: object) -> IdentitySplit | None:
    if not isinstance(split, Mapping):
        return None
    return IdentitySplit(split.get("all"), split.get("silent"), split.get("notRan"), split.get("killPath"))


def _extended_case(case: Doc) -> ExtendedCase:
    outcome = next((key for key in ("recall", "falsePositive") if key in case), None)
    wall = case.get("wallMs") or {}
    return ExtendedCase(
        case_id=case.get("caseId"),
        kind=case.get("kind"),
        attempts=case.get("attempts"),
        ran=case.get("ran"),
        validity=_rate("validity", case.get("validity") or {}),
        outcome=outcome,
        outcome_rate=_rate(outcome or "", (case.get(outcome) if outcome else None) or {}),
        kill_path_passed=case.get("killPathPassed"),
        wall_min_ms=wall.get("minMs"),
        wall_median_ms=wall.get("medianMs"),
        wall_max_ms=wall.get("maxMs"),
    )


def _extended_arm(arm: Doc) -> ExtendedArm:
    reruns = tuple(
        Rerun(
            rerun.get("caseId"),
            rerun.get("repeat"),
            rerun.get("originalRepeat"),
            rerun.get("receiptId"),
            rerun.get("rerunOf"),
        )
        for rerun in arm.get("reruns") or []
    )
    cases = tuple(_extended_case(case) for case in arm.get("cases") or [])
    return ExtendedArm(_identity_split(arm.get("identityMismatches")), cases, reruns)


#: Each gate's feasibility: its key, the key of its best possible bound and of the size it needs.
_FEASIBILITY = (
    ("validity", "bestPossibleLower", "attemptsNeededIfAllValid"),
    ("recall", "bestPossibleLower", "pairsNeededIfNoDiscordance"),
    ("falsePositive", "bestPossibleUpper", "pairsNeededIfNoDiscordance"),
)


def _feasibility(feasibility: Doc) -> tuple[FeasibilityRow, ...]:
    if not feasibility:
        return ()
    rows = []
    for gate, bound, needed in _FEASIBILITY:
        found = feasibility.get(gate) or {}
        observed = found.get("attempts", found.get("pairs"))
        rows.append(FeasibilityRow(gate, observed, found.get(bound), found.get("bar"), found.get(needed)))
    return tuple(rows)


def _gate(condition: str, gate: Doc) -> GateStatistics:
    reference, tango, mcnemar = gate["reference"], gate["tango"], gate["mcnemar"]
    clustering, diagnosis = gate["clustering"], gate["diagnosis"]
    return GateStatistics(
        condition=condition,
        pairs=gate["pairs"],
        cases=gate["cases"],
        wins=gate["wins"],
        losses=gate["losses"],
        reference_lower=reference["lower"],
        reference_upper=reference["upper"],
        tango_lower=tango["lower"],
        tango_upper=tango["upper"],
        tango_method=tango["method"],
        mcnemar_p=mcnemar["p_value"],
        mcnemar_method=mcnemar["method"],
        design_effect=clustering["design_effect"],
        clustering_method=clustering["method"],
        passed=diagnosis["passed"],
        sentence=str(diagnosis["sentence"]),
    )


def _extended_candidate(arm_id: str, candidate: Doc) -> ExtendedCandidate:
    gates = tuple(_gate(condition, gate) for condition, gate in sorted((candidate.get("gates") or {}).items()))
    return ExtendedCandidate(arm_id, _feasibility(candidate.get("feasibility") or {}), gates)


def _extended_facts(extended: Doc | None) -> ExtendedFacts | None:
    if not extended:
        return None
    hygiene = extended.get("transportPairs") or {}
    return ExtendedFacts(
        arms={arm_id: _extended_arm(arm or {}) for arm_id, arm in (extended.get("arms") or {}).items()},
        candidates=tuple(
            _extended_candidate(arm_id, candidate)
            for arm_id, candidate in sorted((extended.get("candidates") or {}).items())
        ),
        caveats=tuple(str(caveat) for caveat in extended.get("caveats") or []),
        duplicate_pairs=tuple((item.get("index"), item.get("sameAs")) for item in hygiene.get("duplicates") or []),
        mirrored_pairs=tuple((item.get("index"), item.get("mirrors")) for item in hygiene.get("mirrored") or []),
    )


# --------------------------------------------------------------------------- the result


def ledger_facts(summary: Doc, extended: Doc | None = None) -> LedgerFacts:
    """The typed facts of a reference summary (``schemaVersion`` 1) and, optionally, its extras."""
    thresholds = summary["thresholds"]
    baseline = summary["baselineArmId"]
    arms = summary["arms"]
    order = [baseline] + [row["armId"] for row in summary["candidates"] if row["armId"] != baseline]
    order += sorted(arm_id for arm_id in arms if arm_id not in order)
    needed = (_validity_needed(thresholds.get("validityLower")), _false_positive_needed(thresholds.get("fprEpsilon")))
    return LedgerFacts(
        campaign_id=str(summary["campaignId"]),
        corpus_version=str(summary["corpusVersion"]),
        prompt_envelope_version=str(summary["promptEnvelopeVersion"]),
        statistical_method=str(summary["statisticalMethod"]),
        note=str(summary.get("note", "")),
        campaign_digest=summary["campaignDigest"],
        execution_digest=summary["executionDigest"],
        ledger_digest=summary["ledgerDigest"],
        receipt_count=summary["receiptCount"],
        receipt_schema_versions=tuple(summary["receiptSchemaVersions"]),
        baseline_arm_id=baseline,
        thresholds=_thresholds(thresholds),
        arms=tuple(_arm(arm_id, arms[arm_id]) for arm_id in order),
        candidates=tuple(_candidate(i, row, thresholds, needed) for i, row in enumerate(summary["candidates"])),
        transport=tuple(_transport_pair(pair) for pair in summary["transportEquivalence"]),
        extended=_extended_facts(extended),
    )


def ledger_result(summary: Mapping[str, Any], extended: Mapping[str, Any] | None = None) -> LedgerResult:
    """The result for a reference summary (``schemaVersion`` 1) and, optionally, its extras.

    A summary of another schema is passed through with no facts; the pages refuse it.
    """
    if not isinstance(summary, Mapping) or summary.get("schemaVersion") != 1 or "candidates" not in summary:
        return LedgerResult(summary, extended)
    return LedgerResult(summary, extended, ledger_facts(summary, extended))
