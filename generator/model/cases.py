"""A matrix's expected cases and keys, kept compactly (issue 16: memory flat in the runs).

:class:`MatrixCases` holds the (task, treatment, rep) cases of an expected-case matrix as runs of
one (task, treatment) with their repetitions; :class:`MatrixKeys` is the set of one treatment's
(task, rep) keys, a ``range`` of repetitions per task.  Both read exactly like the tuples and
frozensets they replace.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, overload

__all__ = ["MatrixCases", "MatrixKeys", "reps_of"]

_INT64 = (-(1 << 63), (1 << 63) - 1)
Key = tuple[str, int]


def reps_of(reps: Sequence[int]) -> range | array[int] | tuple[int, ...]:
    """Repetitions kept compactly: a ``range`` when they run 1 apart, else packed 64-bit integers
    (or, for a value that is not a 64-bit ``int``, a tuple)."""
    if reps and all(type(rep) is int for rep in reps):
        first = reps[0]
        if all(rep == first + offset for offset, rep in enumerate(reps)):
            return range(first, first + len(reps))
        if all(_INT64[0] <= rep <= _INT64[1] for rep in reps):
            return array("q", reps)
    return tuple(reps)


class MatrixCases(Sequence[tuple[str, str, int]]):
    """A matrix's (task, treatment, rep) cases in their order, kept as runs of one (task,
    treatment) with their repetitions (a ``range`` for 1..n): a few bytes a case, not a tuple
    of three per case (issue 16)."""

    __slots__ = ("_groups", "_length")

    def __init__(self, cases: Iterable[tuple[str, str, int]]) -> None:
        groups: list[tuple[str, str, range | array[int] | tuple[int, ...]]] = []
        current: tuple[str, str] | None = None
        reps: list[int] = []
        for task, treatment, rep in cases:
            if (task, treatment) != current:
                if current is not None:
                    groups.append((*current, reps_of(reps)))
                current, reps = (task, treatment), []
            reps.append(rep)
        if current is not None:
            groups.append((*current, reps_of(reps)))
        self._groups = tuple(groups)
        self._length = sum(len(group[2]) for group in groups)

    def groups(self) -> tuple[tuple[str, str, Sequence[int]], ...]:
        """The runs of cases of one (task, treatment), in order, with their repetitions."""
        return self._groups

    def __iter__(self) -> Iterator[tuple[str, str, int]]:
        for task, treatment, reps in self._groups:
            for rep in reps:
                yield (task, treatment, rep)

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> tuple[str, str, int]: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[tuple[str, str, int], ...]: ...
    def __getitem__(self, index: int | slice) -> tuple[str, str, int] | tuple[tuple[str, str, int], ...]:
        if isinstance(index, slice):
            return tuple(self)[index]
        position = index + self._length if index < 0 else index
        if not 0 <= position < self._length:
            raise IndexError("matrix case index out of range")
        for task, treatment, reps in self._groups:
            if position < len(reps):
                return (task, treatment, reps[position])
            position -= len(reps)
        raise IndexError("matrix case index out of range")  # pragma: no cover - the length holds

    def __eq__(self, other: object) -> bool:
        if isinstance(other, MatrixCases):
            return self._length == other._length and tuple(self) == tuple(other)
        if isinstance(other, tuple):
            return tuple(self) == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"MatrixCases({list(self)!r})"


class MatrixKeys(AbstractSet[Key]):
    """The (task, rep) keys of one treatment of a matrix: per task, its repetitions (a ``range``
    for 1..n), so a membership test is a dict look-up and a range check, with no tuple per key."""

    __slots__ = ("_by_task", "_length")

    def __init__(self, by_task: dict[str, range | array[int] | tuple[int, ...]]) -> None:
        self._by_task = by_task
        self._length = sum(len(reps) for reps in by_task.values())

    @classmethod
    def _from_iterable(cls, it: Iterable[Any]) -> frozenset[Any]:
        return frozenset(it)  # what a set operation on the keys gives

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, tuple) or len(key) != 2:
            return False
        try:
            reps = self._by_task.get(key[0])
        except TypeError:  # an unhashable task
            return False
        return reps is not None and key[1] in reps

    def __iter__(self) -> Iterator[Key]:
        for task, reps in self._by_task.items():
            for rep in reps:
                yield (task, rep)

    def __len__(self) -> int:
        return self._length

    def __hash__(self) -> int:
        return self._hash()

    def __repr__(self) -> str:
        return f"MatrixKeys({sorted(self)!r})"
