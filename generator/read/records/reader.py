"""Generic records (``format: records``) as runs: one JSONL line, CSV row or JSON list item per run.

The side's field mapping (:mod:`generator.read.records.mapping`: the defaults, a preset, the
config's ``fields:``) says where each field is:

* Task = the ``task`` field (a text, or a whole number written as text); the ``lm-eval`` preset
  prefixes the task name from the file name ``samples_<task>_<date>.jsonl``.
* Repetition = the ``repetition`` field (a whole number from 1 to :data:`MAX_REPETITION`); when a
  record has none, its order (1-based) among the records of its task, files in name order and
  records in file order.  Two records with the same task and repetition are both kept: the
  alignment makes them a ``duplicate-run`` row.
* Pass = the ``passed`` field (true/false, 1/0, pass/fail, yes/no), else the ``score`` field
  (``lm-eval``: the chosen metric's value) at or above the threshold.  A record that has neither is
  excluded as unscored.  A record whose ``status`` is an error status (``error``/``errored``;
  promptfoo: ``failureReason`` 2), or, without a status, whose ``error`` holds a text or ``true``,
  errored: excluded (or a flagged failure with ``errors_as_failures``).
* Case hash = the ``case_hash`` field: a short text as written, anything else the SHA-256 of its
  canonical JSON; none: "not hashed".
* Telemetry, as the records report it: ``cost`` (USD), ``duration`` (seconds) or ``duration_ms``,
  ``input_tokens``, ``output_tokens``, ``total_tokens``.  ``transcript``: the agent's stdout file,
  relative to the records' folder (telemetry re-derived from it and run pages, as for Harbor).
* Treatment: when ``treatment`` is mapped (promptfoo: the provider's label or id), only the
  records whose value is the side's treatment are the side's runs.

Every file is read through :mod:`generator.read.safe_io` (no symbolic links, :data:`MAX_FILE_BYTES`);
a bad line or row, a record over the caps, or one without a usable task is a skipped row with its
line and reason; past :data:`MAX_RECORDS` records the rest is a skipped row.  No message names a path.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.model.common import Side
from generator.model.errors import EvalsiteError
from generator.model.formats import ImportOptions
from generator.model.runs import Experiment, MatrixLoad, Quality, RunRecord, SkippedReport
from generator.model.scores import SCORE_KEY
from generator.read.importing import (
    canonical_hash,
    error_quality,
    excluded_quality,
    imported_manifest,
    imported_record,
    included_quality,
    name_problem,
    readable_name,
    reported_telemetry,
)
from generator.read.records.files import file_records
from generator.read.records.mapping import Fields, effective_fields, field_value, path_value, to_bool, to_number
from generator.read.safe_io import Refusal, is_real_directory, read_contained

__all__ = ["MAX_FILES", "MAX_FILE_BYTES", "MAX_RECORDS", "MAX_REPETITION", "load_records"]

MAX_FILE_BYTES = 256 * 1024 * 1024
MAX_RECORDS = 1_000_000
MAX_FILES = 10_000
MAX_REPETITION = 10_000  # as Inspect's epochs: far beyond any pass@k
MAX_HASH_CHARS = 200
_SUFFIXES = (".jsonl", ".ndjson", ".csv")
_LM_EVAL_FILE = re.compile(r"^samples_(?P<task>.+)_\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?\.jsonl$")


@dataclass(frozen=True)
class _Row:
    file: str
    task: str
    rep: int | None
    order: float  # promptfoo: testIdx; else 0 (file order)
    passed: bool
    checks_failed: list[str]
    quality: Quality
    case_hash: str | None
    details: dict[str, Any]


def _files(side: Side, path: Path, fields: Fields) -> tuple[str, list[str], list[SkippedReport]]:
    """The resolved root, the names of the files to read in it, and the files skipped by name."""
    if path.is_file() and not path.is_symlink():
        return str(path.resolve().parent), [path.name], []
    if not is_real_directory(path):
        raise EvalsiteError(f"{side} records input {path.name!r} does not exist or is not a real file or folder")
    root = str(path.resolve())
    suffixes = (".json", ".jsonl") if fields.preset == "promptfoo" else _SUFFIXES
    try:
        with os.scandir(root) as entries:
            # a symbolic link is listed, so that reading refuses it with its reason (a disclosed row)
            names = sorted(e.name for e in entries if e.is_symlink() or e.is_file(follow_symlinks=False))
    except OSError:
        names = []
    chosen: list[str] = []
    skipped: list[SkippedReport] = []
    for name in names:
        if fields.preset == "lm-eval" and not name.startswith("samples_"):
            continue
        if not name.lower().endswith(suffixes):
            continue
        shown = readable_name(name)
        if shown is not None:
            skipped.append(SkippedReport(side, shown, "file name is not valid UTF-8"))
        elif len(chosen) >= MAX_FILES:
            skipped.append(SkippedReport(side, name, f"more than {MAX_FILES:,} records files: not read"))
            break
        else:
            chosen.append(name)
    return root, chosen, skipped


def _task(record: Mapping[str, Any], fields: Fields, prefix: str | None) -> str:
    """The record's task name; a ValueError says why it has none."""
    found = field_value(record, fields, "task")
    if found is None and fields.preset == "promptfoo" and isinstance(record.get("vars"), dict):
        found = ("vars", "vars-" + canonical_hash(record["vars"]).removeprefix("sha256:")[:12])
    if found is None:
        raise ValueError(f"has no task (no value at {' or '.join(fields.paths['task']) or 'any path'})")
    path, value = found
    if isinstance(value, str):
        task = value
    elif isinstance(value, int) and not isinstance(value, bool):
        task = str(value)
    elif isinstance(value, float) and value.is_integer():
        task = str(int(value))
    else:
        raise ValueError(f"has a task ({path}) that is not a text or a whole number")
    task = f"{prefix}/{task}" if prefix else task
    problem = name_problem(task)
    if problem is not None:
        raise ValueError(f"has a task ({path}) that {problem}")
    return task


