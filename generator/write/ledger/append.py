"""Changing a benchmark ledger: append, repair, and atomic JSON output.

``append_receipt(ledger_path, campaign, receipt, *, check) -> AppendResult``
    The upstream append protocol, made size-independent and torn-safe (``check`` is the receipt
    validator, ``generator.analyze.ledger.receipt.check_receipt``; the pipeline passes it):

    1. validate the receipt against the campaign (before touching any file);
    2. create the ledger's folder if needed (0700) and take ``flock(LOCK_EX)``
       on ``<ledger>.lock`` (0600) -- the same lock the upstream tool takes, so
       both tools can append to one ledger concurrently;
    3. bring the lookup cache (:mod:`generator.write.ledger.index`) up to
       date; it re-reads nothing it has already validated;
    4. refuse a ledger whose last line has no line end (a torn write), naming
       that line -- never glue a receipt onto it;
    5. the same receiptId already present -> ``appended: false`` (idempotent);
       the same arm/case/repeat with another id -> refused; a ``rerunOf`` that
       names no earlier receipt of the same arm and case -> refused;
    6. write ``canonical + "\\n"`` with ``O_APPEND`` (file mode 0600), fsync it,
       fsync the folder when the ledger was just created, then record the
       receipt in the cache.

``repair_ledger(ledger_path, dry_run=False) -> RepairReport``
    The only command that rewrites existing ledger bytes.  Under the
    exclusive lock it: adds the missing newline to a complete last line; sets
    aside an unterminated fragment; splits a receipt that an older tool glued
    onto a torn fragment back onto its own line.  The original file is first
    copied to ``<ledger>.repair-<sha256 prefix>.bak`` (0600); the new ledger
    replaces the old one atomically.  Lines it cannot explain are left for a
    human: it refuses instead of guessing.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import tempfile
from dataclasses import dataclass
from typing import Any

from generator.model.errors import EvalsiteError
from generator.model.ledger import Campaign, LedgerDataError, ReceiptCheck, canonical_bytes, receipt_id
from generator.read.ledger.files import LedgerLock, parse_line, split_lines
from generator.write.files import fsync_folder
from generator.write.ledger.index import LedgerIndex, remove_index

__all__ = ["AppendResult", "RepairReport", "append_receipt", "repair_ledger"]


@dataclass(frozen=True)
class AppendResult:
    appended: bool
    receipt_id: str
    count: int

    def as_dict(self) -> dict[str, Any]:
        return {"appended": self.appended, "count": self.count, "receiptId": self.receipt_id}


def _ensure_folder(path: str) -> str:
    folder = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
    except OSError as exc:
        raise EvalsiteError(f"could not create the ledger folder ({exc.__class__.__name__})") from exc
    return folder


def _open_existing(path: str) -> int | None:
    try:
        return os.open(path, os.O_RDWR | os.O_APPEND | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise EvalsiteError(f"could not open ledger ({exc.__class__.__name__})") from exc


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _torn_line_error(line: int) -> EvalsiteError:
    return EvalsiteError(
        f"benchmark ledger line {line} has no trailing newline (a torn write); nothing was appended. "
        "Run 'evalsite ledger repair --ledger <ledger>' (it keeps a backup), then append again"
    )


def append_receipt(
    ledger_path: str | os.PathLike[str], campaign: Campaign, receipt: Any, *, check: ReceiptCheck
) -> AppendResult:
    """Append one receipt (see the module docstring for the protocol)."""
    check(receipt, campaign)
    line = canonical_bytes(receipt) + b"\n"
    rid = receipt["receiptId"]
    path = os.fspath(ledger_path)
    folder = _ensure_folder(path)
    with LedgerLock(path, exclusive=True):
        fd = _open_existing(path)
        try:
            try:
                index = LedgerIndex.synced(path, campaign, fd, check=check)
            except OSError as exc:
                raise EvalsiteError(f"could not read ledger ({exc.strerror or exc.__class__.__name__})") from exc
            try:
                return _append_locked(path, folder, fd, index, receipt, line, rid)
            finally:
                index.close()
        finally:
            if fd is not None:
                os.close(fd)


def _append_locked(
    path: str, folder: str, fd: int | None, index: LedgerIndex, receipt: Any, line: bytes, rid: str
) -> AppendResult:
    if fd is not None:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) not in (b"\n", b"\r"):
            raise _torn_line_error(index.state.lines + 1)
    if index.has_id(rid):
        return AppendResult(False, rid, index.state.count)
    if index.has_run(receipt):
        raise LedgerDataError("arm/case/repeat already has a different immutable receipt")
    origin = receipt["rerunOf"]
    if origin is not None:
        owner = index.owner_of(origin)
        if owner is None or owner[:2] != (receipt["armId"], receipt["caseId"]):
            raise LedgerDataError("rerunOf must name an earlier receipt for the same arm and case")
    created = fd is None
    write_fd = fd
    if write_fd is None:
        try:
            write_fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise EvalsiteError(f"could not create ledger ({exc.__class__.__name__})") from exc
    try:
        os.fchmod(write_fd, 0o600)
        start = os.fstat(write_fd).st_size
        try:
            _write_all(write_fd, line)
            os.fsync(write_fd)
        except OSError as exc:
            try:  # leave no torn line behind
                os.ftruncate(write_fd, start)
                os.fsync(write_fd)
            except OSError:
                pass
            raise EvalsiteError(f"could not append to ledger ({exc.strerror or exc.__class__.__name__})") from exc
        if created:
            fsync_folder(folder)
        count = index.state.count + 1
        try:
            index.record(receipt, start, line, os.fstat(write_fd))
        except (sqlite3.Error, OSError):
            remove_index(path, quiet=True)  # the receipt is safely in the ledger; the cache rebuilds next time
        return AppendResult(True, rid, count)
    finally:
        if created:
            os.close(write_fd)


# --------------------------------------------------------------------------
# Repair


@dataclass(frozen=True)
class RepairAction:
    line: int
    action: str  # "newline_added", "fragment_set_aside", "glued_split"
    detail: str


@dataclass(frozen=True)
class RepairReport:
    actions: tuple[RepairAction, ...]
    backup: str | None
    receipts_before: int
    receipts_after: int
    dry_run: bool

    @property
    def changed(self) -> bool:
        return bool(self.actions)


def _whole_receipt(text: str) -> bool:
    """A JSON object that carries its own correct bench1: address."""
    try:
        value = parse_line(text)
    except ValueError:
        return False
    if not isinstance(value, dict) or not isinstance(value.get("receiptId"), str):
        return False
    try:
        return bool(value["receiptId"] == receipt_id(value))
    except LedgerDataError:
        return False


def _glued_suffix(content: bytes) -> int | None:
    """Offset of a complete, self-addressed receipt that ends this line after a torn fragment."""
    position = content.find(b"{", 1)
    while position != -1:
        try:
            tail = content[position:].decode("utf-8")
        except UnicodeDecodeError:
            tail = None
        if tail is not None and _whole_receipt(tail):
            return position
        position = content.find(b"{", position + 1)
    return None


def _plan_repair(data: bytes) -> tuple[bytes, list[RepairAction], int, int]:
    out: list[bytes] = []
    actions: list[RepairAction] = []
    before = after = 0
    for raw in split_lines(data):
        ending = data[raw.start + len(raw.content) : raw.end] or b"\n"
        try:
            text = raw.content.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is not None and not text.strip():
            out.append(raw.content + ending)
            continue
        parses = False
        if text is not None:
            try:
                parse_line(text)
                parses = True
            except ValueError:
                parses = False
        if parses:
            before += 1
            after += 1
            out.append(raw.content + ending)
            if not raw.terminated:
                detail = "the last line was complete JSON without a newline"
                actions.append(RepairAction(raw.number, "newline_added", detail))
            continue
        cut = _glued_suffix(raw.content)
        if cut is not None:
            after += 1
            out.append(raw.content[cut:] + ending)
            actions.append(
                RepairAction(
                    raw.number, "glued_split", f"set aside a {cut}-byte torn fragment; kept the receipt glued after it"
                )
            )
            continue
        if not raw.terminated:
            actions.append(
                RepairAction(raw.number, "fragment_set_aside", f"set aside {len(raw.content)} bytes of a torn write")
            )
            continue
        raise EvalsiteError(
            f"benchmark ledger line {raw.number} is not JSON and is not a torn tail; "
            "repair will not guess -- fix it by hand (run 'evalsite ledger verify' for details)"
        )
    return b"".join(out), actions, before, after


def _write_private(path: str, data: bytes, *, exclusive: bool) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC | (os.O_EXCL if exclusive else os.O_TRUNC)
    fd = os.open(path, flags, 0o600)
    try:
        os.fchmod(fd, 0o600)
        _write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def _discard(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def _replace_with(temp: str, target: str, data: bytes) -> None:
    """Fill ``temp`` (private, synced), then rename it over ``target``; no temp file survives a failure."""
    moved = False
    try:
        _write_private(temp, data, exclusive=False)
        os.replace(temp, target)
        moved = True
    finally:
        if not moved:
            _discard(temp)


def repair_ledger(ledger_path: str | os.PathLike[str], *, dry_run: bool = False) -> RepairReport:
    """Fix a torn tail (and glued lines) after saving a backup; see the module docstring."""
    path = os.fspath(ledger_path)
    if not os.path.exists(path):
        return RepairReport((), None, 0, 0, dry_run)
    folder = _ensure_folder(path)
    with LedgerLock(path, exclusive=True):
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError as exc:
            raise EvalsiteError(f"could not read ledger ({exc.__class__.__name__})") from exc
        repaired, actions, before, after = _plan_repair(data)
        if not actions or dry_run:
            return RepairReport(tuple(actions), None, before, after, dry_run)
        backup = f"{path}.repair-{hashlib.sha256(data).hexdigest()[:16]}.bak"
        if not os.path.exists(backup):
            _write_private(backup, data, exclusive=True)
        handle_fd, temp = tempfile.mkstemp(dir=folder, prefix=".evalsite-ledger-", suffix=".tmp")
        os.close(handle_fd)
        _replace_with(temp, path, repaired)
        fsync_folder(folder)
        remove_index(path, quiet=True)
        return RepairReport(tuple(actions), backup, before, after, dry_run)
