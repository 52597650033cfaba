"""Render leaderboard page models with the site's Jinja environment plus the leaderboard figure filter."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from jinja2 import Environment

from generator.model.redaction import Redactor
from generator.pages.leaderboard.models import LeaderboardPage, PairPage, SystemPage
from generator.render.env import default_templates_dir, make_env, render_with
from generator.render.leaderboard.charts import leaderboard_figure_json

__all__ = ["render_leaderboard_page"]


@lru_cache(maxsize=4)
def _env(templates_dir: str) -> Environment:
    env = make_env(Path(templates_dir))
    env.filters["leaderboard_figure_json"] = leaderboard_figure_json
    return env


def render_leaderboard_page(
    page: LeaderboardPage | SystemPage | PairPage, templates_dir: Path | None = None, redactor: Redactor | None = None
) -> str:
    return render_with(_env(str(templates_dir or default_templates_dir())), page, redactor)
