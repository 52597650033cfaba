"""The Python table renderer writes exactly what the Jinja ``table`` macro wrote.

``reference_table.html`` is the macro as it was before ``generator/render/tables.py``; it is
rendered here with the site's own environment (same finalize, filters and whitespace rules), and
the two outputs must be equal on generated tables, hostile text included: markup, quotes,
right-to-left letters, invisible and bidirectional-control characters, look-alike names, texts
past the 500-character cap.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jinja2 import ChoiceLoader, DictLoader, Environment, FileSystemLoader

from generator.model.redaction import RedactionRule, Redactor
from generator.pages.models import Cell, Column, NumberRow, Row, Table
from generator.render.env import default_templates_dir, make_env
from generator.render.tables import table_html
from tests.support.hypo import examples

_REFERENCE = (Path(__file__).with_name("reference_table.html")).read_text(encoding="utf-8")

_HOSTILE = [
    "csv-dedupe",
    "csv-dedup\u0435",  # Cyrillic е: a look-alike of the one above
    "csv\u200b-dedupe",
    "\u202eepuded-vsc",
    "<script>alert(1)</script>",
    "a & b",
    "\"quoted\" 'single'",
    "שלום",
    "مرحبا 12",
    "tab\there\nnewline",
    "x" * 501,
    "ghp_" + "a" * 36,
    "",
    "0.50",
    "N/A",
    "\x00\x1f\x7f",
    "\ufeffbom",
]

_text = st.one_of(st.sampled_from(_HOSTILE), st.text(max_size=40))
_maybe = st.one_of(st.none(), _text)


def _env() -> Environment:
    env = make_env()
    env.loader = ChoiceLoader(
        [
            DictLoader(
                {
                    "reference.html": _REFERENCE,
                    "page.html": '{% from "reference.html" import table %}{{ table(t, labelledby) }}',
                    "fast.html": '{% from "partials/blocks.html" import table %}{{ table(t, labelledby) }}',
                }
            ),
            FileSystemLoader(str(default_templates_dir())),
        ]
    )
    return env


_ENV = _env()


@st.composite
def tables(draw: st.DrawFn) -> Table:
    width = draw(st.integers(min_value=1, max_value=4))
    columns = tuple(Column(draw(_text), draw(st.booleans()), draw(_maybe)) for _ in range(width))
    rows = []
    for _ in range(draw(st.integers(min_value=0, max_value=6))):
        cells = []
        for _ in range(draw(st.integers(min_value=0, max_value=width + 1))):  # short and long rows
            href = draw(st.one_of(st.none(), st.just(""), _text))
            cells.append(
                Cell(
                    draw(_text),
                    draw(st.one_of(st.none(), st.just(""), _text)),
                    href,
                    draw(st.sampled_from(["", "num", "num na", "pass", draw(_text)])),
                    draw(_maybe),
                    draw(st.one_of(st.none(), st.just(""), _text)),
                    draw(st.one_of(st.none(), st.integers(min_value=-1, max_value=3))),
                )
            )
        rows.append(Row(tuple(cells), draw(st.sampled_from(["", "mismatch", draw(_text)])), draw(_maybe)))
    views = tuple(draw(st.lists(st.tuples(_text, _text), max_size=3)))
    return Table(
        id=draw(_text),
        caption=draw(_text),
        columns=columns,
        rows=tuple(rows),
        empty=draw(_text),
        sortable=draw(st.booleans()),
        filterable=draw(st.booleans()),
        views=views,
        collapsed=draw(_maybe),
    )


def _both(table: Table, labelledby: str, redactor: Redactor | None) -> tuple[str, str]:
    ref = _ENV.get_template("page.html").render(t=table, labelledby=labelledby, redactor=redactor)
    fast = _ENV.get_template("fast.html").render(t=table, labelledby=labelledby, redactor=redactor)
    return ref, fast


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.one_of(st.just(""), _text), st.booleans())
def test_fast_table_equals_the_macro(table: Table, labelledby: str, with_redactor: bool) -> None:
    ref, fast = _both(table, labelledby, Redactor() if with_redactor else None)
    assert fast == ref
    assert str(table_html(table, labelledby)) == fast


def test_look_alikes_and_hostile_cells_render_like_the_macro() -> None:
    cells = [Cell(text) for text in _HOSTILE]
    table = Table(
        "t<1>",
        "caption & \u202e",
        (Column("Name", False, 'help "x"'),),
        tuple(Row((cell,), "mismatch", f"row-{i}") for i, cell in enumerate(cells)),
        views=(("All", ""), ("Better", "better")),
        filterable=True,
        collapsed="12 rows",
    )
    ref, fast = _both(table, "entry-h", None)
    assert fast == ref
    assert "(look-alike)" in fast  # the Cyrillic look-alike is marked
    assert "<bdi>" in fast and "[U+202E]" in fast and "&lt;script&gt;" in fast


def test_empty_table_renders_like_the_macro() -> None:
    table = Table("empty", "Nothing", (Column("a"), Column("b", True)), ())
    ref, fast = _both(table, "", None)
    assert fast == ref
    assert 'colspan="2"' in fast


def test_repeated_plain_cells_reuse_their_html_but_never_across_markup_or_other_types() -> None:
    """A plain cell's HTML is kept per (cls, sort, text); a Markup text equal to a kept str text, or a
    sort that equals a kept one only as a number, must still render as the macro renders it."""
    from markupsafe import Markup

    rows = [
        Row((Cell("<b>x</b>", "1", None, "num"), Cell("N/A", "", None, "num na"))),
        Row((Cell(Markup("<b>x</b>"), "1", None, "num"), Cell("N/A", "", None, "num na"))),
        Row((Cell("<b>x</b>", 1, None, "num"), Cell("N/A", True, None, "num na"))),  # type: ignore[arg-type]
        Row((Cell("<b>x</b>", "1", None, "num"), Cell("N/A", "", None, "num na"))),
    ]
    table = Table("rep", "Repeats", (Column("a", True), Column("b", True)), tuple(rows) * 3)
    for redactor in (None, Redactor()):
        ref, fast = _both(table, "", redactor)
        assert fast == ref
        assert str(table_html(table, "", redactor)) == fast
    assert fast.count('<td class="num" data-sort="1"><b>x</b></td>') == 3  # the Markup rows, raw


_NUMBERS = st.text(alphabet="0123456789.,+$% se-", max_size=20) | st.sampled_from(
    ["12,345", "0.25", "$1.234", "40s", "1e-05", "-3", "100.0%", "", " ", "ssss", "e-e-e", "1" * 70]
)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.tuples(_NUMBERS, st.one_of(st.none(), _NUMBERS)), min_size=1, max_size=8))
def test_number_cells_take_the_short_path_with_the_macros_bytes(values) -> None:
    """Number texts skip redaction, capping and escaping (nothing in them can change); the bytes stay
    the macro's, with and without a redactor, and a config rule that matches digits still redacts."""
    rows = tuple(Row((Cell(text, sort, None, "num"), Cell(text))) for text, sort in values)
    table = Table("n", "Numbers", (Column("a", True), Column("b")), rows)
    for redactor in (None, Redactor()):
        ref, fast = _both(table, "", redactor)
        assert fast == ref
        assert str(table_html(table, "", redactor)) == ref
    digits = Redactor(extra=(RedactionRule("digits", r"[0-9]{2,}"),))
    html = str(table_html(table, "", digits))
    if any(any(a.isdigit() and b.isdigit() for a, b in zip(text, text[1:], strict=False)) for text, _ in values):
        assert "[redacted:digits" in html


