"""``evalsite leaderboard`` and leaderboard entries read every format with the importers' options (issue 29).

The systems are Inspect logs written by the real inspect-ai (``fixtures/inspect/runs/``): a sharded
run (a folder of two logs), its retried run, and a run stopped by an error.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.cli import main
from generator.model.errors import EvalsiteError
from generator.read.config import parse_config

RUNS = Path(__file__).parent / "fixtures" / "inspect" / "runs"


def _board(capsys: pytest.CaptureFixture[str], *extra: str) -> dict:  # type: ignore[type-arg]
    args = ["leaderboard", "--system", f"sharded={RUNS / 'shards'}", "--system", f"retried={RUNS / 'retry'}:again"]
    args += ["--system", f"stopped={RUNS / 'error.eval'}", "--input-format", "inspect", "--format", "json", *extra]
    assert main(args) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def _system(doc: dict, label: str) -> dict:  # type: ignore[type-arg]
    return next(s for s in doc["systems"] if s["label"] == label)


def test_the_cli_reads_imported_systems_with_an_optional_treatment(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _board(capsys)
    assert {s["label"]: s["treatment"] for s in doc["systems"]} == {
        "sharded": "sharded",  # no treatment given: the label
        "retried": "again",
        "stopped": "stopped",
    }
    excluded = [r for r in _system(doc, "stopped")["runs"] if not r["aligned"]]
    assert {(r["task"], r["rep"]) for r in excluded} == {("prime", 2), ("spell", 2)}  # errored: excluded


def test_errors_as_failures_and_a_threshold_reach_the_systems(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _board(capsys, "--errors-as-failures")
    assert all(r["aligned"] for r in _system(doc, "stopped")["runs"])
    assert (
        main(
            [
                "leaderboard",
                "--system",
                f"a={RUNS / 'shards'}",
                "--system",
                f"b={RUNS / 'retry'}",
                "--input-format",
                "inspect",
                "--scorer",
                "nope",
            ]
        )
        == 2
    )
    assert "has no scorer 'nope' (it has: match)" in capsys.readouterr().err


def test_a_per_system_format_overrides_the_global_one(capsys: pytest.CaptureFixture[str]) -> None:
    comet = Path(__file__).parents[2] / "examples" / "leaderboard" / "agent-a"
    args = ["leaderboard", "--system", f"a={comet}:LB_AGENT_A", "--system", f"b={RUNS / 'shards'}"]
    assert main([*args, "--system-format", "b=inspect", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [s["label"] for s in doc["systems"]] and {s["label"] for s in doc["systems"]} == {"a", "b"}


def test_leaderboard_entries_take_the_importers_options(tmp_path: Path) -> None:
    system = {"experiment": str(RUNS / "shards"), "treatment": "t", "format": "inspect"}
    systems = [{**system, "label": "a"}, {**system, "label": "b", "experiment": str(RUNS / "retry")}]
    entry = {"id": "x", "title": "X", "systems": systems, "pass_threshold": 0.5, "scorer": "match"}
    board = parse_config(
        {"title": "T", "leaderboards": [{**entry, "errors_as_failures": True}]}, tmp_path
    ).leaderboards[0]
    options = board.inputs().import_options
    assert (options.pass_threshold, options.scorer, options.errors_as_failures) == (0.5, "match", True)
    for key, value, message in (
        ("pass_threshold", "high", "pass_threshold: must be a finite number"),
        ("scorer", "", "scorer: must be a non-empty string"),
        ("errors_as_failures", "yes", "errors_as_failures: must be true or false"),
    ):
        with pytest.raises(EvalsiteError, match=message):
            parse_config({"title": "T", "leaderboards": [{**entry, key: value}]}, tmp_path)


def test_a_side_may_list_its_logs_in_the_config(tmp_path: Path) -> None:
    logs = [str(RUNS / "shards" / "part-1.eval"), str(RUNS / "shards" / "part-2.eval")]
    side = {"experiment": logs, "treatment": "t", "format": "inspect"}
    entry = {"id": "x", "title": "X", "candidate": side, "baseline": {**side, "experiment": str(RUNS / "retry")}}
    comparison = parse_config({"title": "T", "comparisons": [entry]}, tmp_path).comparisons[0]
    assert comparison.candidate.paths == tuple(Path(p) for p in logs)
    assert comparison.import_options().candidate_logs == tuple(Path(p) for p in logs)
    assert comparison.baseline.paths == (RUNS / "retry",)
    with pytest.raises(EvalsiteError, match=r"a list of files is only for format inspect"):
        parse_config({"title": "T", "comparisons": [{**entry, "candidate": {**side, "format": "comet"}}]}, tmp_path)
    with pytest.raises(EvalsiteError, match=r"experiment\[1\]: 'nowhere.eval' is not an existing file"):
        parse_config(
            {"title": "T", "comparisons": [{**entry, "candidate": {**side, "experiment": [logs[0], "nowhere.eval"]}}]},
            tmp_path,
        )


def test_a_system_links_to_a_comparison_side_only_when_it_reads_the_same_logs(tmp_path: Path) -> None:
    from generator.pipelines.leaderboard import evidence_matches

    part = str(RUNS / "shards" / "part-1.eval")
    listed = {"experiment": [part, str(RUNS / "shards" / "part-2.eval")], "treatment": "t", "format": "inspect"}
    folder = {"experiment": str(RUNS / "shards"), "treatment": "t", "format": "inspect"}
    comparison = {"id": "c", "title": "C", "candidate": listed, "baseline": folder}
    systems = [{**folder, "label": "shards"}, {**folder, "experiment": part, "label": "part"}]
    board = {"id": "b", "title": "B", "systems": systems}
    config = parse_config({"title": "T", "comparisons": [comparison], "leaderboards": [board]}, tmp_path)
    assert [(m.label, m.side) for m in evidence_matches(config, {"c"})] == [("shards", "baseline")]
