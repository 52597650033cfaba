"""Strict alignment of candidate and baseline runs.

Two runs form a pair only when they share task and repetition, both are the
single run for that key on their side, both manifests verified, neither is
quality-excluded, and their comparison hashes agree (the full ``case_hash``
when both are execution-bound v2 manifests, otherwise the task-core hash).
Every key that does not pair becomes an :class:`Issue`; nothing is dropped
silently.  A task whose pairs disagree on the comparison hash loses all its
pairs (``case-hash-drift``).

Issue order: experiment-level issues first, then per-key issues in key order,
then drift issues by task.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet

from generator.model.comparison import ISSUE_REASONS, Alignment, Issue, Pair
from generator.model.runs import Key, RunRecord

__all__ = ["ISSUE_REASONS", "Alignment", "Issue", "Key", "Pair", "align", "matrix_issues"]


def _by_key(records: Iterable[RunRecord]) -> dict[Key, RunRecord | list[RunRecord]]:
    """Each key's run, or its runs when there are several (a list per key only for duplicates)."""
    grouped: dict[Key, RunRecord | list[RunRecord]] = {}
    for record in records:
        key = record.key
        held = grouped.get(key)
        if held is None:
            grouped[key] = record
        elif isinstance(held, list):
            held.append(record)
        else:
            grouped[key] = [held, record]
    return grouped


def _runs(held: RunRecord | list[RunRecord] | None) -> Sequence[RunRecord]:
    if held is None:
        return ()
    return held if isinstance(held, list) else (held,)


def _sides(candidate: bool, baseline: bool, joiner: str) -> str:
    return joiner.join(name for name, flag in (("candidate", candidate), ("baseline", baseline)) if flag)


def _comparison_hashes(candidate: RunRecord, baseline: RunRecord) -> tuple[str, str]:
    if candidate.manifest.execution_bound and baseline.manifest.execution_bound:
        return candidate.manifest.case_hash, baseline.manifest.case_hash
    return candidate.manifest.core_hash, baseline.manifest.core_hash


def _judge_key(
    key: Key,
    candidates: Sequence[RunRecord],
    baselines: Sequence[RunRecord],
    candidate_expected: AbstractSet[Key] | None,
    baseline_expected: AbstractSet[Key] | None,
) -> tuple[list[Issue], Pair | None]:
    """Issues for one key, and its pair when it has one."""
    task, rep = key
    issues: list[Issue] = []
    if candidate_expected is not None and baseline_expected is not None:
        in_candidate, in_baseline = key in candidate_expected, key in baseline_expected
        if in_candidate != in_baseline:
            omitted = "baseline" if in_candidate else "candidate"
            issues.append(Issue(task, rep, "expected-matrix-mismatch", f"{omitted} matrix omits case"))
    unexpected_candidate = candidate_expected is not None and bool(candidates) and key not in candidate_expected
    unexpected_baseline = baseline_expected is not None and bool(baselines) and key not in baseline_expected
    if unexpected_candidate or unexpected_baseline:
        detail = _sides(unexpected_candidate, unexpected_baseline, ", ")
        return [*issues, Issue(task, rep, "unexpected-run", detail)], None
    if len(candidates) > 1 or len(baselines) > 1:
        detail = f"candidate={len(candidates)}, baseline={len(baselines)}"
        return [*issues, Issue(task, rep, "duplicate-run", detail)], None
    if not candidates or not baselines:
        detail = f"missing {_sides(not candidates, not baselines, ' and ')} run"
        return [*issues, Issue(task, rep, "missing-repetition", detail)], None
    candidate, baseline = candidates[0], baselines[0]
    if not candidate.manifest_valid or not baseline.manifest_valid:
        detail = _sides(not candidate.manifest_valid, not baseline.manifest_valid, ", ")
        return [*issues, Issue(task, rep, "invalid-case-manifest", detail)], None
    excluded = [
        f"{record.side}:{record.quality.reason_code}"
        for record in (candidate, baseline)
        if not record.quality.include_in_analysis
    ]
    if excluded:
        return [*issues, Issue(task, rep, "quality-excluded", ", ".join(excluded))], None
    candidate_hash, baseline_hash = _comparison_hashes(candidate, baseline)
    if candidate_hash != baseline_hash:
        detail = f"candidate={candidate_hash}, baseline={baseline_hash}"
        return [*issues, Issue(task, rep, "case-hash-mismatch", detail)], None
    return issues, Pair(task, rep, candidate_hash, candidate, baseline)


def align(
    candidate_records: Sequence[RunRecord],
    baseline_records: Sequence[RunRecord],
    *,
    candidate_expected: AbstractSet[Key] | None,
    baseline_expected: AbstractSet[Key] | None,
    initial_issues: Sequence[Issue] = (),
) -> Alignment:
    """Pair runs strictly.  ``None`` as an expected set means "no matrix: use observed keys"."""
    candidate_by_key = _by_key(candidate_records)
    baseline_by_key = _by_key(baseline_records)
    every = set(candidate_by_key)  # one set, filled in place (no set per union)
    for more in (baseline_by_key, candidate_expected, baseline_expected):
        if more:
            every.update(more)
    keys = sorted(every)
    del every
    issues = list(initial_issues)
    pairs: list[Pair] = []
    for key in keys:
        found, pair = _judge_key(
            key,
            _runs(candidate_by_key.get(key)),
            _runs(baseline_by_key.get(key)),
            candidate_expected,
            baseline_expected,
        )
        issues.extend(found)
        if pair is not None:
            pairs.append(pair)
    hashes_by_task: dict[str, set[str]] = defaultdict(set)
    for pair in pairs:
        hashes_by_task[pair.task].add(pair.case_hash)
    drifting = {task: hashes for task, hashes in hashes_by_task.items() if len(hashes) > 1}
    if drifting:
        pairs = [pair for pair in pairs if pair.task not in drifting]
        for task in sorted(drifting):
            issues.append(Issue(task, 0, "case-hash-drift", ", ".join(sorted(drifting[task]))))
    return Alignment(
        pairs=tuple(pairs),
        issues=tuple(issues),
        tasks=tuple(sorted({task for task, _rep in keys})),
        expected_keys=len(keys),
    )


def matrix_issues(
    sides: Sequence[tuple[str, str, str | None, AbstractSet[Key] | None]],
) -> list[Issue]:
    """Experiment-level issues from ``(side, treatment, matrix error, expected keys)``.

    Invalid matrices come first (candidate, then baseline), then valid
    matrices that list no case of the compared treatment.
    """
    invalid = [
        Issue("*", 0, "invalid-expected-case-matrix", f"{side}: {error}") for side, _t, error, _e in sides if error
    ]
    empty = [
        Issue("*", 0, "expected-treatment-missing", f"{side} matrix has no {treatment} cases")
        for side, treatment, error, expected in sides
        if not error and expected is not None and not expected
    ]
    return invalid + empty
