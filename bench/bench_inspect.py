#!/usr/bin/env python3
"""How close is an Inspect comparison to the cost of merely reading and parsing its two logs?

Writes (once, cached under /tmp/evalsite-bench) two ``.eval`` logs with the real inspect-ai: the
same task of ``--samples`` / 2 samples over two epochs (default 2,000 samples a side), answered by a
fixed solver (no model call, so the logs are inspect-ai's own format at the size a real run of
that many samples has, without its cost), scored by ``match`` and a numeric scorer, the
candidate right more often than the baseline.  Then it measures, as child processes in
interleaved rounds (medians):

* the floor: open each zip, zstd-decompress every member and ``json.loads`` it (the standard
  library's parser, as issue 29 states the target);
* ``evalsite compare --format json`` on the two logs;
* the import floor of the statistics: a child that only imports numpy and ``scipy.special`` (whose
  ufuncs compute every quantile, tail and bound; ``scipy.stats`` and ``scipy.optimize`` are not
  imported, see ``analyze/stats/dist.py``), the part of the compare no reading can speed up.

It prints the medians, the peak RSS of each child and the ratio (target: at most 1.5x the floor),
and what the import floor alone is of the floor.
Usage:

    python bench/bench_inspect.py [--samples 2000] [--rounds 3] [--inspect-python PATH]
    python bench/bench_inspect.py --floor A.eval B.eval       # the floor alone (what the rounds run)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import zipfile
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from benchlib import cached, interleaved, ratio_line, run_child, size_of  # noqa: E402

# The log writer runs in a child with inspect-ai imported (evalsite never imports it).
_WRITER = r"""
import sys
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageAssistant, ModelOutput
from inspect_ai.scorer import Score, Target, match, mean, scorer
from inspect_ai.solver import Generate, TaskState, solver

side, count, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
right = 0.62 if side == "candidate" else 0.55

def answer(sample_id, epoch):
    # a fixed pseudo-random draw per (sample, epoch, side): the same logs on every run
    draw = ((sample_id * 2654435761 + epoch * 40503 + (7 if side == "candidate" else 0)) % 1000) / 1000
    return "yes" if draw < right else "no"

@solver
def fixed():
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        text = answer(int(state.sample_id), state.epoch)
        state.messages.append(ChatMessageAssistant(content=text, model="mockllm/model"))
        state.output = ModelOutput.from_content(model="mockllm/model", content=text)
        return state
    return solve

@scorer(metrics=[mean()])
def closeness():
    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=1.0 if state.output.completion == target.text else 0.5 if int(state.sample_id) % 3 else 0.0)
    return score

samples = [Sample(id=i, input=f"Question {i}: is the statement number {i} true? Answer yes or no.", target="yes")
           for i in range(1, count + 1)]
task = Task(dataset=samples, solver=fixed(), scorer=[match(), closeness()], epochs=2, name="bench")
eval(task, model="mockllm/model", log_dir=out, log_format="eval", display="none", max_samples=64)
"""


def _write_logs(folder: Path, samples: int, python: str) -> None:
    for side in ("candidate", "baseline"):
        out = folder / side
        subprocess.run(
            [python, "-c", _WRITER, side, str(samples // 2), str(out)],
            check=True,
            cwd=folder,
        )
        (log,) = out.glob("*.eval")
        log.rename(folder / f"{side}.eval")
        out.rmdir()


def floor(paths: list[str]) -> int:
    """Open each log, decompress every member and ``json.loads`` it; print the member count."""
    import zstandard

    members = 0
    for path in paths:
        data = Path(path).read_bytes()
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                if info.compress_type == 93:  # zstd: the raw member bytes follow its local header
                    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
                    raw = data[start : start + info.compress_size]
                    text = zstandard.ZstdDecompressor().decompressobj().decompress(raw)
                else:
                    text = archive.read(info)
                json.loads(text)
                members += 1
    print(members)
    return 0


def compare_command(candidate: Path, baseline: Path) -> list[str]:
    return [
        sys.executable, "-m", "generator", "compare",
        "--candidate", str(candidate), "--candidate-treatment", "candidate", "--candidate-format", "inspect",
        "--baseline", str(baseline), "--baseline-treatment", "baseline", "--baseline-format", "inspect",
        "--format", "json",
    ]  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=2000, help="samples a side (sample ids x 2 epochs)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (the median is printed)")
    parser.add_argument(
        "--inspect-python",
        default=os.environ.get("INSPECT_PYTHON", sys.executable),
        help="a Python with inspect-ai installed, to write the logs (default: $INSPECT_PYTHON or this one)",
    )
    parser.add_argument("--floor", nargs="+", metavar="LOG", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.floor:
        return floor(args.floor)
    folder = cached(f"inspect-{args.samples}", lambda path: _write_logs(path, args.samples, args.inspect_python))
    logs = [folder / "candidate.eval", folder / "baseline.eval"]
    run_child(compare_command(*logs))  # warm the page cache and the bytecode once
    series = interleaved(
        args.rounds,
        {
            "floor: unzip + zstd + json.loads": partial(
                run_child, [sys.executable, str(Path(__file__)), "--floor", *map(str, logs)]
            ),
            "evalsite compare --format json": partial(run_child, compare_command(*logs)),
            "import numpy, scipy.special (import floor)": partial(
                run_child, [sys.executable, "-c", "import numpy, scipy.special"]
            ),
        },
    )
    floor_series, product, imports = series.values()
    print(f"Inspect compare at {args.samples:,} samples a side: logs {size_of(folder) / 1e6:.1f} MB (zstd)")
    print(f"medians of {args.rounds} interleaved rounds (child processes; peak RSS of each child):")
    for item in series.values():
        print("  " + item.line())
    print("  " + ratio_line("compare / floor", product, floor_series, "target <= 1.5x"))
    print("  " + ratio_line("import floor / floor", imports, floor_series, "before any log is read"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
