"""Render a trend page with the site's Jinja environment (autoescape, capped strings)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from jinja2 import Environment

from generator.model.redaction import Redactor
from generator.pages.trends import TrendPage
from generator.render.env import default_templates_dir, make_env, render_with

__all__ = ["render_trend_page"]


@lru_cache(maxsize=4)
def _env(templates_dir: str) -> Environment:
    return make_env(Path(templates_dir))


def render_trend_page(page: TrendPage, templates_dir: Path | None = None, redactor: Redactor | None = None) -> str:
    return render_with(_env(str(templates_dir or default_templates_dir())), page, redactor)
