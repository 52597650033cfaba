"""Writing one file so that readers see the old content or the new, never half.

:func:`write_atomic` is the one atomic writer: the bytes go to a sibling temporary file created
with the final mode, are fsynced, renamed over the target, and the folder is fsynced.  A failure
leaves the old file (or nothing) and no temporary file behind.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from generator.model.errors import EvalsiteError

__all__ = ["fsync_folder", "write_atomic", "write_text_atomic"]


def fsync_folder(folder: str | os.PathLike[str]) -> None:
    """Make a rename inside ``folder`` durable (silently skipped where the filesystem refuses)."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some filesystems refuse to fsync folders; the data itself is synced
    finally:
        os.close(fd)


def write_atomic(path: str | os.PathLike[str], data: bytes, *, mode: int = 0o644, make_parents: bool = False) -> None:
    """Write ``data`` to ``path`` atomically with permission bits ``mode``.

    Refuses to replace a symbolic link or anything but a regular file.  ``make_parents`` creates a
    missing folder (private, 0700) instead of failing.  I/O failures raise :class:`EvalsiteError`.
    """
    target = Path(path)
    name = target.name or str(target)
    folder = target.parent if str(target.parent) else Path(".")
    if make_parents:
        try:
            os.makedirs(folder, mode=0o700, exist_ok=True)
        except OSError as exc:
            raise EvalsiteError(f"could not write output ({exc.__class__.__name__})") from exc
    if not folder.is_dir():
        raise EvalsiteError(f"output folder for {name!r} does not exist")
    if target.is_symlink() or (target.exists() and not target.is_file()):
        raise EvalsiteError(f"refusing to replace {name!r}: it is not a regular file")
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise EvalsiteError(f"could not write output ({exc.__class__.__name__})") from exc
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(exc, OSError):
            raise EvalsiteError(f"could not write output ({exc.__class__.__name__})") from exc
        raise
    fsync_folder(folder)


def write_text_atomic(
    path: str | os.PathLike[str], text: str, *, mode: int = 0o644, make_parents: bool = False
) -> None:
    """:func:`write_atomic` for UTF-8 text (newlines as given)."""
    write_atomic(path, text.encode("utf-8"), mode=mode, make_parents=make_parents)
