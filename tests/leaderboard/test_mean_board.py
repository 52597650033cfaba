"""Leaderboards with ``metric: mean`` (issue 29): ranked by the task-macro mean score, every pair tested
on its per-task mean score differences by the comparison's rule.

Systems are records files (one JSON object per run: task, repetition, score), read as the site reads
them.  On 0/1 scores a mean board's numbers are the pass@1 board's; on partial credit the ranking
follows the mean score, not pass@1, and each pair's numbers are the comparison's
(:func:`generator.analyze.stats.scores.score_comparison`) on the same scores.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from generator.analyze.stats.scores import score_comparison
from generator.cli import main
from generator.model.errors import EvalsiteError
from generator.model.formats import ImportOptions
from generator.model.leaderboard import LeaderboardInputs, LeaderboardResult, SystemSpec
from generator.pipelines.leaderboard import compute_leaderboard, render_leaderboard

Scores = Mapping[str, Sequence[float]]


def _write(path: Path, scores: Scores) -> Path:
    lines = [
        json.dumps({"task": task, "repetition": rep, "score": value})
        for task, values in scores.items()
        for rep, value in enumerate(values, 1)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _board(tmp_path: Path, systems: Mapping[str, Scores], metric: str, **options: object) -> LeaderboardResult:
    specs = tuple(
        SystemSpec(label, _write(tmp_path / f"{label}.jsonl", scores), label, "records")
        for label, scores in systems.items()
    )
    return compute_leaderboard(LeaderboardInputs(specs, metric=metric, **options))  # type: ignore[arg-type]


def _draw(rng: random.Random, rates: Mapping[str, float], reps: int, values: Sequence[float]) -> dict[str, list[float]]:
    """Scores drawn per task: ``values[-1]`` (the best) with the task's rate, else one of the others."""
    return {
        task: [values[-1] if rng.random() < rate else rng.choice(values[:-1]) for _ in range(reps)]
        for task, rate in rates.items()
    }


def test_a_zero_one_score_board_has_the_pass_at_1_boards_numbers(tmp_path: Path) -> None:
    rng = random.Random(29)
    tasks = {f"task-{i:02d}": rng.random() for i in range(24)}
    systems = {
        label: _draw(rng, {t: min(1.0, max(0.0, r + shift)) for t, r in tasks.items()}, 3, (0.0, 1.0))
        for label, shift in (("a", 0.25), ("b", 0.0), ("c", 0.05), ("d", -0.3))
    }
    passk = _board(tmp_path, systems, "pass@k", baseline="b")
    mean = _board(tmp_path, systems, "mean", baseline="b")
    assert [s.label for s in mean.systems] == [s.label for s in passk.systems]
    for m, p in zip(mean.systems, passk.systems, strict=True):
        assert m.mean is not None and m.mean.estimate == pytest.approx(p.pass_at_1, abs=1e-12)
        assert (m.rank, m.tier) == (p.rank, p.tier)
        assert m.mean.interval.lower == pytest.approx(p.macro[0].pass_at_k.interval.lower, abs=1e-12)
    for m, p in zip(mean.pairs, passk.pairs, strict=True):
        assert (m.a, m.b, m.pairs, m.tasks, m.distinguishable) == (p.a, p.b, p.pairs, p.tasks, p.distinguishable)
        assert m.difference.estimate == pytest.approx(p.difference.estimate, abs=1e-12)
        assert m.difference.interval.lower == pytest.approx(p.difference.interval.lower, abs=1e-12)
        assert m.sign_flip.p_value == pytest.approx(p.sign_flip.p_value, abs=1e-12)
        assert m.p_adjusted == pytest.approx(p.p_adjusted, abs=1e-12)
    assert mean.groups == passk.groups and mean.tiers == passk.tiers
    assert any(p.distinguishable for p in mean.pairs) and not all(p.distinguishable for p in mean.pairs)
    for m, p in zip(mean.against_baseline, passk.against_baseline, strict=True):
        assert (m.outcome, m.sentence) == (p.outcome, p.sentence)
        assert m.simultaneous.upper == pytest.approx(p.simultaneous.upper, abs=1e-12)
        assert m.power is not None and p.power is not None and m.power.mde == pytest.approx(p.power.mde)


