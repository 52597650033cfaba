"""Read a user's theme folder (``theme_dir:``): regular files only, contained, capped.

The theme is the site owner's, like the config, but it is still read safely: regular files only
(a symbolic link, FIFO or device is refused), no path out of the folder, at most
:data:`MAX_THEME_FILES` files of at most :data:`MAX_THEME_FILE_BYTES` each.
``generator.render.theme`` lays the files over evalsite's templates.
"""

from __future__ import annotations

import os
from pathlib import Path

from generator.model.errors import EvalsiteError
from generator.read.safe_io import Refusal, read_contained

__all__ = ["MAX_THEME_FILES", "MAX_THEME_FILE_BYTES", "read_theme"]

MAX_THEME_FILES = 1_000
MAX_THEME_FILE_BYTES = 8 * 1024 * 1024


def read_theme(theme: Path) -> tuple[tuple[str, bytes], ...]:
    """Every file of *theme* as (relative POSIX path, bytes), in a fixed order."""
    found: list[tuple[str, bytes]] = []
    for folder, dirs, files in os.walk(theme, followlinks=False):
        dirs.sort()
        for name in [*dirs, *sorted(files)]:
            path = os.path.join(folder, name)
            relative = Path(path).relative_to(theme).as_posix()
            if os.path.islink(path):
                raise EvalsiteError(f"theme_dir: {relative!r} is a symbolic link; a theme holds regular files only")
            if name in dirs:
                continue
            if len(found) >= MAX_THEME_FILES:
                raise EvalsiteError(f"theme_dir: more than {MAX_THEME_FILES:,} files")
            data = read_contained(path, theme, max_bytes=MAX_THEME_FILE_BYTES)
            if isinstance(data, Refusal):
                raise EvalsiteError(f"theme_dir: {relative!r} could not be read (it {data.reason})")
            found.append((relative, data))
    return tuple(found)
