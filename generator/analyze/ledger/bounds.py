"""The exact intervals a ledger summary asks for: gathered while it counts, computed together.

Counting receipts needs nothing but Python; the Clopper-Pearson bounds need scipy, whose import
costs about as much as a third of the whole summary.  So the summary does not compute a bound
where it counts one: it *asks* (:meth:`Bounds.interval`, :meth:`Bounds.paired`), leaving ``None``
in its place, and once everything is counted :meth:`Bounds.fill` has every bound computed in one
call and puts each value where it was asked for.  The values are made by one function,
``generator.analyze.stats.binomial.ledger_bounds``, so counting needs no scipy.
An ask is a plain tuple of counts: ``("interval", successes, total)`` or
``("paired", pairs, wins, losses, mode)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["Ask", "Bounds", "Compute", "compute_here"]

Ask = tuple[Any, ...]
#: ``compute(asks)`` -> one value per ask, in order (``binomial.ledger_bounds`` or a stand-in for it).
Compute = Callable[[list[Ask]], list[Any]]


def compute_here(asks: list[Ask]) -> list[Any]:
    """The bounds computed in this process (importing scipy now, if nothing has yet)."""
    from generator.analyze.stats.binomial import ledger_bounds

    return ledger_bounds(asks)


class Bounds:
    """The asks of one summary (or of one part of it), each with the place its value goes."""

    def __init__(self) -> None:
        self._asks: list[Ask] = []
        self._places: list[tuple[dict[str, Any], str]] = []

    def __len__(self) -> int:
        return len(self._asks)

    def _ask(self, into: dict[str, Any], key: str, ask: Ask) -> None:
        into[key] = None  # the key keeps its place in ``into``; the value comes with fill()
        self._asks.append(ask)
        self._places.append((into, key))

    def interval(self, into: dict[str, Any], key: str, successes: int, total: int) -> None:
        """``into[key]`` = the two-sided 95% Clopper-Pearson interval (``clopper_pearson(...).as_dict()``)."""
        self._ask(into, key, ("interval", successes, total))

    def paired(self, into: dict[str, Any], key: str, pairs: int, wins: int, losses: int, mode: str) -> None:
        """``into[key]`` = the paired difference of ``pairs`` pairs, ``wins`` of them candidate-only
        and ``losses`` baseline-only (``binomial.counted_difference``)."""
        self._ask(into, key, ("paired", pairs, wins, losses, mode))

    def merge(self, other: Bounds) -> None:
        """Take over ``other``'s asks (after this one's)."""
        self._asks.extend(other._asks)
        self._places.extend(other._places)
        other._asks, other._places = [], []

    def fill(self, compute: Compute) -> None:
        """Compute every ask at once and put each value in its place."""
        if not self._asks:
            return
        values = compute(list(self._asks))
        if len(values) != len(self._asks):
            raise ValueError("the bounds came back incomplete")
        for (into, key), value in zip(self._places, values, strict=True):
            into[key] = value
        self._asks, self._places = [], []
