"""The build history: one content-addressed, hash-chained entry per comparison and leaderboard per build.

An entry is one JSON object on one line of an append-only JSONL file (``docs/history.md``)::

    {"schema": "evalsite.history.v1", "id": "hist1:<sha256>", "previous": "hist1:<sha256>"|null,
     "kind": "comparison"|"leaderboard", "subject": "<config id>", "title": str,
     "revision": str|null, "time": int|null, "inputs": {"<role>": "sha256:..."},
     "inputs_digest": "sha256:...", "verdict": str|null, "issues": int,
     "tiers": [[label]]|null, "worse": [label] (leaderboards since issue 25; optional),
     "sides": [{"label": str, "tasks": [{"task": str, "passes": int, "runs": int, "excluded": int}]}]}

``id`` is ``hist1:`` + SHA-256 of the canonical JSON of the entry without ``id`` (``previous``
included), so editing any field of any entry breaks its id, and deleting or reordering an entry
breaks the next entry's ``previous``.  The canonical form is the benchmark ledger's
(:func:`generator.model.ledger.canonical_bytes`: compact, sorted keys, UTF-8, no NaN, lone
surrogates refused) rather than :func:`generator.model.jsonfmt.json_text`, which is the *display*
format (spaces, trailing newline): a digest must be taken over exactly one byte form, and the
ledger's is the one the project already hashes receipts with.

A history written with a key (``--history-key-env``) adds ``mac`` to each entry:
``hmac-sha256:`` + HMAC-SHA256 under the key of the entry's canonical bytes without ``id`` and
``mac``, chained with the previous entry's MAC (:func:`entry_mac`).  ``mac`` is set before ``id``,
so the id covers it and a reader without the key verifies the chain as before.  A published site
records the chain head (:class:`HistoryHead`, ``history-head.json``) that the next build's history
must extend.  What each detects: ``docs/history.md``, "Threat model".

The trend types below are what ``generator.analyze.history`` computes from the entries.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from generator.model.ledger import canonical_bytes
from generator.model.price import Price

__all__ = [
    "HEAD_FILE",
    "HEAD_SCHEMA",
    "HISTORY_SCHEMA",
    "BuildTrend",
    "HistoryEntry",
    "HistoryHead",
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
    "entry_mac",
    "is_entry_id",
    "is_mac",
]

HISTORY_SCHEMA = "evalsite.history.v1"
ID_PREFIX = "hist1:"
MAC_PREFIX = "hmac-sha256:"
HEAD_FILE = "history-head.json"  # the chain head a published site records (site-relative)
HEAD_SCHEMA = "evalsite.history-head.v1"
_MAC_DOMAIN = b"evalsite.history.mac.v1\n"
_HEX = frozenset("0123456789abcdef")


def _is_digest(text: object, prefix: str) -> bool:
    return (
        isinstance(text, str)
        and text.startswith(prefix)
        and len(text) == len(prefix) + 64
        and set(text[len(prefix) :]) <= _HEX
    )


def is_entry_id(text: object) -> bool:
    return _is_digest(text, ID_PREFIX)


def is_mac(text: object) -> bool:
    return _is_digest(text, MAC_PREFIX)


def entry_id(body: Mapping[str, Any]) -> str:
    """``hist1:`` address of an entry: everything except ``id``, canonical JSON."""
    content = {key: value for key, value in body.items() if key != "id"}
    return ID_PREFIX + hashlib.sha256(canonical_bytes(content)).hexdigest()


def entry_mac(key: bytes, body: Mapping[str, Any], previous_mac: str | None) -> str:
    """``hmac-sha256:`` MAC of an entry under *key*: its canonical bytes without ``id`` and ``mac``
    (``previous`` included), chained with the MAC of the entry before it (none for the first keyed one)."""
    content = {name: value for name, value in body.items() if name not in ("id", "mac")}
    message = _MAC_DOMAIN + (previous_mac or "").encode("ascii") + b"\n" + canonical_bytes(content)
    return MAC_PREFIX + hmac.new(key, message, hashlib.sha256).hexdigest()


def chain_entry(
    body: Mapping[str, Any], previous: str | None, key: bytes | None = None, previous_mac: str | None = None
) -> dict[str, Any]:
    """The entry *body* linked after *previous*, with its MAC under *key* (when given) and its id."""
    entry = {name: value for name, value in body.items() if name not in ("id", "previous", "mac")}
    entry["previous"] = previous
    if key is not None:
        entry["mac"] = entry_mac(key, entry, previous_mac)
    entry["id"] = entry_id(entry)
    return entry


@dataclass(frozen=True, slots=True)
class HistoryHead:
    """The head of a history's chain as a published site records it (``history-head.json``)."""

    entries: int
    head: str | None  # the id of the last entry; None for an empty history

    def document(self) -> dict[str, Any]:
        return {"schema": HEAD_SCHEMA, "entries": self.entries, "head": self.head}


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
    mac: str | None = None  # hmac-sha256:... when the entry was written with a key
    worse: tuple[str, ...] | None = None  # a leaderboard's systems worse than its baseline; None: not recorded


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
    """The regression gate's test of one side at one build: this build minus its reference build,
    paired over the tasks both have (``analyze/history/trend.py``)."""

    label: str
    estimate: float | None
    lower: float | None  # the rule's interval at 1 - level
    upper: float | None
    tasks: int  # shared tasks
    status: StepStatus
    reference: int = 1  # the 1-based build number it was compared with
    level: float = 0.0  # the alpha this test spent (0: not compared)
    p_value: float | None = None  # the sign-flip test's


@dataclass(frozen=True, slots=True)
class TierMove:
    """A leaderboard system whose tier changed since the previous build (None: in no tier)."""

    label: str
    before: int | None
    now: int | None
    evidence_changed: bool  # its own per-task counts changed; False: it moved because others did


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
    tier_moves: tuple[TierMove, ...] = ()  # a leaderboard's systems that changed tier since the previous build

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
    side_alpha: float = 0.05  # each side's share of the gate's 5%: the sum of its levels over all builds

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
    run_status: tuple[str, ...] = ()  # a side's/system's run that did not finish (cancelled, error): below the table
    price: Price | None = None  # a comparison's cost and duration per run (issue 28)