def test_a_mean_board_ranks_by_the_mean_score_and_tests_pairs_by_the_comparison_rule(tmp_path: Path) -> None:
    tasks = [f"t{i:02d}" for i in range(20)]
    systems = {
        "steady": {t: [0.8, 0.8, 0.5] for t in tasks},  # never a full pass: pass@1 0, mean 0.7
        "spiky": {t: [1.0, 0.0, 0.0] if i % 2 else [1.0, 1.0, 0.0] for i, t in enumerate(tasks)},  # mean 0.5
        "weak": {t: [0.5, 0.0, 0.5] for t in tasks},  # mean 1/3
    }
    passk = _board(tmp_path, systems, "pass@k")
    assert [s.label for s in passk.systems][0] == "spiky"  # pass@1 at threshold 1 prefers it
    result = _board(tmp_path, systems, "mean", baseline="weak")
    assert [s.label for s in result.systems] == ["steady", "spiky", "weak"]
    assert [s.mean.estimate for s in result.systems if s.mean] == pytest.approx([0.7, 0.5, 1 / 3])
    assert result.systems[0].pass_at_1 == 0.0  # shown beside, not deciding
    pair = result.pair("steady", "spiky")
    same = score_comparison(systems["steady"], systems["spiky"], scorer=None, total_tasks=len(tasks))
    assert pair.difference.estimate == pytest.approx(same.difference.estimate, abs=1e-12)
    assert pair.difference.interval == same.difference.interval
    assert pair.sign_flip == same.sign_flip
    assert pair.distinguishable and result.groups["steady"] != result.groups["spiky"]
    against = {b.label: b for b in result.against_baseline}
    assert against["steady"].outcome == "candidate better" and "+36.7 points" in against["steady"].sentence
    assert dict((t, (n, x, y)) for t, n, x, y in pair.per_task)["t01"] == (3, pytest.approx(2.1), 1.0)


def test_equal_mean_scores_tie_by_label_in_one_group(tmp_path: Path) -> None:
    tasks = [f"t{i}" for i in range(8)]
    systems = {
        "zeta": {t: [0.5, 1.0] for t in tasks},
        "alpha": {t: [1.0, 0.5] for t in tasks},  # the same mean on every task
        "low": {t: [0.0, 0.0] for t in tasks},
    }
    result = _board(tmp_path, systems, "mean")
    assert [s.label for s in result.systems] == ["alpha", "zeta", "low"]
    assert [s.rank for s in result.systems] == [1, 2, 3]
    tie = result.pair("alpha", "zeta")
    assert tie.difference.estimate == 0.0 and tie.sign_flip.p_value == 1.0 and not tie.distinguishable
    assert result.groups["alpha"] == result.groups["zeta"] != result.groups["low"]
    assert result.tiers[0] == ("alpha", "zeta")


def test_a_score_outside_0_1_fails_closed_in_one_line(tmp_path: Path) -> None:
    good = {"t1": [0.5], "t2": [1.0], "t3": [0.0]}
    bad = {"t1": [0.5], "t2": [1.5], "t3": [0.0]}
    with pytest.raises(EvalsiteError) as caught:
        _board(tmp_path, {"good": good, "bad": bad}, "mean")
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("metric mean: system 'bad' run 't2' repetition 1 has the score 1.5, outside [0, 1]")
    # pass@k reads the same systems (1.5 passes at the threshold): only the mean needs scores in [0, 1]
    assert _board(tmp_path, {"good": good, "bad": bad}, "pass@k").systems[0].label == "bad"


