"""Reading and verifying a build history (``docs/history.md``).

The history file follows the benchmark ledger's file rules, with its primitives
(:mod:`generator.read.ledger.files`): the same ``<file>.lock`` shared lock while reading, the same
line splitting on bytes, the same strict JSON (no NaN), the same size cap, and a last line without
a line end is a torn write, refused by name.  :func:`verify_history` walks the chain and names the
first entry that does not verify: an id that does not match its content (an edited entry) or a
``previous`` that is not the id of the entry before it (an entry deleted, inserted or reordered).
Given the history key, it checks each entry's MAC too (``docs/history.md``, "Threat model");
:func:`check_anchor` tells whether a history extends the chain head a published site recorded.

The history is never reached through a symbolic link (:func:`history_location`): its lock sits
beside the file that was named, and :func:`check_owned` refuses a file that is not an evalsite
history before any lock is made beside it.
"""

from __future__ import annotations

import hmac
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.model.errors import EvalsiteError
from generator.model.history import (
    HEAD_FILE,
    HEAD_SCHEMA,
    HISTORY_SCHEMA,
    HistoryEntry,
    HistoryHead,
    HistoryProblem,
    SideCounts,
    TaskCounts,
    entry_id,
    entry_mac,
    is_entry_id,
    is_mac,
)
from generator.model.ledger import LedgerDataError
from generator.read.ledger.files import (
    LEDGER_SIZE_CAP,
    LedgerLock,
    parse_line,
    size_text,
    split_lines,
)
from generator.read.safe_io import Refusal, open_regular, read_named_file, read_regular_file

__all__ = [
    "HistoryRead",
    "check_anchor",
    "check_owned",
    "history_location",
    "parse_history",
    "read_anchor",
    "read_history",
    "site_anchor",
    "verify_history",
]

_HEAD_CAP = 4096  # bytes of a history-head.json
_OWNED_PROBE = 64 * 1024  # bytes read to tell an evalsite history from another file


@dataclass(frozen=True)
class HistoryRead:
    entries: tuple[HistoryEntry, ...]
    problem: HistoryProblem | None  # the first entry that does not verify; entries stop before it
    torn: bool = False  # the last line has no line end
    key_checked: bool = False  # read with the history key: every MAC present was checked

    @property
    def last_id(self) -> str | None:
        return self.entries[-1].id if self.entries else None

    @property
    def last_mac(self) -> str | None:
        return self.entries[-1].mac if self.entries else None

    @property
    def macs(self) -> int:
        return sum(1 for entry in self.entries if entry.mac is not None)

    @property
    def head(self) -> HistoryHead:
        return HistoryHead(len(self.entries), self.last_id)


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
        mac=value.get("mac"),
        worse=None if value.get("worse") is None else tuple(_text(x) for x in value["worse"]),
    )


def _chain_problem(
    value: Mapping[str, Any], number: int, previous: str | None, previous_mac: str | None, key: bytes | None
) -> str | None:
    """Why *value* (entry *number*) does not verify after *previous*, or None."""
    try:
        expected = entry_id(value)
    except LedgerDataError:
        return "is not canonical JSON"
    if value.get("id") != expected:
        return "does not match its id (it was edited after it was written)"
    if value.get("previous") != previous:
        if number > 1 or value.get("previous") is not None:
            return "does not follow the entry before it (an earlier entry was deleted, inserted or reordered)"
        return "is out of order"
    mac = value.get("mac")
    if mac is not None and not is_mac(mac):
        return "has a malformed MAC"
    if key is None:
        return None
    if mac is None:
        if previous_mac is None:
            return None  # written before the history was first given a key
        return "carries no MAC although the entries before it do (it was appended without the history key)"
    if not hmac.compare_digest(mac, entry_mac(key, value, previous_mac)):
        return "does not match its MAC (it was rewritten, or the key is not the one the history was written with)"
    return None


