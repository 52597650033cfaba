"""A planted effect: one baseline, four candidates, only one truly better; only it is called better."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from lbkit import draw, write_system

from generator.model.leaderboard import LeaderboardInputs, SystemSpec
from generator.model.stats import BETTER, NOT_DISTINGUISHABLE
from generator.pipelines.leaderboard import compute_leaderboard, render_leaderboard

TASKS, REPS = 60, 5


def _board(tmp: Path, seed: int, correction: str = "holm"):
    rng = random.Random(seed)
    base_rates = {f"task-{i:02d}": rng.uniform(0.15, 0.75) for i in range(TASKS)}
    better_rates = {t: min(1.0, p + 0.3) for t, p in base_rates.items()}
    specs = []
    for label, rates in (
        ("base", base_rates),
        ("null-1", base_rates),
        ("null-2", base_rates),
        ("null-3", base_rates),
        ("better", better_rates),
    ):
        treatment = label.upper().replace("-", "_")
        folder = write_system(tmp / f"{seed}-{label}", treatment, draw(rng, rates, REPS))
        specs.append(SystemSpec(label, folder, treatment))
    return compute_leaderboard(LeaderboardInputs(tuple(specs), baseline="base", correction=correction))  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("correction", ["holm", "bh"])
def test_only_the_planted_system_is_better(tmp_path: Path, seed: int, correction: str) -> None:
    result = _board(tmp_path, seed, correction)
    outcomes = {b.label: b.outcome for b in result.against_baseline}
    assert outcomes == {
        "better": BETTER,
        "null-1": NOT_DISTINGUISHABLE,
        "null-2": NOT_DISTINGUISHABLE,
        "null-3": NOT_DISTINGUISHABLE,
    }
    assert result.systems[0].label == "better" and result.systems[0].tier == 1
    assert all(s.tier == 2 for s in result.systems[1:])  # the four equal systems share one tier
    for b in result.against_baseline:
        assert b.pair.pairs == TASKS * REPS and b.p_adjusted >= b.pair.sign_flip.p_value


def test_document_fields(tmp_path: Path) -> None:
    result = _board(tmp_path, 4)
    doc = render_leaderboard(result).document
    assert doc["schema"] == "evalsite.leaderboard.v1"
    system = doc["systems"][0]
    for key in ("label", "treatment", "pass_at_k", "interval", "coverage", "run_accuracy_mean", "run_accuracy_stderr"):
        assert key in system
    assert system["coverage"] == 1.0 and system["run_accuracy_stderr"] is not None
    assert system["run_accuracy_mean"] == pytest.approx(system["pass_at_k"]["1"]["estimate"])
    row = doc["against_baseline"][0]
    for key in ("difference", "interval", "p_value", "p_adjusted", "tier"):
        assert key in row
    assert len(doc["pairs"]) == 10


def test_coverage_and_comparisons_use_only_common_keys(tmp_path: Path) -> None:
    a = write_system(tmp_path / "a", "A", {"t1": [True, True], "t2": [True, False], "t3": [False, False]})
    b = write_system(tmp_path / "b", "B", {"t1": [False, True], "t2": [True]})  # no t3, one rep short on t2
    result = compute_leaderboard(LeaderboardInputs((SystemSpec("a", a, "A"), SystemSpec("b", b, "B")), baseline="b"))
    sa, sb = result.system("a"), result.system("b")
    assert (sa.aligned_keys, sb.aligned_keys, sa.expected_keys) == (6, 3, 6)
    assert sb.run_accuracy.mean is None and sa.run_accuracy.mean == pytest.approx(0.5)
    assert sorted((i.task, i.rep) for i in sb.issues) == [("t2", 2), ("t3", 1), ("t3", 2)]
    pair = result.pair("a", "b")
    assert pair.pairs == 3 and pair.issue_counts == {"missing-repetition": 3}
