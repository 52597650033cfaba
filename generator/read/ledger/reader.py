"""Reading benchmark campaigns and ledgers.

Only reading and parsing happens here; the ledger rules (campaign validation, receipt checks,
duplicates) run in ``generator.analyze.ledger`` and ``generator.pipelines.ledger`` wires the two.

``load_json_document(path, label) -> Any``
    Reads one JSON file (a campaign or a receipt).  Raises :class:`EvalsiteError` when the file
    cannot be read or is not JSON; the message names the label, never the path.  Every input goes
    through :func:`read_input_bytes`: resolved once, opened without following a link and without
    blocking (a FIFO fails at once), and never larger than its cap (``CAMPAIGN_SIZE_CAP``,
    ``RECEIPT_SIZE_CAP``, ``LEDGER_SIZE_CAP``).

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
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from generator.model.errors import EvalsiteError
from generator.model.ledger import LedgerCheck, LedgerEntry, LedgerProblem
from generator.read.ledger.files import (
    LEDGER_SIZE_CAP,
    LONG_DIGIT_RUN,
    LedgerLock,
    NonFiniteNumber,
    gc_paused,
    has_long_digit_run,
    lock_path_for,
    long_digit_lines,
    mark_digits,
    parse_line,
    parse_line_stdlib,
    resolve_ledger,
    size_text,
    split_lines,
)
from generator.read.safe_io import Refusal, open_regular

__all__ = [
    "LedgerRead",
    "TornTail",
    "gc_paused",
    "CAMPAIGN_SIZE_CAP",
    "LEDGER_SIZE_CAP",
    "RECEIPT_SIZE_CAP",
    "load_json_document",
    "parse_json_document",
    "parse_ledger_bytes",
    "read_ledger_bytes",
    "read_input_bytes",
    "read_ledger_file",
    "stream_ledger_file",
]

#: Campaigns hold at most 1,000 cases and 33 arms; anything this large is not one.
CAMPAIGN_SIZE_CAP = 64 << 20
#: One receipt is a few kilobytes; a file (or stdin) larger than this is not one.
RECEIPT_SIZE_CAP = 16 << 20
#: Documents up to this size are parsed by the standard library alone (faster than loading orjson).
_SMALL_DOCUMENT = 1 << 20


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


def _open_input(real: str, label: str) -> int | None:
    """A descriptor of the regular file at *real* (None when missing); a refusal names *label* and the reason."""
    fd = open_regular(real)
    if isinstance(fd, Refusal):
        if fd.reason == "missing":
            return None
        reason = "it is not a regular file" if fd.reason == "is not a regular file" else fd.reason
        raise EvalsiteError(f"could not read {label} ({reason})")
    return fd


def read_input_bytes(path: str | os.PathLike[str], label: str, *, cap: int) -> bytes | None:
    """The bytes of one input file (None when missing), never more than ``cap``.

    The path is resolved once (a link the user named is followed), then the file is opened without
    following links and without blocking: a FIFO, device or folder fails at once.  Failures name
    the label and the reason, never the path.
    """
    fd = _open_input(os.path.realpath(os.fspath(path)), label)
    if fd is None:
        return None
    with os.fdopen(fd, "rb") as handle:
        try:
            if os.fstat(handle.fileno()).st_size > cap:
                raise EvalsiteError(f"could not read {label} (larger than the {size_text(cap)} limit)")
            data = handle.read(cap + 1)
        except OSError as exc:
            raise EvalsiteError(f"could not read {label} ({exc.strerror or exc.__class__.__name__})") from exc
    if len(data) > cap:
        raise EvalsiteError(f"could not read {label} (larger than the {size_text(cap)} limit)")
    return data


def load_json_document(path: str | os.PathLike[str], label: str, *, cap: int = CAMPAIGN_SIZE_CAP) -> Any:
    """Read one JSON file; failures name the label and the reason, never the path."""
    data = read_input_bytes(path, label, cap=cap)
    if data is None:
        raise EvalsiteError(f"could not read {label} (FileNotFoundError)")  # upstream's words
    return parse_json_document(data, label)


def parse_json_document(data: bytes, label: str) -> Any:
    """Parse a whole JSON document (a campaign or a receipt) with one-line, path-free errors."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise EvalsiteError(f"could not read {label} (not UTF-8 at byte {exc.start})") from exc
    try:
        # the standard library for a small document (the same value: see parse_line), so that
        # reading one receipt or campaign does not load orjson
        return parse_line(text) if len(data) > _SMALL_DOCUMENT else parse_line_stdlib(text)
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
    # Lines holding 19 digits in a row, found in one pass over the ledger (only "\n"-ended lines
    # are numbered that way; other ledgers are checked line by line)
    flagged = long_digit_lines(data) if b"\r" not in data else None
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
            value = parse_line(text, digits_checked=flagged is not None and number not in flagged)
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


