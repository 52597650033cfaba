"""The typed view of a comparison (``analyze/comparison/view.py``): what the document and the pages show."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.analyze.comparison.view import comparison_view
from generator.model.common import SIDES
from generator.model.comparison import ComparisonInputs
from generator.model.comparison_view import ComparisonView, TaskOutcome
from generator.pipelines.compare import compare_experiments

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def view() -> ComparisonView:
    experiments = EXAMPLES / "experiments"
    inputs = ComparisonInputs(
        experiments / "native",
        "COMET_NATIVE_PHASE1",
        experiments / "beta",
        "COMET_FULL_040_BETA",
        tasks_dir=EXAMPLES / "tasks",
    )
    return comparison_view(compare_experiments(inputs))


def test_runs_come_in_side_task_rep_file_order_and_are_made_alike_each_time(view: ComparisonView) -> None:
    runs = list(view.runs)
    assert len(runs) == len(view.runs) == sum(side.runs for side in view.sides.values())
    order = [(SIDES.index(run.side), run.task, run.rep, run.file) for run in runs]
    assert order == sorted(order)
    assert view.runs[0] == runs[0] and view.runs[-1] == runs[-1]
    assert view.runs[1:3] == runs[1:3]
    with pytest.raises(IndexError):
        view.runs[len(runs)]


def test_each_pair_has_one_paired_run_per_side_with_its_outcome(view: ComparisonView) -> None:
    pairs = {(pair.task, pair.rep): pair for pair in view.pairs}
    assert len(pairs) == len(view.pairs) > 0
    for side in SIDES:
        paired = [run for run in view.runs if run.side == side and run.paired]
        assert sorted((run.task, run.rep) for run in paired) == sorted(pairs)
        for run in paired:
            pair = pairs[(run.task, run.rep)]
            assert run.passed == (pair.candidate_passed if side == "candidate" else pair.baseline_passed)
            assert run.artifact is not None
        assert all(run.artifact is None and run.artifact_status == "not-read" for run in view.runs if not run.paired)
        assert view.matched[side].runs == len(pairs)
        assert view.matched[side].passes == sum(run.passed for run in paired)


def test_task_outcomes_and_the_audit_summary_add_up(view: ComparisonView) -> None:
    assert [outcome.task for outcome in view.task_outcomes] == list(view.tasks)
    assert sum(outcome.pairs for outcome in view.task_outcomes) == len(view.pairs)
    for part, counts in view.audit_summary.items():
        assert sum(counts.values()) == len(view.manifest_audit), part
        assert counts == {
            state: n for state in counts if (n := sum(1 for row in view.manifest_audit if row.states[part] == state))
        }
    assert view.issue_counts == {
        reason: sum(1 for issue in view.issues if issue.reason == reason)
        for reason in sorted({issue.reason for issue in view.issues})
    }


def test_a_task_outcome_states_its_difference_and_each_sides_passes() -> None:
    outcome = TaskOutcome("t", (1, 2, 3, 4), 4, 3, 1)
    assert outcome.difference == 0.5
    assert (outcome.passes("candidate"), outcome.passes("baseline")) == (3, 1)
    assert TaskOutcome("t", (), 0, 0, 0).difference is None
