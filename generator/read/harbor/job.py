"""Harbor (Terminal-Bench 2) job folders as runs.

A job folder holds ``result.json`` (the job) and one folder per trial, each with its own
``result.json`` (a ``TrialResult``: ``task_name``, ``trial_name``, ``task_checksum``,
``agent_info``, ``agent_result``, ``verifier_result.rewards``, ``exception_info``, per-phase
``started_at``/``finished_at``), ``agent/`` and ``verifier/``.

* Task = ``task_name``.  Trials record no repetition index, so the repetitions of a task are its
  trials ordered by ``started_at``, then ``trial_name`` (a trial without a start time goes last).
* Case hash = ``task_checksum``; a trial without one is "not hashed".
* Pass = the reward (``rewards["reward"]``, or the only key) is at least the threshold
  (default 1).  A trial whose exception leaves no valid reward (or whose ``reward_valid`` is
  false) is excluded with its exception type; a trial that was scored despite an exception
  (for example an agent timeout) counts as scored.
* Telemetry: what Harbor reported (``n_input_tokens`` includes the cache, so the non-cache input
  is ``n_input_tokens - n_cache_tokens``; ``cost_usd``; the agent phase's time), and, when the
  trial folder holds the agent's own stdout (``agent/claude-code.txt`` stream-json, or
  ``agent/codex.txt``), the telemetry re-derived from it.  ``agent_result`` has no turn or tool-call
  counts, so those two are counted from ``agent/trajectory.json`` (ATIF: its ``steps`` whose
  ``source`` is ``agent``, and their ``tool_calls``) when it is there, labelled as reported; the
  trajectory's text is not read here (run pages show it).
* A job that ran more than one agent/model must be narrowed by the treatment (``agent`` or
  ``agent/model``); otherwise different agents' trials would be counted as repetitions.
* A trial folder whose name is not valid UTF-8, a trial result that holds a lone surrogate or nests
  too deeply, and a ``task_name`` that is not a usable name are skipped rows with their reason; the
  other trials are read.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from generator.model.common import Side, is_number
from generator.model.errors import EvalsiteError
from generator.model.formats import ImportOptions
from generator.model.runs import Experiment, MatrixLoad, RunRecord, SkippedReport
from generator.model.scores import SCORE_KEY
from generator.read.importing import (
    error_quality,
    excluded_quality,
    imported_manifest,
    imported_record,
    included_quality,
    json_object,
    name_problem,
    readable_name,
    reported_telemetry,
    unusable_value,
)
from generator.read.safe_io import Refusal, is_real_directory, read_contained

__all__ = ["AGENT_STDOUT", "MAX_RESULT_BYTES", "is_harbor_job", "load_harbor"]

MAX_RESULT_BYTES = 16 * 1024 * 1024
MAX_TRAJECTORY_BYTES = 64 * 1024 * 1024
AGENT_STDOUT = ("claude-code.txt", "codex.txt")


def _trial_folders(root: str) -> list[str]:
    try:
        with os.scandir(root) as entries:
            return sorted(e.name for e in entries if e.is_dir(follow_symlinks=False))
    except OSError:
        return []


def is_harbor_job(path: Path) -> bool:
    """A folder with ``result.json`` and at least one trial folder with its own ``result.json``."""
    if not path.is_dir() or not (path / "result.json").is_file():
        return False
    return any((path / name / "result.json").is_file() for name in _trial_folders(str(path)))


def _time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _phase_seconds(result: Mapping[str, Any], phase: str | None) -> float | None:
    holder = result.get(phase) if phase else result
    if not isinstance(holder, dict):
        return None
    start, end = _time(holder.get("started_at")), _time(holder.get("finished_at"))
    if start is None or end is None or end < start:
        return None
    return (end - start).total_seconds()


def _reward(result: Mapping[str, Any]) -> tuple[str, float] | str:
    """(reward key, value) or why the trial has no valid reward."""
    if result.get("reward_valid") is False:
        return "Harbor marked the reward invalid"
    verifier = result.get("verifier_result")
    rewards = verifier.get("rewards") if isinstance(verifier, dict) else None
    if not isinstance(rewards, dict) or not rewards:
        return "no verifier reward"
    key = "reward" if "reward" in rewards else (next(iter(rewards)) if len(rewards) == 1 else None)
    if key is None:
        return f"several rewards and none named 'reward' ({', '.join(sorted(map(str, rewards)))})"
    value = rewards[key]
    if isinstance(value, bool) or not is_number(value):
        return f"reward {key!r} is not a number"
    return key, float(value)


def _telemetry(result: Mapping[str, Any]) -> dict[str, Any]:
    raw = result.get("agent_result")
    agent: Mapping[str, Any] = raw if isinstance(raw, dict) else {}
    n_input: Any = agent.get("n_input_tokens")
    n_cache: Any = agent.get("n_cache_tokens")
    n_output: Any = agent.get("n_output_tokens")
    figures: dict[str, Any] = {"output_tokens": n_output, "total_cost_usd": agent.get("cost_usd")}
    if is_number(n_input):
        cache = n_cache if is_number(n_cache) else 0
        if cache <= n_input:
            figures["input_tokens"] = n_input - cache  # Harbor's input count includes the cache
            figures["cache_read_input_tokens"] = n_cache if is_number(n_cache) else None
    if is_number(n_input) and is_number(n_output):
        figures["total_tokens"] = n_input + n_output
    figures["duration_seconds"] = _phase_seconds(result, "agent_execution")
    out = reported_telemetry(figures)
    out["trial_seconds"] = _phase_seconds(result, None)
    out["source"] = "reported by the harness (Harbor agent_result and phase times)"
    return out


def _agent_label(result: Mapping[str, Any]) -> tuple[str, str]:
    raw = result.get("agent_info")
    info: Mapping[str, Any] = raw if isinstance(raw, dict) else {}
    name = str(info.get("name") or "unknown")
    model = info.get("model_info")
    model_name = model.get("name") if isinstance(model, dict) else None
    return name, f"{name}/{model_name}" if model_name else name


def _score(result: Mapping[str, Any]) -> dict[str, float]:
    """The trial's reward as its score (metric: mean), when it has a valid one."""
    reward = _reward(result)
    return {} if isinstance(reward, str) else {SCORE_KEY: reward[1]}


