"""The folders a build writes into, and what a killed build leaves behind.

A build writes its site into a fresh sibling folder ``.<out>.building-*`` and swaps it in whole
(``write/site.py``).  A build killed on the way leaves that folder; the next build removes it, but
only when the build that made it is surely dead: each folder has a lock file beside it
(``<folder>.lock``), locked before the folder is made and removed only once the folder is swapped in
and the previous site is removed.  The lock is a POSIX record lock (``lockf``), held by the building
process alone, so forked page workers that outlive a killed build do not keep its folder alive.
Removal never follows a link and never crosses into another file system.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import tempfile
from pathlib import Path

__all__ = ["LEGACY_BUILD_LOCK", "clean_stale_builds", "end_build", "remove_tree_same_device", "start_build"]

#: The lock file inside a build folder in earlier versions (taken with ``flock``).
LEGACY_BUILD_LOCK = ".evalsite-building"

_LOCK_SUFFIX = ".lock"


def start_build(out_dir: Path) -> tuple[Path, Path, int]:
    """A fresh ``.<out>.building-*`` folder and its lock beside it, the lock taken first.

    The lock is the sibling file ``<folder>.lock``, created and locked *before* the folder exists and
    removed only after the swap and the previous site's removal are over: at every moment a build
    folder of a live build has a held lock beside it, so the next build can tell a dead build's
    folder from a live one's.  It is a POSIX record lock (``lockf``), owned by this process alone:
    forked workers that outlive a killed build do not keep it held.
    """
    prefix = f".{out_dir.name}.building-"
    for _ in range(100):
        fd, lock_name = tempfile.mkstemp(dir=out_dir.parent, prefix=prefix, suffix=_LOCK_SUFFIX)
        lock = Path(lock_name)
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX)
            # a cleaner may have taken and removed the file before we locked it: then start again
            if _same_file(os.fstat(fd), lock):
                folder = lock.with_name(lock.name[: -len(_LOCK_SUFFIX)])
                os.mkdir(folder, 0o700)
                return folder, lock, fd
        except FileExistsError:
            with contextlib.suppress(OSError):
                os.unlink(lock)
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(lock)
            raise
        os.close(fd)
    raise FileExistsError(errno.EEXIST, "no free name for a build folder")


def _same_file(opened: os.stat_result, path: Path) -> bool:
    try:
        now = path.lstat()
    except OSError:
        return False
    return (now.st_dev, now.st_ino) == (opened.st_dev, opened.st_ino)


def end_build(lock: Path, fd: int) -> None:
    """Remove the build's lock file (its folder is gone or swapped in), then let the lock go."""
    with contextlib.suppress(OSError):
        if _same_file(os.fstat(fd), lock):
            os.unlink(lock)
    os.close(fd)


def clean_stale_builds(out_dir: Path) -> None:
    """Remove ``.<out>.building-*`` folders left by killed builds: those whose lock beside them is free.

    A folder without its lock file is not touched, except one in the layout of earlier versions
    (the lock inside the folder, taken with ``flock``).
    """
    prefix = f".{out_dir.name}.building-"
    try:
        siblings = sorted(os.listdir(out_dir.parent))
    except OSError:
        return
    for name in siblings:
        if not name.startswith(prefix):
            continue
        path = out_dir.parent / name
        if name.endswith(_LOCK_SUFFIX):
            _clean_locked(path, path.with_name(name[: -len(_LOCK_SUFFIX)]))
        elif not os.path.lexists(path.with_name(name + _LOCK_SUFFIX)):
            _clean_legacy(path)


def _clean_locked(lock: Path, folder: Path) -> None:
    try:
        fd = os.open(lock, os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return  # a build is running there
        with contextlib.suppress(OSError):
            if stat.S_ISDIR(folder.lstat().st_mode):
                remove_tree_same_device(folder)
        if not os.path.lexists(folder) and _same_file(os.fstat(fd), lock):
            with contextlib.suppress(OSError):
                os.unlink(lock)
    finally:
        os.close(fd)


def _clean_legacy(folder: Path) -> None:
    """A build folder of an earlier version: its lock (``flock``) inside it."""
    lock = folder / LEGACY_BUILD_LOCK
    try:
        if not stat.S_ISDIR(folder.lstat().st_mode) or not stat.S_ISREG(lock.lstat().st_mode):
            return
        fd = os.open(lock, os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return  # a build is running there
    try:
        remove_tree_same_device(folder)
    finally:
        os.close(fd)


def remove_tree_same_device(folder: Path) -> None:
    """``rm -r`` that never follows a link and never descends into another file system."""
    device = folder.lstat().st_dev

    def remove(path: str) -> None:
        with os.scandir(path) as entries:
            items = list(entries)
        for entry in items:
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISDIR(info.st_mode):
                if info.st_dev == device:
                    remove(entry.path)
            else:
                os.unlink(entry.path)
        with contextlib.suppress(OSError):  # not empty: a mount point stays below it
            os.rmdir(path)

    with contextlib.suppress(FileNotFoundError):
        remove(os.fspath(folder))
