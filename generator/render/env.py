"""The Jinja environment and the page renderer.

Autoescape is on for every template (all evidence strings are untrusted) and
undefined names fail the build (``StrictUndefined``).  The only values passed
as ``Markup`` come from :mod:`generator.render.markdown` (``html=False``
rendering) and :mod:`generator.render.charts` (escaped figure JSON).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from generator.pages.models import Page
from generator.render.charts import figure_json
from generator.render.markdown import render_markdown

__all__ = ["ASSET_FILES", "default_templates_dir", "make_env", "render_page"]

_PKG = Path(__file__).resolve().parent.parent  # the ``generator`` package

# Files copied verbatim from ``templates/assets/`` into the site's ``assets/``.
ASSET_FILES = ("charts.js", "site.css", "tables.js")


def default_templates_dir() -> Path:
    """``generator/templates`` in an installed wheel, else ``<checkout>/templates``."""
    for candidate in (_PKG / "templates", _PKG.parent / "templates"):
        if (candidate / "base.html").is_file():
            return candidate
    raise FileNotFoundError("evalsite templates not found (expected templates/base.html)")


def make_env(templates_dir: Path | None = None) -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(templates_dir or default_templates_dir())),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,
    )
    env.filters["markdown"] = render_markdown
    env.filters["figure_json"] = figure_json
    return env


@lru_cache(maxsize=4)
def _cached_env(templates_dir: str) -> Environment:
    return make_env(Path(templates_dir))


def render_page(page: Page, templates_dir: Path | None = None) -> str:
    env = _cached_env(str(templates_dir or default_templates_dir()))
    return env.get_template(page.template).render(page=page, meta=page.meta, root=page.meta.root)
