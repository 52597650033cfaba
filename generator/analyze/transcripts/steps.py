"""The paired step view: two runs' tool calls aligned, and where they first diverge.

A step is a tool call, keyed by its tool name and a short form of its arguments.  The two lists are
aligned with ``difflib.SequenceMatcher`` (Ratcliff/Obershelp longest matching blocks, junk heuristic
off so repeated calls are never discarded): matched blocks are "same"; a replaced block is paired
row by row ("changed"), its excess and any insertion shown on one side only.  The first divergence
is the first aligned row that is not "same".
"""

from __future__ import annotations

from collections.abc import Sequence
from difflib import SequenceMatcher

from generator.model.redaction import safe_cut
from generator.model.transcript import AlignedRow, Step, StepAlignment

__all__ = ["AlignedRow", "StepAlignment", "align_steps", "brief", "tool_calls"]

BRIEF_CHARS = 80


def brief(text: str, limit: int = BRIEF_CHARS) -> str:
    """A short, one-line form of a tool call's arguments."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: safe_cut(line, limit - 1)] + "…"  # never inside a secret


def tool_calls(steps: Sequence[Step]) -> tuple[tuple[str, str, int], ...]:
    """(tool name, short arguments, step index) of every tool call, in order."""
    return tuple((step.name or "tool", brief(step.text), step.index) for step in steps if step.kind == "tool_use")


def align_steps(candidate: Sequence[tuple[str, str, int]], baseline: Sequence[tuple[str, str, int]]) -> StepAlignment:
    """Align two tool-call lists (as :func:`tool_calls` gives them) by tool name and short arguments."""
    a = [(name, args) for name, args, _index in candidate]
    b = [(name, args) for name, args, _index in baseline]
    rows: list[AlignedRow] = []
    for op, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            rows += [
                AlignedRow("same", candidate[i], baseline[j]) for i, j in zip(range(i1, i2), range(j1, j2), strict=True)
            ]
            continue
        left, right = list(candidate[i1:i2]), list(baseline[j1:j2])
        paired = min(len(left), len(right))
        rows += [AlignedRow("changed", left[k], right[k]) for k in range(paired)]
        rows += [AlignedRow("candidate-only", item, None) for item in left[paired:]]
        rows += [AlignedRow("baseline-only", None, item) for item in right[paired:]]
    first = next((n for n, row in enumerate(rows, 1) if row.op != "same"), None)
    return StepAlignment(tuple(rows), first)
