"""Reading untrusted files without being tricked.

Everything evalsite reads from an experiment or a tasks tree comes through
here.  The rules are those of Comet's strict comparison, stated once:

* a file is read only when it is a regular file reached without passing a
  symbolic link, inside the folder it is allowed to live in;
* it is opened with ``O_NOFOLLOW`` and must stay the same object (device,
  inode, mtime, size) from the first look until the last byte is read; every
  folder between the allowed root and the file must be a real folder, and
  unchanged from before the file was looked at until after (so the object
  looked at was inside the root, and the descriptor opened is that object);
* it is never larger than its size cap;
* it is opened with ``O_NONBLOCK``, so a FIFO or device swapped in for a file
  fails at once instead of hanging the command.

Failures are values, not exceptions: :func:`read_contained` returns a
:class:`Refusal` naming the rule that failed, so callers can disclose why a
file was not used.  (Paths are handled as strings internally: this runs once
per report and per transcript, and pathlib's overhead showed in profiles.)
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

_CHUNK = 1 << 20
# O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK


@dataclass(frozen=True)
class Refusal:
    """Why a file was not read (one short phrase, no paths)."""

    reason: str

    def __bool__(self) -> bool:  # a refusal is never "content"
        return False


def _identity(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)


Chain = list[tuple[str, os.stat_result]]

Identity = tuple[int, int, int, int]
# While a site is built, the SHA-256 of every file read here, by its identity: the "Built from"
# digests then need not read the inputs a second time (see ``generator.read.digests``).
_RECORDED: dict[Identity, str] | None = None


@contextlib.contextmanager
def recording_digests() -> Iterator[None]:
    """Remember the SHA-256 of every file :func:`read_contained` reads, until the block ends."""
    global _RECORDED
    outer = _RECORDED
    _RECORDED = {} if outer is None else outer
    try:
        yield
    finally:
        _RECORDED = outer


def recorded_digest(info: os.stat_result) -> str | None:
    """The hex SHA-256 of the bytes read from the file with this identity, if it was read."""
    return None if _RECORDED is None else _RECORDED.get(_identity(info))


def take_recorded() -> dict[Identity, str]:
    """The digests recorded so far, handed over and forgotten (a pool worker returns them)."""
    if _RECORDED is None:
        return {}
    taken = dict(_RECORDED)
    _RECORDED.clear()
    return taken


def merge_recorded(digests: dict[Identity, str]) -> None:
    """Add digests recorded in another process (a pool worker forked while recording)."""
    if _RECORDED is not None:
        _RECORDED.update(digests)


def _real_directory_chain(root: str, parent: str) -> Chain | Refusal:
    """lstat every folder from ``root`` down to ``parent``; all must be real folders."""
    if parent == root:
        relative: list[str] = []
    elif parent.startswith(root.rstrip(os.sep) + os.sep):
        relative = parent[len(root.rstrip(os.sep)) + 1 :].split(os.sep)
    else:
        return Refusal("outside its allowed folder")
    chain: Chain = []
    cursor = root
    for part in ("", *relative):
        if part:
            cursor = os.path.join(cursor, part)
        try:
            info = os.lstat(cursor)
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


def _lstat_regular(path: str | os.PathLike[str]) -> os.stat_result | Refusal:
    """``lstat`` of a path that must be a regular file itself (not a link, FIFO or device)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return Refusal("missing")
    except OSError:
        return Refusal("cannot be inspected")
    if stat.S_ISLNK(info.st_mode):
        return Refusal("is a symbolic link")
    if not stat.S_ISREG(info.st_mode):
        return Refusal("is not a regular file")
    return info


def _chain_unchanged(chain: Chain) -> bool:
    for path, before in chain:
        try:
            now = os.lstat(path)
        except OSError:
            return False
        if stat.S_ISLNK(now.st_mode) or not stat.S_ISDIR(now.st_mode):
            return False
        if (now.st_dev, now.st_ino, now.st_mtime_ns) != (before.st_dev, before.st_ino, before.st_mtime_ns):
            return False
    return True


