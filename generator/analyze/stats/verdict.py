"""Plain-language verdicts that follow from the numbers.

* :func:`experiment_verdict` -- "candidate better", "candidate worse", or "not
  distinguishable at this sample size (would need about N tasks to detect a
  difference of X)".
* :func:`diagnose_gate` -- for a ledger admission gate: passed, cannot pass at
  this sample size, candidate worse (the point estimate itself is beyond the
  margin), or underpowered.
"""

from __future__ import annotations

from generator.analyze.stats.power import (
    _check_gate,
    gate_feasibility,
    gate_margin_needed,
    gate_pairs_needed,
    gate_pass_probability,
    tasks_needed_for,
)
from generator.analyze.stats.rule import PairedScores
from generator.model.stats import (
    BETTER,
    NO_VERDICT,
    NOT_DISTINGUISHABLE,
    WORSE,
    ClusteredDifference,
    GateDiagnosis,
    GateKind,
    PowerAnalysis,
    ReferenceBounds,
    SignFlipTest,
    Verdict,
    VerdictOutcome,
)

__all__ = [
    "BETTER",
    "NOT_DISTINGUISHABLE",
    "NO_VERDICT",
    "WORSE",
    "GateDiagnosis",
    "Verdict",
    "diagnose_gate",
    "experiment_verdict",
]

#: Observed differences smaller than this are treated as "no difference" when
#: choosing the X of the "would need about N tasks" sentence (the MDE is used).
NEGLIGIBLE_DIFFERENCE = 0.005


def experiment_verdict(
    difference: ClusteredDifference,
    sign_flip: SignFlipTest,
    power: PowerAnalysis,
    *,
    alpha: float = 0.05,
    difference_of_interest: float | None = None,
    scores: PairedScores | None = None,
    unit: str = "percentage points",
) -> Verdict:
    """Decide from the task-clustered interval *and* the exact sign-flip test.

    "candidate better" needs the interval's lower bound > 0 and sign-flip p <
    alpha; "candidate worse" needs the upper bound < 0 and p < alpha.  Both must
    agree, so the small-task-count weakness of the t interval is covered by the
    exact test.  Otherwise: not distinguishable, with N = tasks needed (same
    repetitions, ``power.power``) to detect X = ``difference_of_interest``, or else
    the observed |difference| (or the current MDE when the observed difference is
    below half a percentage point).  ``scores`` (``metric: mean``): the per-task mean differences of
    real-valued scores the "would need" search runs on, and ``unit`` the words of an effect x 100
    ("points" of mean score).
    """
    iv = difference.interval
    p = sign_flip.p_value
    reasons: list[str] = []
    method = (
        "verdict: task-clustered t interval excludes 0 and the sign-flip test over tasks has "
        f"p < {alpha:g}; otherwise the number of tasks at which this same rule calls X with {power.power:.0%} power"
    )
    outcome: VerdictOutcome = NOT_DISTINGUISHABLE
    if iv.defined:
        reasons.append(f"{iv.confidence:.0%} task-clustered interval [{iv.lower:+.4f}, {iv.upper:+.4f}]")
    else:
        reasons.append("task-clustered interval undefined (" + (iv.note or "fewer than two tasks") + ")")
    reasons.append(f"sign-flip p = {p:.4g} over {sign_flip.tasks} task(s)")
    defined = iv.lower is not None and iv.upper is not None  # iv.defined, spelt out for the type checker
    if defined and p < alpha and iv.lower is not None and iv.lower > 0.0:
        outcome = BETTER
    elif defined and p < alpha and iv.upper is not None and iv.upper < 0.0:
        outcome = WORSE
    x = None
    n_needed = None
    if not defined:
        outcome = NO_VERDICT
        sentence = (
            f"no verdict: {difference.tasks} task(s) with matched pairs; the interval over tasks needs at least two"
        )
    elif outcome == NOT_DISTINGUISHABLE:
        if difference_of_interest is not None:
            x = abs(float(difference_of_interest))
        elif difference.estimate is not None and abs(difference.estimate) >= NEGLIGIBLE_DIFFERENCE:
            x = abs(difference.estimate)
        else:
            x = power.mde
        if x is not None and x > 0:
            n_needed = tasks_needed_for(power, x, scores=scores)
        if n_needed is not None and x is not None:
            sentence = (
                f"not distinguishable at this sample size (would need about {n_needed:,} tasks "
                f"to detect a difference of {100 * x:.1f} {unit})"
            )
        else:
            sentence = "not distinguishable at this sample size"
        if power.mde is not None:
            reasons.append(
                f"minimum detectable difference with {power.tasks} tasks x {power.reps:g} reps: "
                f"{100 * power.mde:.1f} points ({power.power:.0%} power)"
            )
    else:
        sentence = outcome
    return Verdict(
        outcome=outcome,
        sentence=sentence,
        difference=difference.estimate,
        lower=iv.lower,
        upper=iv.upper,
        confidence=iv.confidence,
        p_value=p,
        alpha=alpha,
        tasks=difference.tasks,
        mde=power.mde,
        tasks_needed=n_needed,
        difference_of_interest=x,
        reasons=tuple(reasons),
        method=method,
    )


