"""Why each admission condition of a candidate passed or failed, in words, with the deciding numbers.

The reference summary decides admission and :class:`~generator.model.ledger_result.LedgerResult`
carries every other decided fact (attempts needed, missing kill modes, containment floors); this
module only puts them into sentences.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from generator.model.ledger import CONDITIONS
from generator.model.ledger_result import (
    ArmMetrics,
    CandidateRow,
    ExtendedArm,
    KillCase,
    LedgerFacts,
    LedgerResult,
    Rate,
    Thresholds,
)
from generator.pages import format as fmt
from generator.pages.ledger.common import listed
from generator.pages.names import phrase

__all__ = ["CONDITIONS", "condition_reasons"]


@dataclass(frozen=True)
class _Facts:
    """What the sentences of one candidate row read: the row, its arm, the ledger's and the extended facts."""

    ledger: LedgerFacts
    thresholds: Thresholds
    row: CandidateRow
    arm: ArmMetrics | None
    arm_extra: ExtendedArm


def condition_reasons(result: LedgerResult, row: CandidateRow) -> list[tuple[str, str, bool | None, str]]:
    """``(key, label, passed, why)`` for every condition of one candidate row of ``result.facts``.

    The extended analyses (when the result has them) add detail: where identity mismatches happened
    and how many attempts of a failed kill case passed.
    """
    ledger = result.facts
    if ledger is None:
        raise ValueError("ledger summary is not the reference summary schema (schemaVersion 1)")
    extended = ledger.extended
    context = _Facts(
        ledger=ledger,
        thresholds=ledger.thresholds,
        row=row,
        arm=ledger.arm(row.arm_id),
        arm_extra=extended.arm(row.arm_id) if extended is not None else _NO_EXTRA,
    )
    return [
        (condition.key, condition.label, condition.passed, _EXPLAIN[condition.key](context))
        if condition.key in _EXPLAIN
        else (condition.key, condition.label, condition.passed, "")
        for condition in row.conditions
    ]


_NO_EXTRA = ExtendedArm(None, (), ())


def _evidence_envelope(c: _Facts) -> str:
    ledger = c.ledger
    versions = ledger.receipt_schema_versions
    if not ledger.receipt_count:
        return "The ledger is empty, so no receipt binds the evidence to one execution."
    if versions != (2,):
        return (
            f"Receipt schema versions {', '.join(map(str, versions))} are present; every receipt must be "
            "schemaVersion 2 (v1 receipts carry no campaign or execution digest)."
        )
    if ledger.execution_digest is None:
        return "The receipts do not share exactly one executionDigest."
    return (
        f"All {ledger.receipt_count:,} receipts are schemaVersion 2 and share one executionDigest "
        f"({fmt.hash12(ledger.execution_digest.split(':', 1)[-1])}…)."
    )


def _coverage(c: _Facts) -> str:
    gaps = c.row.coverage_gaps
    if not gaps:
        return (
            f"Every case has the required repeats ({c.thresholds.quality_repetitions} per quality case, "
            f"{c.thresholds.kill_repetitions} per kill-path case) on this arm, on the baseline and paired."
        )
    return (
        f"{len(gaps)} case(s) below the repetition floor: "
        + listed(
            [
                f"{g.case_id} has {g.candidate} candidate, {g.baseline} baseline, {g.paired} paired "
                f"repeats of {g.required} required"
                for g in gaps
            ]
        )
        + "."
    )


def _validity(c: _Facts) -> str:
    validity = c.arm.validity if c.arm is not None else Rate()
    lower = validity.lower
    bar = c.thresholds.validity_lower
    if lower is None:
        return "There are no quality receipts for this arm, so validity has no interval."
    passed = c.row.passed("structuredOutputValidity")
    text = (
        f"Validity lower bound {lower:.4f} (Clopper-Pearson 95%, normalizer ran on "
        f"{validity.successes}/{validity.total} quality receipts) is "
        f"{'at least' if passed else 'below'} the bar {bar:g}."
    )
    needed = c.row.validity_attempts_needed
    if not passed and validity.successes == validity.total and needed:
        text += (
            f" Even with no failures the bound reaches {bar:g} only from {needed:,} attempts: underpowered, not worse."
        )
    return text


def _recall(c: _Facts) -> str:
    recall = c.row.recall
    delta = c.thresholds.recall_delta
    if recall.lower is None:
        return "No paired recall observations: no defect case where both arms ran the normalizer on the same repeat."
    passed = c.row.passed("recallNonInferior")
    return (
        f"Paired recall difference lower bound {recall.lower:+.4f} is "
        f"{'above' if passed else 'not above'} −δ = {-delta:+.4f} ({recall.pairs:,} paired defect "
        f"observations: the candidate found {recall.candidate_wins} the baseline missed and missed "
        f"{recall.candidate_losses} the baseline found)."
    )


