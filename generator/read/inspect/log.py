"""Inspect AI logs (``.eval`` and ``.json``, as inspect-ai 0.3.x writes them) as runs.

One sample of one epoch is one run: task = the sample id, repetition = the epoch.  The header's
``eval.dataset.sample_ids`` x ``eval.config.epochs`` is the side's expected case matrix, so a
sample the log should hold but does not is a ``missing-repetition`` row.  The case hash is the
SHA-256 of the canonical JSON of the sample's ``input`` (message ids removed: Inspect draws them
at random), ``target``, ``choices`` and ``metadata``.

Pass rule: the configured scorer (default: the log's first) decides; ``C`` passes, ``I`` and
``N`` fail, ``P`` (0.5), numbers and Inspect's other scalar spellings pass at or above the
threshold (default 1).  A sample with an ``error`` is excluded (errors are not failures); one that
hit a ``limit`` counts as scored when it was scored, and is excluded when it was not.  Telemetry
is what Inspect reported (``model_usage``, whose ``input_tokens`` exclude cached tokens,
``total_time``, ``working_time``, and turns and tool calls counted from ``messages``).

A log that holds only its journal (a run that crashed before writing its header) is refused with
that reason: evalsite does not guess a run's samples from a partial journal.  Each log's run status
(``success``, ``cancelled``, ``error``, ``started``) and how many samples it holds of how many it
planned are kept in the side's :class:`~generator.model.logs.SideLogs`.

A side may be several logs, the shards and retries of one run (a folder of logs, or a list in the
options): each is read as above and they are merged by sample and epoch (:mod:`.merge`), with the
caps (:data:`MAX_LOGS`, :data:`MAX_SAMPLES` samples together) over the whole side.

Caps where sizes multiply: a header that asks for more than :data:`MAX_EPOCHS` epochs, or plans
more than :data:`MAX_PLANNED_CASES` cases (sample ids x epochs), leaves the side's expected-case
matrix invalid with that reason (the comparison fails closed for the side, disclosed), before any
case is built.  One sample whose epoch is not 1 to :data:`MAX_EPOCHS`, whose id is not a usable
name (:func:`~generator.read.importing.name_problem`), that holds a lone surrogate or nests too
deeply is a skipped row with its reason, and the rest of the log is read; a header sample id that
is not a usable name is left out of the matrix, disclosed as a skipped row.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from generator.model.common import Side, is_number
from generator.model.errors import EvalsiteError
from generator.model.formats import ImportOptions
from generator.model.logs import LogStatus, SideLogs
from generator.model.redaction import safe_cut
from generator.model.runs import MAX_NAME_BYTES, ExpectedMatrix, Experiment, MatrixLoad, RunRecord, SkippedReport
from generator.model.scores import SCORE_KEY, SCORERS_KEY
from generator.read.importing import (
    canonical_hash,
    error_quality,
    excluded_quality,
    imported_manifest,
    imported_record,
    included_quality,
    json_object,
    name_problem,
    readable_name,
    reported_telemetry,
    scrub_paths,
    unusable_value,
)
from generator.read.inspect.archive import Archive
from generator.read.inspect.jsonlog import MAX_SAMPLES, Unreadable, parse_json_log
from generator.read.inspect.merge import LogRead, check_one_run, merge_logs, sample_digest
from generator.read.safe_io import Refusal, read_regular_file

__all__ = [
    "MAX_EPOCHS",
    "MAX_LOGS",
    "MAX_LOG_BYTES",
    "MAX_PLANNED_CASES",
    "is_inspect_log",
    "load_inspect",
    "log_files",
]

MAX_LOG_BYTES = 512 * 1024 * 1024
# Repetitions of one sample: far beyond any pass@k, and short enough for a page path (5 digits).
MAX_EPOCHS = 10_000
# Sample ids x epochs: no more cases than a log may hold samples (an .eval's member cap).
MAX_PLANNED_CASES = MAX_SAMPLES
_LONGEST_NUMBER_ID = 10**MAX_NAME_BYTES  # a numeric id with more digits is no name
_SUFFIXES = (".eval", ".json")
_LISTING = "logs.json"  # the index inspect-ai writes beside a folder's logs: not a log
# Logs of one side (shards and retries of one run); its samples together stay under MAX_SAMPLES.
MAX_LOGS = 1_000
_STATUS_ERROR_CHARS = 200  # a log's own error message, as its status shows it
_WORDS = {"yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}


def is_inspect_log(path: Path) -> bool:
    """A ``.eval`` file, a ``.json`` file whose first bytes look like an Inspect log, or a folder
    (not a link) that holds one or more of them (one log, or the shards and retries of one run)."""
    if path.is_dir():
        return not path.is_symlink() and bool(_folder_logs(path))
    if path.suffix == ".eval":
        return path.is_file()
    if path.suffix != ".json" or not path.is_file() or path.name == _LISTING:
        return False
    head = read_regular_file(path, max_bytes=MAX_LOG_BYTES)
    if isinstance(head, Refusal):
        return False
    start = head[:4096]
    return b'"eval"' in start and (b'"version"' in start or b'"status"' in start)


def _folder_logs(path: Path) -> list[Path]:
    """The Inspect logs directly in a folder (not in its subfolders, no links), by name."""
    try:
        with os.scandir(path) as entries:
            names = sorted(e.name for e in entries if e.name.endswith(_SUFFIXES) and e.is_file(follow_symlinks=False))
    except OSError:
        names = []
    return [path / name for name in names if is_inspect_log(path / name)]


def log_files(side: Side, path: Path, options: ImportOptions) -> list[Path]:
    """The side's logs: its list (``options``), its one log file, or the logs of its folder."""
    listed = options.logs_of(side)
    if listed:
        logs = list(listed)
    elif path.is_file():
        return [path]
    elif not path.is_dir():
        raise EvalsiteError(f"Inspect log {path.name!r} does not exist")
    else:
        logs = _folder_logs(path)
        if not logs:
            raise EvalsiteError(f"folder {path.name!r} holds no Inspect log; name .eval or .json log files")
    if len(logs) > MAX_LOGS:
        raise EvalsiteError(f"{side} side has {len(logs):,} Inspect logs, over the {MAX_LOGS:,}-log limit")
    for log in logs:
        shown = readable_name(log.name)
        if shown is not None:  # a name no page can be written with
            raise EvalsiteError(f"{side} Inspect log {shown!r}: its file name is not valid UTF-8; rename it")
    return logs