def resolve_root(allowed_root: Path | str) -> str | None:
    """The real path of an allowed root folder, or None when it does not exist."""
    try:
        return str(Path(allowed_root).resolve(strict=True))
    except (OSError, RuntimeError):
        return None


class Batch:
    """The folders looked at during :func:`batched_reads`, each checked again when the batch ends."""

    def __init__(self) -> None:
        self.chains: dict[tuple[str, str], Chain] = {}
        self.folders: dict[str, os.stat_result] = {}
        self.unchanged = True  # set when the batch ends: every folder looked at is as it was


_BATCH: Batch | None = None


@contextlib.contextmanager
def batched_reads() -> Iterator[Batch]:
    """Read many files under the same folders with one look at each folder before and one after.

    Inside the block, :func:`read_contained` (with a resolved root) checks the folders from the
    root down to a file once, when it first needs them, and :func:`real_folder_info` remembers
    what it saw; each file is then opened with ``O_NOFOLLOW | O_NONBLOCK``, must be a regular
    file within its size cap, and must keep its identity until its last byte is read.  When the
    block ends every folder is looked at again: ``batch.unchanged`` is False when any changed,
    and the caller must then read the batch again outside a batch.  Every file opened in the block
    was reached through the same real folders (looked at before and after), which is what the
    per-file checks prove.  Anything unusual about a file (missing, a link, a FIFO, too large,
    changed, a short read) sends it through the per-file checks, which name the refusal.
    """
    global _BATCH
    outer = _BATCH
    batch = Batch()
    _BATCH = batch
    try:
        yield batch
    finally:
        _BATCH = outer
        looked = dict(batch.folders)
        for chain in batch.chains.values():
            looked.update(chain)
        batch.unchanged = _chain_unchanged(list(looked.items()))


def real_folder_info(path: str) -> os.stat_result:
    """``os.lstat(path)``; inside :func:`batched_reads` a real folder's answer is kept (and checked at the end)."""
    batch = _BATCH
    if batch is not None:
        seen = batch.folders.get(path)
        if seen is not None:
            return seen
    info = os.lstat(path)
    if batch is not None and stat.S_ISDIR(info.st_mode) and not stat.S_ISLNK(info.st_mode):
        batch.folders[path] = info
    return info


def _read_batched(path: str, root: str, max_bytes: int, batch: Batch) -> bytes | None:
    """The file's bytes read with the batch's folder checks, or None: read it with the per-file checks."""
    parent = os.path.dirname(path)
    chain = batch.chains.get((root, parent))
    if chain is None:
        found = _real_directory_chain(root, parent)
        if isinstance(found, Refusal):
            return None
        chain = batch.chains[(root, parent)] = found
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError:
        return None
    try:
        opened = os.fstat(fd)
        size = opened.st_size
        if not stat.S_ISREG(opened.st_mode) or size > max_bytes:
            return None
        data = os.read(fd, size + 1)
        # a short read, or a file that grew: the per-file checks read it (and say why not)
        if len(data) != size or _identity(os.fstat(fd)) != _identity(opened):
            return None
    except OSError:
        return None
    finally:
        os.close(fd)
    if _RECORDED is not None:
        _RECORDED[_identity(opened)] = hashlib.sha256(data).hexdigest()
    return data


