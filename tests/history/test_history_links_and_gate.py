"""Issue 15 follow-ups: the index links trend pages, the summary speaks in percentage points like the
pages, and ``--fail-on verdict-worse`` covers leaderboards (a system worse than the baseline)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from histkit import IMPROVED, REGRESSED, START, build, cli, write_build

from generator.pages.format import pp

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "leaderboard"))

from lbkit import write_system  # noqa: E402


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    monkeypatch.setenv("GITHUB_SHA", "b" * 40)


def test_index_links_each_trend_page(tmp_path: Path, env: None) -> None:
    write_build(tmp_path, START)
    assert build(tmp_path)[0] == 0
    index = (tmp_path / "out" / "index.html").read_text()
    assert 'href="trends/comparisons/a/index.html"' in index
    data = json.loads((tmp_path / "out" / "data.json").read_text())
    assert data["comparisons"][0]["trend_url"] == "trends/comparisons/a/index.html"
    assert (tmp_path / "out" / "trends" / "comparisons" / "a" / "index.html").is_file()


def test_index_without_history_has_no_trend_links(tmp_path: Path, env: None) -> None:
    config = write_build(tmp_path, START)
    config.write_text(config.read_text().replace("history: history.jsonl\n", ""))
    assert build(tmp_path)[0] == 0
    assert "trends/" not in (tmp_path / "out" / "index.html").read_text()
    assert "trend_url" not in (tmp_path / "out" / "data.json").read_text()


def test_summary_and_trend_page_use_percentage_points(tmp_path: Path, env: None) -> None:
    summary = tmp_path / "summary.md"
    for candidate in (IMPROVED, REGRESSED):
        write_build(tmp_path, candidate)
        code, _, err = build(tmp_path, "--summary", str(summary), "--fail-on", "regression")
    assert code == 1
    trend = json.loads((tmp_path / "out" / "trends" / "comparisons" / "a" / "data.json").read_text())
    step = next(s for s in trend["trend"]["builds"][1]["steps"] if s["label"] == "candidate")
    shown = f"{pp(step['estimate'])} vs build {step['reference']}"
    assert step["status"] == "regression" and shown.startswith("−") and step["reference"] == 1
    text = summary.read_text()
    assert f"candidate {shown}: **regression**" in text
    html = (tmp_path / "out" / "trends" / "comparisons" / "a" / "index.html").read_text()
    assert shown in html and "at most 5%" in html  # the gate's guarantee is stated on the trend page
    assert f"pass@1 {pp(step['estimate'])}" in err  # the gate's reason uses the same words
    # the comparison's effect: the page's pp, never a bare fraction
    doc = json.loads((tmp_path / "out" / "comparisons" / "a" / "data.json").read_text())
    effect = doc["statistics"]["paired"]["difference"]["interval"] if "statistics" in doc else None
    row = next(line for line in text.splitlines() if line.startswith("| [`Candidate vs baseline`]"))
    assert " pp |" in row and "0.000" not in row
    if effect is not None:
        assert pp(effect["estimate"]) in row


def _leaderboard(root: Path, weak: bool) -> Path:
    tasks = [f"t{i:02d}" for i in range(12)]
    write_system(root / "base", "BASE", {t: [True, True, True] for t in tasks})
    write_system(root / "good", "GOOD", {t: [True, True, True] for t in tasks})
    write_system(root / "weak", "WEAK", {t: [not weak, not weak, True] for t in tasks})
    config = root / "site.yaml"
    config.write_text(
        "title: t\nleaderboards:\n  - id: lb\n    title: Board\n    baseline: base\n    systems:\n"
        "      - {label: base, experiment: base, treatment: BASE}\n"
        "      - {label: good, experiment: good, treatment: GOOD}\n"
        "      - {label: weak, experiment: weak, treatment: WEAK}\n",
        encoding="utf-8",
    )
    return config


def test_verdict_worse_fails_on_a_leaderboard_system_worse_than_the_baseline(tmp_path: Path) -> None:
    config = _leaderboard(tmp_path, weak=True)
    args = ["build", "--config", str(config), "--out", str(tmp_path / "out")]
    code, _, err = cli(*args, "--fail-on", "verdict-worse")
    assert code == 1
    assert err.count("fail: ") == 1 and "system 'weak' is worse than the baseline after correction" in err
    assert (tmp_path / "out" / "leaderboards" / "lb" / "index.html").is_file()  # the site was written first
    assert cli(*args)[0] == 0  # without the gate the same build passes
    code, _, err = cli(*args, "--fail-on", "regression")
    assert code == 0 and "fail:" not in err


def test_verdict_worse_passes_a_leaderboard_without_a_worse_system(tmp_path: Path) -> None:
    config = _leaderboard(tmp_path, weak=False)
    code, _, err = cli("build", "--config", str(config), "--out", str(tmp_path / "out"), "--fail-on", "verdict-worse")
    assert code == 0 and "fail:" not in err


def test_summary_says_not_compared_without_empty_numbers() -> None:
    """A step over fewer than two shared tasks reads 'not compared (n shared task(s))', not dashes."""
    from generator.model.history import BuildTrend, StepDifference, SummaryItem, Trend
    from generator.render.summary import render_summary

    first = BuildTrend(1, "hist1:a", None, None, None, 0, (), ())
    steps = (StepDifference("candidate", None, None, None, 1, "not compared"),)
    second = BuildTrend(2, "hist1:b", None, None, None, 0, (), steps)
    trend = Trend("comparison", "a", "A", (first, second), ())
    item = SummaryItem(
        "comparison",
        "a",
        "A",
        "comparisons/a/index.html#verdict",
        "x",
        None,
        None,
        None,
        None,
        None,
        0,
        trend,
        "trends/comparisons/a/index.html",
    )
    row = next(line for line in render_summary([item], None).splitlines() if line.startswith("| [`A`]"))
    assert "candidate not compared (1 shared task(s))" in row and "— —" not in row


def test_verdict_worse_fires_when_a_system_got_worse_not_for_a_standing_difference(tmp_path: Path) -> None:
    """Issue 25: with a history, a system worse than the baseline fails the gate in the build where its
    evidence (or the baseline's) changed, not in every later build of an unchanged system."""

    def build(weak: bool, good_passes: bool = True) -> tuple[int, str]:
        config = _leaderboard(tmp_path, weak=weak)
        # good_passes=False: one run of one task of "good" fails (its evidence changes, it is not worse)
        write_system(tmp_path / "good", "GOOD", {f"t{i:02d}": [good_passes or i > 0, True, True] for i in range(12)})
        config.write_text(config.read_text(encoding="utf-8") + "history: history.jsonl\n", encoding="utf-8")
        code, _, err = cli(
            "build", "--config", str(config), "--out", str(tmp_path / "out"), "--fail-on", "verdict-worse"
        )
        return code, err

    assert build(weak=False)[0] == 0  # nothing worse
    code, err = build(weak=True)  # weak got worse in this build
    assert code == 1 and "system 'weak' is worse than the baseline after correction" in err
    code, err = build(weak=True, good_passes=False)  # weak and the baseline unchanged: a standing difference
    assert code == 0 and "fail:" not in err, err


@pytest.mark.slow  # several seconds: make test runs it, make test-fast does not
def test_a_rerun_leaderboard_whose_systems_did_not_change_passes_every_gate(tmp_path: Path) -> None:
    """Issue 25: on a real leaderboard every pull request failed `verdict-worse`, for standing
    differences. Here every system is re-run between two builds (new draws, the same true rates), one of
    them far below the baseline all along: the summary and the gate say nothing changed (exit 0)."""
    import random

    from lbkit import draw

    tasks = [f"t{i:02d}" for i in range(24)]
    base_rng = random.Random(25)
    rates = {t: base_rng.uniform(0.2, 0.9) for t in tasks}
    shifts = {"base": 0.0, "weak": -0.6, **{f"sys-{k}": 0.0 for k in range(6)}}
    lines = "".join(f"      - {{label: {s}, experiment: {s}, treatment: T{n}}}\n" for n, s in enumerate(shifts))
    config = tmp_path / "site.yaml"
    config.write_text(
        "title: t\nhistory: history.jsonl\nleaderboards:\n  - id: lb\n    title: Board\n    baseline: base\n"
        "    systems:\n" + lines,
        encoding="utf-8",
    )
    summary = tmp_path / "summary.md"
    for seed in (1, 2):
        rng = random.Random(seed)
        for n, (label, shift) in enumerate(shifts.items()):
            shutil.rmtree(tmp_path / label, ignore_errors=True)
            write_system(
                tmp_path / label, f"T{n}", draw(rng, {t: min(1, max(0, r + shift)) for t, r in rates.items()}, 3)
            )
        code, _, err = cli(
            "build", "--config", str(config), "--out", str(tmp_path / "out"), "--summary", str(summary),
            "--fail-on", "regression", "--fail-on", "verdict-worse",
        )  # fmt: skip
        assert code == 0 and "fail:" not in err, err
    history = [json.loads(line) for line in (tmp_path / "history.jsonl").read_text().splitlines()]
    assert len(history) == 2 and history[0]["worse"] == history[1]["worse"] == ["weak"]  # standing, recorded
    assert history[0]["sides"] != history[1]["sides"]  # every system was re-run
    assert "CI gate failed" not in summary.read_text()
