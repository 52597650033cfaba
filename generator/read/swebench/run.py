"""SWE-bench evaluations as runs: one repetition per instance.

Two layouts, as the SWE-bench harness and the experiments repository write them:

* **Harness run folder** ``logs/run_evaluation/<run_id>/`` holding ``<model>/<instance>/report.json``
  (``{instance_id: {patch_exists, patch_successfully_applied, resolved, ...}}``).  Give the run
  folder (the treatment names the model folder when there are several) or one model folder.  When
  the harness's run report (``<model>.<run_id>.json``: ``resolved_ids``, ``unresolved_ids``,
  ``error_ids``, ``empty_patch_ids``, ``incomplete_ids``) is given as the path, or lies at the top of
  the folder, its ids are used too: instances without a ``report.json`` get their outcome from it.
* **Submission** ``evaluation/<split>/<date>_<name>/`` with ``results/results.json`` (``resolved``,
  ``no_generation``, ``no_logs``, ...) and ``all_preds.jsonl``.  Its optional per-instance
  trajectory files ``trajs/<instance>.traj`` (or ``.traj.json``, or ``trajs/<instance>/<instance>.traj*``,
  as SWE-agent and mini-swe-agent write them) carry the agent's own cost and token counts in
  ``info.model_stats`` (``instance_cost``, ``tokens_sent``, ``tokens_received``, ``api_calls``):
  only those numbers are read, as telemetry *reported by the agent* (never the trajectory itself).

Pass = resolved.  An empty patch or one that did not apply is a failure, as the harness scores it.
Errors are not failures: ``error_ids``, ``incomplete_ids`` and ``no_logs`` are excluded with that
reason (or failures, by option).  Case hash = SHA-256 of ``{instance_id, dataset, split}``; the
split is known only for a submission inside ``evaluation/<split>/`` (the harness records neither).
The harness itself reports no telemetry.

An instance folder whose name is not valid UTF-8, and an instance id that is not a usable name
(:func:`~generator.read.importing.name_problem`: empty, a lone surrogate, over 255 bytes), are
skipped rows with their reason; the other instances are read.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from generator.model.common import Side, is_number
from generator.model.errors import EvalsiteError
from generator.model.formats import ImportOptions
from generator.model.runs import Experiment, MatrixLoad, Quality, RunRecord, SkippedReport
from generator.read.importing import (
    canonical_hash,
    error_quality,
    imported_manifest,
    imported_record,
    included_quality,
    json_object,
    name_problem,
    readable_name,
    reported_telemetry,
)
from generator.read.safe_io import Refusal, is_real_directory, read_contained, read_regular_file

__all__ = ["MAX_FILE_BYTES", "is_swebench", "load_swebench"]

MAX_FILE_BYTES = 64 * 1024 * 1024
_ID_LISTS = ("resolved_ids", "unresolved_ids", "error_ids", "empty_patch_ids", "incomplete_ids")
_ERRORS = {"error_ids": "Harness evaluation error", "incomplete_ids": "Evaluation incomplete", "no_logs": "No logs"}


def _folders(root: str) -> list[str]:
    try:
        with os.scandir(root) as entries:
            return sorted(e.name for e in entries if e.is_dir(follow_symlinks=False))
    except OSError:
        return []


def _files(root: str, suffix: str) -> list[str]:
    try:
        with os.scandir(root) as entries:
            return sorted(e.name for e in entries if e.is_file(follow_symlinks=False) and e.name.endswith(suffix))
    except OSError:
        return []


def _has_reports(folder: Path) -> bool:
    return any((folder / name / "report.json").is_file() for name in _folders(str(folder))[:50])


def _run_report(data: bytes | Refusal) -> dict[str, Any] | None:
    if isinstance(data, Refusal):
        return None
    parsed = json_object(data)
    if isinstance(parsed, str) or not any(isinstance(parsed.get(key), list) for key in _ID_LISTS):
        return None
    return parsed


def is_swebench(path: Path) -> bool:
    if path.is_file():
        return path.suffix == ".json" and _run_report(read_regular_file(path, max_bytes=MAX_FILE_BYTES)) is not None
    if not path.is_dir():
        return False
    if (path / "results" / "results.json").is_file():
        return True
    return _has_reports(path) or any(_has_reports(path / name) for name in _folders(str(path))[:50])


def _ids(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str) and item] if isinstance(value, list) else []


_TRAJECTORY_NAMES = ("{0}.traj", "{0}.traj.json", "{0}/{0}.traj", "{0}/{0}.traj.json")


def _number(value: Any) -> float | int | None:
    return value if is_number(value) and value >= 0 else None


def _trajectory_telemetry(root: str, instance: str) -> tuple[dict[str, Any] | None, str | None]:
    """The cost and tokens an instance's trajectory file reports (``info.model_stats``), or why not.

    Returns (telemetry, problem): (None, None) when the submission has no such file.  ``tokens_sent``
    counts every prompt token (cache included, and not told apart), so it gives the total with
    ``tokens_received``, never the non-cache input.
    """
    trajs = os.path.join(root, "trajs")
    for pattern in _TRAJECTORY_NAMES:
        relative = pattern.format(instance)
        data = read_contained(os.path.join(trajs, relative), root, max_bytes=MAX_FILE_BYTES, root_is_resolved=True)
        if isinstance(data, Refusal):
            if data.reason == "missing":
                continue
            return None, f"trajs/{relative} {data.reason}"
        parsed = json_object(data)
        if isinstance(parsed, str):
            return None, f"trajs/{relative} is {parsed}"
        info = parsed.get("info")
        stats = info.get("model_stats") if isinstance(info, dict) else None
        if not isinstance(stats, dict):
            return None, f"trajs/{relative} has no info.model_stats"
        sent, received = _number(stats.get("tokens_sent")), _number(stats.get("tokens_received"))
        figures = {
            "total_cost_usd": _number(stats.get("instance_cost")),
            "output_tokens": received,
            "total_tokens": sent + received if sent is not None and received is not None else None,
        }
        out = reported_telemetry(figures)
        out["api_calls"] = _number(stats.get("api_calls"))
        out["prompt_tokens_incl_cache"] = sent
        out["source"] = f"reported by the agent (trajs/{relative}: info.model_stats)"
        return out, None
    return None, None


class _Builder:
    def __init__(self, side: Side, options: ImportOptions, dataset: str | None, split: str | None) -> None:
        self.side, self.options, self.dataset, self.split = side, options, dataset, split
        self.records: list[RunRecord] = []
        self.skipped: list[SkippedReport] = []
        self.seen: set[str] = set()

    def usable(self, instance: str, file: str) -> bool:
        """Whether ``instance`` can name a task; if not, a skipped row says why."""
        problem = name_problem(instance)
        if problem is not None and instance not in self.seen:
            self.seen.add(instance)
            self.skipped.append(SkippedReport(self.side, file, f"instance id {problem}"))
        return problem is None

    def add(
        self,
        instance: str,
        file: str,
        passed: bool,
        failed: list[str],
        quality: Quality,
        source: str,
        telemetry: dict[str, Any] | None = None,
    ) -> None:
        if not self.usable(instance, file):
            return
        self.seen.add(instance)
        digest = canonical_hash({"instance_id": instance, "dataset": self.dataset, "split": self.split})
        manifest = imported_manifest(instance, "swebench", digest, "swebench-instance")
        details = {
            "outcome_source": source,
            "dataset": self.dataset,
            "split": self.split,
            "reported_telemetry": telemetry,
        }
        self.records.append(
            imported_record(
                self.side,
                fmt="swebench",
                task=instance,
                rep=1,
                file=file,
                passed=passed,
                checks_failed=failed,
                manifest=manifest,
                quality=quality,
                details=details,
            )
        )

    def from_lists(self, lists: dict[str, list[str]], file: str, resolved: str, errors: Iterable[str]) -> None:
        """Instances named in a run report or results.json that have no per-instance report."""
        error_keys = list(errors)
        for key in error_keys:
            for instance in lists.get(key, []):
                if instance not in self.seen:
                    code = "harness_error" if key != "incomplete_ids" else "incomplete"
                    self.add(instance, file, False, [key], error_quality(code, _ERRORS[key], key, self.options), key)
        for key, instances in lists.items():
            if key in error_keys:
                continue
            for instance in instances:
                if instance not in self.seen:
                    passed = key == resolved
                    self.add(instance, file, passed, [] if passed else [key], included_quality(key), key)


def _harness(side: Side, path: Path, treatment: str, builder: _Builder) -> Path:
    """Per-instance report.json files; returns the model folder read."""
    folder = path
    if not _has_reports(path):
        models = [name for name in _folders(str(path)) if _has_reports(path / name)]
        if treatment in models:
            folder = path / treatment
        elif len(models) == 1:
            folder = path / models[0]
        else:
            raise EvalsiteError(
                f"{side} SWE-bench run {path.name!r} holds {len(models)} model folders "
                f"({', '.join(models[:5])}): name one as the treatment"
            )
    root = str(folder.resolve())
    for instance in _folders(root):
        shown = readable_name(instance)
        if shown is not None:
            builder.skipped.append(
                SkippedReport(side, f"{shown}/report.json", "instance folder name is not valid UTF-8")
            )
            continue
        file = f"{instance}/report.json"
        data = read_contained(
            os.path.join(root, instance, "report.json"), root, max_bytes=MAX_FILE_BYTES, root_is_resolved=True
        )
        if isinstance(data, Refusal):
            if data.reason != "missing":
                builder.skipped.append(SkippedReport(side, file, f"report {data.reason}"))
            continue
        report = json_object(data)
        entry = report.get(instance) if isinstance(report, dict) else None
        if not isinstance(entry, dict) or not isinstance(entry.get("resolved"), bool):
            reason = report if isinstance(report, str) else "has no resolved flag for its instance"
            builder.skipped.append(SkippedReport(side, file, f"report {reason}"))
            continue
        passed = entry["resolved"]
        failed = (
            []
            if passed
            else [
                "no patch"
                if entry.get("patch_exists") is False
                else "patch did not apply"
                if entry.get("patch_successfully_applied") is False
                else "unresolved"
            ]
        )
        builder.add(instance, file, passed, failed, included_quality(f"resolved={passed}"), "report.json")
    return folder


_FAILURE_KINDS = ("no_generation", "no_apply", "install_fail", "reset_failed", "test_errored", "test_timeout")


def _submission(side: Side, path: Path, builder: _Builder) -> None:
    root = str(path.resolve())
    data = read_contained(
        os.path.join(root, "results", "results.json"), root, max_bytes=MAX_FILE_BYTES, root_is_resolved=True
    )
    results = json_object(data) if not isinstance(data, Refusal) else f"a file that {data.reason}"
    if isinstance(results, str):
        raise EvalsiteError(f"{side} SWE-bench submission {path.name!r}: results/results.json is {results}")
    lists = {key: set(_ids(value)) for key, value in results.items()}
    instances = set().union(*lists.values()) if lists else set()
    preds = read_contained(os.path.join(root, "all_preds.jsonl"), root, max_bytes=MAX_FILE_BYTES, root_is_resolved=True)
    if not isinstance(preds, Refusal):
        for line in preds.decode("utf-8", errors="replace").splitlines():
            try:
                pred = json.loads(line)
            except (ValueError, RecursionError):
                continue
            instance = pred.get("instance_id") if isinstance(pred, dict) else None
            if isinstance(instance, str) and instance:
                instances.add(instance)
    file = "results/results.json"
    for instance in sorted(instances):
        if not builder.usable(instance, file):
            continue
        telemetry, problem = _trajectory_telemetry(root, instance)
        if problem is not None:
            builder.skipped.append(SkippedReport(side, problem.split(" ", 1)[0], problem.split(" ", 1)[1]))
        if instance in lists.get("resolved", ()):
            builder.add(instance, file, True, [], included_quality("resolved"), "resolved", telemetry)
        elif instance in lists.get("no_logs", ()):
            quality = error_quality("harness_error", _ERRORS["no_logs"], "no_logs", builder.options)
            builder.add(instance, file, False, ["no_logs"], quality, "no_logs", telemetry)
        else:
            kinds = [kind for kind in _FAILURE_KINDS if instance in lists.get(kind, ())] or ["unresolved"]
            builder.add(instance, file, False, kinds, included_quality("not resolved"), "not resolved", telemetry)


def load_swebench(side: Side, path: Path, treatment: str, options: ImportOptions) -> Experiment:
    """Read one SWE-bench harness run (folder or run report) or one experiments-repository submission."""
    if not path.exists():
        raise EvalsiteError(f"{side} SWE-bench path {path.name!r} does not exist")
    submission = path.is_dir() and (path / "results" / "results.json").is_file()
    split = path.resolve().parent.name if submission and path.resolve().parent.parent.name == "evaluation" else None
    builder = _Builder(side, options, "SWE-bench" if split else None, split)
    run_report: dict[str, Any] | None = None
    report_name = path.name
    if path.is_file():
        run_report = _run_report(read_regular_file(path, max_bytes=MAX_FILE_BYTES))
        if run_report is None:
            raise EvalsiteError(f"{side} file {path.name!r} is not a SWE-bench run report (no *_ids lists)")
        root = path.resolve().parent
    elif submission:
        _submission(side, path, builder)
        root = path.resolve()
    elif is_real_directory(path):
        root = _harness(side, path, treatment, builder).resolve()
        for name in _files(str(path), ".json"):
            found = _run_report(read_regular_file(path / name, max_bytes=MAX_FILE_BYTES))
            if found is not None:
                run_report, report_name = found, name
                break
    else:
        raise EvalsiteError(f"{side} SWE-bench path {path.name!r} is not a real folder or file")
    if run_report is not None:
        lists = {key: _ids(run_report.get(key)) for key in _ID_LISTS}
        builder.from_lists(lists, report_name, "resolved_ids", ["error_ids", "incomplete_ids"])
    return Experiment(
        side, treatment, root, path.name or root.name, tuple(builder.records), tuple(builder.skipped), MatrixLoad()
    )
