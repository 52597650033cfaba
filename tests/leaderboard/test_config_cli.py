"""The leaderboards: config list and the leaderboard command: one clear error line, exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lbkit import write_system

from generator.cli import main
from generator.model.errors import EvalsiteError
from generator.read.config import load_config


def _config(tmp: Path, board: str) -> Path:
    for name in ("a", "b", "c"):
        write_system(tmp / name, name.upper(), {"t1": [True, False], "t2": [False, False]})
    path = tmp / "site-config.yaml"
    path.write_text("title: T\nleaderboards:\n" + board, encoding="utf-8")
    return path


SYSTEMS = """    systems:
      - {label: a, experiment: a, treatment: A}
      - {label: b, experiment: b, treatment: B}
"""


def _error(path: Path) -> str:
    with pytest.raises(EvalsiteError) as info:
        load_config(path)
    message = str(info.value)
    assert "\n" not in message and str(path.parent) not in message
    return message


def test_valid_leaderboard_config(tmp_path: Path) -> None:
    config = load_config(
        _config(tmp_path, "  - id: lb\n    title: L\n" + SYSTEMS + "    baseline: b\n    alpha: 0.1\n")
    )
    board = config.leaderboards[0]
    assert [s.label for s in board.systems] == ["a", "b"] and board.systems[0].format == "comet"
    assert (board.baseline, board.alpha, board.correction, board.ks) == ("b", 0.1, "holm", (1,))
    assert (tmp_path / "a").resolve() in config.input_paths()


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ("    colour: red\n", "unknown key(s) colour"),
        ("    baseline: z\n", "'z' is not the label of one of its systems"),
        ("    alpha: 0.7\n", "alpha must be a number in (0, 0.5]"),
        ("    alpha: 0\n", "alpha must be a number in (0, 0.5]"),
        ("    alpha: true\n", "alpha must be a number in (0, 0.5]"),
        ("    correction: bonferroni\n", "correction must be one of holm, bh, none"),
        ("      - {label: a, experiment: c, treatment: C}\n", "duplicate label 'a'"),
        ("      - {label: c, experiment: c, treatment: C, format: excel}\n", "unknown format 'excel'"),
        ("      - {label: c, experiment: nowhere, treatment: C}\n", "'nowhere' is not an existing folder"),
    ],
)
def test_config_errors(tmp_path: Path, extra: str, expected: str) -> None:
    assert expected in _error(_config(tmp_path, "  - id: lb\n    title: L\n" + SYSTEMS + extra))


def test_one_system_is_an_error(tmp_path: Path) -> None:
    board = "  - id: lb\n    title: L\n    systems:\n      - {label: a, experiment: a, treatment: A}\n"
    assert "two or more systems" in _error(_config(tmp_path, board))


def _systems(tmp: Path) -> list[str]:
    out = []
    for name in ("a", "b", "c"):
        write_system(tmp / name, name.upper(), {"t1": [name == "a", False], "t2": [True, name != "c"]})
        out += ["--system", f"{name}={tmp / name}:{name.upper()}"]
    return out


def test_cli_json_and_markdown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["leaderboard", *_systems(tmp_path), "--baseline", "b", "--k", "1,2"]
    assert main([*args, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == "evalsite.leaderboard.v1" and doc["ks"] == [1, 2]
    assert [row["label"] for row in doc["against_baseline"]] == ["a", "c"]
    assert str(tmp_path) not in json.dumps(doc)
    out = tmp_path / "board.md"
    assert main([*args, "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8").startswith("# Leaderboard\n")
    assert main([*args, "--out", str(out)]) == 0  # replaces its own kind of output


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (["--baseline", "zz"], "baseline 'zz' is not one of the system labels"),
        (["--correction", "bonferroni"], "invalid choice"),
        (["--alpha", "0.9"], "--alpha: alpha must be a number in (0, 0.5]"),
        (["--k", "0"], "--k:"),
        (["--system", "broken"], "expected LABEL=PATH[:TREATMENT]"),
        (["--system", "z=somewhere"], "a Comet experiment needs its treatment (LABEL=DIR:TREATMENT)"),
        (["--system-format", "zz=inspect"], "--system-format: no system is labelled 'zz'"),
        (["--system-format", "a=excel"], "--system-format 'a=excel': expected LABEL=FORMAT"),
        (["--system", "a=x:Y"], "duplicate system label 'a'"),
    ],
)
def test_cli_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], expected: str) -> None:
    assert main(["leaderboard", *_systems(tmp_path), *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and expected in err and "Traceback" not in err


def test_cli_refuses_foreign_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    foreign = tmp_path / "notes.md"
    foreign.write_text("mine\n", encoding="utf-8")
    assert main(["leaderboard", *_systems(tmp_path), "--out", str(foreign)]) == 2
    assert "is not an evalsite leaderboard report" in capsys.readouterr().err
    assert foreign.read_text(encoding="utf-8") == "mine\n"
