"""Writing one file so that readers see the old content or the new, never half."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from generator.model.errors import EvalsiteError


def write_text_atomic(path: Path, text: str, *, mode: int = 0o644) -> None:
    """Write ``text`` to ``path`` via a fsynced sibling temporary file and a rename."""
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise EvalsiteError(f"output folder for {path.name!r} does not exist")
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise EvalsiteError(f"refusing to replace {path.name!r}: it is not a regular file")
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except FileNotFoundError:
            pass
        raise
