"""Why each admission condition of a candidate passed or failed, in words, with the deciding numbers.

The reference summary decides admission and :class:`~generator.model.ledger_result.LedgerResult`
carries every other decided fact (attempts needed, missing kill modes, containment floors); this
module only puts them into sentences.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from generator.model.ledger import CONDITIONS
from generator.model.ledger_result import LedgerResult
from generator.pages import format as fmt
from generator.pages.ledger.common import listed

__all__ = ["CONDITIONS", "condition_reasons"]


def condition_reasons(result: LedgerResult, row: Mapping[str, Any]) -> list[tuple[str, str, bool | None, str]]:
    """``(key, label, passed, why)`` for every condition of one candidate row.

    The extended analyses (when the result has them) add detail: where identity mismatches
    happened and how many attempts of a failed kill case passed.
    """
    summary, extended = result.summary, result.extended
    facts = result.facts(row["armId"])
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
            + listed(
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
        needed = facts.validity_attempts_needed if facts else None
        if not passed and validity["successes"] == validity["total"] and needed:
            text += (
                f" Even with no failures the bound reaches {bar:g} only from {needed:,} attempts: "
                "underpowered, not worse."
            )
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
            f"{fpr['candidateWins']} false positive(s) only on the candidate, "
            f"{fpr['candidateLosses']} only on the baseline)."
        )
        needed = facts.false_positive_pairs_needed if facts else None
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
    missing_modes = list(facts.missing_kill_modes) if facts else []
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
                + listed(
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
        if facts is not None and facts.containment_runs_short:
            reasons.append(
                f"only {containment['conclusiveRuns']:,} conclusive mutation runs of "
                f"{thresholds['containmentMinimum']:,} required"
            )
        if containment["breaches"]:
            reasons.append(f"{containment['breaches']} breach(es)")
        if facts is not None and facts.containment_rate_short:
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
            else "No declared transport pair involves this arm; "
            "none is required because its transport is not ssh_tunnel."
        )
    else:
        why["transportEquivalence"] = (
            listed(
                [
                    f"{p['leftArmId']} vs {p['rightArmId']}: 90% recall-difference interval "
                    f"{fmt.interval(p['recallDifference90'].get('lower'), p['recallDifference90'].get('upper'))} is "
                    f"{'strictly inside' if p['equivalent'] else 'not strictly inside'} ±{p['margin']:g}"
                    for p in pairs
                ]
            )
            + "."
        )

    out: list[tuple[str, str, bool | None, str]] = []
    known = [key for key, _ in CONDITIONS]
    labels: dict[str, str] = dict(CONDITIONS)
    for key in known + sorted(k for k in conditions if k not in labels):
        if key not in conditions:
            continue
        value = conditions[key]
        label = labels[key] if key in labels else str(key)
        out.append((key, label, value if isinstance(value, bool) else None, why.get(key, "")))
    return out


# --------------------------------------------------------------------------- builder
