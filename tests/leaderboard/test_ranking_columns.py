"""The ranking table states each thing once (issue 28, item 5): no Treatment column that repeats the
System column, no pass^1 column beside pass@1 (they are equal)."""

from __future__ import annotations

from pathlib import Path

from lbkit import write_system

from generator.model.leaderboard import LeaderboardInputs, SystemSpec
from generator.pages.leaderboard.page import build_leaderboard_pages
from generator.pages.models import SiteInfo
from generator.pipelines.leaderboard import compute_leaderboard, render_leaderboard


def _headers(root: Path, treatments: dict[str, str]) -> list[str]:
    tasks = [f"t{i}" for i in range(4)]
    specs = []
    for n, (label, treatment) in enumerate(treatments.items()):
        write_system(root / label, treatment, {t: [n % 2 == 0, True] for t in tasks})
        specs.append(SystemSpec(label, root / label, treatment))
    result = compute_leaderboard(LeaderboardInputs(tuple(specs), None, None, (1, 2)))
    output = render_leaderboard(result)
    pages = build_leaderboard_pages("lb", "Board", result, output.document, output.markdown, (), SiteInfo("t"))
    table = pages.board.page.ranking_table  # type: ignore[attr-defined]
    return [c.label for c in table.columns]


def test_treatment_column_only_when_it_says_something(tmp_path: Path) -> None:
    same = _headers(tmp_path / "same", {"alpha": "alpha", "beta": "beta"})
    assert "Treatment" not in same and "System" in same
    different = _headers(tmp_path / "different", {"alpha": "RUN_A", "beta": "RUN_B"})
    assert "Treatment" in different


def test_pass_pow_one_is_not_a_second_pass_at_one_column(tmp_path: Path) -> None:
    headers = _headers(tmp_path, {"alpha": "A", "beta": "B"})
    assert "pass@1" in headers and "pass^1" not in headers and {"pass@2", "pass^2"} <= set(headers)
