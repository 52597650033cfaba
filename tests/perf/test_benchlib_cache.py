"""The bench cache regenerates a folder that lost part of its files instead of measuring what is left."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import benchlib  # noqa: E402


def test_cached_regenerates_a_folder_that_changed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(benchlib, "CACHE", tmp_path)
    made: list[Path] = []

    def make(folder: Path) -> None:
        made.append(folder)
        (folder / "sub").mkdir()
        (folder / "sub" / "run.json").write_text("{}")
        (folder / "log.txt").write_text("abc")

    folder = benchlib.cached("data", make)
    assert benchlib.cached("data", make) == folder and len(made) == 1  # complete: reused
    (folder / "sub" / "run.json").unlink()
    benchlib.cached("data", make)
    assert len(made) == 2 and (folder / "sub" / "run.json").exists()  # part deleted: generated again
    (folder / "log.txt").write_text("abcd")
    benchlib.cached("data", make)
    assert len(made) == 3  # a file changed in size
    (folder / ".complete").write_text("")
    benchlib.cached("data", make)
    assert len(made) == 4  # a marker that does not describe the folder
