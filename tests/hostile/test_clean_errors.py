"""Hostile configs and output paths end in one plain `error:` line, never a traceback (issue 11, item 13)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from generator.cli import main
from generator.model.errors import EvalsiteError
from generator.write.site import staged_site

CASES = {
    "deeply nested YAML": ("title: " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
    "a list as a key": ("title: x\n? [a, b]\n: 1\n", "mapping key must be plain text"),
    "a NUL in a path": ('title: x\noutput: "a\\0b"\n', "NUL"),
    "a 5,000-digit k": (
        "title: x\ncomparisons:\n  - id: a\n    title: a\n    candidate: {experiment: e, treatment: T}\n"
        "    baseline: {experiment: e, treatment: T}\n    ks: [" + "9" * 5000 + "]\n",
        "number is too long",
    ),
    "a lone surrogate in the title": ('title: "x\\ud800"\n', "lone surrogate"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_config_gives_one_plain_error(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    text, expected = CASES[name]
    (tmp_path / "e").mkdir()
    (tmp_path / "c.yaml").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["build", "--config", "c.yaml", "--out", "o"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert expected in err
    assert "unexpected" not in err and str(tmp_path) not in err
    assert not (tmp_path / "o").exists()


def test_output_through_a_file_is_a_plain_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "c.yaml").write_text("title: x\n", encoding="utf-8")
    (tmp_path / "afile").write_text("")
    monkeypatch.chdir(tmp_path)
    assert main(["build", "--config", "c.yaml", "--out", "afile/sub"]) == 2
    err = capsys.readouterr().err
    assert err == "error: output folder 'sub' cannot be made: 'afile' is not a folder\n"


def test_unwritable_output_parent_is_a_plain_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> str:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "mkdtemp", refuse)
    monkeypatch.setattr(tempfile, "mkstemp", refuse)  # the build's lock file, made before its folder
    with pytest.raises(EvalsiteError, match=r"cannot be written \(Permission denied\)"):
        with staged_site(tmp_path / "out"):
            pass