def _rep(record: Mapping[str, Any], fields: Fields) -> int | None:
    found = field_value(record, fields, "repetition")
    if found is None:
        return None
    number = to_number(found[1])
    if number is None or not number.is_integer() or not 1 <= number <= MAX_REPETITION:
        raise ValueError(f"has a repetition ({found[0]}) that is not a whole number from 1 to {MAX_REPETITION:,}")
    return int(number)


def _case_hash(record: Mapping[str, Any], fields: Fields) -> str | None:
    if fields.preset == "promptfoo" and not fields.paths.get("case_hash"):
        case = record.get("testCase")
        test = case if isinstance(case, dict) else {}
        return canonical_hash({"vars": test.get("vars", record.get("vars")), "assert": test.get("assert")})
    found = field_value(record, fields, "case_hash")
    if found is None:
        return None
    value = found[1]
    if isinstance(value, str) and len(value) <= MAX_HASH_CHARS and value.isprintable():
        return value
    return canonical_hash(value)


def _score(record: Mapping[str, Any], fields: Fields) -> tuple[str, Any] | None:
    """(where, value) of the score: the mapped ``score``, or (lm-eval) the chosen metric's value."""
    if fields.preset != "lm-eval" or fields.paths.get("score"):
        return field_value(record, fields, "score")
    metric = fields.metric
    if metric is None:
        names = record.get("metrics")
        if not isinstance(names, list) or len(names) != 1 or not isinstance(names[0], str):
            shown = ", ".join(str(n) for n in names[:10]) if isinstance(names, list) else "none listed"
            raise EvalsiteError(f"lm-eval samples score several metrics or none ({shown}): name one with metric:")
        metric = names[0]
    value = record.get(metric)
    return None if value is None else (metric, value)


def _errored(record: Mapping[str, Any], fields: Fields) -> str | None:
    """The evidence that a record's run errored, or None."""
    status = field_value(record, fields, "status")
    error = field_value(record, fields, "error")
    text = str(error[1]) if error is not None else None
    if status is not None:
        value = status[1].strip().lower() if isinstance(status[1], str) else status[1]
        hashable = isinstance(value, str | int | float) and not isinstance(value, bool)
        if hashable and value in fields.error_statuses:
            return text or f"{status[0]}={status[1]!r}"
        return None
    if error is not None and (error[1] is True or isinstance(error[1], str)):
        return text
    return None


