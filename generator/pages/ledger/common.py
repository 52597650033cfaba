"""Words, tables and small helpers the ledger pages share (selection and formatting only)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from generator.model.common import short_hash
from generator.model.ledger_result import Rate
from generator.pages import format as fmt
from generator.pages.models import ForestRow
from generator.pages.names import Phrase, phrase

__all__ = ["RATE_LABELS", "THRESHOLDS", "listed", "ms", "num", "rate_text", "short", "short_id", "unique_labels"]

#: What each rate of an arm is called (``RATE_KEYS`` of ``model.ledger_result``, in its order).
RATE_LABELS = {
    "validity": "Validity",
    "recall": "Recall",
    "falsePositive": "False positives",
    "toolCallCorrectness": "Tool-call correctness",
    "contextSufficiency": "Context sufficiency",
}
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
_MAX_LISTED = 5


def listed(items: Sequence[str]) -> str:
    more = f"; and {len(items) - _MAX_LISTED} more" if len(items) > _MAX_LISTED else ""
    if items and all(isinstance(item, Phrase) for item in items):  # sentences with names: names kept apart
        return phrase("; ".join(["{}"] * len(items[:_MAX_LISTED])) + more, *items[:_MAX_LISTED])
    return "; ".join(items[:_MAX_LISTED]) + more


def num(value: Any, digits: int = 4, signed: bool = False) -> str:
    if not fmt.is_number(value):
        return fmt.NA
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def rate_text(rate: Rate) -> str:
    if not rate.total:
        return "N/A (no observations)"
    bounds = fmt.interval(rate.lower, rate.upper, 3)
    return f"{rate.rate:.3f} {bounds} ({rate.successes}/{rate.total})"


def ms(value: Any) -> str | None:
    return f"{value:,.1f}" if fmt.is_number(value) else None


def short_id(value: Any) -> str:
    """``bench1:`` + the first 12 hex digits of a receipt id, for display."""
    if not isinstance(value, str):
        return fmt.NA
    prefix, _, rest = value.partition(":")
    return f"{prefix}:{short_hash(rest)}…" if rest else value[:20]


def short(text: str, limit: int = 32) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def unique_labels(rows: list[ForestRow]) -> tuple[ForestRow, ...]:
    seen: dict[str, int] = {}
    out = []
    for row in rows:
        n = seen.get(row.label, 0)
        seen[row.label] = n + 1
        if n:
            row = ForestRow(f"{row.label} ({n + 1})", row.group, row.estimate, row.lower, row.upper, row.hover)
        out.append(row)
    return tuple(out)
