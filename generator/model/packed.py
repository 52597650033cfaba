"""Run data packed into columns (issue 16: memory flat in the runs).

:class:`TelemetryValues` is one run's re-derived telemetry, 8 bytes a field; :class:`ArtifactTable`
holds a side's artifacts as columns (a status and a kinds byte and the packed numbers of each run);
:class:`PairedArtifacts` is the pairs' view of it, and :class:`LazySequence` makes each value of a
column only when it is read.  Each reads back exactly what was stored.
"""

from __future__ import annotations

import struct
import sys
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Final, overload

from generator.model.common import is_json_number
from generator.model.runs import TELEMETRY_FIELDS, Artifact

__all__ = ["ArtifactTable", "LazySequence", "PairedArtifacts", "TelemetryValues", "reported_of", "telemetry_of"]

_SLOT = 8  # bytes per packed field
_INT64 = (-(1 << 63), (1 << 63) - 1)
_UNPACK: Final = {kind: struct.Struct("<" + kind).unpack_from for kind in "qd"}  # "n" (None) has none
_LAYOUTS: dict[str, struct.Struct] = {}  # kinds ("n"/"q"/"d" per field) -> its struct, shared by every run


class TelemetryValues(Mapping[str, Any]):
    """One run's re-derived telemetry as a compact mapping: :data:`TELEMETRY_FIELDS` -> value.

    A run keeps only these fifteen numbers, packed into 8 bytes each (an ``int`` as a 64-bit
    integer, a ``float`` as the same double, ``None`` as a kind), not the dict the scan built, so
    the memory a comparison holds per run stays small (issue 16).  Values are read back exactly;
    a value that does not pack (an integer beyond 64 bits) keeps the stream in a plain tuple.
    """

    __slots__ = ("_kinds", "_packed")
    _INDEX: Final = {name: index for index, name in enumerate(TELEMETRY_FIELDS)}

    def __init__(self, telemetry: Mapping[str, Any]) -> None:
        values = tuple(telemetry.get(name) for name in TELEMETRY_FIELDS)
        kinds = "".join(_kind(value) for value in values)
        self._kinds: str | None
        self._packed: bytes | tuple[Any, ...]
        if "?" in kinds:
            self._kinds, self._packed = None, values
            return
        self._kinds = sys.intern(kinds)  # a few patterns, shared by every run
        self._packed = _layout(kinds).pack(*(0 if value is None else value for value in values))

    def _value(self, index: int) -> Any:
        kinds, packed = self._kinds, self._packed
        if kinds is None:
            return packed[index]
        kind = kinds[index]
        if kind == "n":
            return None
        return struct.unpack_from("<" + kind, packed, index * _SLOT)[0]  # type: ignore[arg-type]

    def __getitem__(self, key: str) -> Any:
        return self._value(self._INDEX[key])

    def get(self, key: str, default: Any = None) -> Any:
        index = self._INDEX.get(key)
        if index is None:
            return default
        kinds, packed = self._kinds, self._packed  # _value, written out (the efficiency tables call this most)
        if kinds is None:
            return packed[index]
        unpack = _UNPACK.get(kinds[index])
        return None if unpack is None else unpack(packed, index * _SLOT)[0]  # type: ignore[arg-type]

    def numbers(self, keys: tuple[str, ...]) -> tuple[float | None, ...]:
        """``float(self.get(key))`` of each key whose value is a JSON number (not a bool), else None:
        every value read in one unpacking (what the efficiency tables take of a run)."""
        kinds, packed = self._kinds, self._packed
        positions = _POSITIONS.get(keys)
        if positions is None:
            # a key that is no telemetry field reads as None, as get() gives
            positions = _POSITIONS.setdefault(keys, tuple(self._INDEX.get(key, -1) for key in keys))
        if kinds is None:
            assert isinstance(packed, tuple)
            return tuple(float(packed[i]) if i >= 0 and is_json_number(packed[i]) else None for i in positions)
        values = _layout(kinds).unpack(packed)  # type: ignore[arg-type]
        return tuple(None if i < 0 or kinds[i] == "n" else float(values[i]) for i in positions)

    def __iter__(self) -> Iterator[str]:
        return iter(TELEMETRY_FIELDS)

    def __len__(self) -> int:
        return len(TELEMETRY_FIELDS)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_telemetry_values, (self._kinds, self._packed))  # sent from a pool worker as it is

    def __repr__(self) -> str:
        return f"TelemetryValues({dict(self)!r})"


