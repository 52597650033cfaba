"""Members of an Inspect ``.eval`` log (a zip), read without trusting the zip.

inspect-ai 0.3.x writes every member zstd-compressed (zip method 93), which Python 3.11's
:mod:`zipfile` lists but cannot open.  The zip's directory is parsed by :mod:`zipfile` (from the
bytes already read under the containment rules, so the file cannot change underneath); a zstd
member's raw bytes are cut out of the archive at its local header and decompressed by the
``zstandard`` library (the optional ``evalsite[inspect]`` extra) through a stream that stops one
byte past the size cap, so a member that lies about its size cannot inflate past the cap.
Stored and deflated members (older logs) go through :mod:`zipfile` under the same cap.

A member is used only when its name is a plain relative path (no ``..``, no leading ``/``, no
backslash, no NUL), it is not a symbolic link entry, and its declared and actual sizes stay
under the caps.  Every other member is returned as a skipped member with its reason; nothing
here raises for a hostile archive except :class:`EvalsiteError` for one that is not a zip at all.
"""

from __future__ import annotations

import io
import stat
import struct
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from generator.model.errors import EvalsiteError

__all__ = ["MAX_MEMBER_BYTES", "MAX_MEMBERS", "Archive", "Skipped"]

MAX_MEMBER_BYTES = 64 * 1024 * 1024
MAX_TOTAL_BYTES = 1024 * 1024 * 1024
MAX_MEMBERS = 200_000
_ZSTD = 93
_LOCAL_HEADER = struct.Struct("<4sHHHHHIIIHH")


@dataclass(frozen=True)
class Skipped:
    name: str
    reason: str


def _unsafe_name(name: str) -> str | None:
    if not name or "\0" in name or "\\" in name or name.startswith("/"):
        return "member name is not a plain relative path"
    if any(part in ("", ".", "..") for part in name.rstrip("/").split("/")):
        return "member lies outside its folder"
    return None


class Archive:
    """The usable members of one ``.eval`` zip, by name."""

    def __init__(self, data: bytes, label: str) -> None:
        self.data = data
        self.label = label
        self.skipped: list[Skipped] = []
        self._bytes_out = 0
        self._decompressor: Any = (
            None  # one zstd context for every member (made for each, it cost as much as the reading)
        )
        try:
            self.zip = zipfile.ZipFile(io.BytesIO(data))
            infos = self.zip.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError, EOFError):
            raise EvalsiteError(f"Inspect log {label!r} is not a readable zip archive") from None
        if len(infos) > MAX_MEMBERS:
            raise EvalsiteError(f"Inspect log {label!r} has more than {MAX_MEMBERS:,} members")
        self.members: dict[str, zipfile.ZipInfo] = {}
        for info in infos:
            name = info.filename
            reason = _unsafe_name(name)
            if reason is None and stat.S_ISLNK(info.external_attr >> 16):
                reason = "member is a symbolic link"
            if reason is None and info.file_size > MAX_MEMBER_BYTES:
                reason = "member exceeds the size limit"
            if reason is None and name in self.members:
                reason = "member name appears twice"
            if reason is not None:
                self.skipped.append(Skipped(name, reason))
            elif not name.endswith("/"):
                self.members[name] = info

    def names(self, prefix: str = "") -> Iterator[str]:
        return (name for name in self.members if name.startswith(prefix))

    def read(self, name: str) -> bytes | None:
        """The member's bytes, or None (and a skipped entry) when it cannot be read safely."""
        info = self.members.get(name)
        if info is None:
            return None
        try:
            if info.compress_type == _ZSTD:
                out = self._zstd(info)
            else:
                with self.zip.open(info) as handle:
                    out = handle.read(MAX_MEMBER_BYTES + 1)
        except EvalsiteError:
            raise
        except (zipfile.BadZipFile, NotImplementedError, ValueError, OSError, EOFError, RuntimeError) as error:
            reason = "member uses an unsupported compression" if isinstance(error, NotImplementedError) else None
            self.skipped.append(Skipped(name, reason or "member is corrupt"))
            return None
        if out is None:
            self.skipped.append(Skipped(name, "member is corrupt"))
            return None
        if len(out) > MAX_MEMBER_BYTES:
            self.skipped.append(Skipped(name, "member exceeds the size limit when decompressed"))
            return None
        if info.compress_type == _ZSTD and zlib.crc32(out) != info.CRC:
            self.skipped.append(Skipped(name, "member is corrupt (CRC mismatch)"))
            return None
        self._bytes_out += len(out)
        if self._bytes_out > MAX_TOTAL_BYTES:
            self.skipped.append(Skipped(name, "the archive exceeds the total size limit when decompressed"))
            return None
        return out

    def _zstd(self, info: zipfile.ZipInfo) -> bytes | None:
        try:
            import zstandard
        except ImportError:
            raise EvalsiteError(
                f"Inspect log {self.label!r} is zstd-compressed: install the inspect extra "
                "(pip install 'evalsite[inspect]'), or convert it with `inspect log convert --to json`"
            ) from None
        start = info.header_offset
        header = self.data[start : start + _LOCAL_HEADER.size]
        if len(header) < _LOCAL_HEADER.size:
            return None
        fields = _LOCAL_HEADER.unpack(header)
        if fields[0] != b"PK\x03\x04":
            return None
        begin = start + _LOCAL_HEADER.size + fields[9] + fields[10]
        raw = self.data[begin : begin + info.compress_size]
        if len(raw) != info.compress_size:
            return None
        if self._decompressor is None:
            self._decompressor = zstandard.ZstdDecompressor()
        try:
            reader = self._decompressor.stream_reader(io.BytesIO(raw), read_across_frames=True)
            chunks: list[bytes] = []
            size = 0
            with reader:
                while size <= MAX_MEMBER_BYTES:
                    chunk = reader.read(min(1 << 20, MAX_MEMBER_BYTES + 1 - size))
                    if not chunk:
                        break
                    chunks.append(chunk)
                    size += len(chunk)
            return b"".join(chunks)
        except zstandard.ZstdError:
            self._decompressor = None  # a fresh context for the next member, whatever state this one is in
            return None
