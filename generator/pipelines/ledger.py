"""The ledger pipeline: read -> check -> summarize / verify, and the writes (append, repair, output).

The reader only reads and parses (``generator.read.ledger``); the rules run in
``generator.analyze.ledger``; the writer (``generator.write.ledger``) gets the receipt validator
from here.  The public entry point is :func:`summarize_ledger`, which returns one
:class:`~generator.model.ledger_result.LedgerResult`.  ``evalsite ledger ...`` (``generator.cli``)
calls the ``run_*`` functions, which print what the upstream tool prints; every expected failure is
an :class:`EvalsiteError` (one ``error: ...`` line, exit status 2).  See ``docs/ledger.md``.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from typing import Any, TextIO

from generator.analyze.ledger.campaign import parse_campaign
from generator.analyze.ledger.checks import check_entries, describe, require_sound
from generator.analyze.ledger.extended import extended_summary
from generator.analyze.ledger.receipt import check_receipt
from generator.analyze.ledger.result import ledger_result
from generator.analyze.ledger.summary import build_summary, summarize
from generator.analyze.ledger.verify import VerifyReport, verify_report
from generator.model.errors import EvalsiteError
from generator.model.jsonfmt import json_text
from generator.model.ledger import Campaign, LedgerDataError, canonical_text
from generator.model.ledger_result import LedgerResult
from generator.read.ledger.reader import (
    LedgerRead,
    gc_paused,
    load_json_document,
    parse_json_document,
    read_ledger_file,
)
from generator.write.files import write_atomic
from generator.write.ledger import append as ledger_append
from generator.write.ledger.append import AppendResult, RepairReport

__all__ = [
    "append_receipt",
    "load_campaign",
    "read_ledger",
    "repair_ledger",
    "run_append",
    "run_repair",
    "run_summarize",
    "run_verify",
    "site_result",
    "summarize_ledger",
    "verify_ledger",
    "write_summary_json",
]

PathLike = str | os.PathLike[str]


# --------------------------------------------------------------------------- reading and checking


def load_campaign(path: PathLike) -> Campaign:
    """Read and validate a campaign manifest (raises :class:`EvalsiteError`)."""
    return parse_campaign(load_json_document(path, "campaign"))


def read_ledger(path: PathLike, campaign: Campaign | None = None, *, lock: str = "existing") -> LedgerRead:
    """Read a ledger leniently; with ``campaign``, also check every receipt, duplicate and rerun link.

    Data problems never raise: they come back in ``problems`` (line order), and ``check`` holds the
    whole-ledger check.  Only an unreadable input raises :class:`EvalsiteError`.
    """
    ledger = read_ledger_file(path, lock=lock)
    if campaign is None:
        return ledger
    with gc_paused():
        check = check_entries(list(ledger.entries), campaign)
    problems = tuple(sorted([*ledger.problems, *check.problems], key=lambda item: item.line))
    return dataclasses.replace(ledger, problems=problems, check=check)


# --------------------------------------------------------------------------- the result


def summarize_ledger(
    campaign_path: PathLike, ledger_path: PathLike, *, extended: bool = True, lock: str = "existing"
) -> LedgerResult:
    """Summarize a ledger strictly: the reference summary, the extended analyses and their facts.

    Raises :class:`EvalsiteError` (a ``LedgerDataError``) for the first problem an upstream reader
    would meet (an unreadable line, an invalid receipt, a duplicate, a bad rerun link).
    """
    campaign = load_campaign(campaign_path)
    ledger = read_ledger(ledger_path, campaign, lock=lock)
    require_sound(ledger.problems)
    receipts = ledger.receipts
    digest = ledger.check.ledger_digest if ledger.check is not None else None
    with gc_paused():
        summary = build_summary(campaign, receipts, ledger_digest=digest)
    extra = extended_summary(campaign, receipts, summary) if extended else None
    return ledger_result(summary, extra)


def site_result(campaign: Campaign, ledger_path: PathLike) -> tuple[LedgerResult | None, list[str]]:
    """The site's path: the result, or ``None`` and every problem (one line each) that prevents it.

    Parses without locking; ``summarize`` validates every receipt itself, so the (costly) receipt
    checks run once on the good path and again only to list every problem of a bad ledger.
    """
    ledger = read_ledger_file(ledger_path, lock="none")
    problems = [describe(problem) for problem in ledger.problems]
    if ledger.torn_tail is not None:
        problems.append(ledger.torn_tail.describe())
    if problems:
        return None, problems
    try:
        summary = summarize(campaign, ledger.receipts)
    except LedgerDataError:
        problems = [describe(p) for p in check_entries(list(ledger.entries), campaign).problems]
        if not problems:
            raise
        return None, problems
    return ledger_result(summary, extended_summary(campaign, ledger.receipts, summary)), []


def verify_ledger(campaign_path: PathLike, ledger_path: PathLike) -> VerifyReport:
    """The ``verify`` report of a ledger against its campaign (never raises for bad data)."""
    campaign = load_campaign(campaign_path)
    return verify_report(campaign, read_ledger(ledger_path, campaign, lock="existing"))


# --------------------------------------------------------------------------- writing


def append_receipt(ledger_path: PathLike, campaign: Campaign, receipt: Any) -> AppendResult:
    """Validate one receipt against the campaign, then append it (idempotent; see ``write.ledger.append``)."""
    return ledger_append.append_receipt(ledger_path, campaign, receipt, check=check_receipt)


def repair_ledger(ledger_path: PathLike, *, dry_run: bool = False) -> RepairReport:
    """Set aside a torn last line (keeping a backup); see ``write.ledger.append.repair_ledger``."""
    return ledger_append.repair_ledger(ledger_path, dry_run=dry_run)


def write_summary_json(path: PathLike, value: Any) -> None:
    """Write ``value`` as indented, key-sorted JSON, atomically and privately (0600)."""
    write_atomic(path, json_text(value, indent=2).encode("utf-8"), mode=0o600, make_parents=True)


# --------------------------------------------------------------------------- the commands


def _emit(stream: TextIO, text: str) -> None:
    stream.write(text + "\n")
    stream.flush()


def _read_receipt(source: str) -> Any:
    if source != "-":
        return load_json_document(source, "receipt")
    try:
        data = sys.stdin.buffer.read()
    except (OSError, AttributeError) as exc:
        raise EvalsiteError(f"could not read receipt ({exc.__class__.__name__})") from exc
    return parse_json_document(data, "receipt")


def run_append(campaign_path: str, ledger_path: str, receipt_source: str) -> int:
    """``evalsite ledger append``: print the canonical ``{appended, count, receiptId}``."""
    campaign = load_campaign(campaign_path)
    receipt = _read_receipt(receipt_source)
    result = append_receipt(ledger_path, campaign, receipt)
    _emit(sys.stdout, canonical_text(result.as_dict()))
    return 0


def run_summarize(campaign_path: str, ledger_path: str, *, out: str | None, as_json: bool, extended: str | None) -> int:
    """``evalsite ledger summarize``: the canonical summary on stdout and/or in ``out``."""
    result = summarize_ledger(campaign_path, ledger_path, extended=bool(extended))
    summary = result.summary
    with gc_paused():
        text = canonical_text(summary)
    if out:
        write_summary_json(out, summary)
    if extended:
        write_summary_json(extended, result.extended)
    if as_json or not out:
        _emit(sys.stdout, text)
    else:
        rows = len(summary["candidates"])
        _emit(sys.stdout, f"wrote {out} ({summary['receiptCount']} receipts; {rows} candidate rows)")
    return 0


def run_verify(campaign_path: str, ledger_path: str) -> int:
    """``evalsite ledger verify``: the report on stdout; an unsound ledger is an error (exit 2)."""
    report = verify_ledger(campaign_path, ledger_path)
    _emit(sys.stdout, "\n".join(report.lines))
    if not report.sound:
        raise EvalsiteError(f"ledger is not sound ({report.problem_count} problem(s); see the report above)")
    return 0


def run_repair(ledger_path: str, *, dry_run: bool) -> int:
    """``evalsite ledger repair``: what was (or would be) changed."""
    report = repair_ledger(ledger_path, dry_run=dry_run)
    if not report.changed:
        _emit(sys.stdout, "nothing to repair: every line ends with a newline and parses")
        return 0
    verb = "would" if report.dry_run else "did"
    lines = [f"line {action.line}: {action.detail}" for action in report.actions]
    lines.append(f"receipts readable: {report.receipts_before} before, {report.receipts_after} after")
    if report.backup:
        lines.append(f"backup of the original ledger: {report.backup}")
    lines.append(f"repair {verb} change the ledger; run 'evalsite ledger verify' next")
    _emit(sys.stdout, "\n".join(lines))
    return 0
