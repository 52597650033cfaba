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
    Reads a JSONL ledger leniently, streamed in chunks.  Data problems never raise: unreadable
    lines, lines longer than ``LINE_CAP`` (never held whole) and a torn (unterminated) last line
    come back as :class:`LedgerProblem` values for the site to display.
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
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from generator.model.errors import EvalsiteError
from generator.model.ledger import LedgerCheck, LedgerEntry, LedgerProblem
from generator.read.ledger.files import (
    LEDGER_SIZE_CAP,
    LINE_END,
    LONG_DIGIT_RUN,
    LedgerLock,
    NonFiniteNumber,
    gc_paused,
    has_long_digit_run,
    lock_path_for,
    mark_digits,
    parse_line,
    parse_line_stdlib,
    resolve_ledger,
    size_text,
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
    "stream_ledger_bytes",
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


def parse_ledger_bytes(data: bytes) -> tuple[list[LedgerEntry], list[LedgerProblem], TornTail | None, int]:
    """Split and parse ledger bytes: entries, line problems, torn tail, number of lines.

    The bytes go through the streaming reader a chunk at a time (:class:`_Lines`), so both paths
    follow one set of rules and a line past :data:`LINE_CAP` is never copied or decoded whole.
    """
    read = stream_ledger_bytes(data, LedgerEntry)
    return list(read.entries), list(read.problems), read.torn_tail, read.line_count


def stream_ledger_bytes(data: bytes, consume: Consume, *, raw: ConsumeRaw | None = None) -> LedgerRead:
    """:func:`stream_ledger_file` over a ledger's bytes already read (``consume`` and ``raw`` as there)."""
    step = STREAM_CHUNK
    chunks = (data[at : at + step] for at in range(0, len(data), step))
    with gc_paused():
        return _stream(chunks, consume, lambda: False, None, raw)


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
    """Read and parse a ledger leniently (no receipt checks); see the module docstring.

    The file is streamed (:func:`stream_ledger_file`): memory holds the parsed lines, never the
    file's bytes whole.
    """
    return stream_ledger_file(path, LedgerEntry, lock=lock)


# --------------------------------------------------------------------------- streaming

#: Bytes read per step when streaming a ledger (memory stays flat in the ledger's size).
STREAM_CHUNK = 1 << 20
#: A line longer than this is no receipt (the receipt limit; ``ledger append`` reads no larger one):
#: it is never held whole -- only its length is counted -- and it is reported as too long, or as the
#: torn tail.
LINE_CAP = RECEIPT_SIZE_CAP

#: ``consume(line, value)`` -> the entry to keep for that line (see :func:`stream_ledger_file`).
Consume = Callable[[int, Any], LedgerEntry]
#: ``raw(line, bytes)`` -> the entry for a line decided from its bytes, or None (parse it).
ConsumeRaw = Callable[[int, bytes], "LedgerEntry | None"]


class _Restart(Exception):
    """An unterminated last line was read without the lock while an appender appeared: read again under it."""


def _torn_problem(number: int) -> LedgerProblem:
    return LedgerProblem(
        "torn_tail",
        number,
        f"benchmark ledger line {number} is not JSON (a torn write with no trailing newline; "
        "'evalsite ledger repair' sets it aside, keeping a backup)",
    )


class _Lines:
    """The ledger's lines, parsed as its bytes arrive a chunk at a time (:meth:`feed`, :meth:`finish`).

    Lines end as :func:`split_lines` ends them (``\n``, ``\r\n``, a lone ``\r``; a ``\r\n``
    split between two chunks is one line end), with its numbers and offsets.  A line is held only
    while it is at most :data:`LINE_CAP` bytes long; past that only its length is counted, and it
    becomes a ``too_long`` problem, or the torn tail when it is the unterminated last line.  So
    memory never holds more than one chunk and one line of at most the cap.
    """

    def __init__(self, consume: Consume, decide: ConsumeRaw | None) -> None:
        self.consume = consume
        self.decide = decide
        self.entries: list[LedgerEntry] = []
        self.problems: list[LedgerProblem] = []
        self.torn: TornTail | None = None
        self.number = 0  # lines begun so far
        self.base = 0  # offset of the next chunk's first byte
        self.pieces: list[bytes] | None = []  # the carried line's bytes so far (None: too long to hold)
        self.length = 0  # the carried line's length so far (0: no line carried)
        self.after_cr = False  # the last chunk ended with "\r": a "\n" first in the next one ends that line

    def feed(self, chunk: bytes) -> None:
        position = 1 if self.after_cr and chunk[:1] == b"\n" else 0
        crs = b"\r" in chunk
        if self.length:
            match = LINE_END.search(chunk, position) if crs else None
            end = match.start() if match is not None else -1 if crs else chunk.find(b"\n", position)
            self._hold(chunk, position, len(chunk) if end < 0 else end)
            if end >= 0:
                self._carried(terminated=True)
                position = match.end() if match is not None else end + 1
        if not self.length:
            self._complete_lines(chunk, position, crs)
        self.base += len(chunk)
        self.after_cr = chunk[-1:] == b"\r"  # a "\r" last in a chunk always ends a line

    def finish(self) -> None:
        if self.length:
            self._carried(terminated=False)

    def _hold(self, chunk: bytes, start: int, stop: int) -> None:
        if stop == start:
            return
        self.length += stop - start
        if self.pieces is not None:
            if self.length > LINE_CAP:
                self.pieces = None  # too long to be a receipt: only its length is kept
            else:
                self.pieces.append(chunk if start == 0 and stop == len(chunk) else chunk[start:stop])

    def _carried(self, *, terminated: bool) -> None:
        """The line carried over from earlier chunks, now complete (or the unterminated last line)."""
        self.number += 1
        pieces, length = self.pieces, self.length
        self.pieces, self.length = [], 0
        start = self.base - length if not terminated else -1
        if pieces is None:
            if terminated:
                self._too_long(length)
            else:
                self.torn = TornTail(self.number, start, length, False)
                self.problems.append(_torn_problem(self.number))
            return
        content = b"".join(pieces)
        del pieces
        decided = self.decide(self.number, content) if self.decide is not None and terminated else None
        if decided is not None:
            self.entries.append(decided)
        else:
            self._line(content, start, terminated, not has_long_digit_run(content))

    def _too_long(self, length: int) -> None:
        number = self.number
        message = f"benchmark ledger line {number} is longer than {size_text(LINE_CAP)} ({length} bytes); not a receipt"
        self.problems.append(LedgerProblem("too_long", number, message))

    def _complete_lines(self, chunk: bytes, position: int, crs: bool) -> None:
        """Every line that ends in ``chunk`` from ``position`` (a line start); the rest is carried."""
        decide, cap, entries = self.decide, LINE_CAP, self.entries
        # one pass per chunk finds the lines with 19 digits in a row (when ``decide`` leaves most
        # lines to be parsed; otherwise each parsed line is checked on its own)
        marked = mark_digits(chunk) if decide is None else None
        ends = (match.span() for match in LINE_END.finditer(chunk, position)) if crs else None
        end, after = next(ends, (-1, -1)) if ends is not None else (chunk.find(b"\n", position), 0)
        while end >= 0:
            self.number += 1
            if end - position > cap:
                self._too_long(end - position)
            else:
                content = chunk[position:end]
                decided = decide(self.number, content) if decide is not None else None
                if decided is not None:
                    entries.append(decided)
                elif marked is not None:
                    self._line(content, -1, True, marked.find(LONG_DIGIT_RUN, position, end) < 0)
                else:
                    self._line(content, -1, True, not has_long_digit_run(content))
            if ends is not None:
                position = after
                end, after = next(ends, (-1, -1))
            else:
                position = end + 1
                end = chunk.find(b"\n", position)
        self._hold(chunk, position, len(chunk))

    def _line(self, raw: bytes, start: int, terminated: bool, digits_checked: bool) -> None:
        number = self.number
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            self.problems.append(LedgerProblem("not_utf8", number, f"benchmark ledger line {number} is not UTF-8"))
            if not terminated:
                self.torn = TornTail(number, start, len(raw), False)
            return
        if not text.strip():
            return
        try:
            value = parse_line(text, digits_checked=digits_checked)
        except ValueError:
            if terminated:
                self.problems.append(LedgerProblem("not_json", number, f"benchmark ledger line {number} is not JSON"))
            else:
                self.torn = TornTail(number, start, len(raw), False)
                self.problems.append(_torn_problem(number))
            return
        if not terminated:
            self.torn = TornTail(number, start, len(raw), True)
        self.entries.append(self.consume(number, value))


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
    chunks: Iterable[bytes],
    consume: Consume,
    check_tail: Callable[[], bool],
    tick: Callable[[int], None] | None,
    decide: ConsumeRaw | None = None,
) -> LedgerRead:
    """The ledger in ``chunks``, parsed line by line (:class:`_Lines`); entries keep what ``consume`` returns.

    An unterminated last line raises :class:`_Restart` when ``check_tail()`` says an appender has
    appeared meanwhile.
    """
    lines = _Lines(consume, decide)
    for chunk in chunks:
        lines.feed(chunk)
        if tick is not None:
            tick(len(chunk))
    if lines.length and check_tail():
        raise _Restart
    lines.finish()
    return LedgerRead(True, lines.base, tuple(lines.entries), tuple(lines.problems), lines.torn, lines.number)


