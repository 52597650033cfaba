"""Sound groups on the leaderboard (issue 25): groups agree with the corrected all-pairs test, and
systems that share too few tasks are never grouped or tiered together."""

from __future__ import annotations

from pathlib import Path

from lbkit import write_system

from generator.model.leaderboard import LeaderboardInputs, SystemSpec
from generator.pipelines.leaderboard import compute_leaderboard


def _board(root: Path, systems: dict[str, dict[str, list[bool]]]):  # type: ignore[no-untyped-def]
    specs = []
    for label, outcomes in systems.items():
        write_system(root / label, label.upper(), outcomes)
        specs.append(SystemSpec(label, root / label, label.upper()))
    return compute_leaderboard(LeaderboardInputs(systems=tuple(specs), baseline=None, tasks_dir=None, ks=(1,)))


def test_groups_agree_with_every_pair_and_never_join_systems_that_were_not_compared(tmp_path: Path) -> None:
    shared = [f"t{i:02d}" for i in range(16)]
    strong = {t: [True, True, True] for t in shared}
    weak = {t: [i % 4 == 0, False, False] for i, t in enumerate(shared)}
    alone = {f"other{i}": [True, True, True] for i in range(16)}  # no task in common with the others
    result = _board(tmp_path, {"strong": strong, "twin": dict(strong), "weak": weak, "alone": alone})
    for pair in result.pairs:
        together = bool(set(result.groups[pair.a]) & set(result.groups[pair.b]))
        compared = pair.tasks >= 2
        assert together == (compared and not pair.distinguishable), (pair.a, pair.b)
    assert {tuple(sorted(p)) for p in result.not_comparable} == {
        ("alone", "strong"),
        ("alone", "twin"),
        ("alone", "weak"),
    }
    assert set(result.groups["strong"]) == set(result.groups["twin"])
    assert not set(result.groups["alone"]) & set(result.groups["strong"])
    tier_of = {label: n for n, tier in enumerate(result.tiers) for label in tier}
    # compared with no other system: in no tier, and listed after the ranked systems, never among them
    assert "alone" not in tier_of and result.system("alone").tier == 0
    assert result.systems[-1].label == "alone"
