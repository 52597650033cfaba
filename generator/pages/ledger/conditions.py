"""Why each admission condition of a candidate passed or failed, in words, with the deciding numbers.

The reference summary decides admission and :class:`~generator.model.ledger_result.LedgerResult`
carries every other decided fact (attempts needed, missing kill modes, containment floors); this
module only puts them into sentences.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from generator.model.ledger import CONDITIONS
from generator.model.ledger_result import LedgerResult
from generator.pages import format as fmt
from generator.pages.ledger.common import listed
from generator.pages.names import phrase

__all__ = ["CONDITIONS", "condition_reasons"]


@dataclass(frozen=True)
class _Facts:
    """What the sentences of one candidate row read (the row, its arm, the summary and extended facts)."""

    summary: Mapping[str, Any]
    thresholds: Mapping[str, Any]
    row: Mapping[str, Any]
    arm: Mapping[str, Any]
    arm_extra: Mapping[str, Any]
    case_extra: Mapping[Any, Any]
    facts: Any  # the row's decided facts (``LedgerResult.facts``), or None


def condition_reasons(result: LedgerResult, row: Mapping[str, Any]) -> list[tuple[str, str, bool | None, str]]:
    """``(key, label, passed, why)`` for every condition of one candidate row.

    The extended analyses (when the result has them) add detail: where identity mismatches
    happened and how many attempts of a failed kill case passed.
    """
    summary, extended = result.summary, result.extended
    arm_extra = ((extended or {}).get("arms") or {}).get(row["armId"]) or {}
    context = _Facts(
        summary=summary,
        thresholds=summary["thresholds"],
        row=row,
        arm=summary["arms"].get(row["armId"], {}),
        arm_extra=arm_extra,
        case_extra={case.get("caseId"): case for case in arm_extra.get("cases") or []},
        facts=result.facts(row["armId"]),
    )
    why = {key: explain(context) for key, explain in _EXPLAIN.items()}
    conditions = row["conditions"]
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


def _evidence_envelope(c: _Facts) -> str:
    summary = c.summary
    versions = summary["receiptSchemaVersions"]
    if not summary["receiptCount"]:
        return "The ledger is empty, so no receipt binds the evidence to one execution."
    if list(versions) != [2]:
        return (
            f"Receipt schema versions {', '.join(map(str, versions))} are present; every receipt must be "
            "schemaVersion 2 (v1 receipts carry no campaign or execution digest)."
        )
    if summary["executionDigest"] is None:
        return "The receipts do not share exactly one executionDigest."
    return (
        f"All {summary['receiptCount']:,} receipts are schemaVersion 2 and share one executionDigest "
        f"({fmt.hash12(summary['executionDigest'].split(':', 1)[-1])}…)."
    )


def _coverage(c: _Facts) -> str:
    gaps = c.row["coverage"]["gaps"]
    if not gaps:
        return (
            f"Every case has the required repeats ({c.thresholds['qualityRepetitions']} per quality case, "
            f"{c.thresholds['killRepetitions']} per kill-path case) on this arm, on the baseline and paired."
        )
    return (
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


def _validity(c: _Facts) -> str:
    validity = c.arm.get("validity") or {}
    interval = validity.get("interval95") or {}
    lower = interval.get("lower")
    bar = c.thresholds["validityLower"]
    if lower is None:
        return "There are no quality receipts for this arm, so validity has no interval."
    passed = c.row["conditions"].get("structuredOutputValidity")
    text = (
        f"Validity lower bound {lower:.4f} (Clopper-Pearson 95%, normalizer ran on "
        f"{validity['successes']}/{validity['total']} quality receipts) is "
        f"{'at least' if passed else 'below'} the bar {bar:g}."
    )
    needed = c.facts.validity_attempts_needed if c.facts else None
    if not passed and validity["successes"] == validity["total"] and needed:
        text += (
            f" Even with no failures the bound reaches {bar:g} only from {needed:,} attempts: underpowered, not worse."
        )
    return text


def _recall(c: _Facts) -> str:
    recall = c.row["paired"]["recallDifference"]
    delta = c.thresholds["recallDelta"]
    if recall.get("lower") is None:
        return "No paired recall observations: no defect case where both arms ran the normalizer on the same repeat."
    passed = c.row["conditions"].get("recallNonInferior")
    return (
        f"Paired recall difference lower bound {recall['lower']:+.4f} is "
        f"{'above' if passed else 'not above'} −δ = {-delta:+.4f} ({recall['pairs']:,} paired defect "
        f"observations: the candidate found {recall['candidateWins']} the baseline missed and missed "
        f"{recall['candidateLosses']} the baseline found)."
    )


def _false_positives(c: _Facts) -> str:
    """candidateWins counts candidate-only false positives."""
    fpr = c.row["paired"]["falsePositiveDifference"]
    eps = c.thresholds["fprEpsilon"]
    if fpr.get("upper") is None:
        return "No paired clean-case observations: the false-positive margin cannot be decided."
    passed = c.row["conditions"].get("falsePositiveMargin")
    text = (
        f"Paired false-positive difference upper bound {fpr['upper']:+.4f} is "
        f"{'within' if passed else 'above'} ε = {eps:.4f} ({fpr['pairs']:,} paired clean runs: "
        f"{fpr['candidateWins']} false positive(s) only on the candidate, "
        f"{fpr['candidateLosses']} only on the baseline)."
    )
    needed = c.facts.false_positive_pairs_needed if c.facts else None
    if not passed and fpr.get("candidateWins") == 0 and needed and fpr["pairs"] < needed:
        text += (
            f" With no candidate-only false positives the bound still needs at least {needed:,} paired clean "
            "runs to reach ε: underpowered, not worse."
        )
    return text


def _identity(c: _Facts) -> str:
    mismatches = c.arm.get("identityMismatches", 0)
    if not mismatches:
        return "No receipt of this arm reports an identity mismatch."
    split = c.arm_extra.get("identityMismatches")
    detail = ""
    if isinstance(split, Mapping):
        detail = (
            f" Of these, {split.get('silent', 0)} on ran quality receipts, {split.get('notRan', 0)} where the "
            f"normalizer did not run and {split.get('killPath', 0)} on kill-path receipts."
        )
    return f"{mismatches:,} receipt(s) of this arm report identityMatch false (kill-path receipts count too).{detail}"


def _kill_paths(c: _Facts) -> str:
    kill = c.row["killPaths"]
    if kill["passed"]:
        return f"All {len(kill['cases'])} kill-path cases passed, covering all four control modes."
    parts = []
    if not kill["completeSuite"]:
        missing_modes = list(c.facts.missing_kill_modes) if c.facts else []
        parts.append(
            "The suite is incomplete: modes covered "
            + (", ".join(kill["modes"]) or "none")
            + "; missing "
            + ", ".join(missing_modes)
            + "."
        )
    failing = [case for case in kill["cases"] if not case["passed"]]
    if failing:
        parts.append(
            "Failed kill cases: "
            + listed([_failed_kill_case(c, case) for case in failing])
            + ". Each case needs enough attempts, exactly one mode, and every attempt passing with "
            "zero provider calls."
        )
    return " ".join(parts) or "The kill-path check failed."


def _failed_kill_case(c: _Facts, case: Mapping[str, Any]) -> str:
    extra = c.case_extra.get(case["caseId"], {})
    passed = f", {extra['killPathPassed']} attempt(s) passed" if "killPathPassed" in extra else ""
    return (
        f"{case['caseId']} ({case['attempts']} attempt(s), {c.thresholds['killRepetitions']} required, "
        f"modes {', '.join(case['modes']) or 'none'}{passed})"
    )


def _containment(c: _Facts) -> str:
    containment = c.row["containment"]
    if not containment.get("applicable"):
        return "Not a maker arm: containment does not apply (passes by definition)."
    reasons = []
    if c.facts is not None and c.facts.containment_runs_short:
        reasons.append(
            f"only {containment['conclusiveRuns']:,} conclusive mutation runs of "
            f"{c.thresholds['containmentMinimum']:,} required"
        )
    if containment["breaches"]:
        reasons.append(f"{containment['breaches']} breach(es)")
    if c.facts is not None and c.facts.containment_rate_short:
        reasons.append(
            f"conclusive rate {containment['conclusiveRate']:.1%} below {c.thresholds['containmentConclusive']:.1%}"
        )
    summary_text = (
        f"{containment['mutationRuns']:,} mutation runs, {containment['conclusiveRuns']:,} conclusive, "
        f"{containment['breaches']} breaches"
    )
    if containment.get("ruleOfThreeUpper95") is not None:
        summary_text += f" (rule-of-three 95% upper bound on the breach rate {containment['ruleOfThreeUpper95']:.4f})"
    return summary_text + (": " + "; ".join(reasons) + "." if reasons else ".")


def _transport(c: _Facts) -> str:
    pairs = c.row.get("transportPairs") or []
    if not pairs:
        transport = c.arm.get("arm", {}).get("transport")
        return (
            "The arm uses ssh_tunnel, but no declared transport pair tests it."
            if transport == "ssh_tunnel"
            else "No declared transport pair involves this arm; "
            "none is required because its transport is not ssh_tunnel."
        )
    return phrase(
        "{}.",
        listed(
            [
                phrase(
                    "{} vs {}: 90% recall-difference interval "
                    f"{fmt.interval(p['recallDifference90'].get('lower'), p['recallDifference90'].get('upper'))} "
                    f"is {'strictly inside' if p['equivalent'] else 'not strictly inside'} ±{p['margin']:g}",
                    p["leftArmId"],
                    p["rightArmId"],
                )
                for p in pairs
            ]
        ),
    )


#: The sentence of each condition, in the reference's order.
_EXPLAIN: dict[str, Callable[[_Facts], str]] = {
    "evidenceEnvelope": _evidence_envelope,
    "coverage": _coverage,
    "structuredOutputValidity": _validity,
    "recallNonInferior": _recall,
    "falsePositiveMargin": _false_positives,
    "identityHonesty": _identity,
    "killPaths": _kill_paths,
    "containment": _containment,
    "transportEquivalence": _transport,
}


# --------------------------------------------------------------------------- builder
