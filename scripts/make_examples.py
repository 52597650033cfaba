#!/usr/bin/env python3
"""Write the bundled example experiments and tasks tree under ``examples/``.

Deterministic (a fixed seed, fixed timestamps), small, and built to exercise
every page of the site and every alignment issue reason:

* ``native``  (COMET_NATIVE_PHASE1) and ``beta`` (COMET_FULL_040_BETA): the main
  comparison, with valid matrices and v2 manifests, Claude stream-json stdout
  with resumes, context samples and tool calls; plus one case each of
  expected-matrix-mismatch, unexpected-run, duplicate-run, missing-repetition,
  invalid-case-manifest, quality-excluded, case-hash-mismatch and
  case-hash-drift, a malformed report file, and one run whose report still
  points at the machine it ran on (found again with ``rebase_artifacts``).
* ``native`` also holds DYNAMIC_SKILL runs that its matrix does not list
  (expected-treatment-missing), compared against ``legacy``
  (COMET_FULL_039): no matrix, no manifests (hashes rebuilt from the tasks
  tree), Codex-style stdout.
* ``tampered``: a beta subset whose matrix hash was edited
  (invalid-expected-case-matrix).

Run ``python scripts/make_examples.py`` from the project root; it replaces
``examples/experiments`` and ``examples/tasks``.
"""

from __future__ import annotations

import json
import random
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from generator.model.common import sha256_bytes as sha256_text  # noqa: E402
from generator.read.comet.manifest import SCHEMA_V2, canonical_hash, fallback_manifest  # noqa: E402
from generator.read.comet.matrix import matrix_payload  # noqa: E402

EXAMPLES = ROOT / "examples"
TASKS = EXAMPLES / "tasks"
EXPERIMENTS = EXAMPLES / "experiments"
NATIVE, BETA, LEGACY, DYNAMIC = "COMET_NATIVE_PHASE1", "COMET_FULL_040_BETA", "COMET_FULL_039", "DYNAMIC_SKILL"
MODEL = "claude-sonnet-4-5"
OLD_ROOT = "/srv/comet/eval/local/logs/experiments"

TASK_SPECS = {
    "comet-fix-median": (
        "Fix the median helper",
        "hard",
        "The `stats.median` helper returns the wrong value for lists with an even number of items.\n\n"
        "1. Reproduce the bug with `pytest tests/test_stats.py -q`.\n"
        "2. Fix `median` so that it averages the two middle values.\n"
        "3. Keep the public signature unchanged.\n\n"
        "See the [Python statistics docs](https://docs.python.org/3/library/statistics.html)"
        " for the expected semantics.\n",
    ),
    "comet-native-workflow": (
        "Add --sentences to wordcount-cli via /comet-native",
        "hard",
        "Use the `/comet-native` Skill to add a `--sentences` flag to `wordcount-cli`.\n\n"
        "```sh\nwordcount --sentences README.md\n```\n\n"
        "The change must be archived under `docs/comet/archive` with a spec at\n"
        "`docs/comet/specs/sentence-counting/spec.md`.\n",
    ),
    "csv-dedupe": (
        "Deduplicate customer records",
        "medium",
        "Write `dedupe.py` that reads `data/customers.csv` and writes `out/customers.csv` without\n"
        "duplicate customers. Two rows are duplicates when their **normalised e-mail** matches.\n",
    ),
    "api-retry-backoff": (
        "Retry with exponential backoff",
        "medium",
        "Wrap `client.fetch` so that it retries HTTP 429 and 503 responses up to five times with\n"
        "exponential backoff and jitter. Do not retry other errors.\n",
    ),
    "config-migration": (
        "Migrate the YAML config to v2",
        "easy",
        "Convert `config.yaml` from schema v1 to v2:\n\n| v1 key | v2 key |\n|---|---|\n"
        "| `db_url` | `database.url` |\n| `debug` | `logging.level` |\n",
    ),
    "http-cache-headers": (
        "Send correct cache headers",
        "medium",
        "Make the static file handler send `Cache-Control: public, max-age=31536000, immutable` for\n"
        "fingerprinted assets and `no-cache` for `index.html`.\n",
    ),
    "sql-index-tuning": (
        "Speed up the orders report",
        "hard",
        "The monthly orders report takes 40 s. Add the index it needs (and only that index) so that it\n"
        "runs in under 2 s on the seeded database. Explain the plan change in `NOTES.md`.\n",
    ),
    "log-rotation": (
        "Rotate application logs daily",
        "easy",
        "Configure the logger in `app/logging.py` to rotate files at midnight and keep seven days.\n",
    ),
}
# Task-level quirks for the main comparison.
MISMATCH_TASK = "config-migration"  # the baseline ran an older instruction
DRIFT_TASK = "log-rotation"  # the task changed between repetitions (on both sides)


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def write_json(path: Path, value: object, *, indent: int | None = 2) -> None:
    write(path, json.dumps(value, indent=indent, sort_keys=indent is not None) + "\n")


