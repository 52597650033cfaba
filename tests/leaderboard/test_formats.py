"""Leaderboard systems in every importer's format (issue 12 follow-up): the comparison sides' reader
serves the leaderboard, and the numbers agree with a comparison of the same evidence."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from generator.cli import main
from generator.model.errors import EvalsiteError
from generator.model.leaderboard import LeaderboardInputs, SystemSpec
from generator.pipelines.leaderboard import run_leaderboard
from generator.read.config import parse_config

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "importers"))

from harness_fixtures import harbor_job, harbor_trial  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
INSPECT = REPO / "examples" / "inspect"


def _site(tmp_path: Path) -> Path:
    cand = INSPECT / "candidate.json"
    base = INSPECT / "baseline.json"
    config = tmp_path / "site.yaml"
    config.write_text(
        "title: t\ncomparisons:\n  - id: q\n    title: Q\n"
        f"    candidate: {{experiment: {cand}, treatment: candidate-solver, format: inspect}}\n"
        f"    baseline: {{experiment: {base}, treatment: baseline-solver, format: inspect}}\n"
        "leaderboards:\n  - id: lb\n    title: LB\n    baseline: base\n    systems:\n"
        f"      - {{label: cand, experiment: {cand}, treatment: candidate-solver, format: inspect}}\n"
        f"      - {{label: base, experiment: {base}, treatment: baseline-solver, format: inspect}}\n",
        encoding="utf-8",
    )
    return config


def test_inspect_systems_agree_with_the_comparison_of_the_same_logs(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert main(["build", "--config", str(_site(tmp_path)), "--out", str(out)]) == 0
    comparison = json.loads((out / "comparisons" / "q" / "data.json").read_text())
    board = json.loads((out / "leaderboards" / "lb" / "data.json").read_text())
    assert {s["format"] for s in board["systems"]} == {"inspect"}
    (pair,) = board["pairs"]
    sign = 1 if pair["a"] == "cand" else -1
    paired = comparison["statistics"]["paired"]["difference"]
    assert pair["pairs"] == len(comparison["pairs"]) > 0
    assert sign * pair["difference"] == pytest.approx(paired["estimate"])
    lower = paired["interval"]["lower"] if sign == 1 else -paired["interval"]["upper"]
    assert pair["interval"]["lower"] == pytest.approx(lower)  # the same task-clustered interval
    # per task, the pair's matched passes are the comparison's
    a, b = ("candidate", "baseline") if sign == 1 else ("baseline", "candidate")
    expected = {o["task"]: (o["pairs"], o[f"{a}_passes"], o[f"{b}_passes"]) for o in comparison["task_outcomes"]}
    found = {t["task"]: (t["pairs"], t["a_passes"], t["b_passes"]) for t in pair["per_task"]}
    assert found == {task: v for task, v in expected.items() if v[0]}
    # the system pages and the built-from digests of a log file
    assert (out / "leaderboards" / "lb" / "systems").is_dir()
    assert "candidate.json" in (out / "leaderboards" / "lb" / "index.html").read_text()


def _harbor(root: Path, rewards: list[float]) -> Path:
    trials = [
        harbor_trial(f"task-{i % 4}", f"t{i}", started=f"2026-01-01T00:{i:02d}:00.000000Z", reward=reward)
        for i, reward in enumerate(rewards)
    ]
    return harbor_job(root, trials)


def test_harbor_jobs_rank_as_systems(tmp_path: Path) -> None:
    strong = _harbor(tmp_path / "strong", [1.0] * 8)
    weak = _harbor(tmp_path / "weak", [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0])
    output = run_leaderboard(
        LeaderboardInputs(
            systems=(
                SystemSpec("strong", strong, "claude-code", "harbor"),
                SystemSpec("weak", weak, "claude-code", "harbor"),
            ),
            baseline="weak",
        )
    )
    ranked = [s["label"] for s in output.document["systems"]]
    assert ranked == ["strong", "weak"]
    strong_row = output.document["systems"][0]
    assert strong_row["format"] == "harbor" and strong_row["aligned_keys"] == 8
    weak_row = output.document["systems"][1]
    assert sum(o["passes"] for o in weak_row["task_outcomes"]) == 2
    assert output.document["pairs"][0]["difference"] == pytest.approx(0.75)


def test_unknown_system_format_and_a_comet_file_are_config_errors(tmp_path: Path) -> None:
    log = INSPECT / "candidate.json"
    raw = {
        "title": "t",
        "leaderboards": [
            {
                "id": "lb",
                "title": "LB",
                "systems": [
                    {"label": "a", "experiment": str(log), "treatment": "x", "format": "nope"},
                    {"label": "b", "experiment": str(log), "treatment": "y", "format": "inspect"},
                ],
            }
        ],
    }
    with pytest.raises(EvalsiteError, match="unknown format 'nope'"):
        parse_config(raw, tmp_path)
    raw["leaderboards"][0]["systems"][0]["format"] = "comet"  # type: ignore[index]
    with pytest.raises(EvalsiteError, match="experiment"):
        parse_config(raw, tmp_path)
    raw["leaderboards"][0]["systems"][0]["format"] = "inspect"  # type: ignore[index]
    assert [s.format for s in parse_config(raw, tmp_path).leaderboards[0].systems] == ["inspect", "inspect"]


def test_same_evidence_links_both_ways(tmp_path: Path) -> None:
    """The comparison q and the leaderboard lb read the same two logs: their pages link each other."""
    sys.path.insert(0, str(REPO / "tests" / "site"))
    from sitecheck import check_links

    out = tmp_path / "out"
    assert main(["build", "--config", str(_site(tmp_path)), "--out", str(out)]) == 0
    board = out / "leaderboards" / "lb"
    (pair_dir,) = list((board / "pairs").iterdir())
    pair = (pair_dir / "index.html").read_text()
    assert 'href="../../../../comparisons/q/index.html"' in pair
    assert 'href="../../../../comparisons/q/tasks/' in pair  # task rows open the paired per-task evidence
    comparison = (out / "comparisons" / "q" / "index.html").read_text()
    assert f'href="../../leaderboards/lb/pairs/{pair_dir.name}/index.html"' in comparison
    for system in (board / "systems").iterdir():
        page = (system / "index.html").read_text()
        assert 'href="../../../../comparisons/q/index.html"' in page
        assert 'href="../../../../comparisons/q/index.html">Comparison “<bdi>Q</bdi>” (this system is its' in page
        assert not (system / "data.json").exists()  # the board's data.json holds the system's entry
        assert 'href="../../data.json"' in page
    assert check_links(out) == []


def test_no_links_without_shared_evidence(tmp_path: Path) -> None:
    """Links need the same experiment, treatment and format; a side read with ``auto`` is not matched."""
    config = _site(tmp_path)
    head, tail = config.read_text().split("leaderboards:", 1)
    config.write_text(head.replace("format: inspect", "format: auto") + "leaderboards:" + tail)
    out = tmp_path / "out"
    assert main(["build", "--config", str(config), "--out", str(out)]) == 0
    assert "leaderboards/" not in (out / "comparisons" / "q" / "index.html").read_text()
    assert "comparisons/q" not in (out / "leaderboards" / "lb" / "index.html").read_text()
