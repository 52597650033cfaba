"""Content digests of the inputs a site was built from ("Built from" on every page).

Every file is opened through :func:`generator.read.safe_io.open_regular`: never through a link,
never blocking on a FIFO or device swapped in for a file.

A folder's digest reads at most :data:`TREE_FILE_CAP` bytes of each file (the
largest raw stdout a comparison reads): a larger file contributes its size and
the SHA-256 of its first 64 MiB instead of its whole content, so a 16 GB
sparse file cannot stall a build, and the page's "Built from" detail says how
many files were hashed that way.

A file that :func:`generator.read.safe_io.read_contained` has already read while digests were
being recorded (``recording_digests``: the site build, around each comparison) is not read
again: its recorded SHA-256 is used when its identity (device, inode, mtime, size) is still the
one it was read with, which is the same test ``read_contained`` uses for "unchanged".
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from generator.model.common import sha256_label
from generator.model.errors import EvalsiteError
from generator.read.safe_io import Refusal, open_regular, recorded_digest

__all__ = ["TREE_FILE_CAP", "TreeDigest", "file_digest", "tree_digest", "tree_digest_of"]

TREE_FILE_CAP = 64 * 1024 * 1024
_CHUNK = 1 << 20


@dataclass(frozen=True)
class TreeDigest:
    digest: str  # sha256:<hex>
    files: int
    partial: int  # files over TREE_FILE_CAP, hashed by size and their first TREE_FILE_CAP bytes

    @property
    def detail(self) -> str:
        """The "Built from" detail: how many files, and how many were hashed in part."""
        text = f"folder of {self.files:,} files"
        if self.partial:
            text += (
                f"; {self.partial:,} file(s) over {TREE_FILE_CAP // (1024 * 1024)} MiB hashed by size"
                f" and first {TREE_FILE_CAP // (1024 * 1024)} MiB"
            )
        return text


def _hash_open(path: str | os.PathLike[str], what: str) -> str:
    fd = open_regular(path)
    if isinstance(fd, Refusal):
        reason = "is missing" if fd.reason == "missing" else fd.reason
        raise EvalsiteError(f"{what} {Path(path).name!r} cannot be hashed: it {reason}")
    with os.fdopen(fd, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def file_digest(path: Path, what: str = "input file") -> str:
    """``sha256:<hex>`` of one regular file."""
    return sha256_label(_hash_open(path, what))


def _hash_head(path: str, what: str) -> tuple[str, int | None]:
    """SHA-256 hex of a file, or of its first :data:`TREE_FILE_CAP` bytes with its size when it is larger."""
    fd = open_regular(path)
    if isinstance(fd, Refusal):
        reason = "is missing" if fd.reason == "missing" else fd.reason
        raise EvalsiteError(f"{what} {Path(path).name!r} cannot be hashed: it {reason}")
    with os.fdopen(fd, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size <= TREE_FILE_CAP:
            return hashlib.file_digest(handle, "sha256").hexdigest(), None
        digest = hashlib.sha256()
        left = TREE_FILE_CAP
        while left and (chunk := handle.read(min(_CHUNK, left))):
            digest.update(chunk)
            left -= len(chunk)
        return digest.hexdigest(), size


def tree_digest(root: Path) -> tuple[str, int]:
    """``(digest, number of files)`` of :func:`tree_digest_of`."""
    found = tree_digest_of(root)
    return found.digest, found.files


def tree_digest_of(root: Path) -> TreeDigest:
    """SHA-256 over the sorted relative paths and contents of every regular file.

    Each file contributes ``<relative posix path> NUL <sha256 hex> LF``, or,
    when it is larger than :data:`TREE_FILE_CAP`, ``<path> NUL <sha256 hex of
    its first TREE_FILE_CAP bytes> NUL size=<bytes> LF``; symlinks contribute
    ``<path> NUL symlink LF`` and are never followed.
    """
    lines: list[bytes] = []
    count = 0
    partial = 0
    # os.walk's traversal (folders it cannot list are skipped; links never followed), one lstat per
    # entry and the relative path built as it goes (no relpath per file: 40,000 files at 1,000 x 10)
    folders: list[tuple[str, bytes]] = [(os.fspath(root), b"")]
    while folders:
        folder, prefix = folders.pop()
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError:
            continue
        for entry in entries:
            rel = prefix + entry.name.encode("utf-8", "surrogateescape")
            info = entry.stat(follow_symlinks=False)
            mode = info.st_mode
            if stat.S_ISLNK(mode):
                lines.append(rel + b"\0symlink\n")
            elif stat.S_ISDIR(mode):
                folders.append((entry.path, rel + b"/"))
            elif stat.S_ISREG(mode):
                known = recorded_digest(info) if info.st_size <= TREE_FILE_CAP else None
                hexdigest, size = (known, None) if known is not None else _hash_head(entry.path, "input file")
                tail = b"" if size is None else f"\0size={size}".encode()
                lines.append(rel + b"\0" + hexdigest.encode() + tail + b"\n")
                count += 1
                partial += size is not None
    lines.sort()
    return TreeDigest(sha256_label(hashlib.sha256(b"".join(lines)).hexdigest()), count, partial)