@settings(max_examples=examples(500), deadline=None)
@given(_NUMBERS)
def test_a_number_text_is_its_own_html(text: str) -> None:
    """Why the short path is exact: the built-in rules, the cap, the visible-character rule and the escape
    leave such a text as it is, and the name rule leaves a number (``is_number``) as it is too: only
    a text that is no number is isolated."""
    from markupsafe import escape

    from generator.pages.names import is_number
    from generator.render.env import name
    from generator.render.tables import shown

    assert Redactor().text(text) == text
    if len(text) <= 64:
        assert str(escape(shown(text))) == text
        assert str(name(text)) == (text if is_number(text) else f"<bdi>{text}</bdi>" if text else "")
    assert is_number(text) == (len(text) <= 64 and text[:1].isdigit() or text[:1] in "-+$" and text[1:2].isdigit())


# --------------------------------------------------------------------------- NumberRow and shared cells


@st.composite
def number_tables(draw: st.DrawFn) -> Table:
    """Tables mixing Rows and NumberRows: hostile lead texts, number texts that are and are not numbers,
    numbers under text columns (where a look-alike mark can fall on them), ragged rows."""
    width = draw(st.integers(min_value=1, max_value=5))
    columns = tuple(Column(draw(_text), draw(st.booleans())) for _ in range(width))
    rows: list[Row | NumberRow] = []
    for _ in range(draw(st.integers(min_value=0, max_value=7))):
        lead = tuple(
            Cell(draw(_text), draw(st.one_of(st.none(), _NUMBERS)), draw(st.one_of(st.none(), _text)), draw(_text))
            for _ in range(draw(st.integers(min_value=0, max_value=2)))
        )
        if draw(st.booleans()):
            count = draw(st.integers(min_value=0, max_value=width + 1))
            texts = tuple(draw(st.one_of(_NUMBERS, _text)) for _ in range(count))
            sorts = tuple(draw(st.one_of(st.just(""), _NUMBERS, _text)) for _ in range(count))
            rows.append(NumberRow(lead, texts, sorts, draw(st.sampled_from(["", "muted"])), draw(_maybe)))
        else:
            rows.append(Row(lead, draw(st.sampled_from(["", "reported"])), draw(_maybe)))
    return Table(id=draw(_text), caption=draw(_text), columns=columns, rows=tuple(rows))


