"""The Jinja environment and the page renderer.

Autoescape is on for every template (all evidence strings are untrusted) and
undefined names fail the build (``StrictUndefined``).  The only values passed
as ``Markup`` come from :mod:`generator.render.markdown` (``html=False``
rendering), :mod:`generator.render.charts` (escaped figure JSON) and the
``name`` filter below.

Every string a template writes passes :func:`shown` first (the environment's
``finalize``): it is cut to :data:`~generator.pages.format.FIELD_CAP`
characters with the cut disclosed, and its invisible and bidirectional-control
characters are written as ``[U+XXXX]`` (:mod:`generator.pages.names`), in
text and in attributes alike.  Names in text positions (table cells, links,
headings, facts, notices) also go through the ``name`` filter, which wraps a
name holding right-to-left letters in ``<bdi>``; the ``confusable_marks``
filter finds the cells of a table whose text looks like another cell's text
in the same column.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup, escape

from generator.pages.format import capped
from generator.pages.models import Page, Table
from generator.pages.names import confusable_with, needs_isolation, visible
from generator.render.charts import figure_json
from generator.render.markdown import render_markdown

__all__ = ["ASSET_FILES", "confusable_marks", "default_templates_dir", "make_env", "name", "render_page", "shown"]

_PKG = Path(__file__).resolve().parent.parent  # the ``generator`` package

# Files copied verbatim from ``templates/assets/`` into the site's ``assets/``.
ASSET_FILES = ("charts.js", "site.css", "tables.js")


def default_templates_dir() -> Path:
    """``generator/templates`` in an installed wheel, else ``<checkout>/templates``."""
    for candidate in (_PKG / "templates", _PKG.parent / "templates"):
        if (candidate / "base.html").is_file():
            return candidate
    raise FileNotFoundError("evalsite templates not found (expected templates/base.html)")


def shown(value: Any) -> Any:
    """Every template value on its way out: strings capped and their invisible characters made visible."""
    if isinstance(value, Markup) or not isinstance(value, str):
        return value
    return visible(capped(value))


def name(value: Any) -> Markup:
    """An untrusted name in a text position: :func:`shown`, escaped, in ``<bdi>`` when it holds RTL letters."""
    if isinstance(value, Markup):
        return value
    text = str(value)
    safe = escape(shown(text))
    return Markup(f"<bdi>{safe}</bdi>") if needs_isolation(text) else safe


def confusable_marks(table: Table) -> dict[tuple[int, int], str]:
    """``(row, column)`` of each text cell that looks like another cell of its column -> those texts."""
    marks: dict[tuple[int, int], str] = {}
    for column, spec in enumerate(table.columns):
        if spec.numeric:
            continue
        texts = [row.cells[column].text for row in table.rows if column < len(row.cells)]
        if len(texts) < 2:
            continue
        found = confusable_with(texts)
        if not found:
            continue
        for index, row in enumerate(table.rows):
            if column < len(row.cells) and row.cells[column].text in found:
                marks[(index, column)] = ", ".join(found[row.cells[column].text])
    return marks


def make_env(templates_dir: Path | None = None) -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(templates_dir or default_templates_dir())),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,
        finalize=shown,
    )
    env.filters["name"] = name
    env.filters["confusable_marks"] = confusable_marks
    env.filters["markdown"] = render_markdown
    env.filters["figure_json"] = figure_json
    return env


@lru_cache(maxsize=4)
def _cached_env(templates_dir: str) -> Environment:
    return make_env(Path(templates_dir))


def render_page(page: Page, templates_dir: Path | None = None) -> str:
    env = _cached_env(str(templates_dir or default_templates_dir()))
    return env.get_template(page.template).render(page=page, meta=page.meta, root=page.meta.root)