def make_tasks() -> None:
    for task, (title, difficulty, instruction) in TASK_SPECS.items():
        folder = TASKS / task
        write(
            folder / "task.toml",
            f'[metadata]\nname = "{task}"\ndescription = "{title}"\ndifficulty = "{difficulty}"\n'
            f'category = "{"comet" if task.startswith("comet-") else "coding"}"\n\n'
            '[environment]\ndockerfile = "environment/Dockerfile"\ntimeout_sec = 900\n\n'
            f'[validation]\ntest_scripts = "test_{task.replace("-", "_")}.py"\ntimeout = 120\n',
        )
        write(folder / "instruction.md", f"# {title}\n\n{instruction}")
        write(
            folder / "validation" / f"test_{task.replace('-', '_')}.py",
            "import json\n\n\ndef test_result_file():\n"
            "    results = json.load(open('_test_results.json'))\n    assert not results['failed']\n",
        )
        write(folder / "environment" / "Dockerfile", "FROM python:3.11-slim\nWORKDIR /app\nCOPY . /app\n")
        if task == "csv-dedupe":
            write(folder / "data" / "customers.csv", "id,email\n1,a@example.com\n2,A@example.com \n3,b@example.com\n")


def identity(model: str = MODEL) -> dict[str, str]:
    ident = {
        "schema": "comet.eval.execution-identity.v1",
        "image_id_hash": sha256_text(b"sha256:" + b"1" * 64),
        "image_repo_digests_hash": canonical_hash(["comet-eval@sha256:" + "2" * 64]),
        "image_ref_hash": canonical_hash("comet-eval:0.4.0"),
        "claude_tool_version_hash": canonical_hash("2.0.14 (Claude Code)"),
        "model_selection_hash": canonical_hash({"source": "explicit", "selection": model}),
        "interaction_hash": canonical_hash({"mode": "none", "max_turns": 12}),
        "model_source": "explicit",
        "interaction_mode": "none",
        "interaction_max_turns": "12",
    }
    return ident


def v2_manifest(task: str, *, instruction_variant: str | None = None) -> dict:
    parts = dict(fallback_manifest(task, TASKS, None).components)
    if instruction_variant:
        parts["instruction_hash"] = sha256_text(f"{task}:{instruction_variant}".encode())
        parts["prompt_hash"] = sha256_text(f"{task}:prompt:{instruction_variant}".encode())
    ident = identity()
    parts.update(
        runner_hash=canonical_hash({"run-claude-loop.sh": "v0.4.0"}),
        controller_hash=canonical_hash({"conftest.py": "v0.4.0"}),
        execution_hash=canonical_hash(ident),
    )
    case = canonical_hash({"schema": SCHEMA_V2, "task": task, **parts})
    return {"schema": SCHEMA_V2, "task": task, "case_hash": case, **parts, "execution_identity": ident}