def _as_cells(table: Table) -> Table:
    return replace(table, rows=tuple(Row(row.cells, row.cls, row.id) for row in table.rows))


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(number_tables(), st.sampled_from([None, Redactor(), Redactor(extra=(RedactionRule("digits", r"[0-9]{2,}"),))]))
def test_a_number_row_renders_as_its_cells_do(table: Table, redactor: Redactor | None) -> None:
    """A NumberRow is written without its Cells, byte for byte what its Cells give (and the macro)."""
    cells = _as_cells(table)
    assert str(table_html(table, "", redactor)) == str(table_html(cells, "", redactor))
    if redactor is None:  # (the reference macro is rendered here without the site's redactor global)
        assert str(table_html(table)) == _ENV.get_template("page.html").render(t=cells, labelledby="")


def test_number_row_cells_are_num_cells() -> None:
    from generator.pages.format import NA, num_cell

    row = NumberRow((Cell("1"),), ("12,345", NA), ("12345", ""))
    assert row.cells == (Cell("1"), num_cell(12345), num_cell(None, NA))


def test_a_look_alike_on_a_number_row_and_a_shared_cell_in_two_places() -> None:
    """A mark can fall on a NumberRow's text under a text column; one shared Cell object is written
    plain where it is unmarked and with its mark where it is marked."""
    shared = Cell("csv-dedupe")
    table = Table(
        "s",
        "Shared",
        (Column("Name"), Column("Value")),
        (
            Row((shared, Cell("x"))),
            NumberRow((shared,), ("csv-dedup\u0435",), ("1",)),
            Row((Cell("other"), shared)),
            Row((Cell("x"), Cell("y"))),
        ),
    )
    for redactor in (None, Redactor()):
        fast = str(table_html(table, "", redactor))
        assert fast == str(table_html(_as_cells(table), "", redactor))
        ref = _ENV.get_template("page.html").render(t=_as_cells(table), labelledby="")
        # marked in the Value column (the number text and the shared cell), plain in the Name column
        assert fast == ref and fast.count("(look-alike)") == 2
        assert "<tr><td><bdi>csv-dedupe</bdi></td><td><bdi>x</bdi></td>" in fast
        assert str(table_html(table, "", redactor)) == fast  # again, every cache warm


def test_a_shared_cell_is_redacted_by_each_redactor() -> None:
    secret = Cell("API_KEY=hK29xQ7mZp4L")
    table = Table("r", "Redacted", (Column("a"),), (Row((secret,)), Row((secret,))))
    assert "hK29xQ7mZp4L" not in str(table_html(table, "", Redactor()))
    assert str(table_html(table, "", Redactor(enabled=False))).count("hK29xQ7mZp4L") == 2
    assert "hK29xQ7mZp4L" not in str(table_html(table, "", Redactor()))
