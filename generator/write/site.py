"""Atomic site output: build into a sibling temporary folder, swap it in when complete.

- A failed build (any exception) removes the temporary folder and leaves the
  previous site exactly as it was.
- The swap is one ``renameat2(RENAME_EXCHANGE)`` on Linux; elsewhere two
  renames (old -> aside, new -> place) with the old tree deleted afterwards.
- Only regular files are written (the Pages artifact forbids symlinks), with
  modes 0644/0755; a path may be written once (two pages claiming one file is
  a bug and fails the build); paths cannot leave the site folder.
- An existing output folder is replaced only if an earlier evalsite build wrote
  it (it holds the marker file), or if it is empty.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

from generator.model.errors import EvalsiteError

__all__ = ["MARKER", "SiteWriter", "json_text", "plotly_js", "staged_site"]

MARKER = ".evalsite-site"
_MARKER_TEXT = "Written by `evalsite build`. The whole folder is replaced on every build.\n"
_FILE_MODE = 0o644
_DIR_MODE = 0o755


def json_text(value: object) -> str:
    """The project's JSON file format: sorted keys, UTF-8, no NaN, trailing newline."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, allow_nan=False) + "\n"


def plotly_js() -> bytes:
    """``plotly.min.js`` from the installed plotly package (never a CDN)."""
    return (resources.files("plotly") / "package_data" / "plotly.min.js").read_bytes()


class SiteWriter:
    """Writes files below one root folder, each path at most once."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.written: dict[str, int] = {}

    def _target(self, rel_path: str) -> Path:
        parts = rel_path.split("/")
        if "\\" in rel_path or any(part in ("", ".", "..") or "\x00" in part for part in parts):
            raise EvalsiteError(f"refusing to write an unsafe site path {rel_path!r}")
        if rel_path in self.written:
            raise EvalsiteError(f"two pages claim the same output file {rel_path!r}")
        return self.root.joinpath(*parts)

    def write_bytes(self, rel_path: str, data: bytes) -> None:
        target = self._target(rel_path)
        parent = target.parent
        if not parent.is_dir():
            parent.mkdir(parents=True, exist_ok=True)
        with open(target, "xb") as handle:  # "x": never follow or overwrite anything
            handle.write(data)
        os.chmod(target, _FILE_MODE)
        self.written[rel_path] = len(data)

    def write_text(self, rel_path: str, text: str) -> None:
        self.write_bytes(rel_path, text.encode("utf-8"))

    def write_json(self, rel_path: str, value: object) -> None:
        self.write_text(rel_path, json_text(value))

    def finish(self, epoch: int | None = None) -> None:
        """Write the marker, fix folder modes, set mtimes to *epoch* when given."""
        (self.root / MARKER).write_text(_MARKER_TEXT, encoding="utf-8")
        os.chmod(self.root / MARKER, _FILE_MODE)
        for dirpath, dirnames, filenames in os.walk(self.root):
            os.chmod(dirpath, _DIR_MODE)
            for name in dirnames + filenames:
                if os.path.islink(os.path.join(dirpath, name)):
                    raise EvalsiteError("the site folder contains a symlink; refusing to publish it")
        if epoch is not None:
            for dirpath, _dirnames, filenames in os.walk(self.root, topdown=False):
                for name in filenames:
                    os.utime(os.path.join(dirpath, name), (epoch, epoch))
                os.utime(dirpath, (epoch, epoch))

    @property
    def total_bytes(self) -> int:
        return sum(self.written.values())


def _check_replaceable(out_dir: Path) -> None:
    if out_dir.is_symlink():
        raise EvalsiteError(f"output folder {out_dir.name!r} is a symlink; refusing to replace it")
    if not out_dir.exists():
        return
    if not out_dir.is_dir():
        raise EvalsiteError(f"output {out_dir.name!r} exists and is not a folder")
    if (out_dir / MARKER).is_file():
        return
    if any(out_dir.iterdir()):
        raise EvalsiteError(
            f"output folder {out_dir.name!r} is not empty and was not written by evalsite "
            f"(no {MARKER} marker); remove it or choose another --out"
        )


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths (Linux renameat2). False when unsupported."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    result = renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    return result == 0


def _swap_into_place(new: Path, out_dir: Path) -> None:
    if not out_dir.exists():
        os.rename(new, out_dir)
        return
    if _exchange(new, out_dir):
        shutil.rmtree(new)  # now holds the previous site
        return
    aside = Path(tempfile.mkdtemp(dir=out_dir.parent, prefix=f".{out_dir.name}.old-"))
    os.rmdir(aside)
    os.rename(out_dir, aside)
    try:
        os.rename(new, out_dir)
    except OSError:
        os.rename(aside, out_dir)  # put the previous site back
        raise
    shutil.rmtree(aside)


@contextmanager
def staged_site(out_dir: Path, epoch: int | None = None) -> Iterator[SiteWriter]:
    """Yield a writer into a fresh sibling folder; swap it into *out_dir* on success."""
    out_dir = Path(out_dir)
    _check_replaceable(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=out_dir.parent, prefix=f".{out_dir.name}.building-"))
    try:
        writer = SiteWriter(tmp)
        yield writer
        writer.finish(epoch)
        _swap_into_place(tmp, out_dir)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
