"""A rebuildable lookup cache beside a ledger, so one append costs the same at any size.

The ledger (JSONL) stays the only source of truth; upstream tools neither
know nor need this file.  The cache is an SQLite database
``<ledger>.evalsite-index`` (mode 0600, WAL journal) holding, for every receipt
already in the ledger, its id, its (arm, case, repeat) cell and its line, plus
a description of exactly which bytes it covers:

* the ledger's device and inode, its size and modification time when the
  cache was last brought up to date,
* the campaign it validated the receipts against (a hash of the normalized
  manifest),
* the offset and SHA-256 of the last line it covers.

:meth:`LedgerIndex.synced` is only called under the exclusive ledger lock.  It
trusts the cache when all of that still matches; when the ledger merely grew
(another tool, e.g. the upstream script, appended), it reads and validates just
the new lines; anything else -- another file, a shrunken or rewritten ledger,
a different campaign, an unreadable or foreign database -- throws the cache
away and rebuilds it from the whole ledger.  A crash between the ledger write
and the cache update therefore only costs a catch-up on the next append.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from generator.model.ledger import Campaign, LedgerDataError, ReceiptCheck, canonical_text
from generator.read.ledger.files import gc_paused, parse_line, split_lines

__all__ = ["INDEX_SUFFIX", "IndexState", "LedgerIndex", "index_path_for", "remove_index"]

INDEX_SUFFIX = ".evalsite-index"
_FORMAT = "evalsite-ledger-index/2"
_SIDE_FILES = ("", "-wal", "-shm", "-journal")
# Receipts are found by 64-bit hashes of their id and of their (arm, case,
# repeat) cell; the full values are compared too, so a hash collision can only
# cost a second look, never a wrong answer.
_SCHEMA = (
    "CREATE TABLE state (id INTEGER PRIMARY KEY CHECK (id = 1), format TEXT NOT NULL, campaign TEXT NOT NULL,"
    " dev INTEGER NOT NULL, ino INTEGER NOT NULL, covered INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,"
    " tail_start INTEGER NOT NULL, tail_sha TEXT NOT NULL, lines INTEGER NOT NULL, count INTEGER NOT NULL)",
    "CREATE TABLE receipt (line INTEGER PRIMARY KEY, id_hash INTEGER NOT NULL, run_hash INTEGER NOT NULL,"
    " rid TEXT NOT NULL, arm TEXT NOT NULL, kase TEXT NOT NULL, rep TEXT NOT NULL)",
    "CREATE INDEX receipt_by_id ON receipt (id_hash)",
    "CREATE INDEX receipt_by_run ON receipt (run_hash)",
)
_STATE_COLUMNS = "format, campaign, dev, ino, covered, mtime_ns, tail_start, tail_sha, lines, count"


def _hash64(*parts: str) -> int:
    digest = hashlib.blake2b("\x1f".join(parts).encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def index_path_for(ledger_path: str | os.PathLike[str]) -> str:
    return os.fspath(ledger_path) + INDEX_SUFFIX


def remove_index(ledger_path: str | os.PathLike[str], *, quiet: bool = False) -> None:
    """Delete the cache files (the next append rebuilds them); ``quiet`` ignores every OS error."""
    base = index_path_for(ledger_path)
    for suffix in _SIDE_FILES:
        try:
            os.unlink(base + suffix)
        except FileNotFoundError:
            pass
        except OSError:
            if not quiet:
                raise


def campaign_key(campaign: Campaign) -> str:
    """What the cached validations depend on: the normalized campaign."""
    if campaign.digest is not None:
        return campaign.digest
    text = canonical_text(campaign.manifest)
    return "raw:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class IndexState:
    """What the cache covers: bytes [0, covered) of the ledger file (dev, ino)."""

    campaign: str
    dev: int
    ino: int
    covered: int
    mtime_ns: int
    tail_start: int
    tail_sha: str
    lines: int
    count: int

    def values(self) -> tuple[Any, ...]:
        return (
            _FORMAT,
            self.campaign,
            self.dev,
            self.ino,
            self.covered,
            self.mtime_ns,
            self.tail_start,
            self.tail_sha,
            self.lines,
            self.count,
        )


def _state_from(row: tuple[Any, ...] | None) -> IndexState | None:
    if row is None or row[0] != _FORMAT:
        return None
    try:
        dev, ino, covered, mtime_ns, tail_start = (int(v) for v in row[2:7])
        return IndexState(str(row[1]), dev, ino, covered, mtime_ns, tail_start, str(row[7]), int(row[8]), int(row[9]))
    except (TypeError, ValueError):
        return None


def _create_private(path: str) -> None:
    """Create the cache file (0600); O_EXCL, so a link or file planted under its name is never used."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        os.fchmod(fd, 0o600)
    finally:
        os.close(fd)


