"""Reading and verifying a build history (``docs/history.md``).

The history file follows the benchmark ledger's file rules, with its primitives
(:mod:`generator.read.ledger.files`): the same ``<file>.lock`` shared lock while reading, the same
line splitting on bytes, the same strict JSON (no NaN), the same size cap, and a last line without
a line end is a torn write, refused by name.  :func:`verify_history` walks the chain and names the
first entry that does not verify: an id that does not match its content (an edited entry) or a
``previous`` that is not the id of the entry before it (an entry deleted, inserted or reordered).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from generator.model.errors import EvalsiteError
from generator.model.history import (
    HISTORY_SCHEMA,
    HistoryEntry,
    HistoryProblem,
    SideCounts,
    TaskCounts,
    entry_id,
)
from generator.model.ledger import LedgerDataError
from generator.read.ledger.files import (
    LEDGER_SIZE_CAP,
    LedgerLock,
    parse_line,
    resolve_ledger,
    size_text,
    split_lines,
)
from generator.read.safe_io import Refusal, open_regular

__all__ = ["HistoryRead", "parse_history", "read_history", "verify_history"]


@dataclass(frozen=True)
class HistoryRead:
    entries: tuple[HistoryEntry, ...]
    problem: HistoryProblem | None  # the first entry that does not verify; entries stop before it
    torn: bool = False  # the last line has no line end

    @property
    def last_id(self) -> str | None:
        return self.entries[-1].id if self.entries else None


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError("a count is not a non-negative integer")
    return value


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("a name is not text")
    return value


def _sides(value: Any) -> tuple[SideCounts, ...]:
    if not isinstance(value, list):
        raise ValueError("sides is not a list")
    sides = []
    for side in value:
        tasks = tuple(
            TaskCounts(_text(t["task"]), _count(t["passes"]), _count(t["runs"]), _count(t["excluded"]))
            for t in side["tasks"]
        )
        if any(t.passes > t.runs for t in tasks):
            raise ValueError("a task has more passes than runs")
        sides.append(SideCounts(_text(side["label"]), tasks))
    return tuple(sides)


def _entry(value: Mapping[str, Any], line: int) -> HistoryEntry:
    tiers = value.get("tiers")
    revision, time = value.get("revision"), value.get("time")
    if value.get("kind") not in ("comparison", "leaderboard"):
        raise ValueError("kind is not comparison or leaderboard")
    if revision is not None:
        _text(revision)
    if time is not None:
        _count(time)
    verdict = value.get("verdict")
    return HistoryEntry(
        id=_text(value["id"]),
        previous=value["previous"] if value["previous"] is None else _text(value["previous"]),
        kind=value["kind"],
        subject=_text(value["subject"]),
        title=_text(value["title"]),
        revision=revision,
        time=time,
        inputs_digest=_text(value["inputs_digest"]),
        verdict=None if verdict is None else _text(verdict),
        issues=_count(value["issues"]),
        tiers=None if tiers is None else tuple(tuple(_text(x) for x in tier) for tier in tiers),
        sides=_sides(value["sides"]),
        line=line,
    )


def parse_history(data: bytes) -> HistoryRead:
    """Every entry up to the first that does not verify (see the module docstring)."""
    entries: list[HistoryEntry] = []
    previous: str | None = None
    torn = False
    for raw in split_lines(data):
        number = len(entries) + 1
        if not raw.content.strip():
            continue
        if not raw.terminated:
            torn = True
            message = "has no line end (a torn write); remove the fragment or restore the file"
            return HistoryRead(tuple(entries), HistoryProblem(number, raw.number, message), torn)
        try:
            value = parse_line(raw.content.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return HistoryRead(tuple(entries), HistoryProblem(number, raw.number, "is not JSON"))
        if not isinstance(value, dict) or value.get("schema") != HISTORY_SCHEMA:
            return HistoryRead(tuple(entries), HistoryProblem(number, raw.number, f"is not an {HISTORY_SCHEMA} entry"))
        try:
            expected = entry_id(value)
        except LedgerDataError:
            return HistoryRead(tuple(entries), HistoryProblem(number, raw.number, "is not canonical JSON"))
        if value.get("id") != expected:
            message = "does not match its id (it was edited after it was written)"
            return HistoryRead(tuple(entries), HistoryProblem(number, raw.number, message))
        if value.get("previous") != previous:
            message = (
                "does not follow the entry before it (an earlier entry was deleted, inserted or reordered)"
                if number > 1 or value.get("previous") is not None
                else "is out of order"
            )
            return HistoryRead(tuple(entries), HistoryProblem(number, raw.number, message))
        try:
            entry = _entry(value, raw.number)
        except (KeyError, TypeError, ValueError) as error:
            return HistoryRead(tuple(entries), HistoryProblem(number, raw.number, f"is malformed ({error})"))
        entries.append(entry)
        previous = entry.id
    return HistoryRead(tuple(entries), None, torn)


def read_bytes_locked(fd: int) -> bytes:
    """All bytes of an open history file, within the size cap."""
    size = os.fstat(fd).st_size
    if size > LEDGER_SIZE_CAP:
        raise EvalsiteError(f"could not read the history (larger than the {size_text(LEDGER_SIZE_CAP)} limit)")
    chunks = []
    offset = 0
    while offset < size:
        chunk = os.pread(fd, min(1 << 20, size - offset), offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def read_history(path: str | os.PathLike[str]) -> HistoryRead:
    """Read a history under the shared lock; a missing file is an empty history."""
    real = resolve_ledger(path)
    if not os.path.lexists(real):
        return HistoryRead((), None)
    with LedgerLock(real, exclusive=False, create=False):
        fd = open_regular(real)
        if isinstance(fd, Refusal):
            raise EvalsiteError(f"could not read the history ({fd.reason})")
        try:
            return parse_history(read_bytes_locked(fd))
        finally:
            os.close(fd)


def verify_history(read: HistoryRead) -> str | None:
    """``None`` when the chain verifies, else one sentence naming the first bad entry."""
    if read.problem is None:
        return None
    return f"history entry {read.problem.entry} (line {read.problem.line}) {read.problem.message}"