def _read_bytes(path: str) -> bytes | None:
    return read_input_bytes(path, "ledger", cap=LEDGER_SIZE_CAP)


def read_ledger_bytes(path: str | os.PathLike[str], *, lock: str = "existing") -> bytes | None:
    """The ledger's bytes (None when missing), read under the shared lock as requested.

    The path is resolved once (:func:`resolve_ledger`): a ledger reached through a link is read
    under the lock of the file it points to.
    """
    if lock not in ("create", "existing", "none"):
        raise ValueError("lock must be 'create', 'existing' or 'none'")
    real = resolve_ledger(path)
    if lock == "none":
        return _read_bytes(real)
    if not os.path.lexists(real):
        return None  # nothing to protect: a ledger only ever appears through a locked append
    if lock == "create" or os.path.lexists(lock_path_for(real)):
        with LedgerLock(real, exclusive=False, create=lock == "create"):
            return _read_bytes(real)
    # No lock file: no appender has ever run here -- unless one is starting right
    # now.  Appends write whole lines ending in the only newline they contain,
    # so a snapshot ending in a line end is consistent; an unterminated tail is
    # re-read under the lock if an appender has appeared meanwhile.
    data = _read_bytes(real)
    if data and data[-1:] not in (b"\n", b"\r") and os.path.lexists(lock_path_for(real)):
        with LedgerLock(real, exclusive=False, create=False):
            return _read_bytes(real)
    return data


def read_ledger_file(path: str | os.PathLike[str], *, lock: str = "existing") -> LedgerRead:
    """Read and parse a ledger leniently (no receipt checks); see the module docstring."""
    data = read_ledger_bytes(path, lock=lock)
    if data is None:
        return LedgerRead(False, 0, (), (), None, 0)
    entries, problems, torn, count = parse_ledger_bytes(data)
    return LedgerRead(True, len(data), tuple(entries), tuple(problems), torn, count)


# --------------------------------------------------------------------------- streaming

#: Bytes read per step when streaming a ledger (memory stays flat in the ledger's size).
STREAM_CHUNK = 1 << 20

#: ``consume(line, value)`` -> the entry to keep for that line (see :func:`stream_ledger_file`).
Consume = Callable[[int, Any], LedgerEntry]
#: ``raw(line, bytes)`` -> the entry for a line decided from its bytes, or None (parse it).
ConsumeRaw = Callable[[int, bytes], "LedgerEntry | None"]


class _Restart(Exception):
    """The streamed bytes cannot be read line by line here (a "\r" line end), or must be re-read under the lock."""


def _stream_open(real: str) -> tuple[Any, int] | None:
    fd = _open_input(real, "ledger")
    if fd is None:
        return None
    handle = os.fdopen(fd, "rb")
    try:
        size = os.fstat(handle.fileno()).st_size
    except OSError as exc:
        handle.close()
        raise EvalsiteError(f"could not read ledger ({exc.strerror or exc.__class__.__name__})") from exc
    if size > LEDGER_SIZE_CAP:
        handle.close()
        raise EvalsiteError(f"could not read ledger (larger than the {size_text(LEDGER_SIZE_CAP)} limit)")
    return handle, size


def _chunks(handle: Any) -> Iterator[bytes]:
    total = 0
    while True:
        try:
            chunk = handle.read(STREAM_CHUNK)
        except OSError as exc:
            raise EvalsiteError(f"could not read ledger ({exc.strerror or exc.__class__.__name__})") from exc
        if not chunk:
            return
        total += len(chunk)
        if total > LEDGER_SIZE_CAP:
            raise EvalsiteError(f"could not read ledger (larger than the {size_text(LEDGER_SIZE_CAP)} limit)")
        yield chunk


