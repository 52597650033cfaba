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
from typing import TYPE_CHECKING, Any

# Only what ``append`` needs is imported here; the whole-ledger checks, the summary, the report and
# the output writers load in the functions that use them, so a small CLI call stays cheap.
from generator.analyze.ledger.campaign import parse_campaign
from generator.analyze.ledger.receipt import check_receipt
from generator.model.errors import EvalsiteError
from generator.model.ledger import UNREADABLE, Campaign, LedgerEntry, canonical_text
from generator.pipelines.console import emit
from generator.read.ledger.files import gc_paused, size_text
from generator.read.ledger.reader import (
    CAMPAIGN_SIZE_CAP,
    RECEIPT_SIZE_CAP,
    LedgerRead,
    load_json_document,
    parse_json_document,
    read_input_bytes,
    read_ledger_bytes,
    read_ledger_file,
    stream_ledger_bytes,
    stream_ledger_file,
)
from generator.write.ledger import append as ledger_append
from generator.write.ledger.append import AppendResult, RepairReport

if TYPE_CHECKING:
    from generator.analyze.ledger.verify import VerifyReport
    from generator.model.ledger_result import LedgerResult

__all__ = [
    "append_receipt",
    "check_ledger_stream",
    "load_campaign",
    "read_ledger",
    "repair_ledger",
    "run_append",
    "run_repair",
    "run_summarize",
    "run_verify",
    "site_inputs",
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
    from generator.analyze.ledger.checks import check_entries

    with gc_paused():
        check = check_entries(list(ledger.entries), campaign)
    problems = tuple(sorted([*ledger.problems, *check.problems], key=lambda item: item.line))
    return dataclasses.replace(ledger, problems=problems, check=check)


class _VerifyKeep:
    """What ``verify`` reads of a valid receipt (its schema version and execution digest), shared."""

    def __init__(self) -> None:
        self._seen: dict[tuple[Any, ...], dict[str, Any]] = {}

    def __call__(self, receipt: Any) -> dict[str, Any]:
        version, execution = receipt["schemaVersion"], receipt.get("executionDigest")
        key = (type(version), version, execution)
        found = self._seen.get(key)
        if found is None:
            found = self._seen[key] = {"schemaVersion": version, "executionDigest": execution}
        return found

    @staticmethod
    def vary(kept: dict[str, Any], *_varying: Any) -> dict[str, Any]:
        """A receipt that differs from ``kept``'s only in fields verify does not read: the same."""
        return kept


def check_ledger_stream(
    path: PathLike | bytes, campaign: Campaign, *, lock: str = "existing", keep: Any = None
) -> LedgerRead:
    """:func:`read_ledger`, streaming: every line is checked as it is read and only ``keep(receipt)``
    of each valid receipt is held (``check.valid``; ``entries`` share those entries, and hold
    ``None`` for the lines that were refused).  ``path`` may be the ledger's bytes, already read.

    Problems, torn tail, counts and the ``ledger1:`` digest are those of :func:`read_ledger`.
    """
    from generator.analyze.ledger.checks import LedgerChecker
    from generator.pipelines.progress import stage

    checker = LedgerChecker(campaign, keep)

    def consume(line: int, value: Any) -> LedgerEntry:
        return checker.add_entry(line, value) or LedgerEntry(line, None)

    def reset() -> None:
        nonlocal checker
        checker = LedgerChecker(campaign, keep)

    def raw(line: int, content: bytes) -> LedgerEntry | None:
        return checker.add_raw(line, content)

    if isinstance(path, bytes):
        ledger = stream_ledger_bytes(path, consume, raw=raw)
    else:
        try:
            size = os.stat(path).st_size
        except OSError:
            size = 0
        chunks = -(-size // (1 << 20))
        tick = stage("checking ledger (MiB)", chunks) if chunks > 1 else None
        ledger = stream_ledger_file(
            path, consume, lock=lock, reset=reset, tick=(lambda _n: tick()) if tick is not None else None, raw=raw
        )
    check = checker.result()
    problems = tuple(sorted([*ledger.problems, *check.problems], key=lambda item: item.line))
    return dataclasses.replace(ledger, problems=problems, check=check)


# --------------------------------------------------------------------------- the result


def summarize_ledger(
    campaign_path: PathLike,
    ledger_path: PathLike,
    *,
    extended: bool = True,
    lock: str = "existing",
    facts: bool = True,
) -> LedgerResult:
    """Summarize a ledger strictly: the reference summary, the extended analyses and their facts.

    Raises :class:`EvalsiteError` (a ``LedgerDataError``) for the first problem an upstream reader
    would meet (an unreadable line, an invalid receipt, a duplicate, a bad rerun link).  The ledger
    is checked while it streams and only slim copies of its receipts are held.  ``facts=False``
    leaves out the page facts (and the power analysis they import), as the CLI does.
    The site takes the same route
    (:func:`site_result`): :func:`_checked`, :func:`_summary`, :func:`_result`.
    """
    from generator.analyze.ledger.checks import require_sound

    campaign = load_campaign(campaign_path)
    ledger, keep = _checked(campaign, ledger_path, lock=lock, extended=extended)
    require_sound(ledger.problems)
    summary = _summary(campaign, ledger, keep)
    return _result(campaign, ledger, summary, extended=extended, facts=facts)


def _checked(campaign: Campaign, source: PathLike | bytes, *, lock: str, extended: bool) -> tuple[LedgerRead, Any]:
    """The ledger checked while it streams, and what it kept of each valid receipt (``keep``).

    Without the extended analyses only the summary's rows of the receipts are kept, unless a
    receipt has no ``ledger1:`` digest (canonical JSON cannot encode it): then the slim receipts.
    """
    from generator.analyze.ledger.slim import Slimmer, SummaryRows

    keep: Slimmer | SummaryRows = Slimmer(campaign) if extended else SummaryRows(campaign)
    ledger = check_ledger_stream(source, campaign, lock=lock, keep=keep)
    assert ledger.check is not None
    if ledger.check.ledger_digest is None and not extended and not ledger.problems:
        keep = Slimmer(campaign)
        ledger = check_ledger_stream(source, campaign, lock=lock, keep=keep)
    return ledger, keep


def _summary(campaign: Campaign, ledger: LedgerRead, keep: Any) -> dict[str, Any]:
    """The reference summary of a checked, sound ledger (from the rows or slim receipts it kept)."""
    from generator.analyze.ledger.slim import SummaryRows
    from generator.analyze.ledger.summary import build_summary, summary_of_rows

    check = ledger.check
    assert check is not None
    kept = [entry.value for entry in check.valid]  # every entry, when sound
    digest = check.ledger_digest
    with gc_paused():
        if isinstance(keep, SummaryRows):
            assert digest is not None
            return summary_of_rows(campaign, kept, ledger_digest=digest)
        return build_summary(campaign, kept, ledger_digest=digest)


def _result(
    campaign: Campaign, ledger: LedgerRead, summary: dict[str, Any], *, extended: bool, facts: bool
) -> LedgerResult:
    """The one result: the summary, the extended analyses (from the slim receipts) and the page facts."""
    from generator.model.ledger_result import LedgerResult

    extra = None
    if extended:
        from generator.analyze.ledger.extended import extended_summary

        assert ledger.check is not None
        extra = extended_summary(campaign, [entry.value for entry in ledger.check.valid], summary)
    if not facts:
        return LedgerResult(summary, extra)
    from generator.analyze.ledger.result import ledger_result

    return ledger_result(summary, extra)


def site_inputs(campaign_path: PathLike, ledger_path: PathLike) -> tuple[bytes, bytes]:
    """The campaign's and the ledger's bytes for the site, each read once (the ledger under its lock).

    The site shows the digests of these bytes ("Built from") and summarizes the same bytes, so the
    two always agree even while an appender is writing.  A missing file is an error.
    """
    campaign = read_input_bytes(campaign_path, "campaign", cap=CAMPAIGN_SIZE_CAP)
    if campaign is None:
        raise EvalsiteError(f"campaign file {os.path.basename(os.fspath(campaign_path))!r} is missing")
    ledger = read_ledger_bytes(ledger_path, lock="existing")
    if ledger is None:
        raise EvalsiteError(f"ledger file {os.path.basename(os.fspath(ledger_path))!r} is missing")
    return campaign, ledger


def parse_campaign_bytes(data: bytes) -> Campaign:
    """Validate a campaign manifest already read (raises :class:`EvalsiteError`)."""
    return parse_campaign(parse_json_document(data, "campaign"))


def site_result(campaign: Campaign, ledger_source: PathLike | bytes) -> tuple[LedgerResult | None, list[str]]:
    """The site's path: the result, or ``None`` and every problem (one line each) that prevents it.

    ``ledger_source`` is the ledger's bytes (see :func:`site_inputs`) or its path (read without
    locking).  The same route as :func:`summarize_ledger` (checked while streamed, the summary of
    the slim receipts, the extended analyses, the facts); only a bad ledger differs: instead of its
    first problem, every one is listed -- the unreadable lines (and a missing last newline) when
    there are any, else every receipt problem.
    """
    from generator.analyze.ledger.checks import described

    ledger, keep = _checked(campaign, ledger_source, lock="none", extended=True)
    problems = described(problem for problem in ledger.problems if problem.kind in UNREADABLE)
    if ledger.torn_tail is not None:
        problems.append(ledger.torn_tail.describe())
    if not problems and ledger.problems:
        problems = described(ledger.problems)
    if problems:
        return None, problems
    summary = _summary(campaign, ledger, keep)
    return _result(campaign, ledger, summary, extended=True, facts=True), []


def verify_ledger(campaign_path: PathLike, ledger_path: PathLike) -> VerifyReport:
    """The ``verify`` report of a ledger against its campaign (never raises for bad data)."""
    from generator.analyze.ledger.verify import verify_report

    campaign = load_campaign(campaign_path)
    return verify_report(campaign, check_ledger_stream(ledger_path, campaign, lock="existing", keep=_VerifyKeep()))


# --------------------------------------------------------------------------- writing


class _AppendCheck:
    """The receipt rules for an append: the full validator for the receipt being appended (the
    first call), then the fast path first for the ledger lines a lookup-cache catch-up reads
    (loaded only then, so a plain append stays cheap; it accepts only what the full validator
    accepts, and anything it does not decide goes to the full validator)."""

    def __init__(self) -> None:
        self._calls = 0
        self._fast: Any = None

    def __call__(self, receipt: Any, campaign: Campaign) -> object:
        self._calls += 1
        if self._calls > 1:
            if self._fast is None:
                from generator.analyze.ledger.fastcheck import FastChecker

                self._fast = FastChecker(campaign)
            if self._fast.canonical(receipt) is not None:
                return receipt
        return check_receipt(receipt, campaign)


def append_receipt(ledger_path: PathLike, campaign: Campaign, receipt: Any) -> AppendResult:
    """Validate one receipt against the campaign, then append it (idempotent; see ``write.ledger.append``)."""
    return ledger_append.append_receipt(ledger_path, campaign, receipt, check=_AppendCheck())


def repair_ledger(ledger_path: PathLike, *, dry_run: bool = False) -> RepairReport:
    """Set aside a torn last line (keeping a backup); see ``write.ledger.append.repair_ledger``."""
    return ledger_append.repair_ledger(ledger_path, dry_run=dry_run)


def write_summary_json(path: PathLike, value: Any) -> None:
    """Write ``value`` as indented, key-sorted JSON, atomically and privately (0600)."""
    from generator.model.jsonfmt import json_text
    from generator.write.files import write_atomic

    write_atomic(path, json_text(value, indent=2).encode("utf-8"), mode=0o600, make_parents=True)


# --------------------------------------------------------------------------- the commands


def _read_receipt(source: str) -> Any:
    if source != "-":
        return load_json_document(source, "receipt", cap=RECEIPT_SIZE_CAP)
    try:
        data = sys.stdin.buffer.read(RECEIPT_SIZE_CAP + 1)
    except (OSError, AttributeError, ValueError) as exc:
        raise EvalsiteError(f"could not read receipt ({exc.__class__.__name__})") from exc
    if len(data) > RECEIPT_SIZE_CAP:
        raise EvalsiteError(f"could not read receipt (larger than the {size_text(RECEIPT_SIZE_CAP)} limit)")
    return parse_json_document(data, "receipt")


def _same_file(first: PathLike, second: PathLike) -> bool:
    try:
        a, b = os.stat(first), os.stat(second)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def run_append(campaign_path: str, ledger_path: str, receipt_source: str) -> int:
    """``evalsite ledger append``: print the canonical ``{appended, count, receiptId}``.

    Once the receipt is in the ledger the append has happened: if stdout then fails (closed, a full
    disk), a ``warning:`` goes to stderr and the exit status stays 0.
    """
    for source, option in ((campaign_path, "--campaign"), (receipt_source, "--receipt")):
        if source != "-" and _same_file(ledger_path, source):
            raise EvalsiteError(f"--ledger is the same file as {option}; refusing to append to it")
    campaign = load_campaign(campaign_path)
    receipt = _read_receipt(receipt_source)
    result = append_receipt(ledger_path, campaign, receipt)
    done = "appended" if result.appended else "already in the ledger"
    emit(
        canonical_text(result.as_dict()) + "\n",
        results_already_written=True,
        warning=f"receipt {result.receipt_id} {done} (count {result.count}), but the result could not be printed",
    )
    return 0


def _check_outputs(campaign_path: str, ledger_path: str, out: str | None, extended: str | None, force: bool) -> None:
    """Refuse, before anything is computed, outputs that would destroy an input or a foreign file."""
    from generator.write.guard import check_output_file

    inputs = (campaign_path, ledger_path)
    if out and extended:
        same = _same_file(out, extended) or os.path.abspath(out) == os.path.abspath(extended)
        if same or os.path.realpath(out) == os.path.realpath(extended):
            raise EvalsiteError("--out and --extended name the same file; give each its own")
    if out:
        check_output_file(out, kind="ledger-summary", input_files=inputs, force=force, option="--out")
    if extended:
        check_output_file(extended, kind="ledger-extended", input_files=inputs, force=force, option="--extended")


def run_summarize(
    campaign_path: str,
    ledger_path: str,
    *,
    out: str | None,
    as_json: bool,
    extended: str | None,
    force: bool = False,
) -> int:
    """``evalsite ledger summarize``: the canonical summary on stdout and/or in ``out``."""
    from generator.pipelines.progress import Progress, progress_wanted

    _check_outputs(campaign_path, ledger_path, out, extended, force)
    # The collector stays paused until the receipts are gone (re-enabled while they are alive, it
    # would scan every one of them once): no reference cycles are built here.
    with Progress(progress_wanted()), gc_paused():
        result = summarize_ledger(campaign_path, ledger_path, extended=bool(extended), facts=False)
    summary = result.summary
    with gc_paused():
        text = canonical_text(summary)
    if out:
        write_summary_json(out, summary)
    if extended:
        write_summary_json(extended, result.extended)
    if as_json or not out:
        emit(text + "\n", results_already_written=bool(out or extended))
    else:
        rows = len(summary["candidates"])
        emit(f"wrote {out} ({summary['receiptCount']} receipts; {rows} candidate rows)\n", results_already_written=True)
    return 0


def run_verify(campaign_path: str, ledger_path: str) -> int:
    """``evalsite ledger verify``: the report on stdout; an unsound ledger is an error (exit 2)."""
    from generator.pipelines.progress import Progress, progress_wanted

    with Progress(progress_wanted()), gc_paused():  # as in run_summarize
        report = verify_ledger(campaign_path, ledger_path)
    emit("\n".join(report.lines) + "\n")
    if not report.sound:
        raise EvalsiteError(f"ledger is not sound ({report.problem_count} problem(s); see the report above)")
    return 0


def _shown_backup(ledger_path: str, backup: str) -> str:
    """The backup as the user would name it: beside the ledger path they gave, or by name alone."""
    given_folder = os.path.dirname(ledger_path)
    if os.path.realpath(given_folder or ".") == os.path.dirname(backup):
        return os.path.join(given_folder, os.path.basename(backup))
    return f"{os.path.basename(backup)} (next to the file the ledger link points to)"


def run_repair(ledger_path: str, *, dry_run: bool) -> int:
    """``evalsite ledger repair``: what was (or would be) changed."""
    report = repair_ledger(ledger_path, dry_run=dry_run)
    if not report.changed:
        emit("nothing to repair: every line ends with a newline and parses\n")
        return 0
    verb = "would" if report.dry_run else "did"
    lines = [f"line {action.line}: {action.detail}" for action in report.actions]
    lines.append(f"receipts readable: {report.receipts_before} before, {report.receipts_after} after")
    if report.backup:
        lines.append(f"backup of the original ledger: {_shown_backup(ledger_path, report.backup)}")
    lines.append(f"repair {verb} change the ledger; run 'evalsite ledger verify' next")
    emit("\n".join(lines) + "\n", results_already_written=not report.dry_run)
    return 0
