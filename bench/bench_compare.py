#!/usr/bin/env python3
"""How close is ``evalsite compare --format json`` to the cost of merely reading its input?

Builds a large synthetic pair of experiments (default 1,000 tasks x 10
repetitions per side, about 20 KB of Claude stream-json per run, v2 case
manifests, valid expected-case matrices), then measures in one run:

* the *floor*: read every input byte and ``json.loads`` every report and every
  stdout line, nothing else;
* ``evalsite compare --format json`` on the same folders, as a subprocess.

It prints both times and their ratio (target: within 3x).  Usage:

    python bench/bench_compare.py [--tasks 1000] [--reps 10] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from generator.read.comet.manifest import CORE_PARTS, SCHEMA_V2, canonical_hash, sha256_text  # noqa: E402
from generator.read.comet.matrix import matrix_payload  # noqa: E402

CANDIDATE, BASELINE = "CANDIDATE", "BASELINE"
MODEL = "claude-sonnet-4-5"


def _manifest(task: str) -> dict:
    parts = {part: sha256_text(f"{task}:{part}".encode()) for part in CORE_PARTS}
    identity = {
        "schema": "comet.eval.execution-identity.v1",
        **{
            key: sha256_text(key.encode())
            for key in (
                "image_id_hash",
                "image_repo_digests_hash",
                "image_ref_hash",
                "claude_tool_version_hash",
                "model_selection_hash",
                "interaction_hash",
            )
        },
        "model_source": "explicit",
        "interaction_mode": "none",
        "interaction_max_turns": "12",
    }
    parts.update(
        runner_hash=sha256_text(b"runner"),
        controller_hash=sha256_text(b"controller"),
        execution_hash=canonical_hash(identity),
    )
    case = canonical_hash({"schema": SCHEMA_V2, "task": task, **parts})
    return {"schema": SCHEMA_V2, "task": task, "case_hash": case, **parts, "execution_identity": identity}


def _stream(rng: random.Random, target_bytes: int) -> str:
    lines: list[str] = []
    size = 0
    message = 0
    session = f"s-{rng.randrange(1 << 32):08x}"
    while size < target_bytes:
        message += 1
        usage = {
            "input_tokens": rng.randrange(5, 50),
            "cache_read_input_tokens": rng.randrange(5000, 90000),
            "cache_creation_input_tokens": rng.randrange(0, 3000),
            "output_tokens": rng.randrange(10, 400),
        }
        for block in (
            {"type": "text", "text": "Reading the module and running the tests again. " * 3},
            {"type": "tool_use", "id": f"toolu_{message}", "name": "Bash", "input": {"command": "pytest -q tests/"}},
        ):
            line = json.dumps(
                {
                    "type": "assistant",
                    "message": {
                        "id": f"msg_{message}",
                        "model": MODEL,
                        "role": "assistant",
                        "content": [block],
                        "usage": usage,
                    },
                    "session_id": session,
                }
            )
            lines.append(line)
            size += len(line) + 1
        line = json.dumps(
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": f"toolu_{message}", "content": "3 passed in 0.12s"}
                    ],
                },
                "session_id": session,
            }
        )
        lines.append(line)
        size += len(line) + 1
    usage = {
        "input_tokens": 900,
        "output_tokens": 5000,
        "cache_read_input_tokens": 800000,
        "cache_creation_input_tokens": 20000,
    }
    lines.append(
        json.dumps(
            {
                "type": "result",
                "subtype": "success",
                "duration_ms": rng.randrange(10_000, 900_000),
                "num_turns": message,
                "total_cost_usd": 1.25,
                "usage": usage,
                "session_id": session,
                "modelUsage": {
                    MODEL: {"inputTokens": 900, "outputTokens": 5000, "costUSD": 1.25, "contextWindow": 200000}
                },
            }
        )
    )
    return "\n".join(lines) + "\n"


def make_synthetic_pair(
    root: Path, tasks: int = 1000, reps: int = 10, stdout_bytes: int = 20_000, seed: int = 7
) -> tuple[Path, Path]:
    """Write ``root/candidate`` and ``root/baseline``; return both paths."""
    rng = random.Random(seed)
    sides = {CANDIDATE: root / "candidate", BASELINE: root / "baseline"}
    names = [f"task-{index:04d}" for index in range(tasks)]
    manifests = {name: _manifest(name) for name in names}
    for treatment, folder in sides.items():
        (folder / "reports").mkdir(parents=True)
        (folder / "raw").mkdir()
        cases = [(name, treatment, rep) for name in names for rep in range(1, reps + 1)]
        (folder / "expected-case-matrix.json").write_text(
            json.dumps(matrix_payload(cases), indent=2, sort_keys=True) + "\n"
        )
        for name in names:
            for rep in range(1, reps + 1):
                stem = f"{name.replace('-', '_')}_{treatment}_r{rep}_rep1"
                (folder / "raw" / f"{stem}_stdout.json").write_text(_stream(rng, stdout_bytes))
                passed = rng.random() < (0.6 if treatment == CANDIDATE else 0.5)
                report = {
                    "name": f"{name}-{treatment}-r{rep}",
                    "rep": 1,
                    "passed": passed,
                    "checks_passed": [],
                    "checks_failed": [] if passed else ["validator failed"],
                    "sample_quality": {
                        "status": "included",
                        "reason_code": "valid_signal",
                        "include_in_analysis": True,
                    },
                    "events_summary": {
                        "case_manifest": manifests[name],
                        "artifact_references": {"raw_stdout": f"raw/{stem}_stdout.json"},
                    },
                }
                (folder / "reports" / f"{stem}_report.json").write_text(json.dumps(report, indent=2))
    return sides[CANDIDATE], sides[BASELINE]


def read_floor(folders: list[Path]) -> float:
    """Seconds to read every input byte and json.loads every report and stdout line."""
    start = time.perf_counter()
    for folder in folders:
        for path in sorted((folder / "reports").iterdir()):
            json.loads(path.read_bytes())
        json.loads((folder / "expected-case-matrix.json").read_bytes())
        for path in sorted((folder / "raw").iterdir()):
            for line in path.read_bytes().decode("utf-8").strip().split("\n"):
                json.loads(line)
    return time.perf_counter() - start


def run_compare(candidate: Path, baseline: Path) -> float:
    command = [
        sys.executable,
        "-m",
        "generator",
        "compare",
        "--candidate",
        str(candidate),
        "--candidate-treatment",
        CANDIDATE,
        "--baseline",
        str(baseline),
        "--baseline-treatment",
        BASELINE,
        "--format",
        "json",
    ]
    start = time.perf_counter()
    subprocess.run(command, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--stdout-bytes", type=int, default=20_000)
    parser.add_argument("--keep", metavar="DIR", help="build the data here and keep it")
    args = parser.parse_args()
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="evalsite-bench-"))
    try:
        if not (root / "candidate").exists():
            started = time.perf_counter()
            make_synthetic_pair(root, args.tasks, args.reps, args.stdout_bytes)
            print(f"generated {args.tasks} tasks x {args.reps} reps per side in {time.perf_counter() - started:.1f}s")
        size = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
        run_compare(root / "candidate", root / "baseline")  # warm the page cache once for both measurements
        floor = read_floor([root / "candidate", root / "baseline"])
        compare = run_compare(root / "candidate", root / "baseline")
        print(f"input: {size / 1e6:.0f} MB in {2 * args.tasks * args.reps} runs")
        print(f"floor (read + json.loads every byte): {floor:.2f}s")
        print(f"evalsite compare --format json:       {compare:.2f}s")
        print(f"ratio: {compare / floor:.2f}x (target <= 3x)")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
