"""The paired step view's alignment and first-divergence rule, on crafted pairs."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from generator.analyze.transcripts.steps import align_steps, brief, tool_calls
from generator.model.transcript import Step


def _calls(*names: str) -> list[tuple[str, str, int]]:
    return [(name.split(":")[0], name.split(":")[1] if ":" in name else "", i) for i, name in enumerate(names, 1)]


def test_identical_runs_never_diverge() -> None:
    calls = _calls("Read:a.py", "Edit:a.py", "Bash:pytest")
    alignment = align_steps(calls, calls)
    assert alignment.first_divergence is None and alignment.words == "no divergence"
    assert [row.op for row in alignment.rows] == ["same"] * 3


def test_an_insertion_is_one_sided_and_marks_its_row() -> None:
    alignment = align_steps(_calls("Read:a", "Grep:x", "Edit:a"), _calls("Read:a", "Edit:a"))
    assert [row.op for row in alignment.rows] == ["same", "candidate-only", "same"]
    assert alignment.words == "first divergence: step 2 (tool Grep vs no tool call)"


def test_a_substitution_pairs_the_two_calls() -> None:
    alignment = align_steps(_calls("Read:a", "Bash:make", "Edit:a"), _calls("Read:a", "Write:b", "Edit:a"))
    assert [row.op for row in alignment.rows] == ["same", "changed", "same"]
    assert alignment.words == "first divergence: step 2 (tool Bash vs tool Write)"


def test_same_tool_other_arguments_names_the_arguments() -> None:
    alignment = align_steps(_calls("Bash:ls", "Bash:pytest"), _calls("Bash:ls", "Bash:make"))
    assert alignment.words == "first divergence: step 2 (tool Bash (pytest) vs tool Bash (make))"


def test_one_empty_run() -> None:
    alignment = align_steps([], _calls("Read:a", "Edit:a"))
    assert [row.op for row in alignment.rows] == ["baseline-only", "baseline-only"]
    assert alignment.words == "first divergence: step 1 (no tool call vs tool Read)"
    assert align_steps([], []).words == "no divergence (neither run made a tool call)"


def test_tool_calls_and_brief() -> None:
    steps = [
        Step(1, "assistant", "hi"),
        Step(2, "tool_use", '{\n "command": "pytest   -q"\n}', name="Bash"),
        Step(3, "tool_result", "ok", name="Bash"),
    ]
    assert tool_calls(steps) == (("Bash", '{ "command": "pytest -q" }', 2),)
    assert len(brief("x" * 500)) == 80


_NAMES = st.lists(st.sampled_from(["Read", "Edit", "Bash", "Grep"]), max_size=12)


@settings(deadline=None)
@given(_NAMES, _NAMES)
def test_every_call_appears_once_in_order(a: list[str], b: list[str]) -> None:
    left, right = _calls(*a), _calls(*b)
    alignment = align_steps(left, right)
    assert [row.candidate for row in alignment.rows if row.candidate] == left
    assert [row.baseline for row in alignment.rows if row.baseline] == right
    assert (alignment.first_divergence is None) == (a == b)
