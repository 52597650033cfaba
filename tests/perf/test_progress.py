"""The shared progress display: counts on a terminal, nothing at all otherwise."""

from __future__ import annotations

import io

import pytest

from generator.pipelines import progress
from generator.pipelines.progress import Progress, progress_wanted, stage


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_no_open_display_means_no_op_ticks() -> None:
    tick = stage("anything", 3)
    tick()
    assert tick is progress._nothing


def test_a_disabled_display_draws_nothing_and_is_closed_after(capsys: pytest.CaptureFixture[str]) -> None:
    with Progress(False):
        tick = stage("reading raw stdout", 2)
        tick()
        tick()
    assert progress._ACTIVE == []
    assert capsys.readouterr() == ("", "")


def test_an_enabled_display_counts_the_steps_of_the_innermost_stage() -> None:
    with Progress(True) as display:
        tick = stage("reading raw stdout", 4)
        for _ in range(3):
            tick()
        tasks = display._bar.tasks
        assert [(task.description, task.completed, task.total) for task in tasks] == [("reading raw stdout", 3, 4)]
    assert progress._ACTIVE == []


def test_progress_is_wanted_only_on_a_terminal_outside_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("EVALSITE_NO_PROGRESS", raising=False)
    assert progress_wanted(_Tty()) is True
    assert progress_wanted(io.StringIO()) is False
    monkeypatch.setenv("CI", "true")
    assert progress_wanted(_Tty()) is False
