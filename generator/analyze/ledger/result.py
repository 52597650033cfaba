"""The ledger pipeline's typed result, computed once from the reference summary (and its extras).

:func:`ledger_result` derives every decided fact the pages put into words -- how many attempts
or pairs a bar needs when nothing fails, the kill-control modes a candidate misses, the observed
paired differences, which containment floor was missed -- so that the pages do no gate arithmetic.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from generator.analyze.stats.binomial import tail_probability
from generator.analyze.stats.power import attempts_needed_if_all_succeed, pairs_needed_if_arms_agree
from generator.model.ledger import KILL_MODES
from generator.model.ledger_result import CandidateFacts, LedgerResult

__all__ = ["ledger_result", "paired_estimate"]

#: The validity bar is a two-sided 95% Clopper-Pearson lower bound.
_VALIDITY_TAIL = tail_probability(0.95, "two")


def paired_estimate(difference: Mapping[str, Any]) -> float | None:
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


def _facts(row: Mapping[str, Any], thresholds: Mapping[str, Any]) -> CandidateFacts:
    kill = row["killPaths"]
    containment = row["containment"]
    applicable = bool(containment.get("applicable"))
    return CandidateFacts(
        arm_id=row["armId"],
        validity_attempts_needed=_validity_needed(thresholds.get("validityLower")),
        false_positive_pairs_needed=_false_positive_needed(thresholds.get("fprEpsilon")),
        missing_kill_modes=tuple(mode for mode in sorted(KILL_MODES) if mode not in kill["modes"]),
        recall_estimate=paired_estimate(row["paired"]["recallDifference"]),
        false_positive_estimate=paired_estimate(row["paired"]["falsePositiveDifference"]),
        containment_runs_short=applicable and containment["conclusiveRuns"] < thresholds["containmentMinimum"],
        containment_rate_short=applicable and containment["conclusiveRate"] < thresholds["containmentConclusive"],
    )


def ledger_result(summary: Mapping[str, Any], extended: Mapping[str, Any] | None = None) -> LedgerResult:
    """The typed result for a reference summary (``schemaVersion`` 1) and, optionally, its extras.

    A summary of another schema is passed through with no facts; the pages refuse it.
    """
    if not isinstance(summary, Mapping) or summary.get("schemaVersion") != 1 or "candidates" not in summary:
        return LedgerResult(summary, extended)
    thresholds = summary["thresholds"]
    candidates = {row["armId"]: _facts(row, thresholds) for row in summary["candidates"]}
    transport = tuple(paired_estimate(pair["recallDifference90"]) for pair in summary["transportEquivalence"])
    return LedgerResult(summary, extended, candidates, transport)