def _strip_ids(value: Any) -> Any:
    if isinstance(value, list):
        return [_strip_ids(item) for item in value]
    if isinstance(value, dict):
        return {key: item for key, item in value.items() if key != "id"}
    return value


def case_hash(sample: Mapping[str, Any]) -> str:
    """The canonical hash of a sample's input (message ids removed), target, choices and metadata."""
    return canonical_hash(
        {
            "input": _strip_ids(sample.get("input")),
            "target": sample.get("target"),
            "choices": sample.get("choices"),
            "metadata": sample.get("metadata"),
        }
    )


def _score_number(value: Any) -> float | None:
    """Inspect's ``value_to_float`` for scalars: C=1, P=0.5, I=N=0, yes/true, numeric strings."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if is_number(value):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        fixed = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}.get(text)
        if fixed is not None:
            return fixed
        if text.lower() in _WORDS:
            return _WORDS[text.lower()]
        try:
            number = float(text)
        except ValueError:
            return None
        return number if is_number(number) else None
    return None


def _value_of(score: Any) -> Any:
    return score.get("value") if isinstance(score, dict) else None


def _telemetry(sample: Mapping[str, Any]) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    usage = sample.get("model_usage")
    keys = {
        "input_tokens": "input_tokens",
        "output_tokens": "output_tokens",
        "input_tokens_cache_read": "cache_read_input_tokens",
        "input_tokens_cache_write": "cache_creation_input_tokens",
        "total_cost": "total_cost_usd",
        "reasoning_tokens": "reasoning_tokens",
    }
    if isinstance(usage, dict):
        for model_usage in usage.values():
            if not isinstance(model_usage, dict):
                continue
            for source, target in keys.items():
                value = model_usage.get(source)
                if is_number(value):
                    figures[target] = figures.get(target, 0) + value
    if "input_tokens" in figures or "output_tokens" in figures:
        for name in ("input_tokens", "output_tokens"):
            figures.setdefault(name, 0)
    figures["duration_seconds"] = sample.get("total_time")
    messages = sample.get("messages")
    if isinstance(messages, list):
        turns = [m for m in messages if isinstance(m, dict) and m.get("role") == "assistant"]
        figures["num_turns"] = len(turns)
        figures["tool_calls"] = sum(len(m["tool_calls"]) for m in turns if isinstance(m.get("tool_calls"), list))
    out = reported_telemetry(figures)
    out["working_seconds"] = sample.get("working_time") if is_number(sample.get("working_time")) else None
    out["reasoning_tokens"] = figures.get("reasoning_tokens")
    out["source"] = "reported by the harness (Inspect model_usage, total_time, messages)"
    return out


def _limit_kind(limit: Any) -> str:
    """Which limit stopped a sample (``message``, ``token``, ``time``, ``working``, ...)."""
    kind = limit.get("type") if isinstance(limit, dict) else limit
    return str(kind) if isinstance(kind, str) and kind else "a"


class _Reader:
    def __init__(self, side: Side, label: str, header: Mapping[str, Any], options: ImportOptions) -> None:
        self.side = side
        self.label = label
        self.options = options
        spec = header.get("eval")
        self.spec: Mapping[str, Any] = spec if isinstance(spec, dict) else {}
        scorers = self.spec.get("scorers")
        names = [s.get("name") for s in scorers if isinstance(s, dict)] if isinstance(scorers, list) else []
        self.scorers = [name for name in names if isinstance(name, str)]
        problem = unusable_value([self.spec.get("task"), self.spec.get("model"), self.scorers])
        if problem is not None:
            raise EvalsiteError(f"Inspect log {label!r}: its header's task, model or scorer names {problem}")
        if options.scorer is not None and self.scorers and options.scorer not in self.scorers:
            raise EvalsiteError(
                f"Inspect log {label!r} has no scorer {options.scorer!r} (it has: {', '.join(self.scorers)})"
            )
        self.scorer = options.scorer or (self.scorers[0] if self.scorers else None)

    def record(self, sample: Mapping[str, Any], file: str) -> RunRecord | SkippedReport:
        sample_id, epoch = sample.get("id"), sample.get("epoch")
        if not isinstance(sample_id, str | int) or isinstance(sample_id, bool) or str(sample_id) == "":
            return SkippedReport(self.side, file, "sample has no usable id")
        if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 1:
            return SkippedReport(self.side, file, "sample has no valid epoch")
        if epoch > MAX_EPOCHS:
            return SkippedReport(self.side, file, f"sample's epoch is over the {MAX_EPOCHS:,}-epoch limit")
        problem = _id_problem(sample_id)
        if problem is not None:
            return SkippedReport(self.side, file, f"sample id {problem}")
        problem = unusable_value(sample)
        if problem is not None:
            return SkippedReport(self.side, file, f"sample {problem}")
        task = str(sample_id)
        raw_scores = sample.get("scores")
        scores: Mapping[str, Any] = raw_scores if isinstance(raw_scores, dict) else {}
        scorer = self.scorer or next(iter(scores), None)
        score = scores.get(scorer) if scorer is not None else None
        value = score.get("value") if isinstance(score, dict) else None
        error, limit = sample.get("error"), sample.get("limit")
        passed, failed, number = False, [], None
        if error:
            message = error.get("message") if isinstance(error, dict) else error
            quality = error_quality(
                "harness_error", "Inspect recorded an error for this sample", str(message), self.options
            )
            failed = ["error"]
        elif score is None and limit:
            kind = _limit_kind(limit)
            reason = limit.get("reason") if isinstance(limit, dict) and limit.get("reason") else limit
            quality = error_quality(
                "limit_reached", f"Sample stopped at its {kind} limit unscored", str(reason), self.options
            )
            failed = [f"{kind} limit"]
        else:
            number = _score_number(value)
            if number is None:
                shown = "no score" if score is None else "a score that is not a single pass/fail value"
                quality = excluded_quality("unscored", f"Scorer {scorer!r} gave {shown}", str(value))
            else:
                stopped = f"; stopped at its {_limit_kind(limit)} limit, scored as it stood" if limit else ""
                quality = included_quality(f"{scorer}={value!r}{stopped}")
                passed = value == "C" or (value not in ("I", "N") and number >= self.options.pass_threshold)
                if not passed:
                    failed = [f"{scorer}={value!r}"] + ([f"{_limit_kind(limit)} limit"] if limit else [])
        details: dict[str, Any] = {
            "score": {"scorer": scorer, "value": value},
            "limit": limit if limit else None,
            "reported_telemetry": _telemetry(sample),
            "log": {"task": self.spec.get("task"), "model": self.spec.get("model")},
        }
        if number is not None:  # the deciding score as Inspect's value_to_float reads it (metric: mean)
            details[SCORE_KEY] = number
        if len(scores) > 1:  # every scorer's number, shown beside the deciding one
            details[SCORERS_KEY] = {str(name): _score_number(_value_of(item)) for name, item in scores.items()}
        manifest = imported_manifest(task, "inspect", case_hash(sample), "inspect-sample")
        return imported_record(
            self.side,
            fmt="inspect",
            task=task,
            rep=epoch,
            file=file,
            passed=passed,
            checks_failed=failed,
            manifest=manifest,
            quality=quality,
            details=details,
        )

    def matrix(self, treatment: str) -> tuple[MatrixLoad, list[SkippedReport]]:
        """The expected cases from the header (sample ids x epochs), and a row for ids left out."""
        dataset = self.spec.get("dataset")
        config = self.spec.get("config")
        ids = dataset.get("sample_ids") if isinstance(dataset, dict) else None
        epochs = config.get("epochs", 1) if isinstance(config, dict) else 1
        if not isinstance(ids, list) or not ids or isinstance(epochs, bool) or not isinstance(epochs, int):
            return MatrixLoad(), []
        if epochs < 1 or not all(isinstance(i, str | int) and not isinstance(i, bool) for i in ids):
            return MatrixLoad(error="the log header's sample ids or epochs are invalid"), []
        if epochs > MAX_EPOCHS:
            return MatrixLoad(error=f"the log header asks for more than {MAX_EPOCHS:,} epochs"), []
        if len(ids) > MAX_PLANNED_CASES:
            return MatrixLoad(error=f"the log header plans more than {MAX_PLANNED_CASES:,} samples"), []
        left_out: dict[str, int] = {}
        names: set[str] = set()
        for sample_id in ids:
            problem = _id_problem(sample_id)
            if problem is None:
                names.add(str(sample_id))
            else:
                left_out[problem] = left_out.get(problem, 0) + 1
        where = f"{self.label}#eval.dataset.sample_ids"
        skipped = [
            SkippedReport(self.side, where, f"{n:,} sample id(s) left out of the expected cases: the id {problem}")
            for problem, n in sorted(left_out.items())
        ]
        if len(names) * epochs > MAX_PLANNED_CASES:
            planned = f"{len(names):,} sample ids x {epochs:,} epochs"
            return MatrixLoad(error=f"the log header plans {planned}, over the {MAX_PLANNED_CASES:,}-case limit"), []
        cases = [(name, treatment, rep) for name in sorted(names) for rep in range(1, epochs + 1)]
        return MatrixLoad(ExpectedMatrix(canonical_hash([list(case) for case in cases]), cases)), skipped


def _id_problem(sample_id: str | int) -> str | None:
    """Why a sample id cannot name a task (an absurdly long number included), or None."""
    if isinstance(sample_id, int) and abs(sample_id) >= _LONGEST_NUMBER_ID:
        return f"is longer than {MAX_NAME_BYTES} bytes"
    return name_problem(str(sample_id))


def _eval_samples(archive: Archive) -> tuple[dict[str, Any], list[tuple[str, Any]]]:
    header_bytes = archive.read("header.json")
    if header_bytes is None and "header.json" in archive.members:
        reason = next((s.reason for s in archive.skipped if s.name == "header.json"), "cannot be read")
        raise EvalsiteError(f"Inspect log {archive.label!r}: header.json {reason}")
    if header_bytes is None:
        journal = any(archive.names("_journal/"))
        if journal:
            count = sum(1 for _ in archive.names("samples/"))
            raise EvalsiteError(
                f"Inspect log {archive.label!r} holds only its journal ({count} sample file(s), no header): "
                "the run did not finish, and evalsite does not guess its results"
            )
        raise EvalsiteError(f"Inspect log {archive.label!r} has no header.json")
    header = json_object(header_bytes)
    if isinstance(header, str):
        raise EvalsiteError(f"Inspect log {archive.label!r}: header.json is {header}")
    samples: list[tuple[str, Any]] = []
    for name in sorted(archive.names("samples/")):
        if not name.endswith(".json"):
            continue
        data = archive.read(name)
        if data is not None:
            samples.append((f"{archive.label}#{name}", json_object(data)))
    return header, samples


def _samples_of(
    side: Side, log: Path, label: str, *, merging: bool
) -> tuple[dict[str, Any], list[tuple[str, Any]], list[SkippedReport], str]:
    """A log's header, its samples (each ``(file, sample or why not)``), its skipped members, and (when
    ``merging`` several logs) the SHA-256 of its bytes."""
    data = read_regular_file(log, max_bytes=MAX_LOG_BYTES)
    if isinstance(data, Refusal):
        raise EvalsiteError(f"{side} Inspect log {label!r} cannot be read: it {data.reason}")
    skipped: list[SkippedReport] = []
    if log.suffix == ".eval" or data[:4] == b"PK\x03\x04":
        archive = Archive(data, label)
        header, samples = _eval_samples(archive)
        skipped += [SkippedReport(side, f"{label}#{s.name}", s.reason) for s in archive.skipped]
    else:
        parsed = parse_json_log(data)
        if isinstance(parsed, str):
            raise EvalsiteError(f"{side} Inspect log {label!r} is {parsed}")
        header, raw = parsed
        samples = [(f"{label}#samples[{i}]", s.reason if isinstance(s, Unreadable) else s) for i, s in enumerate(raw)]
    if not isinstance(header.get("eval"), dict):
        raise EvalsiteError(f"{side} file {label!r} is not an Inspect log (no eval header)")
    return header, samples, skipped, hashlib.sha256(data).hexdigest() if merging else ""


def _status(header: Mapping[str, Any], label: str, held: int, matrix: MatrixLoad, path: Path) -> LogStatus:
    """The run's status as the log records it, and how many samples it holds of how many planned."""
    status = header.get("status")
    error = header.get("error")
    message = error.get("message") if isinstance(error, dict) else None
    text = " ".join(scrub_paths(message).split()) if isinstance(message, str) and message.strip() else None
    if text is not None and len(text) > _STATUS_ERROR_CHARS:
        text = text[: safe_cut(text, _STATUS_ERROR_CHARS)] + "…"
    planned = len(matrix.matrix.cases) if matrix.matrix is not None else None
    shown = status if isinstance(status, str) and status and unusable_value(status) is None else "unknown"
    return LogStatus(label, shown[:40], held, planned, text, path)


