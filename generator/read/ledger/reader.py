"""Reading benchmark campaigns and ledgers.

Only reading and parsing happens here; the ledger rules (campaign validation, receipt checks,
duplicates) run in ``generator.analyze.ledger`` and ``generator.pipelines.ledger`` wires the two.

``load_json_document(path, label) -> Any``
    Reads one JSON file (a campaign or a receipt).  Raises :class:`EvalsiteError` when the file
    cannot be read or is not JSON; the message names the label, never the path.

``read_ledger_file(path, *, lock="existing") -> LedgerRead``
    Reads a JSONL ledger leniently.  Data problems never raise: unreadable lines and a torn
    (unterminated) last line come back as :class:`LedgerProblem` values for the site to display.
    A missing file is an empty ledger.  Only an unreadable input (a folder, no permission, an I/O
    error) raises :class:`EvalsiteError`.

    ``lock``: ``"existing"`` (the default, and what ``evalsite ledger summarize``/``verify`` use)
    takes the upstream-compatible shared lock on ``<ledger>.lock`` whenever that file exists -- it
    does as soon as any appender, evalsite or upstream, has run -- and otherwise reads without
    creating anything, re-reading under the lock if an unterminated last line coincides with an
    appender appearing; ``"create"`` always locks, creating the lock file (0600) if needed;
    ``"none"`` never locks.

``LedgerRead.receipts`` is every line that parsed as JSON, in ledger order; ``LedgerRead.sound``
is True when there are no problems and no torn tail.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from generator.model.errors import EvalsiteError
from generator.model.ledger import LedgerCheck, LedgerEntry, LedgerProblem
from generator.read.ledger.files import (
    LedgerLock,
    NonFiniteNumber,
    gc_paused,
    lock_path_for,
    parse_line,
    split_lines,
)

__all__ = [
    "LedgerRead",
    "TornTail",
    "gc_paused",
    "load_json_document",
    "parse_json_document",
    "parse_ledger_bytes",
    "read_ledger_bytes",
    "read_ledger_file",
]

#: Campaigns hold at most 1,000 cases and 33 arms; anything this large is not one.
CAMPAIGN_SIZE_CAP = 64 << 20


@dataclass(frozen=True)
class TornTail:
    """The last line has no line end: a write was cut short, or a tool forgot the newline.

    ``complete`` is True when the fragment is nevertheless a whole JSON value
    (upstream reads it as a receipt; only its newline is missing).
    """

    line: int
    offset: int
    length: int
    complete: bool

    def describe(self) -> str:
        if self.complete:
            return f"ledger line {self.line} has no trailing newline (its JSON is complete)"
        return f"ledger line {self.line} is a torn write: {self.length} bytes without a trailing newline"


@dataclass(frozen=True)
class LedgerRead:
    """A ledger as read: parsed lines, problems, and the torn tail if any."""

    exists: bool
    size: int
    entries: tuple[LedgerEntry, ...]
    problems: tuple[LedgerProblem, ...]
    torn_tail: TornTail | None
    line_count: int
    check: LedgerCheck | None = None

    @property
    def receipts(self) -> list[Any]:
        return [entry.value for entry in self.entries]

    @property
    def sound(self) -> bool:
        return not self.problems and self.torn_tail is None


def load_json_document(path: str | os.PathLike[str], label: str, *, cap: int = CAMPAIGN_SIZE_CAP) -> Any:
    """Read one JSON file; failures name the label and the reason, never the path."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(cap + 1)
    except OSError as exc:
        raise EvalsiteError(f"could not read {label} ({exc.__class__.__name__})") from exc
    if len(data) > cap:
        raise EvalsiteError(f"could not read {label} (larger than {cap >> 20} MiB)")
    return parse_json_document(data, label)


