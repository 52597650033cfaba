"""Number and value formatting shared by the page builders.

One rule everywhere: an undefined value is shown as ``N/A`` (never 0, never
blank), and its sort key is empty so it sorts before every number.

And one cap for every displayed field: :func:`capped` shows at most
:data:`FIELD_CAP` characters of a string and says what it cut (how many
characters, and the SHA-256 of the whole field), so a 5 MB check name cannot
make a 100 MB site.  The HTML renderer applies it to every value it writes,
the Markdown report to every untrusted field.
"""

from __future__ import annotations

from typing import Any

from generator.model.common import cap_text, is_number, short_hash
from generator.pages.models import Cell

__all__ = [
    "COLLAPSE_ROWS",
    "FIELD_CAP",
    "NA",
    "bool_cell",
    "by_kind",
    "capped",
    "change",
    "collapsed",
    "count",
    "fixed",
    "hash12",
    "interval",
    "is_number",
    "kind_format",
    "num_cell",
    "p_value",
    "p_value_report",
    "per_run",
    "per_run_signed",
    "pct",
    "pp",
    "pp_interval",
    "seconds",
    "sort_key",
    "text",
    "text_cell",
]

COLLAPSE_ROWS = 25  # a table with more rows than this is shown collapsed (<details>), one click away


def collapsed(rows: int, summary: str) -> str | None:
    """The summary line a table of *rows* rows is collapsed under, or None when it is short enough to show."""
    return summary if rows > COLLAPSE_ROWS else None


NA = "N/A"
FIELD_CAP = 500  # characters of one displayed field


def capped(value: str, limit: int = FIELD_CAP) -> str:
    """``value`` cut to ``limit`` characters, the cut disclosed; unchanged when it fits."""
    return cap_text(value, limit)


def sort_key(value: Any) -> str | None:
    """A decimal string tables.js can parse, or ``""`` for undefined values."""
    if is_number(value):
        return repr(value) if isinstance(value, float) else str(value)
    return ""


def fixed(value: Any, digits: int = 2) -> str:
    return f"{value:.{digits}f}" if is_number(value) else NA


def count(value: Any) -> str:
    return f"{value:,}" if is_number(value) and float(value).is_integer() else fixed(value, 2)


def pct(value: Any, digits: int = 1) -> str:
    return f"{value * 100:.{digits}f}%" if is_number(value) else NA


def seconds(value: Any) -> str:
    return by_kind(value, "seconds")


# How each kind of efficiency number is printed (Python format specs around the value).
_KIND_FORMATS = {
    "count": "{:,.2f}",
    "seconds": "{:,.0f}s",
    "tokens": "{:,.0f}",
    "usd": "${:,.3f}",
    "percent": "{:,.1f}%",
}


def kind_format(kind: str) -> str:
    """The format spec :func:`by_kind` applies to a number of *kind* (a finite int or float)."""
    return _KIND_FORMATS.get(kind, _KIND_FORMATS["count"])


def by_kind(value: Any, kind: str) -> str:
    """An efficiency number in its kind's format (halves round to even: 3.5s prints as 4s)."""
    return _KIND_FORMATS.get(kind, _KIND_FORMATS["count"]).format(value) if is_number(value) else NA


def change(value: Any) -> str:
    """A relative change in percent as "12.5% less" / "3.0% more" (positive = less)."""
    return f"{abs(value):.1f}% {'less' if value >= 0 else 'more'}" if is_number(value) else NA


def per_run(value: float | None, kind: str) -> str:
    """A cost ("$1.81", "$0.0423") or a duration ("410s", "4.2s") per run, as the verdict box and the
    build summary show it; N/A when undefined."""
    if value is None:
        return NA
    size = abs(value)
    if kind == "usd":
        return f"${value:,.2f}" if size >= 1 or size == 0 else f"${value:.3g}"
    return f"{value:,.0f}s" if size >= 10 or size == 0 else f"{value:.2g}s"


def per_run_signed(value: float | None, kind: str) -> str:
    """A difference of :func:`per_run` values with its sign ("−$9.57", "+12s"); N/A when undefined."""
    if value is None:
        return NA
    return ("+" if value >= 0 else "−") + per_run(abs(value), kind)


def pp(value: float | None, digits: int = 1) -> str:
    """A difference of rates in signed percentage points ("+5.2 pp"); N/A when undefined."""
    return NA if value is None else f"{value * 100:+.{digits}f} pp".replace("-", "−")


def pp_interval(lower: float | None, upper: float | None, digits: int = 1) -> str:
    """An interval of a difference in percentage points ("[−1.0, +11.4] pp"); N/A when undefined."""
    if lower is None or upper is None:
        return NA
    return f"[{pp(lower, digits)[:-3]}, {pp(upper, digits)[:-3]}] pp"


def interval(lower: Any, upper: Any, digits: int = 4) -> str:
    if not (is_number(lower) and is_number(upper)):
        return NA
    return f"[{lower:.{digits}f}, {upper:.{digits}f}]"


def hash12(value: Any) -> str:
    """First 12 hex digits of a ``sha256:...`` hash, as the Markdown report shows it; ``N/A`` if none."""
    return short_hash(value, empty=NA)


def p_value(value: Any, digits: int = 4) -> str:
    """A p-value on the site: ``digits`` significant digits (``.4g``), ``< 0.0001`` below that (never
    ``6.937e-08``: issue 28), ``N/A`` when undefined."""
    if not is_number(value):
        return NA
    return "< 0.0001" if value < 0.0001 else f"{value:.{digits}g}"


def p_value_report(value: float | None) -> str:
    """A p-value in the Markdown report: three significant digits, ``< 0.001`` below that."""
    return NA if value is None else (f"{value:.3g}" if value >= 0.001 else "< 0.001")


def text(value: Any) -> str:
    """Any JSON scalar as display text; ``None`` is ``N/A``."""
    if value is None:
        return NA
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return ", ".join(text(item) for item in value) or "—"
    return str(value)


def text_cell(value: Any, *, cls: str = "", href: str | None = None, title: str | None = None) -> Cell:
    shown = text(value)
    return Cell(shown, None, href, (cls + " na").strip() if value is None else cls, title)


def num_cell(value: Any, shown: str | None = None, *, cls: str = "") -> Cell:
    """A right-aligned number; undefined values read ``N/A`` and sort first."""
    if is_number(value):
        key = repr(value) if type(value) is float else str(value)
        return Cell(shown if shown is not None else count(value), key, None, f"num {cls}" if cls else "num")
    return Cell(shown if shown is not None else NA, "", None, f"num na {cls}" if cls else "num na")


def bool_cell(value: Any, yes: str = "pass", no: str = "fail") -> Cell:
    """Pass/fail as a word (never colour alone) with a class for styling.

    Cells are immutable, so each distinct one is made once and shared (a 1,000-task site shows
    tens of thousands of them).
    """
    key = (value is True, value is False, yes, no)
    cell = _BOOL_CELLS.get(key)
    if cell is None:
        if value is True:
            cell = Cell(yes, "1", None, "pass")
        elif value is False:
            cell = Cell(no, "0", None, "fail")
        else:
            cell = Cell(NA, "", None, "na")
        if len(_BOOL_CELLS) < 4096 and type(yes) is str and type(no) is str:
            _BOOL_CELLS[key] = cell
    return cell


_BOOL_CELLS: dict[tuple[bool, bool, str, str], Cell] = {}
