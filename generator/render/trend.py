"""Render a trend page with the site's Jinja environment (autoescape, capped strings)."""

from __future__ import annotations

from pathlib import Path

from generator.pages.trends import TrendPage
from generator.render.env import default_templates_dir, make_env

__all__ = ["render_trend_page"]


def render_trend_page(page: TrendPage, templates_dir: Path | None = None) -> str:
    env = make_env(templates_dir or default_templates_dir())
    return env.get_template(page.template).render(page=page, meta=page.meta, root=page.meta.root)