def _judge(result: Mapping[str, Any], options: ImportOptions) -> tuple[bool, list[str], Any]:
    reward = _reward(result)
    exception = result.get("exception_info")
    kind = exception.get("exception_type") if isinstance(exception, dict) else None
    if isinstance(reward, str):
        if isinstance(exception, dict):
            message = str(exception.get("exception_message") or "")
            quality = error_quality(
                "harness_error",
                f"Trial ended with {kind or 'an exception'} and no valid reward ({reward})",
                f"{kind}: {message}",
                options,
            )
            return False, [str(kind or "exception")], quality
        return False, [reward], excluded_quality("unscored", f"Trial has {reward}", reward)
    key, value = reward
    passed = value >= options.pass_threshold
    evidence = f"{key}={value!r}" + (f" after {kind}" if kind else "")
    return passed, [] if passed else [f"{key}={value!r}"], included_quality(evidence)


def _trajectory_counts(root: str, name: str) -> tuple[int, int] | None:
    """(agent turns, tool calls) counted from a trial's ATIF ``agent/trajectory.json``, or None."""
    data = read_contained(
        os.path.join(root, name, "agent", "trajectory.json"),
        root,
        max_bytes=MAX_TRAJECTORY_BYTES,
        root_is_resolved=True,
    )
    if isinstance(data, Refusal):
        return None
    trajectory = json_object(data)
    steps = trajectory.get("steps") if isinstance(trajectory, dict) else None
    version = trajectory.get("schema_version") if isinstance(trajectory, dict) else None
    if not isinstance(steps, list) or not (isinstance(version, str) and version.startswith("ATIF")):
        return None
    agent = [step for step in steps if isinstance(step, dict) and step.get("source") == "agent"]
    calls = sum(len(step["tool_calls"]) for step in agent if isinstance(step.get("tool_calls"), list))
    return len(agent), calls