_POSITIONS: dict[tuple[str, ...], tuple[int, ...]] = {}  # keys -> their field positions


def _layout(kinds: str) -> struct.Struct:
    """The struct of one kinds pattern (made once, shared by every run of that pattern)."""
    layout = _LAYOUTS.get(kinds)
    if layout is None:
        layout = _LAYOUTS.setdefault(kinds, struct.Struct("<" + kinds.replace("n", "q")))
    return layout


def _telemetry_values(kinds: str | None, packed: bytes | tuple[Any, ...]) -> TelemetryValues:
    """A :class:`TelemetryValues` from its packed form (unpickling)."""
    values = TelemetryValues.__new__(TelemetryValues)
    values._kinds = None if kinds is None else sys.intern(kinds)
    values._packed = packed
    return values


def _kind(value: Any) -> str:
    """How one telemetry value packs: "n" (None), "q" (an int of 64 bits), "d" (a float), "?" (it does not)."""
    if value is None:
        return "n"
    if type(value) is int:
        return "q" if _INT64[0] <= value <= _INT64[1] else "?"
    return "d" if type(value) is float else "?"


#: Kinds patterns of packed telemetry, shared by every table (code = position + 1; a few exist).
_KIND_PATTERNS: list[str] = []
_KIND_CODES: dict[str, int] = {}
_TELEMETRY_BYTES: Final = _SLOT * len(TELEMETRY_FIELDS)
_NONE, _LOOSE = 0, 255  # kinds codes: no telemetry; telemetry kept as it is (not packed)


def _kind_code(kinds: str) -> int:
    code = _KIND_CODES.get(kinds)
    if code is None and len(_KIND_PATTERNS) < _LOOSE - 1:
        _KIND_PATTERNS.append(sys.intern(kinds))
        code = _KIND_CODES.setdefault(kinds, len(_KIND_PATTERNS))
    return _LOOSE if code is None else code


class ArtifactTable(Sequence[Artifact | None]):
    """One side's artifacts (or None: not read), in record order, kept as columns (issue 16).

    Per run: a status byte, a kinds byte and the fifteen telemetry numbers packed in 120 bytes of
    one shared buffer, where an :class:`Artifact` with its :class:`TelemetryValues` and bytes cost
    twice that; a reason, reported figures or telemetry that does not pack are kept apart, by run.
    Each item is made again when read, equal to the artifact appended (``table[i] == artifact``).
    """

    __slots__ = ("_kinds", "_loose", "_packed", "_reasons", "_reported", "_status", "_statuses")

    def __init__(self, artifacts: Iterable[Artifact | None] = ()) -> None:
        self._status = bytearray()  # 0: None, else 1 + position in _statuses
        self._statuses: list[str] = []
        self._kinds = bytearray()
        self._packed = bytearray()
        self._reasons: dict[int, str] = {}
        self._reported: dict[int, Mapping[str, Any]] = {}
        self._loose: dict[int, Any] = {}  # telemetry that is not packed, or a status beyond 254 kinds
        for artifact in artifacts:
            self.append(artifact)

    def append(self, artifact: Artifact | None) -> None:
        index = len(self._status)
        self._packed.extend(bytes(_TELEMETRY_BYTES))
        if artifact is None:
            self._status.append(0)
            self._kinds.append(_NONE)
            return
        if artifact.status in self._statuses:
            status = self._statuses.index(artifact.status) + 1
        elif len(self._statuses) < 254:
            self._statuses.append(sys.intern(artifact.status))
            status = len(self._statuses)
        else:
            status = 255
        self._status.append(status)
        if artifact.reason is not None:
            self._reasons[index] = artifact.reason
        if artifact.reported is not None:
            self._reported[index] = artifact.reported
        telemetry = artifact.telemetry
        code = _NONE
        if telemetry is not None:
            code = _LOOSE
            if type(telemetry) is TelemetryValues and telemetry._kinds is not None:
                code = _kind_code(telemetry._kinds)
            if code == _LOOSE:
                self._loose[index] = telemetry
            else:
                start = index * _TELEMETRY_BYTES
                assert isinstance(telemetry, TelemetryValues) and isinstance(telemetry._packed, bytes)
                self._packed[start : start + _TELEMETRY_BYTES] = telemetry._packed
        if status == 255:
            self._loose[index] = artifact  # kept whole
        self._kinds.append(code)

    def __len__(self) -> int:
        return len(self._status)

    def status(self, index: int) -> str | None:
        """``self[index].status`` without making the artifact (None: not read)."""
        code = self._status[index]
        if code == 0:
            return None
        return self._loose[index].status if code == 255 else self._statuses[code - 1]

    def telemetry(self, index: int) -> Mapping[str, Any] | None:
        """``self[index].telemetry``, made from its packed numbers."""
        code = self._kinds[index]
        if code == _NONE:
            return None
        if code == _LOOSE:
            loose = self._loose[index]
            return loose.telemetry if isinstance(loose, Artifact) else loose
        start = index * _TELEMETRY_BYTES
        return _telemetry_values(_KIND_PATTERNS[code - 1], bytes(self._packed[start : start + _TELEMETRY_BYTES]))

    @overload
    def __getitem__(self, index: int) -> Artifact | None: ...
    @overload
    def __getitem__(self, index: slice) -> list[Artifact | None]: ...
    def __getitem__(self, index: int | slice) -> Artifact | None | list[Artifact | None]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        code = self._status[index]
        if code == 0:
            return None
        if code == 255:
            return self._loose[index]  # type: ignore[no-any-return]
        return Artifact(
            self._statuses[code - 1], self._reasons.get(index), self.telemetry(index), self._reported.get(index)
        )


