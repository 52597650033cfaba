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
    copied to ``<ledger>.repair-<sha256 prefix>.bak`` (0600), written atomically
    and verified (size and SHA-256) before the ledger is touched; an existing
    backup is reused only when it verifies.  The new ledger replaces the old one
    atomically.  Lines it cannot explain are left for a human: it refuses
    instead of guessing.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import stat
import tempfile
from dataclasses import dataclass
from typing import Any

from generator.model.errors import EvalsiteError
from generator.model.ledger import Campaign, LedgerDataError, ReceiptCheck, canonical_bytes, receipt_id
from generator.read.ledger.files import (
    LEDGER_SIZE_CAP,
    LedgerLock,
    parse_line,
    resolve_ledger,
    size_text,
    split_lines,
)
from generator.read.safe_io import Refusal, open_regular
from generator.write.files import fsync_folder
from generator.write.ledger.index import LedgerIndex, remove_index

__all__ = ["AppendResult", "RepairReport", "append_receipt", "repair_ledger"]

# The resolved ledger is opened without following a link (one swapped in is refused) and without
# blocking (a FIFO swapped in fails at once).
_NO_FOLLOW = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


@dataclass(frozen=True)
class AppendResult:
    appended: bool
    receipt_id: str
    count: int

    def as_dict(self) -> dict[str, Any]:
        return {"appended": self.appended, "count": self.count, "receiptId": self.receipt_id}


def _ensure_folder(path: str) -> str:
    folder = os.path.dirname(path)
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
    except OSError as exc:
        raise EvalsiteError(f"could not create the ledger folder ({exc.__class__.__name__})") from exc
    return folder


def _reason(exc: OSError) -> str:
    return exc.strerror or exc.__class__.__name__


