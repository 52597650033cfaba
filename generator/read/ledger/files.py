"""Low-level ledger file handling shared by reading and appending.

* :class:`LedgerLock` -- the advisory lock upstream uses: ``flock`` on the
  sibling file ``<ledger>.lock`` (created ``0600``).  Appenders hold it
  exclusively, readers shared, so an evalsite process and an upstream process
  working on the same ledger serialize correctly.
* :func:`split_lines` -- line splitting with the same rules as Python's text
  mode (``\\n``, ``\\r\\n`` and a lone ``\\r`` end a line), done on bytes so byte
  offsets stay exact.  ``\\u2028`` and friends are *not* line ends.
* :func:`parse_line` -- one JSON value, NaN/Infinity refused.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import gc
import json
import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from generator.model.errors import EvalsiteError
from generator.read.jsonfast import DIGITS_TO_ZERO, LONG_DIGIT_RUN, SHALLOW, has_long_digit_run

__all__ = [
    "LEDGER_SIZE_CAP",
    "LINE_END",
    "LONG_DIGIT_RUN",
    "LedgerLock",
    "NonFiniteNumber",
    "RawLine",
    "gc_paused",
    "has_long_digit_run",
    "lock_path_for",
    "long_digit_lines",
    "mark_digits",
    "parse_line",
    "parse_line_stdlib",
    "resolve_ledger",
    "size_text",
    "split_lines",
]

#: A line end: ``\r\n``, a lone ``\r`` or ``\n`` (Python's text mode; ``\u2028`` and friends are not).
LINE_END = re.compile(rb"\r\n|\r|\n")
# Side files are never followed through a link; a FIFO or device planted there never blocks.
_LOCK_FLAGS = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


#: A ledger larger than this is refused with an error naming the limit: about 850,000 receipts of
#: the usual 1.2 kB (checking one costs several times its size in memory).
LEDGER_SIZE_CAP = 1 << 30


def size_text(cap: int) -> str:
    """A size limit in words: ``2 GiB``, ``64 MiB``."""
    if cap >= 1 << 30 and cap % (1 << 30) == 0:
        return f"{cap >> 30} GiB"
    if cap >= 1 << 20:
        return f"{cap >> 20} MiB"
    return f"{cap:,} bytes"


def resolve_ledger(ledger_path: str | os.PathLike[str]) -> str:
    """The ledger's real path, resolved once: its lock, cache and backups sit next to the real file.

    A ledger reached through a symbolic link is the file the link points to, so two commands
    reaching one ledger through different paths take one lock.  A link to nothing is refused.
    """
    path = os.fspath(ledger_path)
    if os.path.lexists(path) and not os.path.exists(path):
        raise EvalsiteError("the ledger path is a symbolic link to nothing")
    return os.path.realpath(path)


def lock_path_for(ledger_path: str | os.PathLike[str]) -> str:
    return os.fspath(ledger_path) + ".lock"


def _regular_or_error(fd: int, what: str) -> int:
    try:
        info = os.fstat(fd)
    except OSError as exc:
        os.close(fd)
        raise EvalsiteError(f"could not open {what} ({exc.strerror or exc.__class__.__name__})") from exc
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise EvalsiteError(f"could not open {what} (it is not a regular file)")
    return fd


class LedgerLock:
    """``flock`` on ``<ledger>.lock``; use as a context manager.

    ``exclusive`` -- appenders; otherwise a shared (reader) lock.
    ``create`` -- create the lock file (mode 0600) when missing; when False and
    the file is missing (or cannot be opened for a shared lock), no lock is
    taken and :attr:`held` stays False.

    The lock file is never followed through a symbolic link, never opened in a
    way that blocks (a FIFO planted there is refused), and its mode is set only
    when this process created it.  Pass the resolved ledger path
    (:func:`resolve_ledger`).
    """

    def __init__(self, ledger_path: str | os.PathLike[str], *, exclusive: bool, create: bool = True) -> None:
        self.path = lock_path_for(ledger_path)
        self.exclusive = exclusive
        self.create = create
        self.held = False
        self._fd: int | None = None

    def __enter__(self) -> LedgerLock:
        fd = self._open()
        if fd is None:
            return self
        self._fd = fd
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if self.exclusive else fcntl.LOCK_SH)
        except OSError as exc:
            os.close(fd)
            self._fd = None
            raise EvalsiteError(f"could not lock the ledger ({exc.strerror or exc.__class__.__name__})") from exc
        self.held = True
        return self

    def _create_new(self) -> int | None:
        """Create the lock file (0600); None when it already exists."""
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL | _LOCK_FLAGS, 0o600)
        except FileExistsError:
            return None
        try:
            os.fchmod(fd, 0o600)  # ours: just created
        except OSError:
            pass
        return fd

    def _open(self) -> int | None:
        what = "the ledger lock file"
        if self.exclusive:
            try:
                fd = self._create_new()
                if fd is None:
                    fd = os.open(self.path, os.O_RDWR | _LOCK_FLAGS)
            except OSError as exc:
                reason = "it is a symbolic link" if exc.errno == errno.ELOOP else exc.strerror or type(exc).__name__
                raise EvalsiteError(f"could not open {what} ({reason})") from exc
            return _regular_or_error(fd, what)
        try:
            fd = self._create_new() if self.create else None
            if fd is None:
                fd = os.open(self.path, os.O_RDWR | _LOCK_FLAGS)
        except OSError as exc:
            if exc.errno == errno.ENOENT and not self.create:
                return None
            if exc.errno == errno.ELOOP:
                raise EvalsiteError(f"could not open {what} (it is a symbolic link)") from exc
            if exc.errno in (errno.EACCES, errno.EROFS, errno.EPERM, errno.ENOENT):
                # A read-only place: a shared lock through a read-only descriptor
                # still excludes writers; without a lock file nobody appends here.
                try:
                    fd = os.open(self.path, os.O_RDONLY | _LOCK_FLAGS)
                except OSError:
                    return None
                return _regular_or_error(fd, what)
            raise EvalsiteError(f"could not open {what} ({exc.strerror or exc.__class__.__name__})") from exc
        return _regular_or_error(fd, what)

    def __exit__(self, *exc_info: object) -> None:
        if self._fd is not None:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            finally:
                os.close(self._fd)
                self._fd = None
                self.held = False


@dataclass(frozen=True)
class RawLine:
    """One physical line: 1-based number, byte offsets, content without its line end."""

    number: int
    start: int
    content: bytes
    terminated: bool
    end: int  # offset just past the line end (== start + len(content) when unterminated)


def split_lines(data: bytes, first_number: int = 1, base_offset: int = 0) -> Iterator[RawLine]:
    position = 0
    number = first_number
    for match in LINE_END.finditer(data):
        yield RawLine(number, base_offset + position, data[position : match.start()], True, base_offset + match.end())
        position = match.end()
        number += 1
    if position < len(data):
        yield RawLine(number, base_offset + position, data[position:], False, base_offset + len(data))


class NonFiniteNumber(ValueError):
    """``NaN``, ``Infinity`` or ``-Infinity`` in JSON text: valid for Python, refused here."""


def _refuse_constant(token: str) -> Any:
    raise NonFiniteNumber(f"non-finite JSON number {token}")


_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)


# When orjson reads a text as json does: one rule for every reader (read/jsonfast.py).
_DIGITS_TO_ZERO, _LONG_RUN, _SHALLOW = DIGITS_TO_ZERO, LONG_DIGIT_RUN, SHALLOW


def mark_digits(data: bytes) -> bytes:
    """``data`` with every digit turned into ``0``: a run of 19 digits is then ``LONG_DIGIT_RUN``."""
    return data.translate(_DIGITS_TO_ZERO)


def long_digit_lines(data: bytes) -> set[int]:
    """The numbers of the ``\\n``-separated lines of ``data`` that hold 19 digits in a row (one pass)."""
    marked = data.translate(_DIGITS_TO_ZERO)
    lines: set[int] = set()
    line, counted, at = 1, 0, marked.find(_LONG_RUN)
    while at >= 0:
        line += data.count(b"\n", counted, at)
        lines.add(line)
        counted = at
        end = data.find(b"\n", at)
        if end < 0:
            break
        at = marked.find(_LONG_RUN, end)
    return lines


def _shallow(text: str) -> bool:
    return len(text) <= 2 * _SHALLOW or text.count("{") + text.count("[") <= _SHALLOW


def parse_line(text: str, *, digits_checked: bool = False) -> Any:
    """Parse one JSON document; ValueError for anything upstream would not load.

    The value (or the error) is that of :func:`parse_line_stdlib`.  orjson reads the text when
    it holds no run of 19 digits and cannot nest past the standard library's limit; whatever
    orjson refuses (NaN, infinities, ``1e400``, lone surrogates, ...) is read again by the
    standard library, which accepts it or raises its own error.  ``digits_checked``: the caller
    has found no run of 19 digits in bytes that hold this text (:func:`has_long_digit_run`).
    """
    if _shallow(text) and (digits_checked or not has_long_digit_run(text.encode("utf-8", "surrogatepass"))):
        try:
            return _loads(text)
        except ValueError:  # orjson.JSONDecodeError
            pass
    return parse_line_stdlib(text)


def _first_loads(text: str) -> Any:
    """``orjson.loads``, imported when a line is first parsed (a small CLI call never needs it)."""
    global _loads
    import orjson

    _loads = orjson.loads
    return _loads(text)


_loads: Callable[[str], Any] = _first_loads


def parse_line_stdlib(text: str) -> Any:
    """:func:`parse_line` by the standard library alone (the reference)."""
    try:
        return _DECODER.decode(text)
    except RecursionError as exc:
        raise ValueError("nested too deeply") from exc


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many small containers.

    Parsed receipts hold no reference cycles (reference counting frees
    them); without the pause, generation scans cost about as much as parsing.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
