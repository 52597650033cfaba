"""Which runs get a run page: the site's ``transcripts:`` policy (``docs/transcripts.md``).

A big evaluation (100,000 runs a side) cannot publish a page per run within GitHub Pages' limits,
and a reviewer reads the runs that explain a difference.  The policy keeps the run pages of:

* ``all``: every run (the default);
* ``failures``: every run that did not pass, on either side;
* ``differing``: both runs of every strictly matched pair whose outcomes differ (the pairs that
  move the verdict), so each has its paired step view;
* ``sample``: one pair per task, its lowest strictly matched repetition (both runs); a task with no
  matched pair keeps each side's lowest repetition;
* ``none``: no run page (``transcripts: false``).

A run left out is never silently missing: its reference keeps its place with the reason
(:data:`LEFT_OUT`, naming the policy and the setting that publishes it), the task page says so in
the run's row, and the build counts what was left out.  Pure selection over the comparison's
alignment: nothing is read here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from generator.model.comparison import Alignment
from generator.model.runs import RunRecord
from generator.model.transcript import LEFT_OUT, TranscriptRef

__all__ = ["apply_policy", "left_out"]


def left_out(refs: Sequence[TranscriptRef]) -> int:
    """How many runs the policy left out (their references carry :data:`LEFT_OUT`)."""
    return sum(1 for ref in refs if ref.problem is not None and ref.problem.startswith("left out by transcripts:"))


def _kept(policy: str, alignment: Alignment, records: dict[str, Sequence[RunRecord]]) -> set[tuple[str, str, int]]:
    """(side, task, rep) of the runs the policy keeps."""
    if policy == "failures":
        return {(side, r.task, r.rep) for side, runs in records.items() for r in runs if not r.passed}
    if policy == "differing":
        differing = [p for p in alignment.pairs if p.candidate.passed != p.baseline.passed]
        return {(side, p.task, p.rep) for p in differing for side in ("candidate", "baseline")}
    if policy == "sample":
        lowest: dict[str, int] = {}
        for pair in alignment.pairs:
            lowest[pair.task] = min(pair.rep, lowest.get(pair.task, pair.rep))
        kept = {(side, task, rep) for task, rep in lowest.items() for side in ("candidate", "baseline")}
        for side, runs in records.items():
            alone: dict[str, int] = {}
            for r in runs:
                if r.task not in lowest:
                    alone[r.task] = min(r.rep, alone.get(r.task, r.rep))
            kept |= {(side, task, rep) for task, rep in alone.items()}
        return kept
    raise ValueError(f"unknown transcripts policy {policy!r}")


def apply_policy(
    policy: str, refs: Sequence[TranscriptRef], alignment: Alignment, records: dict[str, Sequence[RunRecord]]
) -> tuple[TranscriptRef, ...]:
    """*refs* with every run the policy leaves out marked :data:`LEFT_OUT` (no path: no page)."""
    if policy == "all":
        return tuple(refs)
    kept = set() if policy == "none" else _kept(policy, alignment, records)
    reason = LEFT_OUT.format(policy=policy)
    return tuple(
        ref
        if ref.path is None or (ref.side, ref.task, ref.rep) in kept  # a refused transcript keeps its reason
        else dataclasses.replace(ref, path=None, root=None, problem=reason, fallback=None)
        for ref in refs
    )