def read_log(side: Side, log: Path, treatment: str, options: ImportOptions, *, merging: bool) -> LogRead:
    """One log's runs, skipped rows, expected cases and status (and, ``merging``, each sample's digest)."""
    label = log.name
    header, samples, skipped, digest = _samples_of(side, log, label, merging=merging)
    reader = _Reader(side, label, header, options)
    matrix, left_out = reader.matrix(treatment)
    skipped += left_out
    records: list[RunRecord] = []
    contents: list[str] = []
    errored: list[bool] = []
    for file, sample in samples:
        if isinstance(sample, str) or not isinstance(sample, dict):
            skipped.append(
                SkippedReport(side, file, f"sample is {sample if isinstance(sample, str) else 'not an object'}")
            )
            continue
        made = reader.record(sample, file)
        if isinstance(made, SkippedReport):
            skipped.append(made)
            continue
        records.append(made)
        if merging:
            contents.append(sample_digest(sample))
            errored.append(bool(sample.get("error")))
    status = _status(header, label, len(samples), matrix, log.resolve())
    return LogRead(
        label, digest, header, tuple(records), tuple(contents), tuple(errored), tuple(skipped), matrix, status
    )


def load_inspect(side: Side, path: Path, treatment: str, options: ImportOptions) -> Experiment:
    """Read one Inspect log (a ``.eval`` or ``.json`` file), or several (a folder of logs, or a list
    in ``options``: the shards and retries of one run, merged by sample and epoch)."""
    files = log_files(side, path, options)
    merging = len(files) > 1
    reads: list[LogRead] = []
    held = 0
    for file in files:
        read = read_log(side, file, treatment, options, merging=merging)
        held += read.status.samples
        if held > MAX_SAMPLES:
            raise EvalsiteError(f"{side} Inspect logs hold more than {MAX_SAMPLES:,} samples together")
        reads.append(read)
    first = reads[0]
    if not merging:
        return Experiment(
            side=side,
            treatment=treatment,
            root=files[0].resolve().parent,
            label=first.name,
            records=first.records,
            skipped=first.skipped,
            matrix=first.matrix,
            logs=SideLogs((first.status,)),
        )
    reads.sort(key=lambda read: (read.name, read.digest))
    check_one_run(side, reads)
    merged = merge_logs(side, reads)
    listed = bool(options.logs_of(side))
    label = f"{reads[0].name} + {len(reads) - 1} more log(s)" if listed else path.name
    return Experiment(
        side=side,
        treatment=treatment,
        root=files[0].resolve().parent if listed else path.resolve(),
        label=label,
        records=merged.records,
        skipped=merged.skipped,
        matrix=merged.matrix,
        logs=merged.logs,
    )
