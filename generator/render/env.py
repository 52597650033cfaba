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
headings, facts, notices) also go through the ``name`` filter, which isolates
every name in ``<bdi>`` (:func:`~generator.pages.names.isolate`); a
:class:`~generator.pages.names.Phrase` (a sentence we wrote around names)
goes through ``name`` or ``phrase`` and has each of its names isolated, its
words written as text.  The ``confusable_marks``
filter finds the cells of a table whose text looks like another cell's text
in the same column.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, pass_context
from jinja2.runtime import Context
from markupsafe import Markup, escape

from generator.model.redaction import Redactor
from generator.pages.models import Page
from generator.pages.names import Phrase, is_number, isolate, phrase_html, visible
from generator.render.charts import figure_json
from generator.render.markdown import render_markdown
from generator.render.tables import confusable_marks, shown, table_html

__all__ = [
    "ASSET_FILES",
    "confusable_marks",
    "default_templates_dir",
    "make_env",
    "name",
    "render_page",
    "render_with",
    "shown",
]

_PKG = Path(__file__).resolve().parent.parent  # the ``generator`` package

# Files copied verbatim from ``templates/assets/`` into the site's ``assets/``.
ASSET_FILES = ("charts.js", "site.css", "tables.js", "transcript.js")


def default_templates_dir() -> Path:
    """``generator/templates`` in an installed wheel, else ``<checkout>/templates``."""
    for candidate in (_PKG / "templates", _PKG.parent / "templates"):
        if (candidate / "base.html").is_file():
            return candidate
    raise FileNotFoundError("evalsite templates not found (expected templates/base.html)")


# Each distinct short string a template writes, redacted once per redactor (a build has one): the
# same labels, names and numbers recur on a thousand task pages.
_REDACTED: dict[Redactor, dict[str, str]] = {}


# The last redactor's cache, found by identity (a Redactor's dataclass hash is a Python call per lookup).
_LAST: list[Any] = [None, None]


def _redacted(context: Context, value: Any) -> Any:
    """A string with its secrets replaced, when the render was given a redactor (before capping and escaping)."""
    redactor = context.get("redactor")
    if not isinstance(redactor, Redactor):
        return value
    if type(value) is str and len(value) <= 256:
        cache = _LAST[1] if _LAST[0] is redactor else None
        if cache is None or len(cache) >= 1 << 17:
            cache = _REDACTED.get(redactor)
            if cache is None or len(cache) >= 1 << 17:
                if len(_REDACTED) >= 4:
                    _REDACTED.clear()
                cache = _REDACTED[redactor] = {}
            _LAST[:] = [redactor, cache]
        hit = cache.get(value)
        if hit is None:
            hit = cache[value] = redactor.text(value)
        return hit
    if isinstance(value, str) and not isinstance(value, Markup):
        return redactor.text(value)
    return value


@pass_context
def _finalize(context: Context, value: Any) -> Any:
    return shown(_redacted(context, value))


@pass_context
def _markdown(context: Context, value: Any) -> Markup:
    return render_markdown(_redacted(context, value))


@pass_context
def _name(context: Context, value: Any) -> Markup:
    if isinstance(value, Phrase):
        return _phrase_markup(context, value, name)
    return name(_redacted(context, value))


@pass_context
def _phrase(context: Context, value: Any) -> Any:
    """Text we wrote: a :class:`Phrase` with its names isolated, any other value as ``finalize`` writes it."""
    if isinstance(value, Phrase):
        return _phrase_markup(context, value, lambda part: escape(shown(part)))
    return shown(_redacted(context, value))


def _phrase_markup(context: Context, value: Phrase, whole: Any) -> Markup:
    """*value*'s words as text and its names isolated, each redacted first; when redacting the whole
    phrase changes it (a secret across its parts), the redacted whole is written by *whole* instead."""
    redacted = _redacted(context, str(value))
    if redacted != value:
        return Markup(whole(redacted))
    return Markup(
        phrase_html(
            value,
            lambda part: str(escape(shown(_redacted(context, part)))),
            lambda part: str(name(_redacted(context, part))),
        )
    )


# Characters that might be invisible: only these go through :func:`visible` (a transcript step can be
# 16 KiB of text; plain ASCII lines, tabs and newlines pass at C speed).
_SUSPECT = re.compile(r"[^\t\n\r\x20-\x7e]+")


@pass_context
def _transcript(context: Context, value: Any) -> Markup:
    """A transcript step's text, already cut to its byte budget by the reader: redacted, made visible and
    escaped, but not capped at 500 characters like other fields."""
    text = str(_redacted(context, value))
    return Markup(escape(_SUSPECT.sub(lambda match: visible(match.group()), text)))


def name(value: Any) -> Markup:
    """An untrusted name in a text position: :func:`shown`, escaped, isolated in ``<bdi>``; a
    :class:`Phrase` (not redacted here: the ``name`` filter redacts) with only its names isolated."""
    if isinstance(value, Markup):
        return value
    if isinstance(value, Phrase):
        return Markup(phrase_html(value, lambda part: str(escape(shown(part))), lambda part: str(name(part))))
    safe = escape(shown(str(value)))
    return safe if is_number(safe) else Markup(isolate(safe))


@pass_context
def _table_html(context: Context, table: Any, labelledby: Any = "") -> Markup:
    redactor = context.get("redactor")
    return table_html(table, labelledby, redactor if isinstance(redactor, Redactor) else None)


def make_env(templates_dir: Path | None = None) -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(templates_dir or default_templates_dir())),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,
        finalize=_finalize,
    )
    env.filters["name"] = _name
    env.filters["phrase"] = _phrase
    env.filters["confusable_marks"] = confusable_marks
    env.filters["markdown"] = _markdown
    env.filters["transcript"] = _transcript
    env.filters["figure_json"] = figure_json
    env.filters["table_html"] = _table_html
    return env


@lru_cache(maxsize=4)
def _cached_env(templates_dir: str) -> Environment:
    return make_env(Path(templates_dir))


def render_page(page: Page, templates_dir: Path | None = None, redactor: Redactor | None = None) -> str:
    """One page; with *redactor*, every string is redacted before it is capped and escaped (the site
    writer redacts the final text again, so this is the first line, not the only one)."""
    env = _cached_env(str(templates_dir or default_templates_dir()))
    return render_with(env, page, redactor)


def render_with(env: Environment, page: Any, redactor: Redactor | None) -> str:
    """*page* through its template with *redactor* as a template global: globals reach the macros of
    ``partials/blocks.html`` too, which are imported without the page's context, so every value in
    them is redacted before it is capped and escaped like the page's own values."""
    template = env.get_template(page.template, globals={"redactor": redactor})
    return template.render(page=page, meta=page.meta, root=page.meta.root)
