"""``evalsite ledger append | summarize | verify | repair``.

``append`` and ``summarize`` take the upstream tool's options and print what
it prints; ``verify`` and ``repair`` are evalsite's own.  Every expected
failure is one ``error: ...`` line on stderr and exit status 2.  See
``docs/ledger.md``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from generator.model.errors import EvalsiteError

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    """Usage errors become :class:`EvalsiteError` (one line, exit 2)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise EvalsiteError(message)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="evalsite ledger", description="Append to, summarize, verify or repair a benchmark ledger.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    p = sub.add_parser("append", help="append one immutable receipt (idempotent)")
    p.add_argument("--campaign", required=True, metavar="FILE")
    p.add_argument("--ledger", required=True, metavar="FILE")
    p.add_argument("--receipt", default="-", metavar="FILE", help="receipt JSON file, or - for stdin (default)")

    p = sub.add_parser("summarize", help="derive the admission report from the whole ledger")
    p.add_argument("--campaign", required=True, metavar="FILE")
    p.add_argument("--ledger", required=True, metavar="FILE")
    p.add_argument("--out", metavar="FILE", help="also write the summary here (indented JSON, mode 0600)")
    p.add_argument("--json", action="store_true", help="print the canonical summary even with --out")
    p.add_argument("--extended", metavar="FILE", help="write evalsite's extra analyses (a separate JSON object) here")

    p = sub.add_parser("verify", help="check every receipt, digest, duplicate, rerun link and the tail")
    p.add_argument("--campaign", required=True, metavar="FILE")
    p.add_argument("--ledger", required=True, metavar="FILE")

    p = sub.add_parser("repair", help="set aside a torn last line (keeps a backup of the ledger)")
    p.add_argument("--ledger", required=True, metavar="FILE")
    p.add_argument("--dry-run", action="store_true", help="say what would change, change nothing")
    return parser


def _emit(stream: TextIO, text: str) -> None:
    stream.write(text + "\n")
    stream.flush()


def _read_receipt(source: str) -> Any:
    from generator.read.ledger.reader import load_json_document, parse_json_document

    if source != "-":
        return load_json_document(source, "receipt")
    try:
        data = sys.stdin.buffer.read()
    except (OSError, AttributeError) as exc:
        raise EvalsiteError(f"could not read receipt ({exc.__class__.__name__})") from exc
    return parse_json_document(data, "receipt")


def _append(args: argparse.Namespace) -> int:
    from generator.analyze.ledger.schema import canonical_text
    from generator.read.ledger.reader import load_campaign
    from generator.write.ledger.append import append_receipt

    campaign = load_campaign(args.campaign)
    receipt = _read_receipt(args.receipt)
    result = append_receipt(args.ledger, campaign, receipt)
    _emit(sys.stdout, canonical_text(result.as_dict()))
    return 0


def _summarize(args: argparse.Namespace) -> int:
    from generator.analyze.ledger.checks import require_sound
    from generator.analyze.ledger.schema import canonical_text
    from generator.analyze.ledger.summary import build_summary, extended_summary
    from generator.read.ledger.reader import gc_paused, load_campaign, read_ledger
    from generator.write.ledger.append import write_json_atomic

    campaign = load_campaign(args.campaign)
    ledger = read_ledger(args.ledger, campaign, lock="existing")
    require_sound(ledger.problems)
    receipts = ledger.receipts
    digest = ledger.check.ledger_digest if ledger.check is not None else None
    with gc_paused():
        summary = build_summary(campaign, receipts, ledger_digest=digest)
        text = canonical_text(summary)
    if args.out:
        write_json_atomic(args.out, summary)
    if args.extended:
        write_json_atomic(args.extended, extended_summary(campaign, receipts, summary))
    if args.json or not args.out:
        _emit(sys.stdout, text)
    else:
        rows = len(summary["candidates"])
        _emit(sys.stdout, f"wrote {args.out} ({summary['receiptCount']} receipts; {rows} candidate rows)")
    return 0


def _verify(args: argparse.Namespace) -> int:
    from generator.analyze.ledger.verify import verify_report
    from generator.read.ledger.reader import load_campaign, read_ledger

    campaign = load_campaign(args.campaign)
    ledger = read_ledger(args.ledger, campaign, lock="existing")
    report = verify_report(campaign, ledger)
    _emit(sys.stdout, "\n".join(report.lines))
    if not report.sound:
        raise EvalsiteError(f"ledger is not sound ({report.problem_count} problem(s); see the report above)")
    return 0


def _repair(args: argparse.Namespace) -> int:
    from generator.write.ledger.append import repair_ledger

    report = repair_ledger(args.ledger, dry_run=args.dry_run)
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


_HANDLERS = {"append": _append, "summarize": _summarize, "verify": _verify, "repair": _repair}


def main(argv: Sequence[str]) -> int:
    """Run one ledger sub-command; returns the exit status."""
    try:
        args = _parser().parse_args(list(argv))
    except SystemExit as stop:  # --help printed its text
        return int(stop.code or 0) if isinstance(stop.code, int) else 0
    except EvalsiteError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        return _HANDLERS[args.command](args)
    except EvalsiteError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