def _stream(
    handle: Any,
    consume: Consume,
    check_tail: Callable[[], bool],
    tick: Callable[[int], None] | None,
    decide: ConsumeRaw | None = None,
) -> LedgerRead:
    """:func:`parse_ledger_bytes` over a file read in chunks; entries keep what ``consume`` returns.

    Gives exactly what ``parse_ledger_bytes`` gives for the same bytes: the same line numbers,
    problems and torn tail.  A "\r" anywhere raises :class:`_Restart` (the caller reads such a
    ledger whole, with the general splitter), and so does an unterminated last line when
    ``check_tail()`` says an appender has appeared meanwhile.
    """
    entries: list[LedgerEntry] = []
    problems: list[LedgerProblem] = []
    torn: TornTail | None = None
    number = 0
    offset = 0  # of the first byte of ``pending``
    pending = b""
    size = 0

    def line(raw: bytes, start: int, terminated: bool, digits_checked: bool) -> None:
        nonlocal torn
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            problems.append(LedgerProblem("not_utf8", number, f"benchmark ledger line {number} is not UTF-8"))
            if not terminated:
                torn = TornTail(number, start, len(raw), False)
            return
        if not text.strip():
            return
        try:
            value = parse_line(text, digits_checked=digits_checked)
        except ValueError:
            if terminated:
                problems.append(LedgerProblem("not_json", number, f"benchmark ledger line {number} is not JSON"))
            else:
                torn = TornTail(number, start, len(raw), False)
                problems.append(
                    LedgerProblem(
                        "torn_tail",
                        number,
                        f"benchmark ledger line {number} is not JSON (a torn write with no trailing newline; "
                        "'evalsite ledger repair' sets it aside, keeping a backup)",
                    )
                )
            return
        if not terminated:
            torn = TornTail(number, start, len(raw), True)
        entries.append(consume(number, value))

    for chunk in _chunks(handle):
        if b"\r" in chunk:
            raise _Restart
        size += len(chunk)
        data = pending + chunk if pending else chunk
        # one pass per chunk finds the lines with 19 digits in a row (when ``decide`` leaves most
        # lines to be parsed; otherwise each parsed line is checked on its own)
        marked = mark_digits(data) if decide is None else None
        position = 0
        end = data.find(b"\n")
        while end >= 0:
            number += 1
            content = data[position:end]
            decided = decide(number, content) if decide is not None else None
            if decided is not None:
                entries.append(decided)
            elif marked is not None:
                line(content, offset + position, True, marked.find(LONG_DIGIT_RUN, position, end) < 0)
            else:
                line(content, offset + position, True, not has_long_digit_run(content))
            position = end + 1
            end = data.find(b"\n", position)
        pending = data[position:]
        offset += position
        if tick is not None:
            tick(len(chunk))
    if pending:
        if check_tail():
            raise _Restart
        number += 1
        line(pending, offset, False, not has_long_digit_run(pending))
    return LedgerRead(True, size, tuple(entries), tuple(problems), torn, number)


def stream_ledger_file(
    path: str | os.PathLike[str],
    consume: Consume,
    *,
    lock: str = "existing",
    reset: Callable[[], None] = lambda: None,
    tick: Callable[[int], None] | None = None,
    raw: ConsumeRaw | None = None,
) -> LedgerRead:
    """:func:`read_ledger_file`, streaming: each parsed line goes to ``consume`` as it is read.

    ``consume(line, value)`` returns the :class:`LedgerEntry` that ``LedgerRead.entries`` keeps for
    that line (holding a slim copy, say, or nothing), so the parsed ledger is never held whole.  The
    result equals ``read_ledger_file``'s (with the kept entries).  When the ledger must be read
    again -- it has a "\r" line end, or an appender appeared while an unterminated last line was
    read without the lock -- ``reset()`` is called and the ledger is read again whole (``consume``
    sees every line again).  ``tick(n)`` reports the bytes read.  ``raw(line, content)``, when
    given, sees each terminated line's bytes first and may decide it (return its entry, which is
    kept as ``consume``'s would be); when it returns None the line is decoded, parsed and given to
    ``consume`` as usual.  The whole-file re-read does not call ``raw``.
    """
    if lock not in ("create", "existing", "none"):
        raise ValueError("lock must be 'create', 'existing' or 'none'")
    real = resolve_ledger(path)
    locked = lock == "create" or (lock == "existing" and os.path.lexists(lock_path_for(real)))
    if lock != "none" and not os.path.lexists(real):
        return LedgerRead(False, 0, (), (), None, 0)  # as read_ledger_bytes: nothing to protect

    def unlocked_tail() -> bool:
        return lock == "existing" and not locked and os.path.lexists(lock_path_for(real))

    try:
        if locked:
            with LedgerLock(real, exclusive=False, create=lock == "create"):
                return _stream_path(real, consume, unlocked_tail, tick, raw)
        return _stream_path(real, consume, unlocked_tail, tick, raw)
    except _Restart:
        pass
    reset()
    data = read_ledger_bytes(path, lock=lock)
    if data is None:
        return LedgerRead(False, 0, (), (), None, 0)
    entries, problems, torn, count = parse_ledger_bytes(data)
    kept = tuple(consume(entry.line, entry.value) for entry in entries)
    return LedgerRead(True, len(data), kept, tuple(problems), torn, count)


def _stream_path(
    real: str,
    consume: Consume,
    check_tail: Callable[[], bool],
    tick: Callable[[int], None] | None,
    raw: ConsumeRaw | None = None,
) -> LedgerRead:
    opened = _stream_open(real)
    if opened is None:
        return LedgerRead(False, 0, (), (), None, 0)
    handle, _size = opened
    with handle, gc_paused():
        return _stream(handle, consume, check_tail, tick, raw)