def parse_history(data: bytes, key: bytes | None = None) -> HistoryRead:
    """Every entry up to the first that does not verify (see the module docstring); with *key*,
    the MACs are checked too."""
    entries: list[HistoryEntry] = []
    previous: str | None = None
    previous_mac: str | None = None
    checked = key is not None
    for raw in split_lines(data):
        number = len(entries) + 1
        if not raw.content.strip():
            continue
        if not raw.terminated:
            message = "has no line end (a torn write); remove the fragment or restore the file"
            return HistoryRead(tuple(entries), HistoryProblem(number, raw.number, message), True, checked)
        try:
            value = parse_line(raw.content.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return HistoryRead(tuple(entries), HistoryProblem(number, raw.number, "is not JSON"), key_checked=checked)
        if not isinstance(value, dict) or value.get("schema") != HISTORY_SCHEMA:
            message = f"is not an {HISTORY_SCHEMA} entry"
            return HistoryRead(tuple(entries), HistoryProblem(number, raw.number, message), key_checked=checked)
        message_or_none = _chain_problem(value, number, previous, previous_mac, key)
        if message_or_none is not None:
            problem = HistoryProblem(number, raw.number, message_or_none)
            return HistoryRead(tuple(entries), problem, key_checked=checked)
        try:
            entry = _entry(value, raw.number)
        except (KeyError, TypeError, ValueError) as error:
            problem = HistoryProblem(number, raw.number, f"is malformed ({error})")
            return HistoryRead(tuple(entries), problem, key_checked=checked)
        entries.append(entry)
        previous, previous_mac = entry.id, entry.mac
    return HistoryRead(tuple(entries), None, False, checked)


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


def history_location(path: str | os.PathLike[str]) -> str:
    """The history's path with its folder resolved; the file itself is never a symbolic link.

    A link would make the build write, and lock, beside whatever it points to (a dangling link: a
    file created wherever it names), so it is refused: name the history file itself.
    """
    text = os.path.abspath(os.fspath(path))
    folder, name = os.path.split(text)
    if os.path.islink(text):
        dangling = "to nothing " if not os.path.exists(text) else ""
        raise EvalsiteError(f"history {name!r} is a symbolic link {dangling}(refused: name the history file itself)")
    return os.path.join(os.path.realpath(folder), name)


def check_owned(real: str) -> None:
    """Refuse an existing file that is not an evalsite history (no lock is made beside it).

    Empty, or a first line that is an entry of this schema (canonical JSON: ``schema`` comes before
    the long ``sides``), is a history; anything else belongs to someone else.
    """
    if not os.path.lexists(real):
        return
    fd = open_regular(real)
    if isinstance(fd, Refusal):
        raise EvalsiteError(f"could not open the history (it {fd.reason})")
    try:
        start = os.pread(fd, _OWNED_PROBE, 0)
    except OSError as exc:
        raise EvalsiteError(f"could not read the history ({exc.strerror or type(exc).__name__})") from exc
    finally:
        os.close(fd)
    first = start.split(b"\n", 1)[0]
    if start and not (first.startswith(b"{") and f'"schema":"{HISTORY_SCHEMA}"'.encode() in first):
        raise EvalsiteError(
            f"history {os.path.basename(real)!r} is not an evalsite history (its first line is not an "
            f"{HISTORY_SCHEMA} entry); nothing was written"
        )


def read_history(path: str | os.PathLike[str], key: bytes | None = None) -> HistoryRead:
    """Read a history under the shared lock; a missing file is an empty history."""
    real = history_location(path)
    if not os.path.lexists(real):
        return HistoryRead((), None, key_checked=key is not None)
    with LedgerLock(real, exclusive=False, create=False):
        fd = open_regular(real)
        if isinstance(fd, Refusal):
            raise EvalsiteError(f"could not read the history ({fd.reason})")
        try:
            return parse_history(read_bytes_locked(fd), key)
        finally:
            os.close(fd)


def verify_history(read: HistoryRead, *, require_mac: bool = False) -> str | None:
    """``None`` when the chain verifies, else one sentence naming the first bad entry.

    *require_mac* (``history verify --key-env``): the last entry must carry a MAC, which, through the
    ids it chains to, vouches for every entry before it.
    """
    if read.problem is not None:
        return f"history entry {read.problem.entry} (line {read.problem.line}) {read.problem.message}"
    if require_mac and read.entries and read.entries[-1].mac is None:
        last = read.entries[-1]
        return (
            f"history entry {len(read.entries)} (line {last.line}) carries no MAC: no entry of the history "
            "does (it was written without a key, or its MACs were stripped)"
        )
    return None


def check_anchor(read: HistoryRead, anchor: HistoryHead, where: str) -> str | None:
    """``None`` when *read* extends the chain head *anchor* (recorded by *where*), else why not."""
    if anchor.entries == 0:
        return None
    count = len(read.entries)
    if count < anchor.entries:
        return (
            f"the history has {count} entries but {where} recorded {anchor.entries}: "
            "entries were cut off its end, or it was replaced"
        )
    if read.entries[anchor.entries - 1].id != anchor.head:
        return (
            f"history entry {anchor.entries} is not the head {where} recorded: "
            "the history was rewritten or forked at or before it"
        )
    return None


def _head(data: bytes, name: str) -> HistoryHead:
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        value = None
    if isinstance(value, dict) and value.get("schema") == HEAD_SCHEMA:
        entries, head = value.get("entries"), value.get("head")
        if isinstance(entries, int) and not isinstance(entries, bool) and entries >= 0:
            if entries == 0 and head is None:
                return HistoryHead(0, None)
            if entries > 0 and is_entry_id(head):
                return HistoryHead(entries, str(head))
    raise EvalsiteError(f"history anchor {name!r} is not an {HEAD_SCHEMA} document")


def read_anchor(path: str | os.PathLike[str]) -> HistoryHead:
    """The chain head in a ``history-head.json`` the user named (``--history-anchor``, ``--anchor``)."""
    name = os.path.basename(os.fspath(path))
    data = read_named_file(path, max_bytes=_HEAD_CAP)
    if isinstance(data, Refusal):
        why = "not found" if data.reason == "missing" else f"could not be read (it {data.reason})"
        raise EvalsiteError(f"history anchor {name!r} {why}")
    return _head(data, name)


def site_anchor(site: Path) -> HistoryHead | None:
    """The chain head a built site recorded (its ``history-head.json``); None when it has none."""
    path = site / HEAD_FILE
    if not os.path.lexists(path):
        return None
    data = read_regular_file(path, max_bytes=_HEAD_CAP)
    if isinstance(data, Refusal):
        raise EvalsiteError(f"the site's {HEAD_FILE} could not be read (it {data.reason})")
    return _head(data, HEAD_FILE)