# --------------------------------------------------------------------------- ledger gates

PASSED = "passed"
CANNOT_PASS = "cannot pass at this sample size"
GATE_WORSE = "candidate worse"
BEYOND_MARGIN = "difference beyond margin"
UNDERPOWERED = "underpowered"
NEAR_MARGIN = "estimate too close to the margin"


def _bound_passes(lower: float, upper: float, kind: str, margin: float) -> bool:
    if kind == "non_inferiority":
        return lower > -margin
    if kind == "upper_margin":
        return upper <= margin
    return lower > -margin and upper < margin


def _estimate_beyond(est: float, kind: str, margin: float) -> bool:
    if kind == "non_inferiority":
        return est <= -margin
    if kind == "upper_margin":
        return est > margin
    return abs(est) >= margin


def diagnose_gate(
    bounds: ReferenceBounds,
    kind: GateKind,
    margin: float,
    *,
    passed: bool | None = None,
    power: float = 0.8,
) -> GateDiagnosis:
    """Diagnose one gate from the reference bounds (recomputed or the ledger's own).

    ``passed`` overrides the decision (pass the ledger summary's condition so the
    admission decision is exactly the reference's).
    """
    _check_gate(kind, margin)
    n = bounds.pairs
    feas = gate_feasibility(max(n, 1), kind, margin)
    method = (
        "exact operating characteristic of the reference rule (trinomial model of the pairs; "
        f"true difference 0 at the observed discordance; {power:.0%} power; spec n grid)"
    )
    if bounds.lower is None or bounds.upper is None or n < 1:
        return GateDiagnosis(
            kind,
            margin,
            False,
            CANNOT_PASS,
            "No matched pairs: the gate cannot pass.",
            None,
            None,
            feas,
            None,
            None,
            None,
            None,
            method,
        )
    ok = _bound_passes(bounds.lower, bounds.upper, kind, margin) if passed is None else bool(passed)
    deciding = {"non_inferiority": bounds.lower, "upper_margin": bounds.upper}.get(
        kind, max(-bounds.lower, bounds.upper)
    )
    est = bounds.estimate if bounds.estimate is not None else 0.0
    q = (bounds.wins + bounds.losses) / n
    if ok:
        return GateDiagnosis(
            kind,
            margin,
            True,
            PASSED,
            f"Passed: deciding bound {deciding:+.4f}.",
            est,
            deciding,
            feas,
            q,
            None,
            None,
            None,
            method,
        )
    prob = gate_pass_probability(n, q / 2.0, q / 2.0, kind, margin)
    needed = gate_pairs_needed(q, kind, margin, power=power) if q > 0 else feas.min_pairs_if_arms_agree
    m_needed = gate_margin_needed(n, q, kind, power=power)
    if _estimate_beyond(est, kind, margin):
        reason = BEYOND_MARGIN if kind == "equivalence" else GATE_WORSE
        sentence = (
            f"Failed because the candidate is worse: the observed difference {est:+.4f} is itself beyond "
            f"the margin {margin:g}."
            if kind != "equivalence"
            else f"Failed: the observed difference {est:+.4f} is itself outside +-{margin:g}."
        )
    elif not feas.can_pass_not_better:
        reason = CANNOT_PASS
        sentence = (
            f"Failed because the campaign is too small: with {n} pairs this gate can never pass unless the "
            f"candidate is observably better than the baseline (even with no discordant pair the bound is "
            f"{feas.bound_if_arms_agree:+.4f} against a margin of {margin:g}); at least "
            f"{feas.min_pairs_if_arms_agree} pairs are needed."
        )
    elif prob >= power:
        reason = NEAR_MARGIN
        sentence = (
            f"Failed because the observed difference {est:+.4f} is too close to the margin {margin:g}: at {n} "
            f"pairs and discordance {q:.3f} an equally good candidate would pass {prob:.0%} of the time, so "
            "the campaign is not underpowered; the data lean towards the margin."
        )
    else:
        reason = UNDERPOWERED
        sentence = (
            f"Failed because the campaign is underpowered, not because the candidate is worse: the observed "
            f"difference {est:+.4f} is within the margin, but at {n} pairs and discordance {q:.3f} the "
            f"conservative rule passes an equally good candidate only {prob:.0%} of the time"
            + (f"; about {needed:,} pairs would give {power:.0%}" if needed is not None else "")
            + f"; these pairs certify a margin of about {m_needed:.3f} with {power:.0%} power."
        )
    return GateDiagnosis(kind, margin, False, reason, sentence, est, deciding, feas, q, prob, needed, m_needed, method)
