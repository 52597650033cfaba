"""The example site's leaderboard: its pages, the index section, and nothing else changed."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
import yaml

from generator.pages.leaderboard.common import pair_url, system_url
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
    # a comparison whose two sides are systems of a board links its pages and, when the verdicts
    # differ, says why (issue 25): the only other pages that change
    both = {
        f"comparisons/{c.id}/index.html"
        for c in config.comparisons
        for other in config.leaderboards
        if {c.candidate.experiment, c.baseline.experiment} <= {s.experiment for s in other.systems}
    }
    assert "comparisons/agent-a-vs-agent-b/index.html" in both
    assert changed <= {"index.html", "data.json", ".evalsite-site"} | both
    boards = {name for name in a if any(name.startswith(f"leaderboards/{o.id}/") for o in config.leaderboards)}
    assert set(a) - set(b) == boards | {"assets/leaderboard.js"}
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


@pytest.mark.slow  # several seconds: make test runs it, make test-fast does not
def test_the_example_mean_board_agrees_with_its_comparison(tmp_path: Path, monkeypatch) -> None:
    """The example's ``metric: mean`` board (issue 29) reads the logs of the partial-credit comparison:
    the board's pair is that comparison's verdict, in the mean score, on every page and in data.json."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    raw = yaml.safe_load((REPO / "site-config.yaml").read_text(encoding="utf-8"))
    raw.pop("history")
    raw.pop("reports", None)
    raw["comparisons"] = [c for c in raw["comparisons"] if c["id"] == "inspect-partial-credit"]
    raw["leaderboards"] = [b for b in raw["leaderboards"] if b.get("metric") == "mean"]
    assert len(raw["comparisons"]) == len(raw["leaderboards"]) == 1
    board = raw["leaderboards"][0]
    build_site(parse_config(raw, REPO), tmp_path / "site")
    a = _files(tmp_path / "site")
    prefix = f"leaderboards/{board['id']}/"
    doc = json.loads(a[prefix + "data.json"])
    comparison = json.loads(a["comparisons/inspect-partial-credit/data.json"])
    mean = comparison["scores"]["mean"]
    assert doc["metric"] == "mean" and doc["scorer"] == "partial"
    assert [s["label"] for s in doc["systems"]] == ["candidate-model", "baseline-model"]
    assert doc["systems"][0]["mean_score"]["estimate"] == pytest.approx(mean["candidate"]["estimate"], abs=1e-12)
    (against,) = doc["against_baseline"]
    assert against["difference"] == pytest.approx(mean["difference"]["estimate"], abs=1e-12)
    assert against["p_value"] == pytest.approx(mean["sign_flip"]["p_value"], abs=1e-12)
    assert against["outcome"] == mean["verdict"]["outcome"] == "candidate better"
    html = a[prefix + "index.html"].decode("utf-8")
    for needed in ("by task-macro mean score", "Mean score", "Betting interval", "Cost or duration versus mean score"):
        assert needed in html
    system = a[prefix + system_url(board["id"], "candidate-model").split(prefix, 1)[1]].decode("utf-8")
    pair = a[pair_url(board["id"], "candidate-model", "baseline-model")].decode("utf-8")
    assert "Difference in mean score" in pair and "passes<" not in pair
    assert "pass@1 (not deciding)" in system and ">Score<" in system
    index = a["index.html"].decode("utf-8")
    assert "Systems by task-macro mean score" in index
    # the same metric on both: no family sentence (one pair, no correction: the verdicts agree)
    assert "this same pair is" not in a["comparisons/inspect-partial-credit/index.html"].decode("utf-8")