def parse_json_document(data: bytes, label: str) -> Any:
    """Parse a whole JSON document (a campaign or a receipt) with one-line, path-free errors."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise EvalsiteError(f"could not read {label} (not UTF-8 at byte {exc.start})") from exc
    try:
        return parse_line(text)
    except NonFiniteNumber as exc:
        raise EvalsiteError(f"{label} contains {exc}") from exc
    except json.JSONDecodeError as exc:
        where = f"{exc.msg} at line {exc.lineno} column {exc.colno}"
        raise EvalsiteError(f"could not read {label} (JSONDecodeError: {where})") from exc
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        raise EvalsiteError(f"could not read {label} ({exc})") from exc


def _text_lines(data: bytes) -> Iterator[tuple[int, int, int, str | None, bool]]:
    """(number, byte offset, byte length, text or None when not UTF-8, terminated) per physical line."""
    if b"\r" not in data:
        try:
            whole = data.decode("utf-8")
        except UnicodeDecodeError:
            whole = None
        if whole is not None:
            # Fast path for the usual "\n"-only, valid UTF-8 ledger.  Offsets are
            # only needed for an unterminated last line.
            pieces = whole.split("\n")
            for number, piece in enumerate(pieces[:-1], 1):
                yield number, -1, -1, piece, True
            if pieces[-1]:
                size = len(pieces[-1].encode("utf-8"))
                yield len(pieces), len(data) - size, size, pieces[-1], False
            return
    for raw in split_lines(data):
        try:
            text: str | None = raw.content.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        yield raw.number, raw.start, len(raw.content), text, raw.terminated


def parse_ledger_bytes(data: bytes) -> tuple[list[LedgerEntry], list[LedgerProblem], TornTail | None, int]:
    """Split and parse ledger bytes: entries, line problems, torn tail, number of lines."""
    with gc_paused():
        return _parse_ledger_bytes(data)


def _parse_ledger_bytes(data: bytes) -> tuple[list[LedgerEntry], list[LedgerProblem], TornTail | None, int]:
    entries: list[LedgerEntry] = []
    problems: list[LedgerProblem] = []
    torn: TornTail | None = None
    count = 0
    for number, start, size, text, terminated in _text_lines(data):
        count = number
        if text is None:
            problems.append(LedgerProblem("not_utf8", number, f"benchmark ledger line {number} is not UTF-8"))
            if not terminated:
                torn = TornTail(number, start, size, False)
            continue
        if not text.strip():
            continue
        try:
            value = parse_line(text)
        except ValueError:
            if terminated:
                problems.append(LedgerProblem("not_json", number, f"benchmark ledger line {number} is not JSON"))
            else:
                torn = TornTail(number, start, size, False)
                problems.append(
                    LedgerProblem(
                        "torn_tail",
                        number,
                        f"benchmark ledger line {number} is not JSON (a torn write with no trailing newline; "
                        "'evalsite ledger repair' sets it aside, keeping a backup)",
                    )
                )
            continue
        if not terminated:
            torn = TornTail(number, start, size, True)
        entries.append(LedgerEntry(number, value))
    return entries, problems, torn, count


def _read_bytes(path: str | os.PathLike[str]) -> bytes | None:
    try:
        handle = open(path, "rb")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise EvalsiteError(f"could not read ledger ({exc.__class__.__name__})") from exc
    with handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise EvalsiteError("could not read ledger (not a regular file)")
        try:
            return handle.read()
        except OSError as exc:
            raise EvalsiteError(f"could not read ledger ({exc.__class__.__name__})") from exc


def read_ledger_bytes(path: str | os.PathLike[str], *, lock: str = "existing") -> bytes | None:
    """The ledger's bytes (None when missing), read under the shared lock as requested."""
    if lock not in ("create", "existing", "none"):
        raise ValueError("lock must be 'create', 'existing' or 'none'")
    if lock == "none":
        return _read_bytes(path)
    if not os.path.lexists(path):
        return None  # nothing to protect: a ledger only ever appears through a locked append
    if lock == "create" or os.path.exists(lock_path_for(path)):
        with LedgerLock(path, exclusive=False, create=lock == "create"):
            return _read_bytes(path)
    # No lock file: no appender has ever run here -- unless one is starting right
    # now.  Appends write whole lines ending in the only newline they contain,
    # so a snapshot ending in a line end is consistent; an unterminated tail is
    # re-read under the lock if an appender has appeared meanwhile.
    data = _read_bytes(path)
    if data and data[-1:] not in (b"\n", b"\r") and os.path.exists(lock_path_for(path)):
        with LedgerLock(path, exclusive=False, create=False):
            return _read_bytes(path)
    return data


def read_ledger_file(path: str | os.PathLike[str], *, lock: str = "existing") -> LedgerRead:
    """Read and parse a ledger leniently (no receipt checks); see the module docstring."""
    data = read_ledger_bytes(path, lock=lock)
    if data is None:
        return LedgerRead(False, 0, (), (), None, 0)
    entries, problems, torn, count = parse_ledger_bytes(data)
    return LedgerRead(True, len(data), tuple(entries), tuple(problems), torn, count)