def _side_files_regular(db: str) -> bool:
    """True when the cache and SQLite's side files are each missing or a regular file (never a link)."""
    for suffix in _SIDE_FILES:
        try:
            info = os.lstat(db + suffix)
        except FileNotFoundError:
            continue
        except OSError:
            return False
        if not stat.S_ISREG(info.st_mode):
            return False
    return True


def _connect(path: str) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=True)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
    except BaseException:
        conn.close()
        raise
    return conn


def _read_range(fd: int, start: int, stop: int) -> bytes:
    chunks = []
    position = start
    while position < stop:
        chunk = os.pread(fd, min(stop - position, 1 << 24), position)
        if not chunk:
            break
        chunks.append(chunk)
        position += len(chunk)
    return b"".join(chunks)


class LedgerIndex:
    """An open, up-to-date cache for one ledger and campaign (use under the exclusive lock)."""

    def __init__(self, ledger_path: str, conn: sqlite3.Connection, state: IndexState, rebuilt: bool) -> None:
        self.ledger_path = ledger_path
        self._conn = conn
        self.state = state
        self.rebuilt = rebuilt

    # -- opening -------------------------------------------------------------

    @classmethod
    def synced(
        cls, ledger_path: str | os.PathLike[str], campaign: Campaign, ledger_fd: int | None, *, check: ReceiptCheck
    ) -> LedgerIndex:
        """Open the cache and bring it up to date with the ledger (``ledger_fd`` may be None: no ledger yet).

        If the cache file cannot be used at all (a read-only folder, a full
        disk), the lookups are rebuilt in memory from the ledger instead: slower
        (the whole ledger is read), never less strict.  Data problems in the
        ledger itself always raise :class:`LedgerDataError`; ``check`` validates each receipt read.
        """
        path = os.fspath(ledger_path)
        key = campaign_key(campaign)
        info = os.fstat(ledger_fd) if ledger_fd is not None else None
        try:
            return cls._synced_on_disk(path, key, ledger_fd, info, campaign, check)
        except (OSError, sqlite3.Error):
            remove_index(path, quiet=True)
            return cls._rebuild(path, key, ledger_fd, info, campaign, check, in_memory=True)

    @classmethod
    def _synced_on_disk(
        cls, path: str, key: str, fd: int | None, info: os.stat_result | None, campaign: Campaign, check: ReceiptCheck
    ) -> LedgerIndex:
        conn, state = cls._open_existing(path)
        if conn is not None and state is not None and cls._trustworthy(state, key, info, fd):
            index = cls(path, conn, state, rebuilt=False)
            if info is not None and fd is not None and info.st_size > state.covered:
                try:
                    index._ingest(fd, info, campaign, check)
                except BaseException:
                    conn.close()
                    raise
            return index
        if conn is not None:
            conn.close()
        return cls._rebuild(path, key, fd, info, campaign, check, in_memory=False)

    @staticmethod
    def _open_existing(path: str) -> tuple[sqlite3.Connection | None, IndexState | None]:
        db = index_path_for(path)
        if not os.path.lexists(db) or not _side_files_regular(db):
            return None, None  # rebuilt: a planted link is removed (never written through)
        try:
            conn = _connect(db)
        except sqlite3.Error:
            return None, None
        try:
            row = conn.execute(f"SELECT {_STATE_COLUMNS} FROM state WHERE id = 1").fetchone()
            return conn, _state_from(row)
        except sqlite3.Error:
            conn.close()
            return None, None

    @staticmethod
    def _trustworthy(state: IndexState, key: str, info: os.stat_result | None, fd: int | None) -> bool:
        if state.campaign != key:
            return False
        if info is None:
            return state.covered == 0 and state.count == 0
        if (state.dev, state.ino) != (info.st_dev, info.st_ino) or info.st_size < state.covered:
            return False
        if info.st_size == state.covered and info.st_mtime_ns != state.mtime_ns:
            return False  # same size but touched since: rewritten in place
        if state.covered == 0:
            return True
        assert fd is not None
        tail = _read_range(fd, state.tail_start, state.covered)
        return hashlib.sha256(tail).hexdigest() == state.tail_sha

    @classmethod
    def _rebuild(
        cls,
        path: str,
        key: str,
        fd: int | None,
        info: os.stat_result | None,
        campaign: Campaign,
        check: ReceiptCheck,
        *,
        in_memory: bool,
    ) -> LedgerIndex:
        if in_memory:
            conn = sqlite3.connect(":memory:", isolation_level=None)
        else:
            remove_index(path)
            db = index_path_for(path)
            _create_private(db)
            conn = _connect(db)
        try:
            conn.execute("BEGIN")
            for statement in _SCHEMA:
                conn.execute(statement)
            empty = IndexState(key, info.st_dev if info else 0, info.st_ino if info else 0, 0, 0, 0, "", 0, 0)
            placeholders = ", ".join("?" * len(empty.values()))
            conn.execute(f"INSERT INTO state (id, {_STATE_COLUMNS}) VALUES (1, {placeholders})", empty.values())
            conn.execute("COMMIT")
            index = cls(path, conn, empty, rebuilt=True)
            if info is not None and fd is not None:
                index._ingest(fd, info, campaign, check)
        except BaseException:
            conn.close()
            if not in_memory:
                remove_index(path, quiet=True)
            raise
        return index

    # -- catching up ---------------------------------------------------------

    def _ingest(self, fd: int, info: os.stat_result, campaign: Campaign, check: ReceiptCheck) -> None:
        """Validate and record the complete lines in [covered, size); a torn remainder is left alone."""
        with gc_paused():
            self._ingest_lines(fd, info, campaign, check)

    def _ingest_lines(self, fd: int, info: os.stat_result, campaign: Campaign, check: ReceiptCheck) -> None:
        state = self.state
        data = _read_range(fd, state.covered, info.st_size)
        rows: list[tuple[int, int, int, str, str, str, str]] = []
        ids: dict[str, tuple[str, str, int]] = {}
        runs: dict[tuple[str, str, str], int] = {}
        covered, lines, tail_start = state.covered, state.lines, state.tail_start
        empty = state.count == 0  # nothing to look up in the database yet
        for raw in split_lines(data, first_number=state.lines + 1, base_offset=state.covered):
            if not raw.terminated:
                break
            lines, tail_start, covered = raw.number, raw.start, raw.end
            try:
                text = raw.content.decode("utf-8")
            except UnicodeDecodeError:
                raise LedgerDataError(f"benchmark ledger line {raw.number} is not UTF-8") from None
            if not text.strip():
                continue
            try:
                value = parse_line(text)
            except ValueError:
                raise LedgerDataError(f"benchmark ledger line {raw.number} is not JSON") from None
            try:
                check(value, campaign)
            except LedgerDataError as exc:
                raise LedgerDataError(f"benchmark ledger line {raw.number}: {exc}") from None
            rid, arm, case, repeat = value["receiptId"], value["armId"], value["caseId"], str(value["repeat"])
            earlier = ids.get(rid) or (None if empty else self._line_of_id(rid))
            earlier_run = runs.get((arm, case, repeat)) or (None if empty else self._line_of_run(arm, case, repeat))
            if earlier or earlier_run:
                raise LedgerDataError(
                    "benchmark ledger contains a duplicate receipt or arm/case/repeat "
                    f"(line {raw.number} repeats line {earlier[2] if earlier else earlier_run}); "
                    "run 'evalsite ledger verify'"
                )
            origin = value["rerunOf"]
            if origin is not None:
                owner = ids.get(origin) or (None if empty else self.owner_of(origin))
                if owner is None or owner[:2] != (arm, case):
                    raise LedgerDataError(
                        f"benchmark ledger line {raw.number}: rerunOf must name an earlier receipt "
                        "for the same arm and case"
                    )
            ids[rid] = (arm, case, raw.number)
            runs[(arm, case, repeat)] = raw.number
            rows.append(_row(raw.number, rid, arm, case, repeat))
        if covered == state.covered:
            return
        tail = _read_range(fd, tail_start, covered)
        new_state = IndexState(
            state.campaign,
            info.st_dev,
            info.st_ino,
            covered,
            info.st_mtime_ns,
            tail_start,
            hashlib.sha256(tail).hexdigest(),
            lines,
            state.count + len(rows),
        )
        self._commit(rows, new_state)

    # -- queries and updates -------------------------------------------------

    def _line_of_id(self, rid: str) -> tuple[str, str, int] | None:
        row = self._conn.execute(
            "SELECT arm, kase, line FROM receipt WHERE id_hash = ? AND rid = ?", (_hash64(rid), rid)
        ).fetchone()
        return (row[0], row[1], row[2]) if row else None

    def _line_of_run(self, arm: str, case: str, repeat: str) -> int | None:
        row = self._conn.execute(
            "SELECT line FROM receipt WHERE run_hash = ? AND arm = ? AND kase = ? AND rep = ?",
            (_hash64(arm, case, repeat), arm, case, repeat),
        ).fetchone()
        return row[0] if row else None

    def owner_of(self, rid: str) -> tuple[str, str, int] | None:
        """(arm, case, line) of a receipt already in the ledger."""
        return self._line_of_id(rid)

    def has_id(self, rid: str) -> bool:
        return self._line_of_id(rid) is not None

    def has_run(self, receipt: Mapping[str, Any]) -> bool:
        return self._line_of_run(receipt["armId"], receipt["caseId"], str(receipt["repeat"])) is not None

    def record(self, receipt: Mapping[str, Any], line_start: int, line: bytes, info: os.stat_result) -> None:
        """Note one receipt we just appended (and fsynced) at ``line_start``."""
        state = self.state
        number = state.lines + 1
        new_state = IndexState(
            state.campaign,
            info.st_dev,
            info.st_ino,
            line_start + len(line),
            info.st_mtime_ns,
            line_start,
            hashlib.sha256(line).hexdigest(),
            number,
            state.count + 1,
        )
        row = _row(number, receipt["receiptId"], receipt["armId"], receipt["caseId"], str(receipt["repeat"]))
        self._commit([row], new_state)

    def _commit(self, rows: list[tuple[int, int, int, str, str, str, str]], state: IndexState) -> None:
        conn = self._conn
        try:
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany("INSERT INTO receipt VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
            assignments = ", ".join(f"{name} = ?" for name in _STATE_COLUMNS.split(", "))
            conn.execute(f"UPDATE state SET {assignments} WHERE id = 1", state.values())
            conn.execute("COMMIT")
        except sqlite3.Error:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise
        self.state = state

    def close(self) -> None:
        self._conn.close()


def _row(line: int, rid: str, arm: str, case: str, repeat: str) -> tuple[int, int, int, str, str, str, str]:
    return (line, _hash64(rid), _hash64(arm, case, repeat), rid, arm, case, repeat)
