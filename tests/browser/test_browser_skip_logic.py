"""Without a browser the browser tests skip on a developer machine and fail in CI."""

from __future__ import annotations

import browsing
import pytest


def test_missing_browser_skips_outside_ci(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no Chromium"):
        browsing.unavailable("no Chromium executable at /nowhere/chromium")


@pytest.mark.parametrize("value", ["true", "TRUE", "True "])
def test_missing_browser_fails_when_ci_is_true(monkeypatch, value):
    monkeypatch.setenv("CI", value)
    with pytest.raises(pytest.fail.Exception, match="CI=true: no Chromium"):
        browsing.unavailable("no Chromium executable at /nowhere/chromium")


def test_ci_false_still_skips(monkeypatch):
    monkeypatch.setenv("CI", "false")
    with pytest.raises(pytest.skip.Exception):
        browsing.unavailable("playwright is not installed")
