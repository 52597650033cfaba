#!/usr/bin/env python3
"""What does each piece of speed machinery win?  Each command timed with it and without it.

Issue 27 asked for every bespoke speed mechanism to be kept only if it wins more than 10% of its
command's time.  This script times, in interleaved rounds (medians), each command as it is and
with one mechanism switched off by a patch applied in the child before the command runs, and
prints ``win = (without - with) / without`` for each.  The patches name the code of a checkout
that still holds the mechanisms: pass it as ``--product-root`` (issue 27 measured commit 00181c2,
the code before the one-pool change); on a checkout without them the script says which are gone.

    python bench/bench_mechanisms.py --product-root /path/to/checkout [--rounds 3] [--only NAME ...]

Mechanisms (command: what "without" means):

* ``scipy-helper`` (compare): no helper process imports scipy while the runs are read; the paired
  statistics are computed in the comparing process;
* ``telemetry-unrolled`` (compare): the raw stdout scan is the plain per-line loop (pre-filter and
  orjson kept) instead of the unrolled copy with its msgspec branch;
* ``compare-pool`` (compare): the reports are read in one process (information: the pool stays);
* ``bounds-helper`` (ledger summarize): numpy/scipy imported in the summarizing process;
* ``baseline-in-child`` (ledger summarize): the baseline arm counted in the summarizing process;
* ``receipt-templates`` (ledger summarize, ledger verify): every line parsed, none matched as bytes;
* ``writer-thread`` (build): files created by the rendering thread itself;
* ``digests-in-child`` (build): "Built from" digests walked in the building process;
* ``site-pool`` (build): pages rendered in one process (information: the pool stays).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_compare import BASELINE, CANDIDATE, synthetic_pair  # noqa: E402
from bench_ledger import bench_campaign  # noqa: E402
from benchlib import CACHE, Sample, Series, interleaved, remove, run_child, settle  # noqa: E402

_SERIAL = "lambda compute, force=False: (lambda value: (lambda: value))(compute())"

#: name -> (command kind, the patch run in the child before the command)
PATCHES: dict[str, tuple[tuple[str, ...], str]] = {
    "scipy-helper": (
        ("compare",),
        "import generator.pipelines.forked as f\nf.Helper.start = classmethod(lambda cls, *a, **k: None)",
    ),
    "telemetry-unrolled": (
        ("compare",),
        "import generator.read.comet.telemetry as t\n"
        "t._scan_fast = lambda text: t._scan(text, t._fast_line, prefilter=True)",
    ),
    "compare-pool": (("compare",), "import generator.pipelines.compare as c\nc._workers = lambda runs: 1"),
    "bounds-helper": (
        ("summarize",),
        "import generator.pipelines.ledger as l\nl._bounds_helper = lambda: None",
    ),
    "baseline-in-child": (("summarize",), f"import generator.pipelines.forked as f\nf.in_child = {_SERIAL}"),
    "receipt-templates": (
        ("summarize", "verify"),
        "import generator.analyze.ledger.checks as c\nc.Templates = lambda: None",
    ),
    "writer-thread": (
        ("build",),
        "import contextlib, generator.write.site as s\ns.SiteWriter.background = lambda self: contextlib.nullcontext()",
    ),
    "digests-in-child": (("build",), f"import generator.pipelines.build as b\nb.in_child = {_SERIAL}"),
    "site-pool": (("build",), "import generator.pipelines.site_pool as p\np.POOL_MIN_PAGES = 10**9"),
}


def _child(patch: str, arguments: list[str]) -> list[str]:
    code = f"{patch}\nfrom generator.cli import run\nrun()\n"
    return [sys.executable, "-c", code, *arguments]


def _frozen_ledger() -> Path:
    found = sorted(
        (path.parent for path in CACHE.glob("ledger-frozen-*/.complete")),
        key=lambda folder: int(folder.name.rsplit("-", 1)[1]),
    )
    if not found:
        raise SystemExit(f"no frozen ledger in {CACHE}: run bench/bench_ledger.py once first")
    return found[-1] / "ledger.jsonl"


def _works(root: Path, patch: str) -> bool:
    """Whether the patch names code that exists in *root* (imports and attributes resolve)."""
    import subprocess

    done = subprocess.run([sys.executable, "-c", patch], cwd=root, capture_output=True, check=False)
    return done.returncode == 0


def _report(root: Path, rounds: int, series: dict[str, Series], pairs: list[tuple[str, str, str, str]]) -> None:
    print(f"mechanisms of {root.name}, medians of {rounds} interleaved round(s):")
    for item in series.values():
        print("  " + item.line())
    print("win = (without - with) / without, of the command's wall time (and CPU time):")
    for name, command, with_it, without in pairs:
        on, off = series[with_it], series[without]
        win, cpu = (off.seconds - on.seconds) / off.seconds, (off.cpu - on.cpu) / off.cpu
        verdict = "above 10%" if win > 0.10 else "not above 10%"
        print(
            f"  {name:<20} {command:<9} with {on.seconds:6.2f} s, without {off.seconds:6.2f} s: "
            f"win {win:+.1%} wall ({verdict}), {cpu:+.1%} cpu; peak RSS {on.peak_rss / 1e6:.0f} vs "
            f"{off.peak_rss / 1e6:.0f} MB",
            flush=True,
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--product-root", type=Path, required=True, help="a checkout that holds the mechanisms")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--only", nargs="*", choices=sorted(PATCHES), help="these mechanisms only")
    args = parser.parse_args()
    root = args.product_root.resolve()
    chosen = args.only or list(PATCHES)
    data = synthetic_pair(args.tasks, args.reps, 20_000)
    work = Path(tempfile.mkdtemp(prefix="evalsite-bench-mechanisms-"))
    try:
        raw, _campaign = bench_campaign()
        campaign = work / "campaign.json"
        campaign.write_text(json.dumps(raw), encoding="utf-8")
        ledger = _frozen_ledger()
        config = work / "site.yaml"
        config.write_text(
            "title: Benchmark site\ntranscripts: false\ncomparisons:\n  - id: synthetic\n    title: Synthetic pair\n"
            f"    candidate: {{experiment: {data / 'candidate'}, treatment: {CANDIDATE}}}\n"
            f"    baseline: {{experiment: {data / 'baseline'}, treatment: {BASELINE}}}\n"
        )
        sites = iter(range(10**6))
        commands: dict[str, Callable[[], list[str]]] = {
            "compare": lambda: [
                "compare",
                "--candidate",
                str(data / "candidate"),
                "--candidate-treatment",
                CANDIDATE,
                "--baseline",
                str(data / "baseline"),
                "--baseline-treatment",
                BASELINE,
                "--format",
                "json",
            ],
            "summarize": lambda: [
                "ledger",
                "summarize",
                "--campaign",
                str(campaign),
                "--ledger",
                str(ledger),
                "--json",
            ],
            "verify": lambda: ["ledger", "verify", "--campaign", str(campaign), "--ledger", str(ledger)],
            "build": lambda: ["build", "--config", str(config), "--out", str(work / f"site-{next(sites)}")],
        }

        def timed(patch: str, command: str) -> Sample:
            return run_child(_child(patch, commands[command]()), cwd=root)

        jobs: dict[str, Callable[[], Sample]] = {}
        pairs: list[tuple[str, str, str, str]] = []
        used = {command for name in chosen for command in PATCHES[name][0]}
        for command in ("compare", "summarize", "verify", "build"):
            if command in used:
                jobs[f"{command}: as it is"] = partial(timed, "", command)
        for name in chosen:
            kinds, patch = PATCHES[name]
            if not _works(root, patch):
                print(f"{name}: not in {root.name} (nothing to switch off)")
                continue
            for command in kinds:
                label = f"{command}: without {name}"
                jobs[label] = partial(timed, patch, command)
                pairs.append((name, command, f"{command}: as it is", label))
        settle(work)
        for command in used:  # warm the page cache and the bytecode once
            timed("", command)
        series: dict[str, Series] = {}
        for number in range(args.rounds):  # the figures so far after each round (a busy machine is slow)
            for name, item in interleaved(1, jobs).items():
                series.setdefault(name, Series(name)).samples.extend(item.samples)
            _report(root, number + 1, series, pairs)
    finally:
        remove(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
