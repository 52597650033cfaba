"""Trend numbers over a build history (pure; ``docs/history.md``)."""

from generator.analyze.history.trend import subject_trend, trends

__all__ = ["subject_trend", "trends"]
