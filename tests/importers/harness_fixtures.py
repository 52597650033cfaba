"""Harbor job folders and SWE-bench runs built from the producers' published schemas.

Neither producer runs here (Harbor needs Python 3.12 and Docker; the SWE-bench harness needs
Docker), so these write the files as the producers name them: Harbor's ``TrialResult``
(``harbor/models/trial/result.py``: ``task_name``, ``trial_name``, ``task_checksum``,
``agent_info.model_info``, ``agent_result.n_input_tokens`` (cache included), ``n_cache_tokens``,
``n_output_tokens``, ``cost_usd``, ``verifier_result.rewards``, ``exception_info`` and the phase
``TimingInfo``s) and SWE-bench's per-instance ``report.json``, run report and experiments-repo
``results/results.json`` (``harness/reporting.py``, ``harness/grading.py``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = [
    "atif_steps",
    "claude_stream",
    "harbor_job",
    "harbor_trial",
    "swebench_run",
    "swebench_submission",
    "swebench_trajectory",
]


def _write(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2), encoding="utf-8")


def claude_stream(input_tokens: int, output_tokens: int, cache_read: int, *, duration_ms: int = 4200) -> str:
    """Claude Code ``--output-format stream-json`` lines, with stderr noise mixed in as Harbor keeps it."""
    lines = [
        {"type": "system", "subtype": "init", "model": "claude-sonnet-4-5"},
        {
            "type": "assistant",
            "message": {
                "id": "msg_1",
                "model": "claude-sonnet-4-5",
                "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}],
                "usage": {"input_tokens": 10, "cache_read_input_tokens": cache_read, "output_tokens": 5},
            },
        },
        {
            "type": "result",
            "subtype": "success",
            "duration_ms": duration_ms,
            "num_turns": 2,
            "total_cost_usd": 0.0123,
            "usage": {
                "input_tokens": input_tokens,
                "output_tokens": output_tokens,
                "cache_read_input_tokens": cache_read,
                "cache_creation_input_tokens": 0,
            },
            "modelUsage": {"claude-sonnet-4-5": {"contextWindow": 200000}},
        },
    ]
    return "npm warn deprecated something\n" + "\n".join(json.dumps(line) for line in lines) + "\n"


def harbor_trial(
    task: str,
    suffix: str,
    *,
    started: str,
    reward: float | None,
    exception: str | None = None,
    checksum: str | None = "3f1c9e",
    agent: str = "claude-code",
    model: str = "anthropic/claude-sonnet-4-5",
    tokens: tuple[int, int, int] = (1200, 300, 800),
) -> dict[str, Any]:
    """One ``TrialResult`` as Harbor writes it (``model_dump_json``)."""
    n_input, n_cache, n_output = tokens
    phase = {"started_at": started, "finished_at": started.replace(":00.", ":30.")}
    result: dict[str, Any] = {
        "id": f"00000000-0000-4000-8000-{suffix.encode().hex()[:12]:0>12}",
        "task_name": task,
        "trial_name": f"{task[:32]}__{suffix}",
        "trial_uri": f"file:///jobs/job-1/{task[:32]}__{suffix}",
        "task_id": {"path": f"tasks/{task}"},
        "source": "terminal-bench",
        "task_checksum": checksum,
        "config": {"task": {"path": f"tasks/{task}"}, "trial_name": f"{task[:32]}__{suffix}", "job_id": "job-1"},
        "agent_info": {"name": agent, "version": "1.0.0", "model_info": {"name": model, "provider": "anthropic"}},
        "agent_result": {
            "n_input_tokens": n_input,
            "n_cache_tokens": n_cache,
            "n_output_tokens": n_output,
            "cost_usd": 0.05,
            "rollout_details": None,
            "metadata": None,
        },
        "verifier_result": {"rewards": {"reward": reward}} if reward is not None else None,
        "exception_info": (
            {
                "exception_type": exception,
                "exception_message": f"{exception} raised",
                "exception_traceback": "Traceback (most recent call last): ...",
                "occurred_at": started,
            }
            if exception
            else None
        ),
        "started_at": started,
        "finished_at": started.replace(":00.", ":59."),
        "environment_setup": phase,
        "agent_setup": phase,
        "agent_execution": {"started_at": started, "finished_at": started.replace(":00.", ":20.")},
        "verifier": phase,
    }
    if checksum is None:
        del result["task_checksum"]
    return result


def atif_steps(tool_calls: list[int]) -> list[dict[str, Any]]:
    """ATIF ``steps``: a system prompt, the task, then one agent step per entry with that many tool calls."""
    steps: list[dict[str, Any]] = [
        {"step_id": 1, "source": "system", "message": "You are an agent."},
        {"step_id": 2, "source": "user", "message": "Fix the bug."},
    ]
    for n in tool_calls:
        calls = [
            {"tool_call_id": f"c{len(steps)}-{i}", "function_name": "bash", "arguments": {"cmd": "ls"}}
            for i in range(n)
        ]
        steps.append(
            {
                "step_id": len(steps) + 1,
                "source": "agent",
                "message": "working",
                "tool_calls": calls,
                "metrics": {"prompt_tokens": 100, "completion_tokens": 10, "cached_tokens": 50},
            }
        )
    return steps


def harbor_job(
    root: Path,
    trials: list[dict[str, Any]],
    *,
    stdout: dict[str, str] | None = None,
    steps: dict[str, list[dict[str, Any]]] | None = None,
) -> Path:
    """``jobs/<job>/`` with its ``config.json``, ``result.json`` and one folder per trial (``steps``: a
    trial's ATIF ``agent/trajectory.json`` steps; empty otherwise)."""
    _write(root / "config.json", {"job_name": root.name, "n_attempts": 3, "agents": [{"name": "claude-code"}]})
    _write(root / "result.json", {"id": "job-1", "n_total_trials": len(trials), "stats": {"n_trials": len(trials)}})
    for trial in trials:
        folder = root / trial["trial_name"]
        _write(folder / "config.json", trial["config"])
        _write(folder / "result.json", trial)
        (folder / "trial.log").parent.mkdir(parents=True, exist_ok=True)
        (folder / "trial.log").write_text("trial log\n", encoding="utf-8")
        trajectory = {
            "schema_version": "ATIF-v1.4",
            "session_id": trial["trial_name"],
            "agent": {"name": "claude-code", "version": "2.0.0"},
            "steps": (steps or {}).get(trial["trial_name"], []),
        }
        _write(folder / "agent" / "trajectory.json", trajectory)
        (folder / "verifier").mkdir(exist_ok=True)
        (folder / "verifier" / "reward.txt").write_text(str((trial.get("verifier_result") or {}).get("rewards")))
        if stdout and trial["trial_name"] in stdout:
            (folder / "agent" / "claude-code.txt").write_text(stdout[trial["trial_name"]], encoding="utf-8")
    return root


def swebench_run(
    root: Path, model: str, reports: dict[str, dict[str, bool]], run_report: dict[str, list[str]] | None = None
) -> Path:
    """``logs/run_evaluation/<run_id>/<model>/<instance>/report.json`` (+ the run report copied in)."""
    for instance, flags in reports.items():
        folder = root / model / instance
        report = {
            instance: {
                "patch_is_None": not flags.get("patch_exists", True),
                "patch_exists": flags.get("patch_exists", True),
                "patch_successfully_applied": flags.get("patch_successfully_applied", True),
                "resolved": flags["resolved"],
                "tests_status": {"FAIL_TO_PASS": {"success": [], "failure": []}},
            }
        }
        _write(folder / "report.json", report)
        (folder / "patch.diff").write_text("diff --git a/x b/x\n", encoding="utf-8")
        (folder / "test_output.txt").write_text("tests ran\n", encoding="utf-8")
    if run_report is not None:
        ids = [i for key in run_report for i in run_report[key]]
        body: dict[str, Any] = {"total_instances": len(ids), "submitted_instances": len(ids), "schema_version": 2}
        body.update(run_report)
        _write(root / f"{model}.{root.name}.json", body)
    return root


def swebench_trajectory(instance: str, cost: float, sent: int, received: int, calls: int) -> dict[str, Any]:
    """A SWE-agent ``.traj`` file: its ``trajectory`` steps, ``history`` and ``info.model_stats``."""
    steps = [{"action": "ls", "observation": "README.md", "thought": "look around", "response": "ls"}] * calls
    return {
        "environment": "swe_main",
        "trajectory": steps,
        "history": [{"role": "system", "content": "You are a helpful assistant."}],
        "info": {
            "exit_status": "submitted",
            "submission": "diff --git a/x b/x\n",
            "model_stats": {
                "instance_cost": cost,
                "tokens_sent": sent,
                "tokens_received": received,
                "api_calls": calls,
            },
        },
        "replay_config": "{}",
        "environment_info": {"instance_id": instance},
    }


def swebench_submission(
    root: Path, results: dict[str, list[str]], preds: list[str], trajs: dict[str, Any] | None = None
) -> Path:
    """``evaluation/<split>/<date>_<name>/`` with ``results/results.json``, ``all_preds.jsonl`` and
    optional ``trajs/``: name (``<instance>.traj``, ``<instance>/<instance>.traj.json``) -> content
    (a dict as JSON, a str as it is)."""
    for name, content in (trajs or {}).items():
        if isinstance(content, str):
            (root / "trajs" / name).parent.mkdir(parents=True, exist_ok=True)
            (root / "trajs" / name).write_text(content, encoding="utf-8")
        else:
            _write(root / "trajs" / name, content)
    _write(root / "results" / "results.json", results)
    (root / "metadata.yaml").write_text("name: test\n", encoding="utf-8")
    lines = [json.dumps({"instance_id": i, "model_name_or_path": "m", "model_patch": "diff"}) for i in preds]
    (root / "all_preds.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root
