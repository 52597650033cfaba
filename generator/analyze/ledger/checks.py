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
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from generator.analyze.ledger.fastcheck import V2_SORTED, FastChecker
from generator.analyze.ledger.receipt import check_receipt
from generator.analyze.ledger.templates import Templates
from generator.model.ledger import (
    UNREADABLE,
    Campaign,
    LedgerCheck,
    LedgerDataError,
    LedgerEntry,
    LedgerProblem,
    canonical_text,
    run_key,
)

__all__ = ["LedgerChecker", "LedgerEntry", "LedgerProblem", "LedgerCheck", "check_entries", "require_sound"]


class LedgerChecker:
    """:func:`check_entries` one entry at a time, so that a ledger can be checked while it streams.

    ``add(line, value)`` checks one parsed line and returns True when it is a valid, new receipt;
    ``keep`` (default: the value itself) chooses what :attr:`LedgerCheck.valid` holds for it (the
    summary only needs a slim copy).  ``result()`` is the :class:`LedgerCheck` of everything added.
    Common-shape receipts take :class:`~generator.analyze.ledger.fastcheck.FastChecker`'s fast
    path; everything else (and every refusal) runs :func:`check_receipt`.
    """

    def __init__(self, campaign: Campaign, keep: Callable[[Any], Any] | None = None) -> None:
        self.campaign = campaign
        self.keep = keep
        self.fast = FastChecker(campaign)
        self.problems: list[LedgerProblem] = []
        self.valid: list[LedgerEntry] = []
        self.first_by_id: dict[str, int] = {}
        self.first_by_run: dict[tuple[str, str, int], int] = {}
        self.owner: dict[str, tuple[str, str]] = {}
        self.cells: dict[tuple[str, str], tuple[str, str]] = {}
        self.reruns: list[tuple[int, int]] = []
        self.hasher: Any = hashlib.sha256(b"[")
        self.separator = b""
        # Lines that repeat a known receipt's bytes (templates.py): only when the kept value of
        # such a line can be made from the template's (``keep.vary``), or the receipt is kept.
        self._vary = getattr(keep, "vary", None)
        self.templates = Templates() if (keep is None or self._vary is not None) and self.fast.enabled else None
        self._raw: bytes | None = None
        self._raw_line = -1

    def add(self, line: int, receipt: Any) -> bool:
        """Check one parsed line; True when it is a valid, new receipt (then kept in :attr:`valid`)."""
        return self.add_entry(line, receipt) is not None

    def add_raw(self, line: int, raw: bytes) -> LedgerEntry | None:
        """Check one line from its bytes when it repeats a known receipt (see ``templates.py``).

        Returns the entry for that line (``LedgerEntry(line, None)`` when it is refused as a
        duplicate), exactly as :meth:`add_entry` on the parsed line would decide; or ``None`` when
        the bytes do not decide it: then the caller parses the line and calls :meth:`add_entry`.
        """
        found = self.templates.match(raw) if self.templates is not None else None
        if found is None:
            self._raw, self._raw_line = raw, line
            return None
        hasher = self.hasher
        if hasher is not None:
            hasher.update(self.separator)
            hasher.update(raw)  # the line is its receipt's canonical bytes
            self.separator = b","
        template, rid, repeat, usage, usage_bytes, wall_ms = found
        cell = template.cell
        if not self._admit(line, rid, (cell[0], cell[1], repeat), template.rerun_of, cell):
            return LedgerEntry(line, None)
        if self._vary is not None:
            value = self._vary(template.kept, rid, repeat, usage, usage_bytes, wall_ms)
        else:
            value = dict(template.receipt)
            value["receiptId"], value["repeat"], value["usage"], value["wallMs"] = rid, repeat, usage, wall_ms
        entry = LedgerEntry(line, value)
        self.valid.append(entry)
        return entry

    def add_entry(self, line: int, receipt: Any) -> LedgerEntry | None:
        """:meth:`add`, returning the kept entry (``None`` for a refused line)."""
        raw = self._raw if self._raw_line == line else None
        self._raw = None
        blob = self.fast.canonical(receipt)
        hasher = self.hasher
        if blob is not None:
            if hasher is not None:
                hasher.update(self.separator)
                hasher.update(blob)
                self.separator = b","
        else:
            raw = None
            if hasher is not None:
                try:
                    blob = canonical_text(receipt).encode("utf-8")
                    hasher.update(self.separator)
                    hasher.update(blob)
                    self.separator = b","
                except (LedgerDataError, UnicodeEncodeError):
                    blob, self.hasher = None, None
            try:
                check_receipt(receipt, self.campaign, canonical=blob)
            except LedgerDataError as exc:
                self.problems.append(LedgerProblem("invalid", line, str(exc)))
                return None
        rid, key = receipt["receiptId"], run_key(receipt)
        original = receipt["rerunOf"]
        cell = (receipt["armId"], receipt["caseId"])
        cell = self.cells.setdefault(cell, cell)  # one tuple per arm and case, not per receipt
        if not self._admit(line, rid, key, original, cell):
            return None
        # a template from the line this receipt was parsed from (so its keys come in canonical order)
        learn = self.templates if raw is not None and blob == raw and tuple(receipt) == V2_SORTED else None
        kept = receipt if self.keep is None else self.keep(receipt)
        if learn is not None and raw is not None:
            learn.add(raw, cell, original, receipt if self.keep is None else None, kept)
        entry = LedgerEntry(line, kept)
        self.valid.append(entry)
        return entry

    def _admit(self, line: int, rid: str, key: tuple[str, str, int], original: Any, cell: tuple[str, str]) -> bool:
        """The whole-ledger rules for a valid receipt: True when it is new (its problems recorded)."""
        first_by_id = self.first_by_id
        if rid in first_by_id:
            self.problems.append(
                LedgerProblem("duplicate_id", line, "benchmark ledger contains a duplicate receipt", first_by_id[rid])
            )
            return False
        if key in self.first_by_run:
            self.problems.append(
                LedgerProblem(
                    "duplicate_run",
                    line,
                    "benchmark ledger contains a duplicate arm/case/repeat",
                    self.first_by_run[key],
                )
            )
            return False
        if original is not None:
            if self.owner.get(original) != cell:
                self.problems.append(
                    LedgerProblem("bad_rerun", line, "rerunOf must name an earlier receipt for the same arm and case")
                )
            else:
                self.reruns.append((line, first_by_id[original]))
        first_by_id[rid] = line
        self.first_by_run[key] = line
        self.owner[rid] = cell
        return True

    def result(self) -> LedgerCheck:
        digest = None
        if self.hasher is not None:
            final = self.hasher.copy()
            final.update(b"]")
            digest = "ledger1:" + final.hexdigest()
        return LedgerCheck(tuple(self.valid), tuple(self.problems), tuple(self.reruns), digest)


