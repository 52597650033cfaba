"""A synthetic real-scale site (for browser tests and benchmarks).

``make_realscale_site(root)`` writes look-alike experiments in the simplified Comet report layout
of public benchmark conversions (top-level ``task``/``treatment``/``rep``, ``passed``,
``checks_failed``, ``events_summary`` telemetry reported by the harness, ``source`` provenance; no
raw stdout, no case manifest, no expected-case matrix), plus a ``site-config.yaml`` with two
comparisons, and returns the config's path:

* ``wide``: 300 tasks x 1 repetition (SWE-Bench-like: cost, tokens, turns, tool calls; some
  instances missing from a run as ``no_result_in_source`` without telemetry);
* ``deep``: 80 tasks x 5 repetitions (Terminal-Bench-like: durations; timeouts and agent errors).

Deterministic: outcomes come from SHA-256 of stable keys, never from a random generator or the
clock, so the same ``root`` always gets the same bytes.  Nothing is copied from real data.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

__all__ = ["DEEP_REPS", "DEEP_TASKS", "WIDE_TASKS", "make_realscale_site"]

WIDE_TASKS = 300
DEEP_TASKS = 80
DEEP_REPS = 5

_WIDE_SIDES = {"candidate": ("sonnet_wide", 0.47), "baseline": ("gpt_wide", 0.40)}
_DEEP_SIDES = {"candidate": ("droid_deep", 0.55), "baseline": ("goose_deep", 0.45)}
_DEEP_FAILURES = ("tests_failed", "tests_failed", "agent_timeout", "test_timeout", "unknown_agent_error")
_WIDE_FAILURES = ("tests_failed", "tests_failed", "tests_failed", "not_submitted")


def _unit(*parts: object) -> float:
    """A deterministic number in [0, 1) from the parts."""
    digest = hashlib.sha256("\x1f".join(str(part) for part in parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def _write(path: Path, payload: dict[str, object]) -> None:
    path.write_text(json.dumps(payload, sort_keys=True, separators=(",", ":")) + "\n", encoding="utf-8")


def _wide_task(index: int) -> str:
    repo = ("acme__widget", "example__parser", "demo__server", "sample__cli")[index % 4]
    return f"instance_{repo}-{hashlib.sha256(str(index).encode()).hexdigest()[:40]}-v{index:04d}"


def _deep_task(index: int) -> str:
    words = ("build", "fix", "parse", "migrate", "serve", "sort", "train", "decode")
    return f"{words[index % len(words)]}-task-{index:02d}.v{index % 3 + 1}"


def _experiment(root: Path, treatment: str, meta: dict[str, object]) -> Path:
    folder = root / treatment
    (folder / "reports").mkdir(parents=True, exist_ok=True)
    _write(folder / "experiment_meta.json", {"treatment": treatment, **meta})
    return folder


def _wide(root: Path) -> dict[str, Path]:
    out: dict[str, Path] = {}
    for side, (treatment, rate) in _WIDE_SIDES.items():
        folder = _experiment(root, treatment, {"source": "synthetic-wide", "n_tasks": WIDE_TASKS})
        for index in range(WIDE_TASKS):
            task = _wide_task(index)
            difficulty = _unit("difficulty", task)
            missing = _unit("missing", treatment, task) < 0.03
            passed = not missing and _unit("pass", treatment, task) * 0.6 + difficulty * 0.4 < rate
            report: dict[str, object] = {
                "name": f"{task}-{treatment}-r1",
                "task": task,
                "treatment": treatment,
                "rep": 1,
                "passed": passed,
                "checks_failed": [],
                "source": {"submitted": not missing, "agent_run_id": f"run-{index:05d}-{side}"},
            }
            if missing:
                report["checks_failed"] = ["no_result_in_source"]
            else:
                if not passed:
                    pick = int(_unit("why", treatment, task) * len(_WIDE_FAILURES))
                    report["checks_failed"] = [_WIDE_FAILURES[pick]]
                turns = 20 + int(_unit("turns", treatment, task) * 180)
                input_tokens = turns * (9000 + int(_unit("in", treatment, task) * 30000))
                output_tokens = turns * (80 + int(_unit("out", treatment, task) * 300))
                report["events_summary"] = {
                    "cost_usd": round(input_tokens * 1.25e-6 + output_tokens * 1e-5, 6),
                    "input_tokens": input_tokens,
                    "output_tokens": output_tokens,
                    "total_tokens": input_tokens + output_tokens,
                    "turns": turns,
                    "api_calls": turns,
                    "tool_calls": max(turns - 1, 0),
                    "tool_time_s": round(turns * (0.2 + _unit("tool", treatment, task) * 2), 3),
                }
            _write(folder / "reports" / f"{task}-{treatment}-r1.json", report)
        out[side] = folder
    return out


def _deep(root: Path) -> dict[str, Path]:
    out: dict[str, Path] = {}
    for side, (treatment, rate) in _DEEP_SIDES.items():
        folder = _experiment(root, treatment, {"source": "synthetic-deep", "n_tasks": DEEP_TASKS})
        for index in range(DEEP_TASKS):
            task = _deep_task(index)
            difficulty = _unit("difficulty", task)
            for rep in range(1, DEEP_REPS + 1):
                passed = _unit("pass", treatment, task, rep) * 0.5 + difficulty * 0.5 < rate
                failure = ""
                if not passed:
                    failure = _DEEP_FAILURES[int(_unit("why", treatment, task, rep) * len(_DEEP_FAILURES))]
                agent = round(30 + _unit("agent", treatment, task, rep) * 900, 3)
                name = f"{task}-{treatment}-r{rep}"
                _write(
                    folder / "reports" / f"{name}.json",
                    {
                        "name": name,
                        "task": task,
                        "treatment": treatment,
                        "rep": rep,
                        "passed": passed,
                        "checks_failed": [failure] if failure else [],
                        "events_summary": {
                            "duration_s": round(agent + 5 + _unit("setup", treatment, task, rep) * 40, 3),
                            "agent_duration_s": agent,
                        },
                        "source": {
                            "run": f"{treatment}_run_{rep}",
                            "trial_name": f"{task}.1-of-1.{treatment}_run_{rep}",
                            "failure_mode": failure if failure and failure != "tests_failed" else "unset",
                        },
                    },
                )
        out[side] = folder
    return out


def make_realscale_site(root: Path) -> Path:
    """Write the look-alike experiments under ``root`` and return the path of their site config."""
    root.mkdir(parents=True, exist_ok=True)
    experiments = root / "experiments"
    wide = _wide(experiments / "wide")
    deep = _deep(experiments / "deep")

    def side(folder: Path) -> str:
        return f"{{experiment: {folder.relative_to(root).as_posix()}, treatment: {folder.name}}}"

    config = root / "site-config.yaml"
    config.write_text(
        "\n".join(
            [
                "title: Synthetic real-scale evidence",
                "description: Look-alike reports (harness-reported telemetry, no raw stdout) at real scale.",
                "output: site",
                "comparisons:",
                "  - id: wide",
                f"    title: Wide benchmark, {WIDE_TASKS} tasks x 1",
                f"    candidate: {side(wide['candidate'])}",
                f"    baseline: {side(wide['baseline'])}",
                "    ks: [1]",
                "  - id: deep",
                f"    title: Deep benchmark, {DEEP_TASKS} tasks x {DEEP_REPS}",
                f"    candidate: {side(deep['candidate'])}",
                f"    baseline: {side(deep['baseline'])}",
                "    ks: [1, 2, 5]",
                "",
            ]
        ),
        encoding="utf-8",
    )
    return config