class PairedArtifacts(Sequence[Artifact]):
    """A side's artifacts of the pairs, in pair order: a view of its :class:`ArtifactTable` by
    record index (4 bytes a pair), each artifact made when read."""

    __slots__ = ("_indices", "_table")

    def __init__(self, table: ArtifactTable, indices: Iterable[int]) -> None:
        self._table, self._indices = table, array("l", indices)
        if any(table.status(index) is None for index in self._indices):
            raise AssertionError("a run was read without its telemetry")

    def __len__(self) -> int:
        return len(self._indices)

    @overload
    def __getitem__(self, index: int) -> Artifact: ...
    @overload
    def __getitem__(self, index: slice) -> list[Artifact]: ...
    def __getitem__(self, index: int | slice) -> Artifact | list[Artifact]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        artifact = self._table[self._indices[index]]
        assert artifact is not None  # checked when the view was made
        return artifact

    def statuses(self) -> Iterator[str]:
        """Each artifact's status, in pair order, without making the artifacts."""
        status = self._table.status
        return (status(index) or "" for index in self._indices)

    def telemetry(self) -> Sequence[Mapping[str, Any] | None]:
        """Each artifact's telemetry, in pair order, made one at a time as it is read."""
        return LazySequence(self._table.telemetry, self._indices)

    def reported(self) -> Sequence[Mapping[str, Any] | None]:
        """Each artifact's reported figures, in pair order (kept apart: nothing is made)."""
        return LazySequence(self._table._reported.get, self._indices)


class LazySequence(Sequence[Any]):
    """``read(index)`` of each index, made when asked for (never a list of every value)."""

    __slots__ = ("_indices", "_read")

    def __init__(self, read: Any, indices: Sequence[int]) -> None:
        self._read, self._indices = read, indices

    def __len__(self) -> int:
        return len(self._indices)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self._read(i) for i in self._indices[index]]
        return self._read(self._indices[index])

    def __iter__(self) -> Iterator[Any]:
        read = self._read
        return (read(index) for index in self._indices)


def telemetry_of(artifacts: Sequence[Artifact]) -> Sequence[Mapping[str, Any] | None]:
    """Each artifact's re-derived telemetry, in order (a packed side's made one at a time as read)."""
    if isinstance(artifacts, PairedArtifacts):
        return artifacts.telemetry()
    return [artifact.telemetry for artifact in artifacts]


def reported_of(artifacts: Sequence[Artifact]) -> Sequence[Mapping[str, Any] | None]:
    """Each artifact's reported figures, in order (kept apart from the re-derived telemetry)."""
    if isinstance(artifacts, PairedArtifacts):
        return artifacts.reported()
    return [artifact.reported for artifact in artifacts]