def check_entries(entries: Sequence[LedgerEntry], campaign: Campaign) -> LedgerCheck:
    """Validate every entry, then look for repeated ids/cells and bad ``rerunOf`` links."""
    checker = LedgerChecker(campaign)
    for entry in entries:
        checker.add(entry.line, entry.value)
    return checker.result()


def describe(problem: LedgerProblem) -> str:
    """One line for an error message or a report."""
    if problem.kind in UNREADABLE:
        return problem.message
    suffix = f" (line {problem.line} repeats line {problem.other_line})" if problem.other_line else ""
    if problem.kind in ("duplicate_id", "duplicate_run"):
        return f"benchmark ledger contains a duplicate receipt or arm/case/repeat{suffix}"
    return f"benchmark ledger line {problem.line}: {problem.message}"


_LINES_SHOWN = 5


def described(problems: Iterable[LedgerProblem]) -> list[str]:
    """One line per distinct problem, in line order: the same message on many lines (a ledger checked
    against the wrong campaign: every receipt's digest) is one line naming how many and which."""
    groups: dict[tuple[str, str], list[LedgerProblem]] = {}
    for problem in problems:
        key = (problem.kind, problem.message) if problem.kind == "invalid" else (problem.kind, repr(problem))
        groups.setdefault(key, []).append(problem)
    out: list[tuple[int, str]] = []
    for members in groups.values():
        first = members[0]
        if len(members) == 1:
            out.append((first.line, describe(first)))
            continue
        lines = sorted(p.line for p in members)
        shown = ", ".join(str(n) for n in lines[:_LINES_SHOWN]) + (", …" if len(lines) > _LINES_SHOWN else "")
        out.append((lines[0], f"benchmark ledger lines {shown} ({len(lines):,} lines): {first.message}"))
    return [text for _line, text in sorted(out, key=lambda item: item[0])]


def require_sound(problems: Iterable[LedgerProblem]) -> None:
    """Raise for the first problem, in the order a strict reader meets them.

    Line-level problems (unreadable or invalid lines) come first, in line
    order; duplicates and rerun links are only judged over a readable ledger.
    """
    line_level = UNREADABLE | {"invalid"}
    ordered = sorted(problems, key=lambda item: (item.kind not in line_level, item.line))
    if ordered:
        raise LedgerDataError(describe(ordered[0]))


def receipts_of(entries: Iterable[LedgerEntry]) -> list[Mapping[str, Any]]:
    return [entry.value for entry in entries]
