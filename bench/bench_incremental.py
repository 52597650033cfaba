#!/usr/bin/env python3
"""What do incremental rebuilds and split builds cost against a full build? (issue 30)

A site of ten comparisons of look-alike Comet data (``bench_compare.make_synthetic_pair``, ~20 KB of
stdout per run, run pages on), each comparison reading its own copy; then, as child processes in
interleaved rounds (medians, peak RSS of each child):

* ``full``: ``evalsite build`` into a new folder;
* ``no change``: ``evalsite build`` over the site it wrote, nothing changed (target <= 10% of full);
* ``one changed``: one report of comparison 3 edited (valid JSON, other bytes), then ``evalsite build``
  over the site (target <= 1.3x ``only``);
* ``only``: that comparison alone, ``evalsite build --only c03`` into a new part folder;
* ``split``: two parts of five comparisons each (``build --only``, one after the other here; CI
  runs them side by side), then ``merge`` (``merge``); printed as the sum and as the critical path
  (the slower part plus the merge) against ``full``.

Every merged site is checked byte for byte against the full build of the same inputs.  Usage:

    python bench/bench_incremental.py [--tasks 60] [--reps 3] [--comparisons 10] [--rounds 3]
"""

from __future__ import annotations

import argparse
import filecmp
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_compare import BASELINE, CANDIDATE, make_synthetic_pair  # noqa: E402
from benchlib import CACHE, QUIET_ENV, Sample, Series, cached, interleaved, remove, run_child, settle  # noqa: E402

QUIET_ENV["SOURCE_DATE_EPOCH"] = "1700000000"  # the same bytes from every build of the same inputs


def _site(tasks: int, reps: int, stdout_bytes: int, comparisons: int) -> Path:
    """The cached folder: ``pair/`` copied once per comparison, and ``site-config.yaml``."""

    def make(folder: Path) -> None:
        pair = folder / "pair"
        make_synthetic_pair(pair, tasks, reps, stdout_bytes)
        lines = ["title: Incremental bench", "comparisons:"]
        for number in range(1, comparisons + 1):
            name = f"c{number:02d}"
            shutil.copytree(pair, folder / name)
            lines += [
                f"  - id: {name}",
                f"    title: Comparison {number}",
                f"    candidate: {{experiment: {name}/candidate, treatment: {CANDIDATE}}}",
                f"    baseline: {{experiment: {name}/baseline, treatment: {BASELINE}}}",
            ]
        (folder / "site-config.yaml").write_text("\n".join(lines) + "\n")
        remove(pair)

    return cached(f"incremental-{comparisons}x{tasks}x{reps}-{stdout_bytes}", make)


def _build(root: Path, out: Path, *extra: str) -> Sample:
    command = [sys.executable, "-m", "generator", "build", "--config", str(root / "site-config.yaml")]
    return run_child([*command, "--out", str(out), *extra])


def _merge(root: Path, out: Path, parts: list[Path]) -> Sample:
    command = [sys.executable, "-m", "generator", "merge", *map(str, parts)]
    return run_child([*command, "--config", str(root / "site-config.yaml"), "--out", str(out)])


def _same(a: Path, b: Path) -> bool:
    compared = filecmp.dircmp(a, b)
    stack = [compared]
    while stack:
        item = stack.pop()
        if item.left_only or item.right_only or item.funny_files:
            return False
        if filecmp.cmpfiles(item.left, item.right, item.common_files, shallow=False)[1:] != ([], []):
            return False
        stack.extend(item.subdirs.values())
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=60)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--stdout-bytes", type=int, default=20_000)
    parser.add_argument("--comparisons", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (the median is printed)")
    args = parser.parse_args()
    root = _site(args.tasks, args.reps, args.stdout_bytes, args.comparisons)
    work = CACHE / "incremental-work"
    remove(work)
    work.mkdir(parents=True)
    settle(work)
    site = work / "site"
    _build(root, site)  # the site every rebuild starts from
    edited = next((root / "c03" / "candidate" / "reports").iterdir())
    original = edited.read_bytes()
    counter = {"round": 0}
    names = [f"c{number:02d}" for number in range(1, args.comparisons + 1)]
    halves = [names[: len(names) // 2], names[len(names) // 2 :]]
    part_samples: list[list[Sample]] = [[], []]

    def fresh(name: str) -> Path:
        counter["round"] += 1
        return work / f"{name}-{counter['round']}"

    def changed() -> Sample:
        # another valid report each round (a trailing newline or not): comparison 3 alone has changed
        edited.write_bytes(original + b"\n" if edited.read_bytes() == original else original)
        return _build(root, site)

    def split() -> Sample:
        parts = []
        for number, half in enumerate(halves):
            part = fresh(f"part{number}")
            part_samples[number].append(_build(root, part, *(f"--only={name}" for name in half)))
            parts.append(part)
        return _merge(root, fresh("merged"), parts)

    series = interleaved(
        args.rounds,
        {
            "full": lambda: _build(root, fresh("full")),
            "no change": lambda: _build(root, site),
            "one changed": changed,
            "only": lambda: _build(root, fresh("only"), "--only=c03"),
            "merge (after two parts)": split,
        },
    )
    edited.write_bytes(original)
    full, same, one, only, merge = series.values()
    parts = [Series(f"part {n + 1} ({len(h)} comparisons)", part_samples[n]) for n, h in enumerate(halves)]
    runs = 2 * args.tasks * args.reps
    print(f"{args.comparisons} comparisons of {args.tasks} tasks x {args.reps} reps ({runs:,} runs each), run pages on")
    for item in (full, same, one, only, *parts, merge):
        print(item.line())
    print(f"ratio no change / full: {same.seconds / full.seconds:.3f} (target <= 0.10); cpu {same.cpu / full.cpu:.3f}")
    ratio = f"{one.seconds / only.seconds:.2f}x (target <= 1.3x); cpu {one.cpu / only.cpu:.2f}x"
    print(f"ratio one changed / only: {ratio}")
    total = sum(p.seconds for p in parts) + merge.seconds
    path = max(p.seconds for p in parts) + merge.seconds
    print(f"split then merge / full: {total / full.seconds:.2f}x summed, {path / full.seconds:.2f}x critical path")
    # untimed, on the original inputs: the rebuilt and the merged site against a full build
    _build(root, site)
    reference = fresh("reference")
    _build(root, reference, "--full")
    split()
    merged = max(work.glob("merged-*"), key=lambda p: int(p.name.rsplit("-", 1)[1]))
    print(f"rebuilt site byte-identical to the full build: {_same(site, reference)}")
    print(f"merged site byte-identical to the full build: {_same(merged, reference)}")
    remove(work)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