def _outcome(record: Mapping[str, Any], fields: Fields, options: ImportOptions) -> tuple[bool, list[str], Quality, Any]:
    """(passed, failed checks, quality, score) of one record."""
    evidence = _errored(record, fields)
    if evidence is not None:
        quality = error_quality("harness_error", "Record marks the run errored", evidence, options)
        return False, ["errored"], quality, None
    found = _score(record, fields)
    score = to_number(found[1]) if found is not None else None
    passed_at = field_value(record, fields, "passed")
    if passed_at is not None:
        passed = to_bool(passed_at[1])
        if passed is None:
            reason = f"{passed_at[0]} is not true or false"
            return False, [reason], excluded_quality("unscored", f"Record's {reason}", reason), score
        shown = f"{passed_at[0]}={passed}"
        return passed, [] if passed else [shown], included_quality(shown), score
    if score is None:
        reason = "no pass/fail and no numeric score" if found is None else f"{found[0]} is not a number"
        return False, [reason], excluded_quality("unscored", f"Record has {reason}", reason), None
    passed = score >= options.pass_threshold
    assert found is not None
    shown = f"{found[0]}={score!r}"
    return passed, [] if passed else [shown], included_quality(shown), score


def _telemetry(record: Mapping[str, Any], fields: Fields) -> dict[str, Any] | None:
    figures: dict[str, Any] = {}
    names = {"cost": "total_cost_usd", "duration": "duration_seconds", "input_tokens": "input_tokens"}
    names |= {"output_tokens": "output_tokens", "total_tokens": "total_tokens", "duration_ms": "duration_ms"}
    for name, target in names.items():
        found = field_value(record, fields, name)
        number = to_number(found[1]) if found is not None else None
        if number is not None and number >= 0:
            figures[target] = int(number) if name.endswith("tokens") and number.is_integer() else number
    if "duration_seconds" not in figures and "duration_ms" in figures:
        figures["duration_seconds"] = figures["duration_ms"] / 1000
    if not figures:
        return None
    out = reported_telemetry(figures)
    out["source"] = f"reported in the records ({fields.preset or 'mapped fields'})"
    return out


def _transcript(record: Mapping[str, Any], fields: Fields) -> str | None:
    found = field_value(record, fields, "transcript")
    value = found[1] if found is not None else None
    if not isinstance(value, str) or len(value) > 4096 or "\x00" in value or value.startswith(("/", "\\", "~")):
        return None
    parts = value.replace("\\", "/").split("/")
    return None if ".." in parts or ":" in parts[0] else value


def _row(record: dict[str, Any], file: str, fields: Fields, options: ImportOptions, prefix: str | None) -> _Row | str:
    """One record as a run, or why it cannot be one (a phrase)."""
    try:
        task = _task(record, fields, prefix)
        rep = _rep(record, fields)
    except ValueError as error:
        return str(error)
    passed, failed, quality, score = _outcome(record, fields, options)
    details = {
        "score": score,
        "reported_telemetry": _telemetry(record, fields),
        "agent_stdout": _transcript(record, fields),
    }
    if score is not None and quality.include_in_analysis:  # the run's score (metric: mean)
        details[SCORE_KEY] = score
    index = to_number(record.get("testIdx")) if fields.preset == "promptfoo" else None
    order = index if index is not None else 0.0
    return _Row(file, task, rep, order, passed, failed, quality, _case_hash(record, fields), details)


