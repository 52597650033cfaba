"""The ``evalsite ledger verify`` report, as data (no I/O).

A ledger is *sound* when every line is UTF-8 JSON ending with a newline, every
receipt validates against the campaign (content address, campaign digest,
execution-digest format, ground truth, field rules), no receipt id or
arm/case/repeat cell occurs twice, and every ``rerunOf`` points back to an
earlier receipt of the same arm and case.  Evidence-envelope facts (v1
receipts, several execution digests) are reported as notes: they fail an
admission condition, not the ledger's integrity.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from generator.analyze.ledger.checks import check_entries, described
from generator.model.ledger import UNREADABLE, Campaign, LedgerCheck, LedgerEntry, LedgerProblem

__all__ = ["VerifyReport", "verify_report"]

_SHOWN_PROBLEMS = 20


class _TornTail(Protocol):
    @property
    def line(self) -> int: ...

    @property
    def complete(self) -> bool: ...

    def describe(self) -> str: ...


class _LedgerView(Protocol):
    """What the report reads of a ledger (``generator.read.ledger.reader.LedgerRead``)."""

    @property
    def exists(self) -> bool: ...

    @property
    def size(self) -> int: ...

    @property
    def entries(self) -> Sequence[LedgerEntry]: ...

    @property
    def problems(self) -> Sequence[LedgerProblem]: ...

    @property
    def torn_tail(self) -> _TornTail | None: ...

    @property
    def line_count(self) -> int: ...

    @property
    def check(self) -> LedgerCheck | None: ...


@dataclass(frozen=True)
class VerifyReport:
    lines: tuple[str, ...]
    sound: bool
    problem_count: int
    ledger_digest: str | None


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def verify_report(campaign: Campaign, ledger: _LedgerView) -> VerifyReport:
    check = ledger.check if ledger.check is not None else check_entries(list(ledger.entries), campaign)
    problems = sorted(
        {(p.line, p.kind, p.message): p for p in [*ledger.problems, *check.problems]}.values(),
        key=lambda item: item.line,
    )
    torn = ledger.torn_tail
    # A complete last line without its newline is no read error, but append refuses it.
    problem_count = len(problems) + (1 if torn is not None and torn.complete else 0)
    sound = problem_count == 0
    receipts = [entry.value for entry in ledger.entries]
    valid = [entry.value for entry in check.valid]
    digest = check.ledger_digest  # check_entries hashed the same entries (None: one cannot be serialized)
    out = []
    if not ledger.exists:
        out.append("ledger: no such file (read as an empty ledger, as upstream does)")
    else:
        out.append(
            f"ledger: {_plural(len(receipts), 'receipt')} on {_plural(ledger.line_count, 'line')} "
            f"({_plural(ledger.size, 'byte')})"
        )
    address = campaign.digest or f"(no digest: {campaign.digest_problem})"
    out.append(f"campaign: {campaign.campaign_id} {address}")
    invalid = sum(1 for p in problems if p.kind == "invalid")
    unreadable = sum(1 for p in problems if p.kind in UNREADABLE)
    out.append(f"receipts: {len(check.valid)} valid, {invalid} invalid, {unreadable} unreadable line(s)")
    duplicates = sum(1 for p in problems if p.kind in ("duplicate_id", "duplicate_run"))
    out.append(f"duplicates: {'none' if not duplicates else duplicates}")
    bad_reruns = sum(1 for p in problems if p.kind == "bad_rerun")
    out.append(
        f"reruns: {len(check.reruns)} linked back to an earlier receipt of the same arm and case"
        + (f", {bad_reruns} not" if bad_reruns else "")
    )
    out.append("tail: " + (torn.describe() if torn is not None else "ends with a newline"))
    versions = sorted({item["schemaVersion"] for item in valid})
    digests = sorted({item["executionDigest"] for item in valid if item["schemaVersion"] == 2})
    bound = bool(valid) and versions == [2] and len(digests) == 1
    out.append(
        f"evidence envelope: {'bound' if bound else 'not bound'} "
        f"(schema versions {versions}, {_plural(len(digests), 'execution digest')})"
    )
    lines = described(problems)  # the same message on many lines is one line with its count
    for line in lines[:_SHOWN_PROBLEMS]:
        out.append(f"problem: {line}")
    if len(lines) > _SHOWN_PROBLEMS:
        out.append(f"problem: ... and {len(lines) - _SHOWN_PROBLEMS} more")
    if torn is not None and torn.complete:
        out.append(
            f"problem: line {torn.line} lacks its trailing newline, so appends are refused; "
            "'evalsite ledger repair' adds it"
        )
    if digest is not None:
        qualifier = "" if sound else " (over the lines that parsed; the ledger is not sound)"
        out.append(f"ledger digest: {digest}{qualifier}")
    out.append("verdict: sound" if sound else f"verdict: NOT SOUND ({_plural(problem_count, 'problem')})")
    return VerifyReport(tuple(out), sound, problem_count, digest)


def problems_as_dicts(problems: Sequence[LedgerProblem]) -> list[dict[str, Any]]:
    return [problem.as_dict() for problem in problems]
