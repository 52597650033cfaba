"""Atomic site output: build into a sibling temporary folder, swap it in when complete.

- A failed build (any exception) removes the temporary folder and leaves the
  previous site exactly as it was.
- The swap is one ``renameat2(RENAME_EXCHANGE)`` on Linux; elsewhere two
  renames (old -> aside, new -> place) with the old tree deleted afterwards.
- Only regular files are written (the Pages artifact forbids symlinks), with
  modes 0644/0755; a path may be written once (two pages claiming one file is
  a bug and fails the build); paths cannot leave the site folder.
- The marker file ``.evalsite-site`` is a manifest: the path, size and SHA-256 of
  every file the build wrote.  An existing output folder is replaced only if it
  is empty or if every file in it is listed in its manifest, unchanged; a copied
  marker therefore proves nothing about files it does not list.
- The previous site is deleted only after the swap, and only what its manifest
  lists: a file that appeared during the build, a changed file, or anything on
  another file system (a mount point) is kept aside in ``.<out>.kept-*`` and
  reported, never deleted.
- A build killed half-way leaves ``.<out>.building-*``; the next build removes
  such folders when they are evalsite's own and no build holds their lock.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import hashlib
import json
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from generator.model.errors import EvalsiteError
from generator.model.jsonfmt import json_text
from generator.model.redaction import Redactor, count_markers
from generator.write.building import (
    LEGACY_BUILD_LOCK,
    clean_stale_builds,
    end_build,
    remove_tree_same_device,
    start_build,
)

__all__ = [
    "MARKER",
    "PLOTLY_BUNDLE",
    "JsonText",
    "SiteWriter",
    "VerifiedSite",
    "Vouched",
    "plotly_js",
    "staged_site",
    "verified_site",
]

MARKER = ".evalsite-site"
_MARKER_SCHEMA = "evalsite.site-manifest.v1"
_MARKER_NOTE = "Written by `evalsite build`. Every file listed here is replaced on the next build; others are kept."
_MAX_MARKER_BYTES = 64 * 1024 * 1024
_FILE_MODE = 0o644
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_DIR_MODE = 0o755


PLOTLY_BUNDLE = "assets/vendor/plotly-cartesian.min.js"


def plotly_js(templates: Path) -> bytes:
    """The vendored partial Plotly bundle (``templates/assets/vendor``; never a CDN).

    Only the cartesian traces the site draws (scatter with error bars, bar, heatmap): a third of
    the full bundle's size, so chart pages draw in a fraction of the time.  Its version equals the
    plotly.js bundled with the installed plotly.py (see ``templates/assets/vendor/README.md``).
    """
    return (templates / PLOTLY_BUNDLE).read_bytes()


@dataclass(frozen=True, slots=True)
class JsonText:
    """A value and its :func:`json_text`, serialised once (a comparison document is hashed for "Built
    from" and written as ``data.json``; 26 MB at 1,000 tasks x 10 reps)."""

    value: object
    text: str


class SiteWriter:
    """Writes files below one root folder, each path at most once.

    Every text and JSON file passes the *redactor* (``docs/security.md``): JSON string by string
    before it is serialised, text on its final form.  ``redacted`` counts the distinct markers
    (kind -> digests) in what was written.  ``write_bytes`` is for the site's own assets.
    """

    def __init__(self, root: Path, redactor: Redactor | None = None) -> None:
        self.root = root
        self.redactor = redactor or Redactor()
        self.redacted: dict[str, set[str]] = {}
        self.written: dict[str, int] = {}
        self.digests: dict[str, str] = {}
        self._texts: dict[str, str] = {}  # redacted form of short strings already seen in data.json files
        self._folders: set[Path] = set()  # folders known to exist below root (made or seen by a write)
        #: Paths of the previous site that were not deleted (not listed, changed, or on another device).
        self.kept: list[str] = []
        self.kept_in: str | None = None

    def _target(self, rel_path: str) -> Path:
        parts = rel_path.split("/")
        if "\\" in rel_path or any(part in ("", ".", "..") or "\x00" in part for part in parts):
            raise EvalsiteError(f"refusing to write an unsafe site path {rel_path!r}")
        if rel_path in self.written:
            raise EvalsiteError(f"two pages claim the same output file {rel_path!r}")
        return self.root.joinpath(*parts)

    def claim(self, rel_path: str) -> None:
        """Check *rel_path* as a write would (safe, not yet claimed) and reserve it for :meth:`merge`."""
        self._target(rel_path)
        self.written[rel_path] = -1  # replaced by its size when merged

    def merge(self, written: dict[str, int], digests: dict[str, str], redacted: dict[str, set[str]]) -> None:
        """Take over what another writer on the same root (a forked worker) wrote, in call order."""
        for rel_path, size in written.items():
            self.written[rel_path] = size
            self.digests[rel_path] = digests[rel_path]
        for kind, found in redacted.items():
            self.redacted.setdefault(kind, set()).update(found)

    def write_bytes(self, rel_path: str, data: bytes) -> None:
        target = self._target(rel_path)
        self.written[rel_path] = len(data)
        self.digests[rel_path] = hashlib.sha256(data).hexdigest()
        self._create(target, data)

    def _create(self, target: Path, data: bytes) -> None:
        parent = target.parent
        if parent not in self._folders:
            if not parent.is_dir():
                parent.mkdir(parents=True, exist_ok=True)  # safe when another writer makes it too
            self._folders.add(parent)
        # O_EXCL: never follow or overwrite anything; the mode is set on the open file (one call
        # fewer than a chmod by path, which would look the path up again)
        fd = os.open(target, _CREATE, _FILE_MODE)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fchmod(fd, _FILE_MODE)
        finally:
            os.close(fd)

    def copy_verified(self, rel_path: str, source: Path, identity: tuple[int, int, int, int, int], digest: str) -> None:
        """Copy a file of a verified previous site (:func:`verified_site`) unchanged.

        *identity* is the file's when it was hashed and found to be *digest*: a file whose identity
        has moved since (edited while this build ran) is refused, never copied unchecked.  Markers of
        redacted values in it are counted as a write of its text would count them.
        """
        target = self._target(rel_path)
        fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            if (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns) != identity:
                raise EvalsiteError(f"{rel_path!r} of a previous site changed while the build ran; build again")
            data = handle.read()
        if b"[redacted:" in data:
            self._count(data.decode("utf-8", "replace"))
        self.written[rel_path] = len(data)
        self.digests[rel_path] = digest
        self._create(target, data)

    def drop(self, keep: Callable[[str], bool]) -> None:
        """Remove every written file whose path *keep* refuses (a part of a split build keeps its entries)."""
        for rel_path in [path for path in self.written if not keep(path)]:
            os.unlink(self.root.joinpath(*rel_path.split("/")))
            del self.written[rel_path]
            del self.digests[rel_path]
        for dirpath, _dirnames, _filenames in os.walk(self.root, topdown=False):
            if dirpath != os.fspath(self.root):
                with contextlib.suppress(OSError):  # not empty
                    os.rmdir(dirpath)

    def write_text(self, rel_path: str, text: str) -> None:
        text = self.redactor.final_text(text)  # each byte scanned once by the rules, no pre-check first
        self._count(text)
        self.write_bytes(rel_path, text.encode("utf-8"))

    def write_json(self, rel_path: str, value: object) -> None:
        """*value* as :func:`json_text`, redacted string by string; a :class:`JsonText` brings its text."""
        if isinstance(value, JsonText):
            text = value.text
            value = value.value
        else:
            text = json_text(value)
        # Serialising escapes only quotes, backslashes and control characters, none of which is part of a
        # rule's literal: when the whole text cannot hold a secret, no string in it can.
        if self.redactor.may_hold_secret(text) and self._changes(value):
            redacted, changed = self._redacted(value)
            if changed:  # else the same strings: the same text
                text = json_text(redacted)
        self._count(text)
        self.write_bytes(rel_path, text.encode("utf-8"))

    def _changes(self, value: object) -> bool:
        """Whether :meth:`_redacted` would change anything: the same test, without building a copy.

        One pass over every string (keys too) with the same per-build cache; a 26 MB comparison
        document is checked without copying its two million containers and values.
        """
        if not self.redactor.enabled:
            return False
        cache = self._texts
        remember = self._remember
        plain = (int, float, bool, type(None))
        stack = [value]
        while stack:
            item = stack.pop()
            kind = type(item)
            if kind is dict:
                pairs = item.items()  # type: ignore[attr-defined]
            elif kind is list or kind is tuple:
                pairs = ((None, v) for v in item)  # type: ignore[attr-defined]
            else:
                pairs = ((None, item),)
            for key, entry in pairs:
                for text in (key, entry) if type(key) is str else (entry,):
                    kind = type(text)
                    if kind is str:
                        hit = cache.get(text)
                        if hit is None:
                            hit = remember(text)
                        if hit != text:
                            return True
                    elif kind is dict or kind is list or kind is tuple:
                        stack.append(text)
                    elif kind not in plain:
                        return True  # the general rule applies (and re-serialises)
        return False

    def _remember(self, text: str) -> str:
        """*text* redacted, and kept for the rest of the build when short (at most 2**17 kept)."""
        hit = self.redactor.text(text)
        if len(text) <= 256:
            if len(self._texts) >= 1 << 17:
                self._texts.clear()
            self._texts[text] = hit
        return hit

    def _redacted(self, value: object) -> tuple[object, bool]:
        """``Redactor.value`` (every string, keys too), each distinct short string redacted once per build.

        Keys and labels repeat in every ``data.json`` of a site (``input_tokens`` holds a rule's literal,
        so it is scanned): redaction is a pure function of the string, so its result is kept.  The flag
        says whether any string changed.
        """
        if not self.redactor.enabled:
            return value, False
        changed = False
        cache = self._texts
        remember = self._remember
        generic = self.redactor.value

        def text(item: str) -> str:
            nonlocal changed
            hit = cache.get(item)
            if hit is None:
                hit = remember(item)
            if hit != item:
                changed = True
            return hit

        def walk(item: object) -> object:
            nonlocal changed
            kind = type(item)
            if kind is str:
                return text(item)  # type: ignore[arg-type]
            if kind is dict:
                return {text(k) if type(k) is str else k: walk(v) for k, v in item.items()}  # type: ignore[attr-defined]
            if kind is list or kind is tuple:
                return [walk(v) for v in item]  # type: ignore[attr-defined]
            if kind is int or kind is float or kind is bool or item is None:
                return item
            changed = True  # anything else (str subclasses, other mappings): the general rule, re-serialised
            return generic(item)

        result = walk(value)
        return result, changed

    def _count(self, text: str) -> None:
        if self.redactor.enabled:
            for kind, digests in count_markers((text,)).items():
                self.redacted.setdefault(kind, set()).update(digests)

    def finish(self, epoch: int | None = None) -> None:
        """Write the manifest marker, fix folder modes, set mtimes to *epoch* when given."""
        files = {path: {"bytes": self.written[path], "sha256": self.digests[path]} for path in sorted(self.written)}
        manifest = {"schema": _MARKER_SCHEMA, "note": _MARKER_NOTE, "files": files}
        # its paths are page slugs and config ids, which hold no secret (pages/urls.py name_slug)
        (self.root / MARKER).write_text(json_text(manifest), encoding="utf-8")
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


def _file_sha256(path: str) -> str:
    with open(path, "rb", opener=lambda p, f: os.open(p, f | os.O_NOFOLLOW | os.O_NONBLOCK)) as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _read_manifest(folder: Path) -> dict[str, dict[str, object]] | None:
    """The files the marker in *folder* lists, or None when there is no usable manifest."""
    marker = folder / MARKER
    try:
        info = marker.lstat()
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_MARKER_BYTES:
        return None
    try:
        value = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(value, dict) or value.get("schema") != _MARKER_SCHEMA or not isinstance(value.get("files"), dict):
        return None
    files = value["files"]
    return {str(k): v for k, v in files.items() if isinstance(v, dict)}


#: Files of a previous site found to match its manifest: path -> (file identity, vouched digest).
Vouched = dict[str, tuple[tuple[int, int, int, int, int], object]]


def _foreign_files(
    folder: Path, manifest: dict[str, dict[str, object]] | None, vouched: Vouched | None = None
) -> list[str]:
    """Paths below *folder* that its manifest does not vouch for (sorted); never follows links or mounts.

    A file is vouched for when its size and SHA-256 are the manifest's.  *vouched* remembers each
    one with its identity (device, inode, size, and the modification and change times in ns, which
    any write or metadata change moves on): when the same site is checked again (after the swap,
    before its files are deleted), a file whose identity and manifest digest are unchanged is not
    hashed a second time.
    """
    listed = manifest or {}
    known = vouched if vouched is not None else {}
    device = folder.lstat().st_dev
    foreign: list[str] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        rel_dir = os.path.relpath(dirpath, folder)
        keep_dirs = []
        for name in sorted(dirnames):
            full = os.path.join(dirpath, name)
            info = os.lstat(full)
            rel = os.path.normpath(os.path.join(rel_dir, name)).replace(os.sep, "/")
            if stat.S_ISLNK(info.st_mode) or info.st_dev != device:
                foreign.append(rel)
            else:
                keep_dirs.append(name)
        dirnames[:] = keep_dirs
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            rel = os.path.normpath(os.path.join(rel_dir, name)).replace(os.sep, "/")
            if rel in (MARKER, LEGACY_BUILD_LOCK) and rel_dir == ".":
                continue
            info = os.lstat(full)
            entry = listed.get(rel)
            if (
                entry is None
                or not stat.S_ISREG(info.st_mode)
                or info.st_dev != device
                or entry.get("bytes") != info.st_size
            ):
                foreign.append(rel)
                continue
            identity = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
            digest = entry.get("sha256")
            if known.get(rel) == (identity, digest):
                continue  # hashed before with this identity and found to be this digest
            if digest != _file_sha256(full):
                foreign.append(rel)
            elif vouched is not None:
                vouched[rel] = (identity, digest)
    return sorted(foreign)


@dataclass(frozen=True)
class VerifiedSite:
    """A previous site (or a part of a split build) checked against its manifest."""

    files: dict[str, str]  # path -> SHA-256 hex, for every listed file found unchanged
    foreign: tuple[str, ...]  # paths the manifest does not vouch for (unlisted, changed, links)
    vouched: Vouched  # the unchanged files' identities (SiteWriter.copy_verified; staged_site)


def verified_site(folder: Path) -> VerifiedSite | None:
    """*folder*'s files its manifest vouches for, each hashed once; None without a readable manifest."""
    if folder.is_symlink() or not folder.is_dir():
        return None
    manifest = _read_manifest(folder)
    if manifest is None:
        return None
    vouched: Vouched = {}
    foreign = _foreign_files(folder, manifest, vouched)
    files = {path: str(digest) for path, (_identity, digest) in vouched.items()}
    return VerifiedSite(files, tuple(foreign), vouched)


def _check_replaceable(out_dir: Path, known: Vouched | None = None) -> Vouched:
    """Refuse an output folder that evalsite may not replace; the previous site's files it vouched for.

    *known*: files already hashed (:func:`verified_site`), not hashed again while unchanged."""
    if out_dir.is_symlink():
        raise EvalsiteError(f"output folder {out_dir.name!r} is a symlink; refusing to replace it")
    vouched: Vouched = dict(known or {})
    if not out_dir.exists():
        return vouched
    if not out_dir.is_dir():
        raise EvalsiteError(f"output {out_dir.name!r} exists and is not a folder")
    if os.path.ismount(out_dir):
        raise EvalsiteError(f"output folder {out_dir.name!r} is a mount point; choose a folder inside it")
    manifest = _read_manifest(out_dir)
    foreign = _foreign_files(out_dir, manifest, vouched)
    if foreign:
        shown = ", ".join(repr(f) for f in foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")
        if manifest is None and (out_dir / MARKER).exists():
            why = f"its {MARKER} marker is not a manifest evalsite can verify"
        elif manifest is None:
            why = f"no {MARKER} manifest lists them"
        else:
            why = f"its {MARKER} manifest does not list them as written by evalsite"
        raise EvalsiteError(
            f"output folder {out_dir.name!r} holds files not written by evalsite ({shown}): {why}; "
            "move them or choose another --out"
        )
    return vouched


def _remove_listed(
    old: Path, manifest: dict[str, dict[str, object]] | None, vouched: Vouched | None = None
) -> list[str]:
    """Delete the files of a previous site that its manifest vouches for; return what was kept."""
    kept = _foreign_files(old, manifest, vouched)
    keep = set(kept)
    device = old.lstat().st_dev
    for dirpath, dirnames, filenames in os.walk(old, topdown=False):
        rel_dir = os.path.relpath(dirpath, old)
        for name in filenames:
            rel = os.path.normpath(os.path.join(rel_dir, name)).replace(os.sep, "/")
            if rel not in keep:
                os.unlink(os.path.join(dirpath, name))
        for name in dirnames:
            full = os.path.join(dirpath, name)
            info = os.lstat(full)
            if stat.S_ISDIR(info.st_mode) and info.st_dev == device:
                with contextlib.suppress(OSError):  # not empty: it holds something kept
                    os.rmdir(full)
    with contextlib.suppress(OSError):
        os.rmdir(old)
    return kept


def _retire(
    old: Path, out_dir: Path, manifest: dict[str, dict[str, object]] | None, writer: SiteWriter, vouched: Vouched
) -> None:
    """After the swap: delete the previous site's own files; move anything else aside and report it."""
    writer.kept = _remove_listed(old, manifest, vouched)
    if writer.kept and old.exists():
        aside = Path(tempfile.mkdtemp(dir=out_dir.parent, prefix=f".{out_dir.name}.kept-"))
        os.rmdir(aside)
        os.rename(old, aside)
        writer.kept_in = aside.name


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
    return bool(result == 0)


def _swap_into_place(new: Path, out_dir: Path) -> Path | None:
    """Put *new* at *out_dir*; return where the previous site now is (None if there was none)."""
    if not out_dir.exists():
        os.rename(new, out_dir)
        return None
    if _exchange(new, out_dir):
        return new  # now holds the previous site
    aside = Path(tempfile.mkdtemp(dir=out_dir.parent, prefix=f".{out_dir.name}.old-"))
    os.rmdir(aside)
    os.rename(out_dir, aside)
    try:
        os.rename(new, out_dir)
    except OSError:
        os.rename(aside, out_dir)  # put the previous site back
        raise
    return aside


@contextmanager
def staged_site(
    out_dir: Path, epoch: int | None = None, redactor: Redactor | None = None, vouched: Vouched | None = None
) -> Iterator[SiteWriter]:
    """Yield a writer into a fresh sibling folder; swap it into *out_dir* on success.

    *vouched*: the previous site's files already verified (:func:`verified_site`), not hashed again.

    After the block, ``writer.kept`` lists files of the previous site that were kept instead of
    deleted (and ``writer.kept_in`` names the folder beside the output that holds them).
    """
    out_dir = Path(out_dir)
    for parent in out_dir.parents:
        if os.path.lexists(parent) and not parent.is_dir():
            raise EvalsiteError(f"output folder {out_dir.name!r} cannot be made: {parent.name!r} is not a folder")
    vouched = _check_replaceable(out_dir, vouched)
    try:
        out_dir.parent.mkdir(parents=True, exist_ok=True)
        clean_stale_builds(out_dir)
        manifest = _read_manifest(out_dir) if out_dir.exists() else None
        tmp, lock, lock_fd = start_build(out_dir)
    except OSError as error:
        raise EvalsiteError(
            f"output folder {out_dir.name!r} cannot be written ({error.strerror or type(error).__name__})"
        ) from None
    try:
        try:
            writer = SiteWriter(tmp, redactor)
            yield writer
            writer.finish(epoch)
            old = _swap_into_place(tmp, out_dir)
        except BaseException:
            remove_tree_same_device(tmp)
            raise
        if old is not None:
            _retire(old, out_dir, manifest, writer, vouched)
    finally:
        end_build(lock, lock_fd)