def stream_ledger_file(
    path: str | os.PathLike[str],
    consume: Consume,
    *,
    lock: str = "existing",
    reset: Callable[[], None] = lambda: None,
    tick: Callable[[int], None] | None = None,
    raw: ConsumeRaw | None = None,
) -> LedgerRead:
    """:func:`read_ledger_file`'s result, streaming: each parsed line goes to ``consume`` as it is read.

    ``consume(line, value)`` returns the :class:`LedgerEntry` that ``LedgerRead.entries`` keeps for
    that line (holding a slim copy, say, or nothing), so the parsed ledger is never held whole.  The
    result equals :func:`parse_ledger_bytes` of the same bytes (with the kept entries).  When an
    appender appeared while an unterminated last line was read without the lock, ``reset()`` is
    called and the ledger is streamed again under the lock (``consume`` sees every line again).
    ``tick(n)`` reports the bytes read.  ``raw(line, content)``, when given, sees each terminated
    line's bytes first and may decide it (return its entry, which is kept as ``consume``'s would
    be); when it returns None the line is decoded, parsed and given to ``consume`` as usual.
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
    reset()  # an appender appeared: read again under its lock, as read_ledger_bytes does
    with LedgerLock(real, exclusive=False, create=False):
        return _stream_path(real, consume, lambda: False, tick, raw)


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
        return _stream(_chunks(handle), consume, check_tail, tick, raw)
