"""Content digests of the inputs a site was built from ("Built from" on every page).

Every file is opened through :func:`generator.read.safe_io.open_regular`: never through a link,
never blocking on a FIFO or device swapped in for a file.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from generator.model.common import sha256_label
from generator.model.errors import EvalsiteError
from generator.read.safe_io import Refusal, open_regular

__all__ = ["file_digest", "tree_digest"]


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


def tree_digest(root: Path) -> tuple[str, int]:
    """SHA-256 over the sorted relative paths and contents of every regular file.

    Each file contributes ``<relative posix path> NUL <sha256 hex> LF``;
    symlinks contribute ``<path> NUL symlink LF`` and are never followed.
    Returns the digest and the number of files.
    """
    lines: list[bytes] = []
    count = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]):
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, root).replace(os.sep, "/").encode("utf-8", "surrogateescape")
            mode = os.lstat(full).st_mode
            if stat.S_ISLNK(mode):
                lines.append(rel + b"\0symlink\n")
            elif stat.S_ISREG(mode):
                lines.append(rel + b"\0" + _hash_open(full, "input file").encode() + b"\n")
                count += 1
        dirnames[:] = [d for d in dirnames if not os.path.islink(os.path.join(dirpath, d))]
    lines.sort()
    return sha256_label(hashlib.sha256(b"".join(lines)).hexdigest()), count
