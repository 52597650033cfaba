"""One side from several Inspect logs: shards of one run and its retries, merged by sample and epoch.

The logs are put in one order that does not depend on how they were given (file name, then the
SHA-256 of the file), and must be logs of one run: the same task, task version and arguments,
model and its arguments, solver, scorers, dataset, epochs and limits (:data:`IDENTITY`); logs of
different runs are refused with one line naming the first field that differs.  Their samples are
then merged by (sample id, epoch):

* copies identical in every field but the storage of their event log (a retry's copy of a sample
  that had finished, overlapping shards, one run as ``.eval`` and ``.json``; each sample's ``uuid``
  still tells two runs apart) are one run, kept once and counted (:attr:`~generator.model.logs.SideLogs.duplicates`),
  with one skipped row per log saying how many of its samples were copies;
* a copy whose sample errored, beside a copy that did not (inspect-ai's ``eval_retry`` runs an
  errored sample again and keeps the error in ``error_retries``), is the retry's: the errored
  attempt is a skipped row ("errored attempt superseded by its retry"), never a result;
* copies that differ otherwise (two different scores, or different inputs) are a conflict: one
  run, excluded as ``log_conflict`` with the logs and scores named, never resolved
  (:attr:`~generator.model.logs.SideLogs.conflicts`).

The expected cases are the union of the logs' planned cases (each header's sample ids x epochs);
a log whose matrix is invalid leaves the side's matrix invalid, as for one log.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

import orjson

from generator.model.common import Side
from generator.model.errors import EvalsiteError
from generator.model.logs import LogStatus, SideLogs
from generator.model.runs import ExpectedMatrix, Key, MatrixLoad, Quality, RunRecord, SkippedReport
from generator.read.importing import canonical_hash, excluded_quality
from generator.read.inspect.jsonlog import MAX_SAMPLES

__all__ = ["IDENTITY", "LogRead", "MergedSide", "merge_logs", "sample_digest"]

#: The header fields (``eval.<path>``, or ``plan.steps``) that make logs one run; a difference refuses them.
IDENTITY: Final = (
    ("task",),
    ("task_version",),
    ("task_args",),
    ("model",),
    ("model_args",),
    ("solver",),
    ("solver_args",),
    ("scorers",),
    ("dataset", "name"),
    ("dataset", "location"),
    ("dataset", "samples"),
    ("config", "epochs"),
    ("config", "epochs_reducer"),
    ("config", "message_limit"),
    ("config", "token_limit"),
    ("config", "time_limit"),
    ("config", "working_limit"),
    ("plan", "steps"),
)
#: A sample's event log, stored two ways: an ``.eval`` log pools repeated event data in ``events_data``
#: that a ``.json`` log writes out in ``events``; the sample's ``uuid`` and times still tell runs apart.
_STORAGE: Final = frozenset({"events", "events_data"})
#: Keys of a conflict listed in a log's skipped row before "and N more".
_SHOWN_KEYS = 5


@dataclass(frozen=True)
class LogRead:
    """One log as read: its runs (with each sample's content digest and whether it errored)."""

    name: str  # the file name, as the side's records name it
    digest: str  # SHA-256 of the file: orders the logs, and finds one log given twice
    header: Mapping[str, Any]
    records: tuple[RunRecord, ...]
    contents: tuple[str, ...]  # per record: :func:`sample_digest` of its sample
    errored: tuple[bool, ...]  # per record: its sample recorded an error
    skipped: tuple[SkippedReport, ...]
    matrix: MatrixLoad
    status: LogStatus


@dataclass(frozen=True)
class MergedSide:
    records: tuple[RunRecord, ...]
    skipped: tuple[SkippedReport, ...]
    matrix: MatrixLoad
    logs: SideLogs


def sample_digest(sample: Mapping[str, Any]) -> str:
    """SHA-256 of a sample's canonical JSON (sorted keys) without its event log (:data:`_STORAGE`):
    equal exactly when the samples are, however the log stored the events."""
    kept = {key: value for key, value in sample.items() if key not in _STORAGE}
    try:
        return hashlib.sha256(orjson.dumps(kept, option=orjson.OPT_SORT_KEYS)).hexdigest()
    except orjson.JSONEncodeError:  # an integer beyond 64 bits: the standard library's canonical form
        return canonical_hash(kept)


def _field(header: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = header if path[0] == "plan" else header.get("eval")
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _shown(value: Any) -> str:
    text = canonical_hash(value) if not isinstance(value, str | int | float | type(None)) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_one_run(side: Side, reads: Sequence[LogRead]) -> None:
    """Refuse logs of different runs (the first identity field that differs), or one log given twice."""
    first = reads[0]
    for other in reads[1:]:
        if any(o.digest == other.digest for o in reads if o is not other):
            raise EvalsiteError(f"{side} Inspect log {other.name!r} is given twice")
        for path in IDENTITY:
            mine, theirs = _field(first.header, path), _field(other.header, path)
            if mine != theirs:
                where = ".".join(path) if path[0] == "plan" else "eval." + ".".join(path)
                scalar = not isinstance(mine, dict | list) and not isinstance(theirs, dict | list)
                shown = f"differs ({_shown(mine)} vs {_shown(theirs)})" if scalar else "differ"
                raise EvalsiteError(
                    f"{side} Inspect logs {first.name!r} and {other.name!r} are not one run: their {where} "
                    f"{shown}; a side's logs must be shards or retries of one run"
                )


def _matrix(reads: Sequence[LogRead]) -> MatrixLoad:
    """The union of the logs' planned cases; invalid when one log's is, or when some logs plan none."""
    for read in reads:
        if read.matrix.error is not None:
            return MatrixLoad(error=f"{read.name}: {read.matrix.error}")
    planned = [read.matrix.matrix for read in reads]
    if all(matrix is None for matrix in planned):
        return MatrixLoad()
    if any(matrix is None for matrix in planned):
        return MatrixLoad(error="some of the side's logs list their planned samples and some do not")
    cases = sorted({(t, tr, r) for matrix in planned if matrix is not None for t, tr, r in matrix.cases})
    if len(cases) > MAX_SAMPLES:  # the planned-case cap of one log (``log.MAX_PLANNED_CASES``), for the side
        return MatrixLoad(error=f"the side's logs plan {len(cases):,} cases, over the {MAX_SAMPLES:,}-case limit")
    return MatrixLoad(ExpectedMatrix(canonical_hash([list(case) for case in cases]), cases))


def _conflict(key: Key, copies: Sequence[tuple[str, RunRecord, str, bool]]) -> RunRecord:
    """The first copy, excluded as a conflict whose evidence names each log and its score."""
    scores = [_score(record) for _name, record, _c, _e in copies]
    shown = "; ".join(f"{name}: {score}" for (name, *_rest), score in zip(copies, scores, strict=True))
    if len(set(scores)) == 1:
        shown += " (the same score; the samples differ in other content: different runs)"
    task, rep = key
    reason = f"Sample {task!r} epoch {rep} differs between the side's logs: not used, never resolved"
    quality: Quality = excluded_quality("log_conflict", reason, shown)
    return replace(copies[0][1], quality=quality)


def _score(record: RunRecord) -> str:
    score = record.report.get("score")
    value = score.get("value") if isinstance(score, dict) else None
    errored = "errored" if record.quality.reason_code == "harness_error" else None
    return errored or f"{value!r}"


def _keys_text(keys: Sequence[Key]) -> str:
    shown = ", ".join(f"{task} epoch {rep}" for task, rep in keys[:_SHOWN_KEYS])
    more = f" and {len(keys) - _SHOWN_KEYS:,} more" if len(keys) > _SHOWN_KEYS else ""
    return shown + more


def _resolve(
    key: Key, items: Sequence[tuple[str, RunRecord, str, bool]], dropped: dict[tuple[str, str], list[Key]]
) -> tuple[RunRecord, bool]:
    """The run of one key seen in several logs, and whether its copies conflict."""
    ok = [item for item in items if not item[3]]
    if len(ok) < len(items) and ok:  # errored attempts beside a finished one: the retry's copy stands
        for name, _record, _content, errored in items:
            if errored:
                dropped[(name, "retried")].append(key)
        items = ok
    first = items[0]
    if all(content == first[2] for _n, _r, content, _e in items):
        for name, _record, _content, _errored in items[1:]:
            dropped[(name, "duplicate")].append(key)
        return first[1], False
    if all(errored for *_rest, errored in items):  # every attempt errored: the first stands, excluded anyway
        for name, _record, _content, _errored in items[1:]:
            dropped[(name, "retried")].append(key)
        return first[1], False
    return _conflict(key, items), True


_DROPPED_WORDS: Final = {
    "duplicate": "sample(s) identical to a copy in another of the side's logs, kept once",
    "retried": "errored attempt(s) superseded by a retry in another of the side's logs (not results)",
}


def merge_logs(side: Side, reads: Sequence[LogRead]) -> MergedSide:
    """The side's runs from its logs (already in merge order and checked to be one run)."""
    by_key: dict[Key, list[tuple[str, RunRecord, str, bool]]] = {}
    within: list[RunRecord] = []  # a key twice in one log: left for the alignment (duplicate-run)
    for read in reads:
        seen: set[Key] = set()
        for record, content, errored in zip(read.records, read.contents, read.errored, strict=True):
            if record.key in seen:
                within.append(record)
                continue
            seen.add(record.key)
            by_key.setdefault(record.key, []).append((read.name, record, content, errored))
    dropped: dict[tuple[str, str], list[Key]] = {(read.name, kind): [] for read in reads for kind in _DROPPED_WORDS}
    records: list[RunRecord] = []
    conflicts = 0
    for key in sorted(by_key):
        items = by_key[key]
        if len(items) == 1:
            records.append(items[0][1])
            continue
        record, conflict = _resolve(key, items, dropped)
        records.append(record)
        conflicts += conflict
    skipped = [s for read in reads for s in read.skipped]
    for (name, kind), keys in dropped.items():
        if keys:
            skipped.append(SkippedReport(side, name, f"{len(keys):,} {_DROPPED_WORDS[kind]}: {_keys_text(keys)}"))
    count = {kind: sum(len(keys) for (_name, k), keys in dropped.items() if k == kind) for kind in _DROPPED_WORDS}
    logs = SideLogs(tuple(read.status for read in reads), count["duplicate"], conflicts, count["retried"])
    return MergedSide(tuple(records + within), tuple(skipped), _matrix(reads), logs)
