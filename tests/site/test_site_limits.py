"""The build warns when a site passes or nears GitHub Pages' limits, naming the setting to change."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.write import limits
from generator.write.limits import MAX_SITE_BYTES, MAX_SITE_FILES, limit_warnings
from tests.support.cli import evalsite

REPO = Path(__file__).resolve().parents[2]


def test_a_site_well_within_the_limits_says_nothing() -> None:
    assert limit_warnings(MAX_SITE_FILES // 2, MAX_SITE_BYTES // 2, "all") == []


def test_each_limit_passed_or_near_is_one_warning_with_the_setting_to_change() -> None:
    over_files = limit_warnings(MAX_SITE_FILES + 1, 10, "all")
    assert over_files == [
        "the site is over GitHub Pages' limit: 100,001 files of at most 100,000 files; set transcripts: "
        "differing (or failures, or sample) to publish fewer run pages"
    ]
    near_bytes = limit_warnings(10, int(0.85 * MAX_SITE_BYTES), "differing")
    assert near_bytes == [
        "the site is near GitHub Pages' limit: 0.85 GB of at most 1 GB; set transcripts: sample (or none) "
        "to publish fewer run pages"
    ]
    assert len(limit_warnings(MAX_SITE_FILES, MAX_SITE_BYTES, "none")) == 2


def test_the_build_prints_the_warning(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(limits, "MAX_SITE_FILES", 10)  # the example site has more than 10 files
    config = tmp_path / "site.yaml"
    config.write_text(
        "title: t\noutput: out\ncomparisons:\n  - id: q\n    title: q\n"
        f"    candidate: {{experiment: {REPO}/examples/inspect/candidate.json, treatment: c, format: inspect}}\n"
        f"    baseline: {{experiment: {REPO}/examples/inspect/baseline.json, treatment: b, format: inspect}}\n"
    )
    code, _, err = evalsite("build", "--config", str(config))
    assert code == 0 and "warning: the site is over GitHub Pages' limit:" in err and "files of at most 10 files" in err