def _with_counts(telemetry: dict[str, Any], counts: tuple[int, int] | None) -> dict[str, Any]:
    if counts is None or not counts[0]:
        return telemetry
    out = dict(telemetry)
    out["num_turns"], out["tool_calls"] = counts
    out["source"] = str(out["source"]).removesuffix(")") + "; turns and tool calls from agent/trajectory.json)"
    return out


def load_harbor(side: Side, path: Path, treatment: str, options: ImportOptions) -> Experiment:
    """Read every trial of one Harbor job folder."""
    if not is_real_directory(path):
        raise EvalsiteError(f"{side} Harbor job folder {path.name!r} does not exist or is not a real folder")
    root = str(path.resolve())
    skipped: list[SkippedReport] = []
    trials: list[tuple[str, dict[str, Any]]] = []
    for name in _trial_folders(root):
        shown = readable_name(name)
        if shown is not None:
            skipped.append(SkippedReport(side, f"{shown}/result.json", "trial folder name is not valid UTF-8"))
            continue
        file = f"{name}/result.json"
        data = read_contained(
            os.path.join(root, name, "result.json"), root, max_bytes=MAX_RESULT_BYTES, root_is_resolved=True
        )
        if isinstance(data, Refusal):
            if data.reason != "missing":
                skipped.append(SkippedReport(side, file, f"trial result {data.reason}"))
            continue
        result = json_object(data)
        problem = f"is {result}" if isinstance(result, str) else unusable_value(result)
        if isinstance(result, str) or problem is not None:
            skipped.append(SkippedReport(side, file, f"trial result {problem}"))
        elif not isinstance(result.get("task_name"), str) or not result["task_name"]:
            skipped.append(SkippedReport(side, file, "trial result has no task_name"))
        elif name_problem(result["task_name"]) is not None:
            skipped.append(SkippedReport(side, file, f"trial result's task_name {name_problem(result['task_name'])}"))
        else:
            trials.append((name, result))
    agents = {_agent_label(result)[1] for _name, result in trials}
    if len(agents) > 1:
        chosen = [(n, r) for n, r in trials if treatment in _agent_label(r)]
        if not chosen:
            raise EvalsiteError(
                f"{side} Harbor job {path.name!r} ran several agents ({', '.join(sorted(agents))}): "
                "name one as the treatment (agent or agent/model)"
            )
        trials = chosen
    by_task: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for name, result in trials:
        by_task.setdefault(result["task_name"], []).append((name, result))
    records: list[RunRecord] = []
    for task in sorted(by_task):

        def order(item: tuple[str, dict[str, Any]]) -> tuple[int, float, str]:
            start = _time(item[1].get("started_at"))
            return (0, start.timestamp(), str(item[1].get("trial_name") or item[0])) if start else (1, 0.0, item[0])

        for rep, (name, result) in enumerate(sorted(by_task[task], key=order), start=1):
            passed, failed, quality = _judge(result, options)
            checksum = result.get("task_checksum")
            manifest = imported_manifest(
                task, "harbor", checksum if isinstance(checksum, str) else None, "harbor-trial"
            )
            stdout = next((f"{name}/agent/{f}" for f in AGENT_STDOUT if (path / name / "agent" / f).is_file()), None)
            details = {
                "trial_name": result.get("trial_name") or name,
                "started_at": result.get("started_at"),
                "exception_type": (result.get("exception_info") or {}).get("exception_type")
                if isinstance(result.get("exception_info"), dict)
                else None,
                "reported_telemetry": _with_counts(_telemetry(result), _trajectory_counts(root, name)),
                "agent_stdout": stdout,
                "agent": _agent_label(result)[1],
                **_score(result),
            }
            records.append(
                imported_record(
                    side,
                    fmt="harbor",
                    task=task,
                    rep=rep,
                    file=f"{name}/result.json",
                    passed=passed,
                    checks_failed=failed,
                    manifest=manifest,
                    quality=quality,
                    details=details,
                )
            )
    return Experiment(
        side, treatment, Path(root), path.name or Path(root).name, tuple(records), tuple(skipped), MatrixLoad()
    )
