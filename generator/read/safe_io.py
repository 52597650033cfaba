"""Reading untrusted files without being tricked.

Everything evalsite reads from an experiment or a tasks tree comes through
here.  The rules are those of Comet's strict comparison, stated once:

* a file is read only when it is a regular file reached without passing a
  symbolic link, inside the folder it is allowed to live in;
* it is opened with ``O_NOFOLLOW`` and must stay the same object (device,
  inode, mtime, size) from the first look until the last byte is read, and so
  must every folder between the allowed root and the file;
* it is never larger than its size cap.

Failures are values, not exceptions: :func:`read_contained` returns a
:class:`Refusal` naming the rule that failed, so callers can disclose why a
file was not used.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

_CHUNK = 1 << 20


@dataclass(frozen=True)
class Refusal:
    """Why a file was not read (one short phrase, no paths)."""

    reason: str

    def __bool__(self) -> bool:  # a refusal is never "content"
        return False


def _identity(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)


def _real_directory_chain(root: Path, parent: Path) -> list[tuple[Path, os.stat_result]] | Refusal:
    """lstat every folder from ``root`` down to ``parent``; all must be real folders."""
    try:
        relative = parent.relative_to(root)
    except ValueError:
        return Refusal("outside its allowed folder")
    chain: list[tuple[Path, os.stat_result]] = []
    cursor = root
    for part in ("", *relative.parts):
        cursor = cursor / part if part else cursor
        try:
            info = cursor.lstat()
        except FileNotFoundError:
            return Refusal("missing")
        except OSError:
            return Refusal("folder cannot be inspected")
        if stat.S_ISLNK(info.st_mode):
            return Refusal("a folder on its path is a symbolic link")
        if not stat.S_ISDIR(info.st_mode):
            return Refusal("a folder on its path is not a folder")
        chain.append((cursor, info))
    return chain


def _chain_unchanged(chain: list[tuple[Path, os.stat_result]]) -> bool:
    for path, before in chain:
        try:
            now = path.lstat()
        except OSError:
            return False
        if stat.S_ISLNK(now.st_mode) or not stat.S_ISDIR(now.st_mode):
            return False
        if _identity(now)[:3] != _identity(before)[:3]:
            return False
    return True


def read_contained(path: Path, allowed_root: Path, *, max_bytes: int) -> bytes | Refusal:
    """Read ``path`` if it is a stable regular file strictly under ``allowed_root``.

    ``path`` must already be absolute and normalised (no ``..``); ``allowed_root``
    is resolved here, and must itself be a real folder.
    """
    try:
        root = allowed_root.resolve(strict=True)
    except (OSError, RuntimeError):
        return Refusal("allowed folder is missing")
    chain = _real_directory_chain(root, path.parent)
    if isinstance(chain, Refusal):
        return chain
    try:
        before = path.lstat()
    except FileNotFoundError:
        return Refusal("missing")
    except OSError:
        return Refusal("cannot be inspected")
    if stat.S_ISLNK(before.st_mode):
        return Refusal("is a symbolic link")
    if not stat.S_ISREG(before.st_mode):
        return Refusal("is not a regular file")
    if before.st_size > max_bytes:
        return Refusal("exceeds the size limit")
    if not _chain_unchanged(chain):
        return Refusal("changed during read")
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return Refusal("cannot be opened")
    try:
        opened = os.fstat(fd)
        try:
            after_open = path.lstat()
        except OSError:
            return Refusal("changed during read")
        if (
            not stat.S_ISREG(opened.st_mode)
            or not stat.S_ISREG(after_open.st_mode)
            or _identity(opened) != _identity(before)
            or _identity(after_open) != _identity(before)
            or not _chain_unchanged(chain)
        ):
            return Refusal("changed during read")
        chunks: list[bytes] = []
        remaining = max_bytes + 1
        while remaining > 0:
            chunk = os.read(fd, min(_CHUNK, remaining))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        if remaining == 0:
            return Refusal("exceeds the size limit")
        after_read = os.fstat(fd)
        try:
            after_path = path.lstat()
        except OSError:
            return Refusal("changed during read")
        if (
            stat.S_ISLNK(after_path.st_mode)
            or not stat.S_ISREG(after_path.st_mode)
            or _identity(after_read) != _identity(opened)
            or _identity(after_path) != _identity(opened)
            or not _chain_unchanged(chain)
        ):
            return Refusal("changed during read")
        return b"".join(chunks)
    except OSError:
        return Refusal("cannot be read")
    finally:
        os.close(fd)


def read_regular_file(path: Path, *, max_bytes: int) -> bytes | Refusal:
    """Read one file that must itself be a regular, stable, non-link file.

    Used for files whose location is fixed by the layout (a report inside
    ``reports/``, the expected-case matrix): only the file itself is checked,
    the folder it sits in was chosen by the user.
    """
    try:
        parent = path.parent.resolve(strict=True)
    except (OSError, RuntimeError):
        return Refusal("missing")
    return read_contained(parent / path.name, parent, max_bytes=max_bytes)


def is_real_directory(path: Path) -> bool:
    """True for a folder that is not a symbolic link."""
    try:
        info = path.lstat()
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and not stat.S_ISLNK(info.st_mode)