def _false_positives(c: _Facts) -> str:
    """candidate_wins counts candidate-only false positives."""
    fpr = c.row.false_positive
    eps = c.thresholds.fpr_epsilon
    if fpr.upper is None:
        return "No paired clean-case observations: the false-positive margin cannot be decided."
    passed = c.row.passed("falsePositiveMargin")
    text = (
        f"Paired false-positive difference upper bound {fpr.upper:+.4f} is "
        f"{'within' if passed else 'above'} ε = {eps:.4f} ({fpr.pairs:,} paired clean runs: "
        f"{fpr.candidate_wins} false positive(s) only on the candidate, "
        f"{fpr.candidate_losses} only on the baseline)."
    )
    needed = c.row.false_positive_pairs_needed
    if not passed and fpr.candidate_wins == 0 and needed and fpr.pairs is not None and fpr.pairs < needed:
        text += (
            f" With no candidate-only false positives the bound still needs at least {needed:,} paired clean "
            "runs to reach ε: underpowered, not worse."
        )
    return text


def _identity(c: _Facts) -> str:
    mismatches = (c.arm.identity_mismatches if c.arm is not None else None) or 0
    if not mismatches:
        return "No receipt of this arm reports an identity mismatch."
    split = c.arm_extra.identity
    detail = ""
    if split is not None:
        detail = (
            f" Of these, {_or_zero(split.silent)} on ran quality receipts, {_or_zero(split.not_ran)} where the "
            f"normalizer did not run and {_or_zero(split.kill_path)} on kill-path receipts."
        )
    return f"{mismatches:,} receipt(s) of this arm report identityMatch false (kill-path receipts count too).{detail}"


def _or_zero(value: int | None) -> int:
    return 0 if value is None else value


def _kill_paths(c: _Facts) -> str:
    kill = c.row.kill
    if kill.passed:
        return f"All {len(kill.cases)} kill-path cases passed, covering all four control modes."
    parts = []
    if not kill.complete_suite:
        parts.append(
            "The suite is incomplete: modes covered "
            + (", ".join(kill.modes) or "none")
            + "; missing "
            + ", ".join(kill.missing_modes)
            + "."
        )
    failing = [case for case in kill.cases if not case.passed]
    if failing:
        parts.append(
            "Failed kill cases: "
            + listed([_failed_kill_case(c, case) for case in failing])
            + ". Each case needs enough attempts, exactly one mode, and every attempt passing with "
            "zero provider calls."
        )
    return " ".join(parts) or "The kill-path check failed."


def _failed_kill_case(c: _Facts, case: KillCase) -> str:
    extra = c.arm_extra.case(case.case_id)
    passed = extra.kill_path_passed if extra is not None else None
    shown = f", {passed} attempt(s) passed" if passed is not None else ""
    return (
        f"{case.case_id} ({case.attempts} attempt(s), {c.thresholds.kill_repetitions} required, "
        f"modes {', '.join(case.modes) or 'none'}{shown})"
    )


def _containment(c: _Facts) -> str:
    containment = c.row.containment
    if not containment.applicable:
        return "Not a maker arm: containment does not apply (passes by definition)."
    reasons = []
    if containment.runs_short:
        reasons.append(
            f"only {containment.conclusive_runs:,} conclusive mutation runs of "
            f"{c.thresholds.containment_minimum:,} required"
        )
    if containment.breaches:
        reasons.append(f"{containment.breaches} breach(es)")
    if containment.rate_short:
        reasons.append(
            f"conclusive rate {containment.conclusive_rate:.1%} below {c.thresholds.containment_conclusive:.1%}"
        )
    summary_text = (
        f"{containment.mutation_runs:,} mutation runs, {containment.conclusive_runs:,} conclusive, "
        f"{containment.breaches} breaches"
    )
    if containment.rule_of_three_upper95 is not None:
        summary_text += f" (rule-of-three 95% upper bound on the breach rate {containment.rule_of_three_upper95:.4f})"
    return summary_text + (": " + "; ".join(reasons) + "." if reasons else ".")


def _transport(c: _Facts) -> str:
    pairs = c.row.transport_pairs
    if not pairs:
        transport = c.arm.transport if c.arm is not None else None
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
                    f"{fmt.interval(p.lower, p.upper)} "
                    f"is {'strictly inside' if p.equivalent else 'not strictly inside'} ±{p.margin:g}",
                    p.left_arm_id,
                    p.right_arm_id,
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
