"""A task page's telemetry numbers (``NumberRow`` strings, each distinct (kind, value) formatted once)
are exactly the Cells the page made before: ``_reference_cells`` is that code, and the shared lead
cells equal the cells they replace."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from generator.pages import format as fmt
from generator.pages.comparison import task
from generator.pages.comparison.context import TELEMETRY_FIELDS, side_label
from generator.pages.models import Cell, NumberRow
from tests.support.hypo import examples

_SAFE_INT = 1 << 53


def _reference_cells(values: Mapping[str, Any] | None, fields: tuple[tuple[str, str, str], ...]) -> list[Cell]:
    """The telemetry cells as the task page made them before NumberRow."""
    cells = []
    for key, _label, kind in fields:
        value = values.get(key) if values is not None else None
        if isinstance(value, list):
            value = len(value)
        if value is None:
            cells.append(fmt.num_cell(None, fmt.NA))
            continue
        vtype = type(value)
        if vtype is int and -_SAFE_INT < value < _SAFE_INT:
            shown = f"{value:,}" if kind == "count" else fmt.kind_format(kind).format(value)
            cells.append(Cell(shown, str(value), None, "num"))
        elif vtype is float and math.isfinite(value):
            if kind == "count":
                shown = f"{value:,}" if float(value).is_integer() else f"{value:.2f}"
            else:
                shown = fmt.kind_format(kind).format(value)
            cells.append(Cell(shown, repr(value), None, "num"))
        else:
            shown = fmt.by_kind(value, kind) if kind != "count" else fmt.count(value)
            cells.append(fmt.num_cell(value, shown))
    return cells


_FIELDS = task._TELEMETRY_COLUMNS
_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(1 << 60), max_value=1 << 60),
    st.sampled_from([0, -0.0, 0.0, 1, 1.0, True, 2**53, 2**53 - 1, -(2**53) + 1, 1e-05, 1e300, 0.5, 2.5, 42.5695]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=5),
    st.lists(st.integers(), max_size=4),
)
_telemetry = st.one_of(
    st.none(), st.dictionaries(st.sampled_from([key for key, _l, _k in _FIELDS] + ["other"]), _values)
)


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(_telemetry, min_size=1, max_size=6), st.sampled_from([TELEMETRY_FIELDS, _FIELDS]))
def test_telemetry_numbers_are_the_cells_it_replaced(runs: list[dict[str, Any] | None], fields: Any) -> None:
    for values in runs:  # the same values again hit the per-build cache: still the same cells
        texts, sorts = task._telemetry_numbers(values, fields)
        row = NumberRow((), tuple(texts), tuple(sorts))
        assert row.cells == tuple(_reference_cells(values, fields))


def test_repeated_numbers_of_one_value_in_two_kinds_and_types() -> None:
    """1, 1.0 and True are equal dict keys; -0.0 equals 0.0: none of them may take another's text."""
    for _ in range(2):
        for value in (1, 1.0, True, -0.0, 0.0, 0, False):
            values = {key: value for key, _l, _k in _FIELDS}
            texts, sorts = task._telemetry_numbers(values, _FIELDS)
            assert NumberRow((), tuple(texts), tuple(sorts)).cells == tuple(_reference_cells(values, _FIELDS))


def test_shared_lead_cells_equal_the_cells_they_replace() -> None:
    for side in ("candidate", "baseline", "other", None):
        assert task._side_cell(side) == Cell(side_label(side))  # type: ignore[arg-type]
        assert task._side_cell(side) is task._side_cell(side) or not isinstance(side, str)
    for rep in (1, 2, 0, None, True, 1.5, "3"):
        assert task._rep_cell(rep) == fmt.num_cell(rep)
    assert task._rep_cell(True) != task._rep_cell(1)  # a bool repetition is not the int one
    for args in (("—", "0", ""), ("a; b", "2", "fail"), ("verified", None, "")):
        assert task._shared_cell(*args) == Cell(args[0], args[1], None, args[2])
        assert task._shared_cell(*args) is task._shared_cell(*args)
