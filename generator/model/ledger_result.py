"""The ledger pipeline's one result: the reference summary, the extended analyses, the decided facts.

:class:`LedgerResult` is what ``generator.pipelines.ledger.summarize_ledger`` returns and what the
ledger pages format.  The analysis computes every number once (``generator.analyze.ledger.result``);
pages only select and word them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["CandidateFacts", "LedgerResult"]


@dataclass(frozen=True)
class CandidateFacts:
    """What the admission words of one candidate row need beyond the summary's own numbers.

    ``*_needed`` are the fewest attempts (pairs) with which the bar can be reached when nothing
    fails (no discordant pair); ``None`` when no sample size can reach it.
    """

    arm_id: str
    validity_attempts_needed: int | None
    false_positive_pairs_needed: int | None
    missing_kill_modes: tuple[str, ...]
    recall_estimate: float | None
    false_positive_estimate: float | None
    containment_runs_short: bool
    containment_rate_short: bool


@dataclass(frozen=True)
class LedgerResult:
    """One summarized ledger.

    ``summary`` is exactly the upstream summary object (``data.json``); ``extended`` the separate
    extended analyses (``extended.json``), ``None`` when not computed; ``candidates`` the facts per
    candidate arm id; ``transport_estimates`` the observed recall difference of each transport pair,
    in the summary's order.  Treat the mappings as read-only.
    """

    summary: Mapping[str, Any]
    extended: Mapping[str, Any] | None = None
    candidates: Mapping[str, CandidateFacts] = field(default_factory=dict)
    transport_estimates: tuple[float | None, ...] = ()

    def facts(self, arm_id: str) -> CandidateFacts | None:
        return self.candidates.get(arm_id)
