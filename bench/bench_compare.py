#!/usr/bin/env python3
"""How close is ``evalsite compare --format json`` to the cost of merely parsing its input?

Builds (once, cached under /tmp/evalsite-bench) a large synthetic pair of
experiments (default 1,000 tasks x 10 repetitions per side, about 20 KB of
Claude stream-json per run, v2 case manifests, valid expected-case matrices),
then measures, as child processes in interleaved rounds (medians of three):

* the floors (``bench/floors.py``): read every input byte; read it and
  ``json.loads`` every report, matrix and stdout line (the issue's target);
  the same with ``orjson.loads`` (the parser family evalsite uses);
* ``evalsite compare --format json`` on the same folders.

It prints each median, each child's peak RSS (its largest process) and the ratios (target: at
most 1.0x the stdlib floor); and, from one more run, the peak of the PSS of all the product's
processes together.  The input size counts only the two input
folders.  Usage:

    python bench/bench_compare.py [--tasks 1000] [--reps 10] [--rounds 3] [--full] [--baseline-root OLD_CHECKOUT]

``--full`` adds 5,000 x 10 (the flat-memory row); ``--baseline-root`` times the same command from
another checkout (the code before a change) in the same rounds and prints the ratio.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from benchlib import cached, interleaved, ratio_line, run_child, size_of, tree_memory  # noqa: E402

from generator.model.common import sha256_bytes as sha256_text  # noqa: E402
from generator.read.comet.manifest import CORE_PARTS, SCHEMA_V2, canonical_hash  # noqa: E402
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
        # indented as a person would write it, unless that exceeds evalsite's 8 MiB matrix cap (100,000 cases)
        indent = 2 if len(cases) <= 50_000 else None
        (folder / "expected-case-matrix.json").write_text(
            json.dumps(matrix_payload(cases), indent=indent, sort_keys=True) + "\n"
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


def compare_command(candidate: Path, baseline: Path) -> list[str]:
    return [
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


def synthetic_pair(tasks: int, reps: int, stdout_bytes: int) -> Path:
    """The cached folder holding ``candidate/`` and ``baseline/`` of this size (generated once)."""
    return cached(
        f"compare-{tasks}x{reps}-{stdout_bytes}",
        lambda folder: make_synthetic_pair(folder, tasks, reps, stdout_bytes),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--stdout-bytes", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (the median is printed)")
    parser.add_argument("--full", action="store_true", help="also the 5,000 x 10 memory row (minutes)")
    parser.add_argument("--product-root", type=Path, default=ROOT, help="run evalsite from this checkout")
    parser.add_argument("--baseline-root", type=Path, help="also time compare from this checkout, interleaved")
    args = parser.parse_args()
    sizes = [(args.tasks, args.reps)] + ([(5000, args.reps)] if args.full else [])
    peaks: dict[int, int] = {}
    summed: dict[int, int] = {}
    for tasks, reps in sizes:
        root = synthetic_pair(tasks, reps, args.stdout_bytes)
        folders = [root / "candidate", root / "baseline"]
        size = size_of(*folders)
        floors = [sys.executable, str(ROOT / "bench" / "floors.py")]
        names = [str(folder) for folder in folders]
        run_child(compare_command(*folders), cwd=args.product_root)  # warm the page cache once for every figure
        jobs = {
            "floor: read every byte": partial(run_child, [*floors, "read", *names]),
            "floor: read + json.loads (stdlib)": partial(run_child, [*floors, "json", *names]),
            "floor: read + orjson.loads": partial(run_child, [*floors, "orjson", *names]),
            "evalsite compare --format json": partial(run_child, compare_command(*folders), cwd=args.product_root),
        }
        if args.baseline_root is not None:
            run_child(compare_command(*folders), cwd=args.baseline_root)  # its bytecode, once
            jobs["baseline: evalsite compare"] = partial(run_child, compare_command(*folders), cwd=args.baseline_root)
        series = interleaved(args.rounds, jobs)
        read, stdlib, fast, product = list(series.values())[:4]
        runs = 2 * tasks * reps
        print(f"compare at {tasks:,} tasks x {reps} reps: input {size / 1e6:.0f} MB in {runs:,} runs")
        print(f"medians of {args.rounds} interleaved rounds (child processes; peak RSS of each child):")
        for item in series.values():
            print("  " + item.line())
        print("  " + ratio_line("compare / stdlib json floor", product, stdlib, "target <= 1.0x"))
        print("  " + ratio_line("compare / orjson floor", product, fast, "same parser family"))
        print("  " + ratio_line("compare / read floor", product, read, "information"))
        if args.baseline_root is not None:
            baseline = series["baseline: evalsite compare"]
            print("  " + ratio_line("compare / baseline compare", product, baseline, "speed-up below 1"))
            print("  " + ratio_line("baseline compare / stdlib json floor", baseline, stdlib, "the same target before"))
        print(f"  peak RSS per run: {product.peak_rss / runs / 1e3:.1f} KB")
        together = tree_memory(compare_command(*folders), cwd=args.product_root)
        if together is not None:
            print(
                f"  all its processes together (one more run, PSS summed, sampled every 0.1 s): "
                f"peak {together[0] / 1e6:.0f} MB, up to {together[1]} processes (information)"
            )
            summed[tasks] = together[0]
        peaks[tasks] = product.peak_rss
    if len(peaks) > 1:
        small, large = sorted(peaks)
        print(
            f"peak RSS at {large:,} tasks / at {small:,} tasks: {peaks[large] / peaks[small]:.2f}x "
            f"(target <= 1.3x; {peaks[large] / 1e6:.0f} MB, target <= 300 MB)"
        )
        if len(summed) > 1:
            print(
                f"all processes together at {large:,} tasks / at {small:,} tasks: "
                f"{summed[large] / summed[small]:.2f}x ({summed[large] / 1e6:.0f} MB; information)"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