def _selected(record: Mapping[str, Any], fields: Fields, treatment: str, seen: dict[str, set[str]]) -> bool:
    """Whether a record is this side's: its treatment (when mapped) and its lm-eval filter."""
    if fields.preset == "lm-eval":
        chosen = record.get("filter")
        label = chosen if isinstance(chosen, str) else "none"
        if fields.filter is not None and label != fields.filter:
            return False
        seen["filter"].add(label)
    paths = fields.paths.get("treatment") or ()
    if not paths:
        return True
    values = [path_value(record, path) for path in paths]
    texts = [str(v) for v in values if isinstance(v, str | int) and not isinstance(v, bool)]
    if texts and len(seen["treatment"]) < 20:
        seen["treatment"].add(texts[0][:80])
    return treatment in texts


def _label(name: str, where: str) -> str:
    """A record's place as a run's file: ``name:LINE``, ``name#N`` (a JSON document's Nth), or the file."""
    kind, _, number = where.partition(" ")
    return f"{name}:{number}" if kind == "line" else f"{name}#{number}" if kind == "record" else name


def _read_rows(
    side: Side, root: str, names: list[str], treatment: str, fields: Fields, options: ImportOptions, single: bool
) -> tuple[list[_Row], list[SkippedReport], dict[str, set[str]]]:
    rows: list[_Row] = []
    skipped: list[SkippedReport] = []
    seen: dict[str, set[str]] = {"filter": set(), "treatment": set()}
    count = 0
    for name in names:
        data = read_contained(os.path.join(root, name), root, max_bytes=MAX_FILE_BYTES, root_is_resolved=True)
        if isinstance(data, Refusal):
            if single:  # the file the user named
                raise EvalsiteError(f"{side} records file {name!r} could not be read (it {data.reason})")
            skipped.append(SkippedReport(side, name, f"records file {data.reason}"))
            continue
        match = _LM_EVAL_FILE.match(name) if fields.preset == "lm-eval" else None
        prefix = match.group("task") if match else None
        for where, record in file_records(name, data):
            file = _label(name, where)
            if isinstance(record, str):
                skipped.append(SkippedReport(side, file, f"{where} {record}"))
                continue
            count += 1
            if count > MAX_RECORDS:
                skipped.append(SkippedReport(side, file, f"more than {MAX_RECORDS:,} records: the rest are not read"))
                return rows, skipped, seen
            if not _selected(record, fields, treatment, seen):
                continue
            row = _row(record, file, fields, options, prefix)
            if isinstance(row, str):
                skipped.append(SkippedReport(side, file, f"{where} {row}"))
            else:
                rows.append(row)
    return rows, skipped, seen


def load_records(side: Side, path: Path, treatment: str, options: ImportOptions) -> Experiment:
    """Read one records file (JSONL, CSV, JSON) or the records files of one folder."""
    mapping = options.candidate_records if side == "candidate" else options.baseline_records
    fields = effective_fields(mapping)
    root, names, skipped = _files(side, path, fields)
    single = path.is_file() and not path.is_symlink()
    rows, more, seen = _read_rows(side, root, names, treatment, fields, options, single)
    skipped += more
    if fields.preset == "lm-eval" and len(seen["filter"]) > 1:
        raise EvalsiteError(
            f"{side} lm-eval samples hold several filters ({', '.join(sorted(seen['filter']))}): "
            "choose one with metric: NAME,FILTER"
        )
    if fields.paths.get("treatment") and not rows and seen["treatment"]:
        raise EvalsiteError(
            f"{side} records hold no runs of treatment {treatment!r} (found: {', '.join(sorted(seen['treatment']))})"
        )
    order: dict[str, int] = {}
    records: list[RunRecord] = []
    for row in sorted(rows, key=lambda row: row.order):  # stable: file order among equals
        order[row.task] = order.get(row.task, 0) + 1
        rep = row.rep if row.rep is not None else order[row.task]
        manifest = imported_manifest(row.task, "records", row.case_hash, f"records-{fields.preset or 'mapped'}")
        records.append(
            imported_record(
                side,
                fmt="records",
                task=row.task,
                rep=rep,
                file=row.file,
                passed=row.passed,
                checks_failed=row.checks_failed,
                manifest=manifest,
                quality=row.quality,
                details=row.details,
            )
        )
    label = path.name or Path(root).name
    return Experiment(side, treatment, Path(root), label, tuple(records), tuple(skipped), MatrixLoad())
