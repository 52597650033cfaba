"""A run's transcript as the run pages show it: the steps of one raw stdout stream, in order.

Plain immutable data built by ``generator.read.transcripts``; ``TranscriptRef`` says where a run's
transcript is (or why it cannot be shown) without ever reaching a page as a path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = [
    "LEFT_OUT",
    "STEP_KINDS",
    "RUN_PAGE_MODES",
    "TASK_GROUPED_ABOVE",
    "TRANSCRIPT_POLICIES",
    "AlignedRow",
    "Step",
    "StepAlignment",
    "Transcript",
    "TranscriptRef",
]

#: What a step is: user text, assistant text, thinking, a tool call, its result, the final result
#: event, an error or retry, a limit that stopped the run (Inspect), or a session start (a resumed
#: run has more than one; an Inspect sample's system prompt).
STEP_KINDS = ("user", "assistant", "thinking", "tool_use", "tool_result", "result", "error", "limit", "session")


#: The site's ``transcripts:`` policies (``generator.analyze.transcripts.policy``).
TRANSCRIPT_POLICIES: Final = ("all", "failures", "differing", "sample", "none")

#: The site's ``run_pages:`` settings: ``run`` writes a page per run and per pair (long transcripts
#: continue on more pages); ``task`` groups a task's published runs and pairs on its own transcript
#: pages; ``auto`` (the default) groups per task when a comparison publishes more than
#: :data:`TASK_GROUPED_ABOVE` transcripts (``docs/transcripts.md``).
RUN_PAGE_MODES: Final = ("auto", "run", "task")
TASK_GROUPED_ABOVE: Final = 2000

#: The reason a run's transcript is not published; ``{policy}`` is the setting that left it out.
LEFT_OUT: Final = "left out by transcripts: {policy} (set transcripts: all to publish it)"


@dataclass(frozen=True, slots=True)
class Step:
    index: int  # 1-based, in stream order
    kind: str  # one of STEP_KINDS
    text: str  # already cut to the text budget (the cut disclosed in the text)
    name: str | None = None  # tool name (tool_use), or the tool a result answers
    size: int = 0  # UTF-8 bytes of the full text before any cut
    is_error: bool = False
    model: str | None = None
    tokens: int | None = None  # input + output tokens of this message, where the stream says so
    cost_usd: float | None = None
    elapsed_s: float | None = None
    call_id: str | None = None  # tool_use id / tool_result tool_use_id


@dataclass(frozen=True, slots=True)
class Transcript:
    format: str  # "claude-code stream-json" | "codex json"
    steps: tuple[Step, ...]
    bytes: int  # size of the raw stdout file
    sha256: str  # of the raw stdout file
    non_json_lines: int = 0
    duplicates: int = 0  # repeated streamed messages dropped (same message id and content)
    sessions: int = 0  # system/init (Claude) or thread.started (Codex) events
    source: str = "Raw stdout"  # what bytes/sha256 describe (an Inspect sample: its log member or log)


@dataclass(frozen=True, slots=True)
class TranscriptRef:
    """Where one run's raw stdout is, or why it is not shown."""

    side: str
    task: str
    rep: int
    path: str | None  # absolute; never printed
    root: str | None  # the folder the file must stay inside
    problem: str | None = None  # set when path is None
    file: str = ""  # the report file name (tells apart two reports of one side, task and repetition)
    variant: str = ""  # "" or a short hash of *file*, when one side has two reports of one (task, rep)
    member: str = ""  # an Inspect run: its sample in the log at *path* (``samples/…json`` or ``samples[i]``)
    rebased: bool = False  # *path* is the rebase_artifacts place (the bound reference had none)
    fallback: tuple[str, str] | None = None  # the rebase_artifacts place, tried when *path* is refused


@dataclass(frozen=True, slots=True)
class AlignedRow:
    op: str  # same | changed | candidate-only | baseline-only
    candidate: tuple[str, str, int] | None
    baseline: tuple[str, str, int] | None


@dataclass(frozen=True, slots=True)
class StepAlignment:
    rows: tuple[AlignedRow, ...]
    first_divergence: int | None  # 1-based aligned row, None when the runs never diverge

    @property
    def words(self) -> str:
        if self.first_divergence is None:
            if not self.rows:
                return "no divergence (neither run made a tool call)"
            return "no divergence"
        row = self.rows[self.first_divergence - 1]
        left = f"tool {row.candidate[0]}" if row.candidate else "no tool call"
        right = f"tool {row.baseline[0]}" if row.baseline else "no tool call"
        if row.candidate and row.baseline and row.candidate[0] == row.baseline[0]:
            left, right = f"{left} ({row.candidate[1]})", f"{right} ({row.baseline[1]})"
        return f"first divergence: step {self.first_divergence} ({left} vs {right})"
