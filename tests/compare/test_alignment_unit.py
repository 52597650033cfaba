"""Strict alignment as a unit (analyze/comparison/alignment.py): one rule per issue reason.

The comparison tests exercise alignment through whole experiments; these build runs directly, so a
change to one rule fails here with the rule's name.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from generator.analyze.comparison.alignment import align, matrix_issues
from generator.model.formats import ImportOptions
from generator.model.runs import Key, Quality, RunRecord
from generator.read.importing import error_quality, imported_manifest, imported_record, included_quality
from tests.support.hypo import examples


def run(side: str, task: str, rep: int, *, case: str = "h1", passed: bool = True, excluded: bool = False) -> RunRecord:
    quality: Quality = (
        error_quality("error", "the sample errored", "boom", ImportOptions()) if excluded else included_quality("ok")
    )
    return imported_record(
        side,  # type: ignore[arg-type]
        fmt="records",
        task=task,
        rep=rep,
        file=f"{side}-{task}-{rep}",
        passed=passed,
        checks_failed=[],
        manifest=imported_manifest(task, "records", f"sha256:{case}", "test"),
        quality=quality,
        details={},
    )


def reasons(alignment: object) -> list[tuple[str, int, str]]:
    return [(issue.task, issue.rep, issue.reason) for issue in alignment.issues]  # type: ignore[attr-defined]


def test_runs_with_the_same_key_and_hash_pair() -> None:
    result = align(
        [run("candidate", "a", 1)], [run("baseline", "a", 1)], candidate_expected=None, baseline_expected=None
    )
    assert [(p.task, p.rep) for p in result.pairs] == [("a", 1)]
    assert result.issues == () and result.tasks == ("a",) and result.expected_keys == 1


def test_a_run_missing_on_one_side_is_a_missing_repetition() -> None:
    result = align(
        [run("candidate", "a", 1), run("candidate", "a", 2)], [run("baseline", "a", 1)],
        candidate_expected=None, baseline_expected=None,
    )  # fmt: skip
    assert reasons(result) == [("a", 2, "missing-repetition")]
    assert result.issues[0].detail == "missing baseline run"


def test_two_runs_for_one_key_pair_with_neither() -> None:
    result = align(
        [run("candidate", "a", 1), run("candidate", "a", 1)], [run("baseline", "a", 1)],
        candidate_expected=None, baseline_expected=None,
    )  # fmt: skip
    assert result.pairs == () and reasons(result) == [("a", 1, "duplicate-run")]


def test_different_hashes_do_not_pair() -> None:
    result = align(
        [run("candidate", "a", 1, case="h1")], [run("baseline", "a", 1, case="h2")],
        candidate_expected=None, baseline_expected=None,
    )  # fmt: skip
    assert result.pairs == () and reasons(result) == [("a", 1, "case-hash-mismatch")]


def test_a_task_whose_pairs_disagree_on_the_hash_loses_every_pair() -> None:
    candidate = [run("candidate", "a", 1, case="h1"), run("candidate", "a", 2, case="h2"), run("candidate", "b", 1)]
    baseline = [run("baseline", "a", 1, case="h1"), run("baseline", "a", 2, case="h2"), run("baseline", "b", 1)]
    result = align(candidate, baseline, candidate_expected=None, baseline_expected=None)
    assert [(p.task, p.rep) for p in result.pairs] == [("b", 1)]
    assert reasons(result) == [("a", 0, "case-hash-drift")]


def test_an_excluded_run_is_disclosed_not_paired() -> None:
    result = align(
        [run("candidate", "a", 1, excluded=True)], [run("baseline", "a", 1)],
        candidate_expected=None, baseline_expected=None,
    )  # fmt: skip
    assert result.pairs == () and reasons(result) == [("a", 1, "quality-excluded")]


def test_the_matrices_decide_which_keys_exist() -> None:
    expected_candidate: set[Key] = {("a", 1), ("a", 2)}
    expected_baseline: set[Key] = {("a", 1)}
    result = align(
        [run("candidate", "a", 1), run("candidate", "a", 2), run("candidate", "z", 1)],
        [run("baseline", "a", 1)],
        candidate_expected=expected_candidate,
        baseline_expected=expected_baseline,
    )
    assert [(p.task, p.rep) for p in result.pairs] == [("a", 1)]
    assert reasons(result) == [
        ("a", 2, "expected-matrix-mismatch"),  # in the candidate's matrix only
        ("a", 2, "missing-repetition"),
        ("z", 1, "unexpected-run"),  # in neither matrix
    ]


def test_matrix_issues_come_first_invalid_then_empty() -> None:
    issues = matrix_issues([("candidate", "T", "bad hash", None), ("baseline", "T", None, set())])
    assert [(i.reason, i.detail) for i in issues] == [
        ("invalid-expected-case-matrix", "candidate: bad hash"),
        ("expected-treatment-missing", "baseline matrix has no T cases"),
    ]


_KEYS = st.tuples(st.sampled_from("abc"), st.integers(1, 3))


@settings(max_examples=examples(60), deadline=None)
@given(
    candidate=st.lists(st.tuples(_KEYS, st.sampled_from(["h1", "h2"]), st.booleans()), max_size=8),
    baseline=st.lists(st.tuples(_KEYS, st.sampled_from(["h1", "h2"]), st.booleans()), max_size=8),
    seed=st.integers(0, 2**16),
)
def test_every_key_is_paired_or_disclosed_whatever_the_order(
    candidate: list[tuple[Key, str, bool]], baseline: list[tuple[Key, str, bool]], seed: int
) -> None:
    cand = [run("candidate", t, r, case=h, excluded=x) for (t, r), h, x in candidate]
    base = [run("baseline", t, r, case=h, excluded=x) for (t, r), h, x in baseline]
    result = align(cand, base, candidate_expected=None, baseline_expected=None)
    paired = {(p.task, p.rep) for p in result.pairs}
    disclosed = {(i.task, i.rep) for i in result.issues} | {
        (i.task, rep) for i in result.issues if i.rep == 0 for rep in range(1, 4)
    }
    every = {key for key, _h, _x in candidate + baseline}
    assert every <= paired | disclosed
    assert not paired & {(i.task, i.rep) for i in result.issues}
    shuffled = random.Random(seed)
    shuffled.shuffle(cand)
    shuffled.shuffle(base)
    again = align(cand, base, candidate_expected=None, baseline_expected=None)
    assert reasons(again) == reasons(result)
    assert [(p.task, p.rep, p.case_hash) for p in again.pairs] == [(p.task, p.rep, p.case_hash) for p in result.pairs]