# Transcript text (issue 14): fixed by the step number, never drawn from ``rng``, so the telemetry and
# every other generated value stay exactly as before.  One fake token is planted in a tool result so
# that the example site shows it redacted.
FAKE_TOKEN = "ghp_" + "Ex4mpleT0kenN0tRealAbCdEfGhIjKlMnOpQr"[:36]
_SAYS = (
    "Looking at the failing test first.",
    "The test expects the **median** of an even-length list to be the mean of the two middle values.",
    "`statistics.py` sorts the list but indexes `len(xs) // 2` only; I will handle the even case.",
    "Running the test suite again to confirm the fix.",
    "The remaining failure is an import path; checking the package layout.",
)
_THINKING = "The bug is probably an off-by-one in the index. Check the even case before editing."
_RESULTS = {
    "Read": "     1\tdef median(xs):\n     2\t    xs = sorted(xs)\n     3\t    return xs[len(xs) // 2]\n",
    "Edit": "The file /app/src/stats.py has been updated.",
    "Bash": (
        "F..\n=== FAILURES ===\n___ test_median_even ___\nassert median([1, 2, 3, 4]) == 2.5\n"
        "E  assert 3 == 2.5\n1 failed, 2 passed in 0.04s"
    ),
}


def _tool_result(tool: str, message: int) -> dict:
    """The result of one tool call: a failing test run is an error; one ``env`` dump holds the fake token."""
    if tool == "Bash" and message == 2:
        content = f"HOME=/home/agent\nPATH=/usr/local/bin:/usr/bin\nGITHUB_TOKEN={FAKE_TOKEN}\nCI=true"
        return {"content": content, "is_error": False}
    return {"content": _RESULTS[tool], "is_error": tool == "Bash"}


def claude_stream(rng: random.Random, *, resumes: int, tools: int, passed: bool) -> list[dict]:
    """A realistic Claude Code stream-json transcript with ``resumes`` extra model starts."""
    events: list[dict] = []
    message = 0
    for start in range(resumes + 1):
        session = f"session-{rng.randrange(16**8):08x}"
        events.append(
            {
                "type": "system",
                "subtype": "init",
                "session_id": session,
                "model": MODEL,
                "tools": ["Bash", "Read", "Edit", "Write"],
            }
        )
        used = {"input_tokens": 0, "output_tokens": 0, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
        context = 9000 + 4000 * start
        turns = 0
        for _step in range(tools // (resumes + 1) + 1):
            message += 1
            context += rng.randrange(600, 2400)
            usage = {
                "input_tokens": rng.randrange(5, 40),
                "cache_read_input_tokens": context - 600,
                "cache_creation_input_tokens": 600,
                "output_tokens": rng.randrange(20, 300),
            }
            msg_id = f"msg_{message:04d}"
            events.append(
                {
                    "type": "assistant",
                    "message": {
                        "id": msg_id,
                        "model": MODEL,
                        "role": "assistant",
                        "content": ([{"type": "thinking", "thinking": _THINKING}] if message == 1 else [])
                        + [{"type": "text", "text": _SAYS[(message - 1) % len(_SAYS)]}],
                        "usage": usage,
                    },
                    "session_id": session,
                }
            )
            if message == 3:  # one retried API call per transcript (not counted by telemetry)
                events.append(
                    {
                        "type": "system",
                        "subtype": "api_retry",
                        "attempt": 1,
                        "retry_delay_ms": 2000,
                        "error": "overloaded_error: the API is temporarily overloaded; retrying",
                        "session_id": session,
                    }
                )
            tool = rng.choice(["Read", "Bash", "Edit"])
            tool_input = {
                "Read": {"file_path": "/app/src/stats.py"},
                "Bash": {"command": "env" if message == 2 else "pytest -q"},
                "Edit": {"file_path": "/app/src/stats.py", "old_string": "a", "new_string": "b"},
            }[tool]
            events.append(
                {
                    "type": "assistant",
                    "message": {
                        "id": msg_id,
                        "model": MODEL,
                        "role": "assistant",
                        "content": [
                            {"type": "tool_use", "id": f"toolu_{message:04d}", "name": tool, "input": tool_input}
                        ],
                        "usage": usage,
                    },
                    "session_id": session,
                }
            )
            events.append(
                {
                    "type": "user",
                    "message": {
                        "role": "user",
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": f"toolu_{message:04d}",
                                **_tool_result(tool, message),
                            }
                        ],
                    },
                    "session_id": session,
                }
            )
            for key in used:
                used[key] += usage[key]
            turns += 1
        cost = round(
            (
                used["input_tokens"] * 3
                + used["output_tokens"] * 15
                + used["cache_read_input_tokens"] * 0.3
                + used["cache_creation_input_tokens"] * 3.75
            )
            / 1e6,
            6,
        )
        events.append(
            {
                "type": "result",
                "subtype": "success",
                "is_error": False,
                "duration_ms": rng.randrange(40_000, 400_000),
                "num_turns": turns,
                "result": "Done." if passed or start < resumes else "I could not make the tests pass.",
                "session_id": session,
                "total_cost_usd": cost,
                "usage": used,
                "modelUsage": {
                    MODEL: {
                        "inputTokens": used["input_tokens"],
                        "outputTokens": used["output_tokens"],
                        "cacheReadInputTokens": used["cache_read_input_tokens"],
                        "cacheCreationInputTokens": used["cache_creation_input_tokens"],
                        "costUSD": cost,
                        "contextWindow": 200000,
                    }
                },
            }
        )
    return events


