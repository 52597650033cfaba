"""Shared fixtures for the comparison tests (builders live in comet_fixtures.py)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path, Path]:
    return tmp_path / "candidate", tmp_path / "baseline", tmp_path / "tasks"
