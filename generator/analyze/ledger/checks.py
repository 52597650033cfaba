"""Whole-ledger checks: per-line validity, duplicates and rerun chains.

Pure functions over receipts that have already been parsed (see
``generator.read.ledger.reader``).  :func:`check_entries` never raises for data
problems; it returns every :class:`LedgerProblem` in line order so that
``verify`` and the site can show all of them.  :func:`require_sound` turns the
first problem into an :class:`~generator.model.ledger.LedgerDataError`
whose message starts with the upstream wording.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from generator.analyze.ledger.receipt import check_receipt
from generator.model.ledger import (
    Campaign,
    LedgerCheck,
    LedgerDataError,
    LedgerEntry,
    LedgerProblem,
    canonical_text,
    run_key,
)

__all__ = ["LedgerEntry", "LedgerProblem", "LedgerCheck", "check_entries", "require_sound"]


def check_entries(entries: Sequence[LedgerEntry], campaign: Campaign) -> LedgerCheck:
    """Validate every entry, then look for repeated ids/cells and bad ``rerunOf`` links."""
    problems: list[LedgerProblem] = []
    valid: list[LedgerEntry] = []
    first_by_id: dict[str, int] = {}
    first_by_run: dict[tuple[str, str, int], int] = {}
    owner: dict[str, tuple[str, str]] = {}
    reruns: list[tuple[int, int]] = []
    hasher: Any = hashlib.sha256(b"[")
    separator = b""
    for entry in entries:
        blob: bytes | None = None
        if hasher is not None:
            try:
                blob = canonical_text(entry.value).encode("utf-8")
                hasher.update(separator)
                hasher.update(blob)
                separator = b","
            except (LedgerDataError, UnicodeEncodeError):
                blob, hasher = None, None
        try:
            check_receipt(entry.value, campaign, canonical=blob)
        except LedgerDataError as exc:
            problems.append(LedgerProblem("invalid", entry.line, str(exc)))
            continue
        receipt = entry.value
        rid, key = receipt["receiptId"], run_key(receipt)
        if rid in first_by_id:
            problems.append(
                LedgerProblem(
                    "duplicate_id", entry.line, "benchmark ledger contains a duplicate receipt", first_by_id[rid]
                )
            )
            continue
        if key in first_by_run:
            problems.append(
                LedgerProblem(
                    "duplicate_run",
                    entry.line,
                    "benchmark ledger contains a duplicate arm/case/repeat",
                    first_by_run[key],
                )
            )
            continue
        original = receipt["rerunOf"]
        if original is not None:
            prior = owner.get(original)
            if prior != (receipt["armId"], receipt["caseId"]):
                problems.append(
                    LedgerProblem(
                        "bad_rerun", entry.line, "rerunOf must name an earlier receipt for the same arm and case"
                    )
                )
            else:
                reruns.append((entry.line, first_by_id[original]))
        first_by_id[rid] = entry.line
        first_by_run[key] = entry.line
        owner[rid] = (receipt["armId"], receipt["caseId"])
        valid.append(entry)
    if hasher is not None:
        hasher.update(b"]")
    digest = "ledger1:" + hasher.hexdigest() if hasher is not None else None
    return LedgerCheck(tuple(valid), tuple(problems), tuple(reruns), digest)


def describe(problem: LedgerProblem) -> str:
    """One line for an error message or a report."""
    if problem.kind in ("not_json", "not_utf8", "torn_tail"):
        return problem.message
    suffix = f" (line {problem.line} repeats line {problem.other_line})" if problem.other_line else ""
    if problem.kind in ("duplicate_id", "duplicate_run"):
        return f"benchmark ledger contains a duplicate receipt or arm/case/repeat{suffix}"
    return f"benchmark ledger line {problem.line}: {problem.message}"


def require_sound(problems: Iterable[LedgerProblem]) -> None:
    """Raise for the first problem, in the order a strict reader meets them.

    Line-level problems (unreadable or invalid lines) come first, in line
    order; duplicates and rerun links are only judged over a readable ledger.
    """
    line_level = ("not_utf8", "not_json", "torn_tail", "invalid")
    ordered = sorted(problems, key=lambda item: (item.kind not in line_level, item.line))
    if ordered:
        raise LedgerDataError(describe(ordered[0]))


def receipts_of(entries: Iterable[LedgerEntry]) -> list[Mapping[str, Any]]:
    return [entry.value for entry in entries]
