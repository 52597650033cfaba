"""Appending one build's entries to a history file, with the benchmark ledger's rules.

Under the exclusive ``<history>.lock`` (:class:`generator.read.ledger.files.LedgerLock`, the same
lock the ledger append takes) the whole file is read and its chain verified; a file that does not
verify (an edited or deleted entry) or whose last line has no line end (a torn write) is refused
with nothing appended.  For each new entry body whose subject's last entry has the same
``inputs_digest`` nothing is written (a rebuild of identical inputs); the others are chained after
the file's last id and written with ``O_APPEND`` in one write, then fsynced (and the folder fsynced
when the file was just created).  Concurrent builds serialize on the lock, so none loses an entry.

The history is never reached through a symbolic link, and a file that is not an evalsite history
is refused before its lock is made (:func:`generator.read.history.history_location`,
:func:`~generator.read.history.check_owned`).  With a *key* the MACs are checked under the lock and
the new entries carry theirs; with an *anchor* (the chain head the replaced site recorded, and the
place it came from) a history that does not extend it is refused with nothing appended.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from generator.model.errors import EvalsiteError
from generator.model.history import HistoryHead, chain_entry
from generator.model.ledger import canonical_bytes
from generator.read.history import (
    HistoryRead,
    check_anchor,
    check_owned,
    history_location,
    parse_history,
    read_bytes_locked,
    verify_history,
)
from generator.read.ledger.files import LedgerLock
from generator.write.files import fsync_folder

__all__ = ["AppendedHistory", "append_history"]

_FLAGS = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


@dataclass(frozen=True)
class AppendedHistory:
    history: HistoryRead  # the whole history after the append
    appended: tuple[str, ...]  # ids written by this build
    unchanged: tuple[str, ...]  # subjects whose inputs were identical to their last entry


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _refuse_unless_sound(current: HistoryRead, anchors: Sequence[tuple[HistoryHead, str]]) -> None:
    problem = verify_history(current)
    if problem is not None:
        raise EvalsiteError(f"{problem}; nothing was appended. Run 'evalsite history verify' and restore the file")
    for anchor, where in anchors:
        problem = check_anchor(current, anchor, where)
        if problem is not None:
            raise EvalsiteError(
                f"{problem}; nothing was written. Restore the history, or pass --history-reset to start "
                "a history that does not extend it (docs/history.md)"
            )


def append_history(
    path: str | os.PathLike[str],
    bodies: Sequence[Mapping[str, Any]],
    *,
    key: bytes | None = None,
    anchors: Sequence[tuple[HistoryHead, str]] = (),
) -> AppendedHistory:
    """Append *bodies* (entries without ``id``/``previous``); see the module docstring."""
    real = history_location(path)
    folder = os.path.dirname(real)
    if not os.path.isdir(folder):
        raise EvalsiteError("the history file's folder does not exist")
    check_owned(real)
    created = not os.path.lexists(real)
    with LedgerLock(real, exclusive=True):
        try:
            fd = os.open(real, _FLAGS, 0o644)
        except OSError as exc:
            raise EvalsiteError(f"could not open the history ({exc.strerror or type(exc).__name__})") from exc
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise EvalsiteError("could not open the history (it is not a regular file)")
            current = parse_history(read_bytes_locked(fd), key)
            _refuse_unless_sound(current, anchors)
            last_digest = {(e.kind, e.subject): e.inputs_digest for e in current.entries}
            previous, previous_mac = current.last_id, current.last_mac
            lines: list[bytes] = []
            appended: list[str] = []
            unchanged: list[str] = []
            for body in bodies:
                if last_digest.get((body["kind"], body["subject"])) == body["inputs_digest"]:
                    unchanged.append(str(body["subject"]))
                    continue
                entry = chain_entry(body, previous, key, previous_mac)
                previous, previous_mac = entry["id"], entry.get("mac")
                lines.append(canonical_bytes(entry) + b"\n")
                appended.append(entry["id"])
            if lines:
                data = b"".join(lines)
                _write_all(fd, data)
                os.fsync(fd)
                if created:
                    fsync_folder(folder)
                current = parse_history(read_bytes_locked(fd), key)
        except OSError as exc:
            raise EvalsiteError(f"could not append to the history ({exc.strerror or type(exc).__name__})") from exc
        finally:
            os.close(fd)
    return AppendedHistory(current, tuple(appended), tuple(unchanged))
