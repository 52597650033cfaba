#!/usr/bin/env python3
"""What does a leaderboard site cost on top of its alignment and statistics?

Writes a look-alike leaderboard (default 13 systems x 80 tasks x 5 repetitions, minimal Comet
reports, fixed seed) into a temporary folder, then measures in one process, in interleaved rounds
(medians of three by default; wall and CPU time, the build's forked page writers included):

* ``compute_leaderboard``: reading every report, the strict per-system and per-pair alignment,
  every metric, paired test, correction and tier ("alignment and statistics alone");
* ``build_site`` of a site holding only that leaderboard (pages, data.json, report.md, assets);

and prints the build time as a ratio to the first (target <= 2x), the page count (target <= 1,500)
and the site size (target <= 60 MB).  With ``--realdata`` it does the same for the nine
Terminal-Bench 1.0 systems in ``../shared/realdata`` (read in place, never copied).

    python bench/bench_leaderboard.py [--systems 13] [--tasks 80] [--reps 5] [--realdata]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from benchlib import remove, settle  # noqa: E402

from generator.model.leaderboard import LeaderboardInputs, SystemSpec  # noqa: E402
from generator.pipelines.build import BuildReport, build_site  # noqa: E402
from generator.pipelines.leaderboard import compute_leaderboard  # noqa: E402
from generator.read.config import parse_config  # noqa: E402

REALDATA = ROOT.parent / "shared" / "realdata" / "terminal-bench-1" / "experiments"


def make_systems(root: Path, systems: int, tasks: int, reps: int) -> list[tuple[str, Path, str]]:
    rng = random.Random(20260812)
    difficulty = [rng.uniform(0.05, 0.95) for _ in range(tasks)]
    out = []
    for index in range(systems):
        label, treatment = f"system-{index:02d}", f"SYSTEM_{index:02d}"
        skill = rng.uniform(-0.25, 0.25)
        reports = root / label / "reports"
        reports.mkdir(parents=True)
        for t, p in enumerate(difficulty):
            for rep in range(1, reps + 1):
                passed = rng.random() < min(1.0, max(0.0, p + skill))
                name = f"task-{t:03d}-{treatment}-r{rep}"
                report = {"name": name, "passed": passed, "checks_failed": [] if passed else ["tests_failed"]}
                (reports / f"{name}.json").write_text(json.dumps(report), encoding="utf-8")
        out.append((label, root / label, treatment))
    return out


def _cpu() -> float:
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def _timed(job: Callable[[], object]) -> tuple[float, float]:
    """Wall and CPU seconds of *job* (the build's forked page writers included: they are waited for)."""
    wall, cpu = time.perf_counter(), _cpu()
    job()
    return time.perf_counter() - wall, _cpu() - cpu


def _spread(samples: list[tuple[float, float]]) -> str:
    return ", ".join(f"{wall:.2f}" for wall, _ in samples)


def measure(systems: list[tuple[str, Path, str]], work: Path, name: str, rounds: int = 3) -> None:
    inputs = LeaderboardInputs(tuple(SystemSpec(label, path, t) for label, path, t in systems), baseline=systems[0][0])
    config = parse_config(
        {
            "title": "bench",
            "leaderboards": [
                {
                    "id": "bench",
                    "title": name,
                    "systems": [
                        {"label": label, "experiment": str(path), "treatment": t} for label, path, t in systems
                    ],
                    "baseline": systems[0][0],
                }
            ],
        },
        work,
    )
    core: list[tuple[float, float]] = []  # (wall, cpu) per round
    build: list[tuple[float, float]] = []
    report = None
    settle(work)
    for attempt in range(rounds):  # interleaved: load on the machine hits both figures alike
        core.append(_timed(lambda: compute_leaderboard(inputs)))
        site = work / f"site-{attempt}"
        holder: list[BuildReport] = []
        build.append(_timed(lambda site=site, holder=holder: holder.append(build_site(config, site))))
        report = holder[0]
    assert report is not None
    wall_core, wall_build = statistics.median(w for w, _ in core), statistics.median(w for w, _ in build)
    cpu_core, cpu_build = statistics.median(c for _, c in core), statistics.median(c for _, c in build)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(f"{name}: {len(systems)} systems, medians of {rounds} interleaved rounds")
    print(f"  alignment + statistics alone: {wall_core:.2f}s (cpu {cpu_core:.2f}s)   wall: {_spread(core)}")
    print(f"  site build:                   {wall_build:.2f}s (cpu {cpu_build:.2f}s)   wall: {_spread(build)}")
    print(
        f"  ratio build / core:           {wall_build / wall_core:.2f}x wall (target <= 2x); "
        f"{cpu_build / cpu_core:.2f}x cpu"
    )
    print(f"  peak RSS of this process: {peak / 1e6:.0f} MB")
    print(f"  pages: {report.pages:,} (target <= 1,500); files: {report.files:,}")
    print(
        f"  size: {report.total_bytes / 1e6:.1f} MB (target <= 60 MB); "
        f"largest page {report.largest_page[1] / 1e3:.0f} KB"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=13)
    parser.add_argument("--tasks", type=int, default=80)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--realdata", action="store_true", help="also measure the nine Terminal-Bench systems")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (medians are printed)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="evalsite-bench-leaderboard-"))
    try:
        systems = make_systems(work / "systems", args.systems, args.tasks, args.reps)
        measure(systems, work, f"look-alike {args.tasks} tasks x {args.reps} reps", args.rounds)
        if args.realdata:
            if not REALDATA.is_dir():
                print("realdata: ../shared/realdata is not present; skipped")
            else:
                real = [(p.name, p, p.name) for p in sorted(REALDATA.iterdir()) if p.is_dir()]
                real_work = work / "real"
                real_work.mkdir()
                measure(real, real_work, "Terminal-Bench 1.0 (realdata)", args.rounds)
    finally:
        remove(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