def codex_stream(rng: random.Random, *, commands: int) -> list[dict]:
    events: list[dict] = [{"type": "thread.started", "thread_id": f"thread-{rng.randrange(16**6):06x}"}]
    events.append(
        {"type": "item.completed", "item": {"id": "item_r", "type": "reasoning", "text": "Read the config, then test."}}
    )
    for index in range(commands):
        failed = index == 0  # the first test run fails, then a retry after a dropped stream
        events.append(
            {
                "type": "item.completed",
                "item": {
                    "id": f"item_{index}",
                    "type": "command_execution",
                    "command": "pytest -q",
                    "exit_code": 1 if failed else 0,
                    "status": "failed" if failed else "completed",
                    "aggregated_output": "1 failed, 3 passed in 0.12s" if failed else "4 passed in 0.10s",
                },
            }
        )
        if failed:
            events.append({"type": "error", "message": "stream disconnected before completion; retrying 1/5"})
    events.append(
        {"type": "item.completed", "item": {"id": "item_m", "type": "agent_message", "text": "Migrated the config."}}
    )
    events.append(
        {
            "type": "item.completed",
            "item": {"id": "item_fc", "type": "file_change", "changes": [{"kind": "update", "path": "src/stats.py"}]},
        }
    )
    events.append(
        {
            "type": "turn.completed",
            "usage": {
                "input_tokens": rng.randrange(20_000, 90_000),
                "cached_input_tokens": rng.randrange(10_000, 60_000),
                "output_tokens": rng.randrange(1_000, 9_000),
            },
            "duration_ms": rng.randrange(60_000, 500_000),
        }
    )
    return events


