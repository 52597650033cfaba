"""The build history: one content-addressed, hash-chained entry per comparison and leaderboard per build.

An entry is one JSON object on one line of an append-only JSONL file (``docs/history.md``)::

    {"schema": "evalsite.history.v1", "id": "hist1:<sha256>", "previous": "hist1:<sha256>"|null,
     "kind": "comparison"|"leaderboard", "subject": "<config id>", "title": str,
     "revision": str|null, "time": int|null, "inputs": {"<role>": "sha256:..."},
     "inputs_digest": "sha256:...", "verdict": str|null, "issues": int,
     "tiers": [[label]]|null,
     "sides": [{"label": str, "tasks": [{"task": str, "passes": int, "runs": int, "excluded": int}]}]}

``id`` is ``hist1:`` + SHA-256 of the canonical JSON of the entry without ``id`` (``previous``
included), so editing any field of any entry breaks its id, and deleting or reordering an entry
breaks the next entry's ``previous``.  The canonical form is the benchmark ledger's
(:func:`generator.model.ledger.canonical_bytes`: compact, sorted keys, UTF-8, no NaN, lone
surrogates refused) rather than :func:`generator.model.jsonfmt.json_text`, which is the *display*
format (spaces, trailing newline): a digest must be taken over exactly one byte form, and the
ledger's is the one the project already hashes receipts with.

The trend types below are what ``generator.analyze.history`` computes from the entries.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from generator.model.ledger import canonical_bytes

__all__ = [
    "HISTORY_SCHEMA",
    "BuildTrend",
    "HistoryEntry",
    "HistoryProblem",
    "SideCounts",
    "SidePoint",
    "StepDifference",
    "StepStatus",
    "SummaryItem",
    "TaskCounts",
    "TaskStrip",
    "Trend",
    "chain_entry",
    "entry_id",
]

HISTORY_SCHEMA = "evalsite.history.v1"
ID_PREFIX = "hist1:"


def entry_id(body: Mapping[str, Any]) -> str:
    """``hist1:`` address of an entry: everything except ``id``, canonical JSON."""
    content = {key: value for key, value in body.items() if key != "id"}
    return ID_PREFIX + hashlib.sha256(canonical_bytes(content)).hexdigest()


def chain_entry(body: Mapping[str, Any], previous: str | None) -> dict[str, Any]:
    """The entry *body* linked after *previous*, with its id."""
    entry = {key: value for key, value in body.items() if key not in ("id", "previous")}
    entry["previous"] = previous
    entry["id"] = entry_id(entry)
    return entry


@dataclass(frozen=True, slots=True)
class TaskCounts:
    task: str
    passes: int  # strictly matched runs that passed
    runs: int  # strictly matched runs
    excluded: int  # runs of the task that were not in the analysis (unpaired, invalid, excluded)


@dataclass(frozen=True, slots=True)
class SideCounts:
    label: str  # "candidate" / "baseline", or a leaderboard system's label
    tasks: tuple[TaskCounts, ...]


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    id: str
    previous: str | None
    kind: Literal["comparison", "leaderboard"]
    subject: str
    title: str
    revision: str | None
    time: int | None
    inputs_digest: str
    verdict: str | None
    issues: int
    tiers: tuple[tuple[str, ...], ...] | None
    sides: tuple[SideCounts, ...]
    line: int  # 1-based line in the history file


@dataclass(frozen=True, slots=True)
class HistoryProblem:
    """The first entry of a history that does not verify."""

    entry: int  # 1-based entry number
    line: int
    message: str


# --------------------------------------------------------------------------- trends

StepStatus = Literal["regression", "improvement", "within noise", "not compared"]


@dataclass(frozen=True, slots=True)
class SidePoint:
    """pass@1 of one side at one build: task-macro, with its 95% t interval over tasks."""

    label: str
    estimate: float | None
    lower: float | None
    upper: float | None
    tasks: int


@dataclass(frozen=True, slots=True)
class StepDifference:
    """This build minus the previous one for one side, paired over the tasks both builds have."""

    label: str
    estimate: float | None
    lower: float | None
    upper: float | None
    tasks: int  # shared tasks
    status: StepStatus


@dataclass(frozen=True, slots=True)
class BuildTrend:
    number: int  # 1-based build number within this subject's history
    entry_id: str
    revision: str | None
    time: int | None
    verdict: str | None
    issues: int
    sides: tuple[SidePoint, ...]
    steps: tuple[StepDifference, ...]  # empty for the first build

    @property
    def regressions(self) -> tuple[StepDifference, ...]:
        return tuple(step for step in self.steps if step.status == "regression")


@dataclass(frozen=True, slots=True)
class TaskStrip:
    """One side's outcome of one task at every build: pass, fail, mixed, or None (absent)."""

    label: str
    task: str
    outcomes: tuple[str | None, ...]
    flaky: bool  # the outcome changed between builds that both ran the task


@dataclass(frozen=True, slots=True)
class Trend:
    kind: Literal["comparison", "leaderboard"]
    subject: str
    title: str
    builds: tuple[BuildTrend, ...]
    strips: tuple[TaskStrip, ...]

    @property
    def latest(self) -> BuildTrend | None:
        return self.builds[-1] if self.builds else None


@dataclass(frozen=True, slots=True)
class SummaryItem:
    """One comparison or leaderboard as the build summary shows it; URLs are site-relative."""

    kind: Literal["comparison", "leaderboard"]
    subject: str
    title: str
    url: str  # the entry's page with the anchor of its verdict or tiers
    issues_url: str
    verdict: str | None
    effect: float | None
    lower: float | None
    upper: float | None
    tiers: tuple[tuple[str, ...], ...] | None
    issues: int
    trend: Trend | None
    trend_url: str | None
    error: str | None = None
