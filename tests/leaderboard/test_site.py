"""The example site's leaderboard: its pages, the index section, and nothing else changed."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
import yaml

from generator.pipelines.build import build_site
from generator.read.config import parse_config
from tests.support.shared import EPOCH, Built, bare_example_config

REPO = Path(__file__).resolve().parents[2]


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.slow  # builds a whole site: runs first (tests/conftest.py)
def test_leaderboard_pages_and_nothing_else_changes(tmp_path: Path, monkeypatch, bare_example_site: Built) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    config = bare_example_config(tmp_path)  # the site of bare_example_site (built once per run)
    assert config.leaderboards, "the example site has a leaderboard"
    with_board = bare_example_site
    raw = yaml.safe_load((REPO / "site-config.yaml").read_text(encoding="utf-8"))
    raw.pop("leaderboards")
    raw.pop("history")
    build_site(parse_config(raw, REPO), tmp_path / "without")
    a, b = _files(bare_example_site.site), _files(tmp_path / "without")
    board = config.leaderboards[0]
    prefix = f"leaderboards/{board.id}/"
    systems = len(board.systems)
    pages = [name for name in a if name.startswith(prefix) and name.endswith("index.html")]
    assert len(pages) == 1 + systems + systems * (systems - 1) // 2
    assert with_board.pages == sum(1 for name in a if name.endswith("index.html"))
    changed = {name for name in a.keys() & b.keys() if a[name] != b[name]}
    # a comparison whose two sides are systems of the board links its pages and, when the verdicts
    # differ, says why (issue 25): the only other pages that change
    both = {
        f"comparisons/{c.id}/index.html"
        for c in config.comparisons
        if {c.candidate.experiment, c.baseline.experiment} <= {s.experiment for s in board.systems}
    }
    assert both and changed <= {"index.html", "data.json", ".evalsite-site"} | both
    assert set(a) - set(b) == {name for name in a if name.startswith(prefix)} | {"assets/leaderboard.js"}
    doc = json.loads(a[prefix + "data.json"])
    assert doc["schema"] == "evalsite.leaderboard.v1" and doc["baseline"] == board.baseline
    index = a["index.html"].decode("utf-8")
    assert 'id="leaderboards"' in index and f'href="{prefix}index.html"' in index
    html = a[prefix + "index.html"].decode("utf-8")
    for needed in ('id="ranking"', 'id="against-baseline"', 'id="pairwise"', "pairwise-chart-data", "Tier 1"):
        assert needed in html
    for name, data in a.items():
        if name.startswith(prefix):
            assert str(REPO).encode() not in data and b"/tmp/" not in data
            assert tempfile.gettempdir().encode() not in data