def test_the_document_adds_keys_only_to_a_mean_board(tmp_path: Path) -> None:
    systems = {"a": {"t1": [0.8, 1.0], "t2": [0.5, 0.5]}, "b": {"t1": [0.0, 0.5], "t2": [0.5, 1.0]}}
    mean = render_leaderboard(_board(tmp_path, systems, "mean", import_options=ImportOptions(scorer=None)))
    doc = mean.document
    assert doc["metric"] == "mean" and doc["scorer"] is None
    a = next(s for s in doc["systems"] if s["label"] == "a")
    assert a["mean_score"]["estimate"] == pytest.approx(0.7)
    assert a["mean_score"]["betting"]["lower"] is not None
    assert [t["mean_score"] for t in a["task_outcomes"]] == pytest.approx([0.9, 0.5])
    assert [r["score"] for r in a["runs"]] == [0.8, 1.0, 0.5, 0.5]
    assert doc["pairs"][0]["metric"] == "mean"
    assert doc["pairs"][0]["per_task"][0] == {"task": "t1", "pairs": 2, "a_mean": 0.9, "b_mean": 0.25}
    assert "Sorted by task-macro mean score" in mean.markdown and "| Mean score |" in mean.markdown
    passk = render_leaderboard(_board(tmp_path, systems, "pass@k")).document
    added = {"metric", "scorer", "mean_score", "score"}
    assert not added & set(passk) and not added & set(passk["systems"][0])
    assert not added & set(passk["systems"][0]["runs"][0]) and "metric" not in passk["pairs"][0]
    assert set(passk["pairs"][0]["per_task"][0]) == {"task", "pairs", "a_passes", "b_passes"}


def test_the_cli_takes_metric_mean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _write(tmp_path / "a.jsonl", {"t1": [0.8], "t2": [0.8], "t3": [0.5]})
    b = _write(tmp_path / "b.jsonl", {"t1": [1.0], "t2": [0.0], "t3": [0.0]})
    args = ["leaderboard", "--system", f"a={a}", "--system", f"b={b}", "--input-format", "records"]
    assert main([*args, "--metric", "mean", "--format", "json"]) == 0, capsys.readouterr().err
    doc = json.loads(capsys.readouterr().out)
    assert doc["metric"] == "mean" and [s["label"] for s in doc["systems"]] == ["a", "b"]
    assert main([*args, "--format", "json"]) == 0
    assert [s["label"] for s in json.loads(capsys.readouterr().out)["systems"]] == ["b", "a"]  # pass@1: b


def test_a_mean_board_is_not_noted_against_a_pass_at_k_comparison(tmp_path: Path) -> None:
    """The family sentence (issue 25) explains a multiplicity difference, not a metric difference."""
    from generator.pages.leaderboard.family import ComparisonCall, family_notes
    from generator.pages.leaderboard.links import SideMatch

    systems = {"a": {f"t{i}": [1.0, 1.0] for i in range(8)}, "b": {f"t{i}": [0.0, 0.0] for i in range(8)}}
    result = _board(tmp_path, systems, "mean")
    sides = (("a", "candidate"), ("b", "baseline"))
    matches = [SideMatch("board", "Board", label, "cmp", "Cmp", side) for label, side in sides]
    calls = {"cmp": ComparisonCall("not distinguishable", 0.2)}
    assert family_notes("board", "Board", result, matches, calls).board  # the same metric: said
    other = [dataclasses.replace(m, same_metric=False) for m in matches]
    assert not family_notes("board", "Board", result, other, calls).board


def test_mean_board_pages_show_the_mean_score_and_say_how_p_was_computed(tmp_path: Path) -> None:
    from generator.pages.leaderboard.page import build_leaderboard_pages
    from generator.pages.models import SiteInfo

    rng = random.Random(7)  # irregular real-valued scores over 40 tasks: the sign-flip test runs by Monte Carlo
    systems = {
        label: {f"t{i:02d}": [round(rng.random() ** power, 6) for _ in range(2)] for i in range(40)}
        for label, power in (("a", 0.8), ("b", 1.0))
    }
    result = _board(tmp_path, systems, "mean", baseline="b")
    assert not result.pairs[0].sign_flip.exact
    output = render_leaderboard(result)
    pages = build_leaderboard_pages("lb", "Board", result, output.document, output.markdown, (), SiteInfo("t"))
    board = pages.board.page
    headers = [c.label for c in board.ranking_table.columns]  # type: ignore[attr-defined]
    assert headers[headers.index("System") + 1 :][:4] == [
        "Mean score",
        "95% interval (t, over tasks)",
        "Betting interval",
        "pass@1",
    ]
    assert "p (sign-flip, Monte Carlo)" in [c.label for c in board.baseline_table.columns]  # type: ignore[attr-defined]
    pair = pages.jobs[-1].make().page  # the one pair page
    assert dict(pair.facts)["p (sign-flip, Monte Carlo)"]  # type: ignore[attr-defined]
    assert "Difference in mean score" in dict(pair.facts)  # type: ignore[attr-defined]