def write_run(
    exp: Path,
    task: str,
    treatment: str,
    rep: int,
    passed: bool,
    rng: random.Random,
    *,
    manifest: dict | None,
    quality: dict | None = None,
    stream: list[dict] | None = None,
    report_name: str | None = None,
    absolute_ref: bool = False,
    failed_checks: list[str] | None = None,
) -> None:
    stem = f"{task.replace('-', '_')}_{treatment}_r{rep}_rep1"
    events = (
        stream
        if stream is not None
        else claude_stream(rng, resumes=rng.choice([0, 0, 1]), tools=rng.randrange(3, 9), passed=passed)
    )
    write(exp / "raw" / f"{stem}_stdout.json", "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in events))
    ref = f"{OLD_ROOT}/{exp.name}_20260720_140311/raw/{stem}_stdout.json" if absolute_ref else f"raw/{stem}_stdout.json"
    checks_failed = (
        []
        if passed
        else (
            failed_checks
            or [
                rng.choice(
                    [
                        "validator: expected median([1, 2, 3, 4]) == 2.5, got 2",
                        "native_state: no terminal Native archive exists",
                        "artifact path docs/comet/specs/sentence-counting/spec.md was not created",
                        "pytest: 3 failed, 11 passed",
                    ]
                )
            ]
        )
    )
    summary: dict = {
        "duration_seconds": 9999.0,  # a stale stored value: evalsite must never use it
        "num_turns": 0,
        "tool_calls": 0,
        "profile": "comet-workflow" if task.startswith("comet-") else "generic",
        "artifact_references": {"raw_stdout": ref},
        "failure_attribution": []
        if passed
        else [{"bucket": "task", "check": checks_failed[0].split(":")[0], "reason": "validator failed"}],
    }
    if manifest is not None:
        summary["case_manifest"] = manifest
    report = {
        "name": f"{task}-{treatment}-r{rep}",
        "rep": 1,
        "passed": passed,
        "run_id": f"{rng.randrange(16**32):032x}",
        "checks_passed": ["[RUBRIC] completion: 1.00 - 2/2 checks"]
        if passed
        else ["[RUBRIC] completion: 0.50 - 1/2 checks"],
        "checks_failed": checks_failed,
        "sample_quality": quality
        or {
            "status": "included",
            "reason_code": "valid_signal",
            "reason": "Run completed with validator evidence",
            "include_in_analysis": True,
            "confidence": "high",
            "evidence": ["result event present"],
        },
        "events_summary": summary,
        "timestamp": f"2026-07-20T14:{rep:02d}:{rng.randrange(60):02d}.000000",
    }
    write_json(exp / "reports" / (report_name or f"{stem}_report.json"), report)


# Pass probabilities per task and side: the candidate is better on two tasks, worse on one.
RATES = {
    "comet-fix-median": (0.9, 0.5),
    "comet-native-workflow": (0.8, 0.3),
    "csv-dedupe": (0.7, 0.7),
    "api-retry-backoff": (0.4, 0.8),
    "config-migration": (0.9, 0.9),
    "http-cache-headers": (0.8, 0.6),
    "sql-index-tuning": (0.6, 0.4),
    "log-rotation": (1.0, 1.0),
}


def make_main_pair(rng: random.Random) -> None:
    native, beta = EXPERIMENTS / "native", EXPERIMENTS / "beta"
    reps = (1, 2, 3, 4)
    native_cases = [(t, NATIVE, r) for t in TASK_SPECS for r in reps]
    beta_cases = [(t, BETA, r) for t in TASK_SPECS for r in reps if not (t == "csv-dedupe" and r == 4)]
    native_cases.append(("csv-dedupe", NATIVE, 5))  # only the candidate planned a 5th repetition
    write_json(native / "expected-case-matrix.json", matrix_payload(native_cases))
    write_json(beta / "expected-case-matrix.json", matrix_payload(beta_cases))
    for task in TASK_SPECS:
        p_native, p_beta = RATES[task]
        for rep in reps:
            manifest_native = v2_manifest(task)
            manifest_beta = v2_manifest(task)
            if task == MISMATCH_TASK:
                manifest_beta = v2_manifest(task, instruction_variant="v1-instruction")
            if task == DRIFT_TASK and rep == 4:
                manifest_native = manifest_beta = v2_manifest(task, instruction_variant="rotated-weekly")
            native_passed = rng.random() < p_native
            beta_passed = rng.random() < p_beta
            quality = None
            if task == "api-retry-backoff" and rep == 2:
                quality = {
                    "status": "excluded",
                    "reason_code": "api_timeout",
                    "reason": "API request timed out before a model result",
                    "include_in_analysis": False,
                    "confidence": "high",
                    "evidence": ["API request timed out after 600s"],
                }
            if task == "comet-fix-median" and rep == 2:
                forged = dict(manifest_beta)
                forged["case_hash"] = "sha256:" + "0" * 64
                manifest_beta = forged
            write_run(
                native,
                task,
                NATIVE,
                rep,
                native_passed,
                rng,
                manifest=manifest_native,
                absolute_ref=(task == "comet-native-workflow" and rep == 1),
            )
            if not (task == "csv-dedupe" and rep == 4):
                if not (task == "comet-native-workflow" and rep == 4):  # planned but never written
                    write_run(beta, task, BETA, rep, beta_passed, rng, manifest=manifest_beta, quality=quality)
            else:
                # beta ran a repetition its matrix never planned
                write_run(beta, task, BETA, rep, beta_passed, rng, manifest=manifest_beta)
    # The candidate's planned 5th repetition of csv-dedupe exists only on its side.
    write_run(native, "csv-dedupe", NATIVE, 5, True, rng, manifest=v2_manifest("csv-dedupe"))
    # A copied re-run of the same case: duplicate-run.
    write_run(
        native,
        "csv-dedupe",
        NATIVE,
        2,
        False,
        rng,
        manifest=v2_manifest("csv-dedupe"),
        report_name=f"csv_dedupe_{NATIVE}_r2_rep1_rerun_report.json",
    )
    # A torn write left a report that is not JSON.
    write(
        beta / "reports" / f"log_rotation_{BETA}_r9_rep1_report.json",
        '{"name": "log-rotation-COMET_FULL_040_BETA-r9", "rep": 1, "pass',
    )


def make_dynamic_and_legacy(rng: random.Random) -> None:
    native, legacy = EXPERIMENTS / "native", EXPERIMENTS / "legacy"
    for task in ("comet-fix-median", "csv-dedupe", "config-migration"):
        for rep in (1, 2):
            write_run(native, task, DYNAMIC, rep, rng.random() < 0.7, rng, manifest=v2_manifest(task))
            write_run(
                legacy,
                task,
                LEGACY,
                rep,
                rng.random() < 0.6,
                rng,
                manifest=None,
                stream=codex_stream(rng, commands=rng.randrange(2, 7)),
                quality={
                    "status": "flagged",
                    "reason_code": "partial_observability",
                    "reason": "Result present but telemetry missing",
                    "include_in_analysis": True,
                    "confidence": "medium",
                    "evidence": ["result event present but telemetry missing"],
                }
                if rep == 2
                else None,
            )


def make_tampered(rng: random.Random) -> None:
    tampered = EXPERIMENTS / "tampered"
    cases = [(t, BETA, r) for t in ("comet-fix-median", "csv-dedupe") for r in (1, 2)]
    payload = matrix_payload(cases)
    payload["matrix_hash"] = "sha256:" + "f" * 64  # edited after the run
    write_json(tampered / "expected-case-matrix.json", payload)
    for task, _treatment, rep in cases:
        write_run(tampered, task, BETA, rep, True, rng, manifest=v2_manifest(task))


def main() -> int:
    for folder in (TASKS, EXPERIMENTS):
        if folder.exists():
            shutil.rmtree(folder)
    make_tasks()
    rng = random.Random(20260720)
    make_main_pair(rng)
    make_dynamic_and_legacy(rng)
    make_tampered(rng)
    count = sum(1 for _ in EXPERIMENTS.rglob("*.json"))
    print(f"wrote {len(TASK_SPECS)} tasks and {count} experiment files under examples/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