def _read_capped(fd: int, max_bytes: int) -> bytes | None:
    """The descriptor's bytes to its end, read at most one byte past ``max_bytes``; None when over it."""
    chunks: list[bytes] = []
    remaining = max_bytes + 1
    while remaining > 0:
        chunk = os.read(fd, min(_CHUNK, remaining))
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    if remaining == 0:
        return None
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def read_contained(
    path: Path | str,
    allowed_root: Path | str,
    *,
    max_bytes: int,
    root_is_resolved: bool = False,
) -> bytes | Refusal:
    """Read ``path`` if it is a stable regular file strictly under ``allowed_root``.

    ``path`` must already be absolute and normalised (no ``..``).  The root is
    resolved here unless the caller says it already is.  Inside :func:`batched_reads` the
    folders are looked at once per batch (the same rules, fewer system calls).
    """
    if _BATCH is not None and root_is_resolved:
        data = _read_batched(str(path), str(allowed_root), max_bytes, _BATCH)
        if data is not None:
            return data
    root = str(allowed_root) if root_is_resolved else resolve_root(allowed_root)
    if root is None:
        return Refusal("allowed folder is missing")
    path = str(path)
    chain = _real_directory_chain(root, os.path.dirname(path))
    if isinstance(chain, Refusal):
        return chain
    before = _lstat_regular(path)
    if isinstance(before, Refusal):
        return before
    if before.st_size > max_bytes:
        return Refusal("exceeds the size limit")
    if not _chain_unchanged(chain):
        return Refusal("changed during read")
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError:
        return Refusal("cannot be opened")
    try:
        # The descriptor is the object that was checked (same device, inode, mtime and size): the
        # file was inside the root when it was looked at, and reading the descriptor reads it, so
        # the path and its folders need no second look.  The size and mtime must hold to the end.
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode) or _identity(opened) != _identity(before):
            return Refusal("changed during read")
        data = _read_capped(fd, max_bytes)
        if data is None:
            return Refusal("exceeds the size limit")
        if _identity(os.fstat(fd)) != _identity(opened):
            return Refusal("changed during read")
        if _RECORDED is not None:
            _RECORDED[_identity(opened)] = hashlib.sha256(data).hexdigest()
        return data
    except OSError:
        return Refusal("cannot be read")
    finally:
        os.close(fd)


def read_regular_file(path: Path, *, max_bytes: int) -> bytes | Refusal:
    """Read one file that must itself be a regular, stable, non-link file.

    Used for files whose location is fixed by the layout (the expected-case
    matrix, a task's instruction): only the file itself is checked, the folder
    it sits in was chosen by the user.
    """
    parent = resolve_root(path.parent)
    if parent is None:
        return Refusal("missing")
    return read_contained(os.path.join(parent, path.name), parent, max_bytes=max_bytes, root_is_resolved=True)


def read_named_file(path: str | os.PathLike[str], *, max_bytes: int) -> bytes | Refusal:
    """Read a file the user named on the command line or in the config (the site config, say).

    The user chose the path, so a link they named is followed, once: the path is resolved, then the
    file it names is read like any other (:func:`open_regular`: ``O_NOFOLLOW | O_NONBLOCK``, a FIFO,
    device or folder refused at once, never blocking) and never past ``max_bytes``.
    """
    fd = open_regular(os.path.realpath(os.fspath(path)))
    if isinstance(fd, Refusal):
        return fd
    try:
        data = None if os.fstat(fd).st_size > max_bytes else _read_capped(fd, max_bytes)
    except OSError:
        return Refusal("cannot be read")
    finally:
        os.close(fd)
    return Refusal("exceeds the size limit") if data is None else data


def is_real_directory(path: Path | str) -> bool:
    """True for a folder that is not a symbolic link."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and not stat.S_ISLNK(info.st_mode)


def open_regular(path: str | os.PathLike[str]) -> int | Refusal:
    """Open a file for reading only if it is a regular file that is not a link.

    ``lstat`` before, ``O_NOFOLLOW | O_NONBLOCK`` to open (a FIFO swapped in never blocks), and
    ``fstat`` after: the descriptor must be a regular file.  The caller closes the descriptor.
    """
    before = _lstat_regular(path)
    if isinstance(before, Refusal):
        return before
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError:
        return Refusal("cannot be opened")
    opened = os.fstat(fd)
    if not stat.S_ISREG(opened.st_mode) or (opened.st_dev, opened.st_ino) != (before.st_dev, before.st_ino):
        os.close(fd)
        return Refusal("changed during read")
    return fd