def _refuse_non_regular(path: str) -> bool:
    """True when the (resolved) ledger exists; refuses anything but a regular file before opening it."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise EvalsiteError(f"could not open ledger ({_reason(exc)})") from exc
    if not stat.S_ISREG(info.st_mode):
        raise EvalsiteError("could not open ledger (it is not a regular file)")
    return True


def _checked_fd(fd: int) -> int:
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise EvalsiteError("could not open ledger (it is not a regular file)")
    if info.st_size > LEDGER_SIZE_CAP:
        os.close(fd)
        raise EvalsiteError(f"could not read ledger (larger than the {size_text(LEDGER_SIZE_CAP)} limit)")
    return fd


def _open_existing(path: str) -> int | None:
    if not _refuse_non_regular(path):
        return None
    try:
        return _checked_fd(os.open(path, os.O_RDWR | os.O_APPEND | _NO_FOLLOW))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise EvalsiteError(f"could not open ledger ({_reason(exc)})") from exc


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
    path = resolve_ledger(ledger_path)
    _refuse_non_regular(path)
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
        try:  # O_EXCL: the file is ours, so its mode may be set
            write_fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | _NO_FOLLOW, 0o600)
        except FileExistsError as exc:
            raise EvalsiteError("the ledger path changed while appending; nothing was appended") from exc
        except OSError as exc:
            raise EvalsiteError(f"could not create ledger ({exc.__class__.__name__})") from exc
        with contextlib.suppress(OSError):
            os.fchmod(write_fd, 0o600)
    try:
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


def _discard(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def _write_temp(folder: str, data: bytes, *, mode: int) -> str:
    """A new private file in ``folder`` holding ``data``, synced; nothing is left behind on failure."""
    fd, temp = tempfile.mkstemp(dir=folder, prefix=".evalsite-ledger-", suffix=".tmp")
    try:
        try:
            os.fchmod(fd, mode)
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:
        _discard(temp)
        raise
    return temp


def _read_regular(path: str, limit: int) -> bytes | None:
    """Up to ``limit`` bytes of a regular file reached without a link; None for anything else."""
    fd = open_regular(path)
    if isinstance(fd, Refusal):
        return None
    with os.fdopen(fd, "rb") as handle:
        return handle.read(limit)


def _backup_state(name: str, data: bytes, digest: str) -> str:
    """``absent``, ``verified`` (the same size and digest), ``torn`` (a cut-short copy) or ``foreign``."""
    if not os.path.lexists(name):
        return "absent"
    found = _read_regular(name, len(data) + 1)
    if found is None:
        return "foreign"
    if len(found) == len(data) and hashlib.sha256(found).hexdigest() == digest:
        return "verified"
    return "torn" if len(found) < len(data) and data.startswith(found) else "foreign"


def _save_backup(path: str, folder: str, data: bytes) -> str:
    """A complete, verified copy of ``data`` beside the ledger, written atomically; returns its path.

    An existing backup of the same bytes is reused only when it verifies (size and SHA-256); one left
    cut short by an earlier repair is replaced; a file of other content under that name is kept and
    the next free name is used.
    """
    digest = hashlib.sha256(data).hexdigest()
    for number in range(1, 101):
        name = f"{path}.repair-{digest[:16]}" + (".bak" if number == 1 else f"-{number}.bak")
        state = _backup_state(name, data, digest)
        if state == "verified":
            return name
        if state == "foreign":
            continue
        temp = _write_temp(folder, data, mode=0o600)
        try:
            os.replace(temp, name)
        except BaseException:
            _discard(temp)
            raise
        fsync_folder(folder)
        if _backup_state(name, data, digest) != "verified":
            raise EvalsiteError("the ledger backup did not verify after writing it; the ledger was not changed")
        return name
    raise EvalsiteError("no free name for the ledger backup (100 foreign files in the way); the ledger was not changed")


def _read_for_repair(path: str) -> tuple[bytes, int]:
    fd = open_regular(path)
    if isinstance(fd, Refusal):
        raise EvalsiteError(f"could not read ledger ({fd.reason})")
    with os.fdopen(fd, "rb") as handle:
        try:
            info = os.fstat(handle.fileno())
            if info.st_size > LEDGER_SIZE_CAP:
                raise EvalsiteError(f"could not read ledger (larger than the {size_text(LEDGER_SIZE_CAP)} limit)")
            return handle.read(), stat.S_IMODE(info.st_mode)
        except OSError as exc:
            raise EvalsiteError(f"could not read ledger ({_reason(exc)})") from exc


def repair_ledger(ledger_path: str | os.PathLike[str], *, dry_run: bool = False) -> RepairReport:
    """Fix a torn tail (and glued lines) after saving a backup; see the module docstring.

    A ledger reached through a symbolic link is repaired where it lives (the link stays); the
    backup and the replacement are written next to it.  The repaired ledger keeps the original's
    permission bits.  Any failure before the final rename leaves the ledger as it was.
    """
    path = resolve_ledger(ledger_path)
    if not _refuse_non_regular(path):
        return RepairReport((), None, 0, 0, dry_run)
    folder = os.path.dirname(path)
    with LedgerLock(path, exclusive=True):
        data, mode = _read_for_repair(path)
        repaired, actions, before, after = _plan_repair(data)
        if not actions or dry_run:
            return RepairReport(tuple(actions), None, before, after, dry_run)
        try:
            backup = _save_backup(path, folder, data)
        except OSError as exc:
            raise EvalsiteError(
                f"could not write the ledger backup ({_reason(exc)}); the ledger was not changed"
            ) from exc
        try:
            temp = _write_temp(folder, repaired, mode=mode)
            try:
                os.replace(temp, path)
            except BaseException:
                _discard(temp)
                raise
        except OSError as exc:
            raise EvalsiteError(
                f"could not write the repaired ledger ({_reason(exc)}); the ledger was not changed "
                f"(its backup is {os.path.basename(backup)})"
            ) from exc
        fsync_folder(folder)
        remove_index(path, quiet=True)
        return RepairReport(tuple(actions), backup, before, after, dry_run)
