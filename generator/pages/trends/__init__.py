"""Trend pages: one per comparison and leaderboard with a build history (``docs/history.md``)."""

from generator.pages.trends.page import TrendPage, build_trend_page, trend_url

__all__ = ["TrendPage", "build_trend_page", "trend_url"]
