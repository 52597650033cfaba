"""The site's tables, rendered in Python: the same HTML the Jinja ``table`` macro wrote, faster.

A 1,000-task site writes millions of table cells; through the macro each cost a Jinja
``finalize`` call, an attribute lookup per field and an escape.  :func:`table_html` writes the
same bytes (``tests/perf/test_render_tables.py`` checks it against the original macro on
generated tables, hostile text included) with every value still going through
:func:`shown` (capped, invisible characters made visible) and then
``markupsafe.escape``, and every cell text through the ``name`` rule: isolated in ``<bdi>``
(:func:`~generator.pages.names.isolate`), except a number as the site prints it, which is no name.
A :class:`~generator.pages.names.Phrase` (a caption, column label or cell we wrote around names)
has its names isolated and its words written as text.  Because those rules are pure functions of
the text, the escaped form of each distinct text is computed once per build (``text``, ``name``).

Every text is redacted first when the render has a redactor (``render_with`` makes it a template
global, so it reaches the imported ``table`` macro): a secret is replaced before escaping could split
it, as on the rest of the page; the site writer redacts each page's final text again
(``docs/security.md``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from markupsafe import Markup, escape

from generator.model.redaction import Redactor
from generator.pages.format import capped
from generator.pages.models import NumberRow, Row, Table
from generator.pages.names import Phrase, confusable_with, is_number, isolate, phrase_html, visible

__all__ = ["confusable_marks", "shown", "table_html"]

_CACHE_LIMIT = 1 << 17  # distinct texts kept; the caches are cleared (not grown) past this
_CACHED_LENGTH = 256  # longer texts are rare and seldom repeat: not kept

_NO_REDACTOR = Redactor(enabled=False)
_NUMBER_TEXT = re.compile(r"[0-9.,+$% se-]*")
# Escaped forms of each distinct text, per redactor (a build has one; tests build several).
_caches: dict[Redactor, tuple[dict[str, str], dict[str, str]]] = {}
# The HTML of each distinct plain cell (no link, no tooltip, no mark): (cls, sort, text) -> ``<td…>…</td>``.
_cell_caches: dict[Redactor, dict[tuple[str, str | None, str], str]] = {}


def shown(value: Any) -> Any:
    """Every template value on its way out: strings capped and their invisible characters made visible.

    The Jinja environment's ``finalize`` (:mod:`generator.render.env`) and the tables below share it.
    """
    if isinstance(value, Markup) or not isinstance(value, str):
        return value
    return visible(capped(value))


def _row_texts(row: Row | NumberRow) -> list[str]:
    """The texts of a row's cells, in order, without making a NumberRow's Cells."""
    if type(row) is NumberRow:
        return [cell.text for cell in row.lead] + list(row.texts)
    return [cell.text for cell in row.cells]


def confusable_marks(table: Table) -> dict[tuple[int, int], str]:
    """``(row, column)`` of each text cell that looks like another cell of its column -> those texts."""
    marks: dict[tuple[int, int], str] = {}
    columns = [column for column, spec in enumerate(table.columns) if not spec.numeric]
    if not columns or len(table.rows) < 2:
        return marks
    grid = [_row_texts(row) for row in table.rows]
    for column in columns:
        texts = [texts[column] for texts in grid if column < len(texts)]
        if len(texts) < 2:
            continue
        found = confusable_with(texts)
        if not found:
            continue
        for index, row_texts in enumerate(grid):
            if column < len(row_texts) and row_texts[column] in found:
                marks[(index, column)] = ", ".join(found[row_texts[column]])
    return marks


def _texters(redactor: Redactor) -> tuple[Any, Any, Any, Any]:  # noqa: C901 - cached cell renderers, millions of cells
    """The renderers for *redactor*: ``{{ value }}``, ``{{ value|name }}`` and ``{{ value|phrase }}``
    in the macro, and the number test under which the first two return their text as it is (None when
    a config rule may match)."""
    if redactor not in _caches:
        if len(_caches) >= 4:
            _caches.clear()
        _caches[redactor] = ({}, {})
    texts, names = _caches[redactor]
    redact = redactor.text
    # A number as the site prints it ("12,345", "0.25", "$1.234", "40s", "1e-05") is its own HTML: no
    # built-in rule can match it (every one needs letters these texts lack), it has nothing to escape,
    # cap or make visible.  A config rule might match digits, so then every text takes the full path.
    numbers = _NUMBER_TEXT.fullmatch if not redactor.extra else None

    def text(value: Any) -> str:
        """finalize (redact, then :func:`shown`), then escape."""
        if type(value) is str:
            hit = texts.get(value)
            if hit is not None:
                return hit
            if numbers is not None and len(value) <= 64 and numbers(value):
                return value  # distinct numbers seldom repeat: not kept
            out = str(escape(shown(redact(value))))
            if len(value) <= _CACHED_LENGTH:
                if len(texts) >= _CACHE_LIMIT:
                    texts.clear()
                texts[value] = out
            return out
        return str(escape(shown(value)))

    def name(value: Any) -> str:
        if type(value) is str:
            hit = names.get(value)
            if hit is not None:
                return hit
            if numbers is not None and is_number(value):  # (a stricter test than ``numbers``)
                return value
        if isinstance(value, Markup):
            return str(value)
        if isinstance(value, Phrase):
            return words(value, name)
        safe = str(escape(shown(redact(str(value)))))
        out = safe if is_number(safe) else isolate(safe)
        if type(value) is str and len(value) <= _CACHED_LENGTH:
            if len(names) >= _CACHE_LIMIT:
                names.clear()
            names[value] = out
        return out

    def words(value: Any, whole: Any = text) -> str:
        """Text we wrote: a :class:`Phrase` with its names isolated (its redacted whole through *whole*
        when redacting the whole changes it), any other value as :func:`text` writes it."""
        if not isinstance(value, Phrase):
            return str(text(value))
        if redact(str(value)) != value:
            return str(whole(str(value)))
        return phrase_html(value, text, name)

    return text, name, words, numbers


def _plain_cells(redactor: Redactor) -> dict[tuple[str, str | None, str], str]:
    if redactor not in _cell_caches:
        if len(_cell_caches) >= 4:
            _cell_caches.clear()
        _cell_caches[redactor] = {}
    return _cell_caches[redactor]


def table_html(t: Table, labelledby: Any = "", redactor: Redactor | None = None) -> Markup:
    """The HTML of one table block, byte for byte what ``partials/blocks.html`` ``table`` wrote."""
    text, name, words, numbers = _texters(redactor or _NO_REDACTOR)
    tid = text(t.id)
    out = _table_head(t, tid, labelledby, text, words)
    marks = confusable_marks(t)
    marked = {index for index, _column in marks}
    cells = _plain_cells(redactor or _NO_REDACTOR)
    rows = t.rows
    for ri, row in enumerate(rows):
        out.append("<tr")
        if row.id:
            out.append(f' id="{text(row.id)}"')
        if row.cls:
            out.append(f' class="{text(row.cls)}"')
        out.append(">")
        # a NumberRow's numbers are plain cells: written from their two strings below (unless a mark,
        # which only a text column can carry, falls on one: then the row's Cells take the general way)
        number_row = type(row) is NumberRow and ri not in marked
        for ci, cell in enumerate(row.lead if number_row else row.cells):  # type: ignore[union-attr]
            if cell.href is None and not cell.title and not (marks and (ri, ci) in marks):
                # a plain cell: its HTML depends on (cls, sort, text) alone, made once per distinct triple
                key = (cell.cls, cell.sort, cell.text)
                # exact str parts only: a Markup text or a True sort equals a str or int key it must not hit
                exact = type(key[2]) is str and type(key[0]) is str and (key[1] is None or type(key[1]) is str)
                html = cells.get(key) if exact else None
                if html is None:
                    html = (
                        "<td"
                        + (f' class="{text(cell.cls)}"' if cell.cls else "")
                        + (f' data-sort="{text(cell.sort)}"' if cell.sort is not None else "")
                        + ">"
                        + name(cell.text)
                        + "</td>"
                    )
                    if exact and len(key[2]) <= _CACHED_LENGTH and len(key[1] or "") <= _CACHED_LENGTH:
                        if len(cells) >= _CACHE_LIMIT:
                            cells.clear()
                        cells[key] = html
                out.append(html)
                continue
            out.append(_general_cell(cell, marks.get((ri, ci)) if marks else None, text, name))
        if number_row:
            # the plain-cell way for Cell(shown, sort, None, "num" or "num na"), without the Cell; a number
            # text is its own HTML under text() and name() (see _texters, is_number), so it is written as it is
            out.extend(_number_cells(row, cells, text, name, numbers))  # type: ignore[arg-type]
        out.append("</tr>\n")
    if not rows:
        out.append(f'<tr class="empty"><td colspan="{text(len(t.columns))}">{text(t.empty)}</td></tr>\n')
    out.append("</tbody>\n</table>\n</div>\n")
    if t.collapsed:
        out.append("</details>")
    out.append("</div>\n")
    return Markup("".join(out))


def _table_head(t: Table, tid: str, labelledby: Any, text: Any, words: Any) -> list[str]:
    """The table block up to its ``<tbody>``: collapsed summary, views, filter, caption and header."""
    rows = t.rows
    out: list[str] = [f'<div class="table-block" id="{tid}">\n']
    if t.collapsed:
        out.append(
            f'<details class="table-details" data-table="{tid}-t">'
            f"<summary>{text(t.collapsed)} — show the table</summary>"
        )
    if t.views:
        out.append(
            f'<div class="table-views" role="group" aria-label="Views of {text(t.caption)}" '
            f'data-table="{tid}-t" hidden>'
        )
        for index, (label, match) in enumerate(t.views):
            pressed = text("true" if index == 0 else "false")
            out.append(
                f'<button type="button" class="table-view" data-table="{tid}-t" data-match="{text(match)}" '
                f'aria-pressed="{pressed}">{text(label)}</button>'
            )
        out.append("</div>\n")
    rows = t.rows
    if t.filterable:
        out.append(
            '<div class="table-tools"><label>Filter rows <input type="search" class="table-filter" '
            f'data-table="{tid}-t" autocomplete="off"></label> '
            f'<output class="table-count" data-table="{tid}-t" aria-live="polite">'
            f"{text(len(rows))} rows</output></div>\n"
        )
    by = f"{text(labelledby)} " if labelledby else ""
    sortable = " sortable" if t.sortable and len(rows) > 1 else ""
    out.append(f'<div class="table-wrap" tabindex="0" role="region" aria-labelledby="{by}{tid}-cap">\n')
    out.append(f'<table id="{tid}-t" class="data{sortable}">\n')
    out.append(f'<caption id="{tid}-cap">{words(t.caption)}</caption>\n')
    out.append("<thead><tr>")
    for column in t.columns:
        num = ' class="num"' if column.numeric else ""
        helps = f' title="{text(column.help)}"' if column.help else ""
        out.append(f'<th scope="col"{num}{helps}>{words(column.label)}</th>')
    out.append("</tr></thead>\n<tbody>\n")
    return out


def _general_cell(cell: Any, mark: str | None, text: Any, name: Any) -> str:
    """A cell with a link, a title or a look-alike mark (the other cells take the cached plain way)."""
    out: list[str] = []
    out.append("<td")
    if cell.cls:
        out.append(f' class="{text(cell.cls)}"')
    if cell.sort is not None:
        out.append(f' data-sort="{text(cell.sort)}"')
    if cell.title:
        out.append(f' title="{text(cell.title)}"')
    out.append(">")
    if cell.href:
        out.append(f'<a href="{text(cell.href)}"')
        if cell.filter:
            out.append(f' data-filter="{text(cell.filter)}"')
            if cell.filter_column is not None:
                out.append(f' data-filter-column="{text(cell.filter_column)}"')
        out.append(f">{name(cell.text)}</a>")
    else:
        out.append(name(cell.text))
    if mark is not None:
        out.append(f' <span class="confusable" title="Looks like: {text(mark)}">(look-alike)</span>')
    out.append("</td>")
    return "".join(out)


def _number_cells(row: NumberRow, cells: dict[Any, str], text: Any, name: Any, numbers: Any) -> Iterator[str]:
    """A :class:`NumberRow`'s number cells, each made once per distinct (class, sort, text)."""
    num_cls, na_cls = text("num"), text("num na")
    for shown, sort in zip(row.texts, row.sorts, strict=True):
        key = ("num" if sort else "num na", sort, shown)
        exact = type(shown) is str and type(sort) is str
        html = cells.get(key) if exact else None
        if html is None:
            if exact and numbers is not None and len(shown) <= 64 and len(sort) <= 64:
                if is_number(shown) and numbers(sort):
                    html = f'<td class="{num_cls if sort else na_cls}" data-sort="{sort}">{shown}</td>'
            if html is None:
                html = (
                    f'<td class="{text(key[0])}"'
                    + (f' data-sort="{text(sort)}"' if sort is not None else "")
                    + f">{name(shown)}</td>"
                )
            if exact and len(shown) <= _CACHED_LENGTH and len(sort) <= _CACHED_LENGTH:
                if len(cells) >= _CACHE_LIMIT:
                    cells.clear()
                cells[key] = html
        yield html
