#!/usr/bin/env python3
"""Benchmark-ledger timings: append latency against ledger size, and summarize at 100,000 receipts.

Usage::

    python bench/bench_ledger.py [--large 100000] [--small 100] [--appends 41] [--cli-appends 21]
                                 [--reference PATH | --no-reference] [--keep DIR] [--rounds 3]
    python bench/bench_ledger.py --frozen [--rounds 3]   # only the summarize/verify and start-up figures

``--frozen`` reuses the ledger an earlier full run cached (``ledger-frozen-N`` in the bench cache)
with the same campaign (made again; it is deterministic), and times one CLI ``append`` against
Python's own start (``python -c pass``).

All numbers come from this one run and are printed as ratios; nothing here is
a pass/fail test.  Both ledgers share one campaign (1,000 cases), so only the
ledger's size differs.  Each timed append adds a new receipt to a ledger whose
lookup cache is already built (the one-off build is reported separately);
every append takes the lock, checks duplicates and reruns, writes, and fsyncs.
Appends alternate between the two ledgers, so that load from other processes
on the machine affects both sizes alike.

When the upstream reference tool is available (default: ../shared/reference/
ledger_reference.py next to the repository), it is timed on smaller ledgers
for comparison: its append re-reads the whole ledger, and its summarize
overflows past ~1,030 binomial trials, so it cannot run at these sizes.
"""

from __future__ import annotations

import argparse
import gc
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from benchlib import BYTECODE_NOTE, CACHE, cached, interleaved, ratio_line, remove, run_child  # noqa: E402

from generator.analyze.ledger.schema import canonical_text, parse_campaign  # noqa: E402
from generator.pipelines.ledger import append_receipt  # noqa: E402
from tests.support.ledger_synth import arm, make_campaign, make_receipt  # noqa: E402

DEFAULT_REFERENCE = REPO.parent / "shared" / "reference" / "ledger_reference.py"


def grid(campaign, arms, limit, repeats):
    """The first ``limit`` receipts of an arm x case x repeat grid."""
    out = []
    gc.disable()
    try:
        for arm_id in arms:
            for case in campaign.manifest["cases"]:
                count = 3 if case["kind"] == "kill_path" else repeats
                for repeat in range(1, count + 1):
                    out.append(make_receipt(campaign, arm_id, case["caseId"], repeat))
                    if len(out) == limit:
                        return out
    finally:
        gc.enable()
    return out


def write_ledger(path: Path, receipts) -> None:
    with open(path, "wb") as handle:
        for item in receipts:
            handle.write((canonical_text(item) + "\n").encode("utf-8"))


def fresh_receipts(campaign, count, start):
    quality = [c["caseId"] for c in campaign.manifest["cases"] if c["kind"] != "kill_path"]
    return [make_receipt(campaign, "candidate", quality[i % len(quality)], start + i) for i in range(count)]


def time_api_appends(ledger: Path, campaign, receipts) -> list[float]:
    times = []
    for item in receipts:
        began = time.perf_counter()
        result = append_receipt(ledger, campaign, item)
        times.append(time.perf_counter() - began)
        assert result.appended
    return times


def time_cli_appends(ledger: Path, campaign_path: Path, receipts, command) -> list[float]:
    times = []
    for item in receipts:
        data = json.dumps(item).encode("utf-8")
        began = time.perf_counter()
        proc = subprocess.run(
            [*command, "append", "--campaign", str(campaign_path), "--ledger", str(ledger)],
            input=data,
            capture_output=True,
            check=False,
        )
        times.append(time.perf_counter() - began)
        if proc.returncode != 0:
            raise SystemExit(f"append failed: {proc.stderr.decode()}")
    return times


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large", type=int, default=100_000)
    parser.add_argument("--small", type=int, default=100)
    parser.add_argument("--appends", type=int, default=41, help="timed in-process appends per ledger size")
    parser.add_argument("--cli-appends", type=int, default=21, help="timed CLI appends per ledger size")
    parser.add_argument("--reference", type=Path, default=DEFAULT_REFERENCE)
    parser.add_argument("--no-reference", action="store_true")
    parser.add_argument("--keep", type=Path, help="build the ledgers here and keep them")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds of the summarize figures")
    parser.add_argument("--product-root", type=Path, default=REPO, help="summarize/verify from this checkout")
    parser.add_argument(
        "--baseline-root", type=Path, help="also time summarize/verify from this checkout (the code before a change)"
    )
    parser.add_argument(
        "--summarize-only",
        nargs=2,
        type=Path,
        metavar=("CAMPAIGN", "LEDGER"),
        help="only the summarize/verify figures, on this campaign and ledger",
    )
    parser.add_argument(
        "--frozen", action="store_true", help="only the figures on the cached frozen ledger, and CLI start-up"
    )
    args = parser.parse_args()
    command = [sys.executable, "-m", "generator", "ledger"]
    if args.frozen:
        return frozen_section(args.rounds, command, args.product_root, args.baseline_root)
    if args.summarize_only:
        campaign_file, ledger_file = args.summarize_only
        summarize_section(args.rounds, campaign_file, ledger_file, command, args.product_root, args.baseline_root)
        return 0

    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-ledger-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        raw, campaign = bench_campaign()
        campaign_path = work / "campaign.json"
        campaign_path.write_text(json.dumps(raw), encoding="utf-8")
        repeats = -(-args.large // (2 * 996)) + 1
        print(f"building ledgers of {args.small} and {args.large} receipts (campaign of 1,000 cases) ...", flush=True)
        began = time.perf_counter()
        everything = grid(campaign, ["codex-baseline", "candidate"], args.large, repeats)
        print(f"  generated {len(everything)} receipts in {time.perf_counter() - began:.1f} s", flush=True)
        ledgers = {}
        for size in (args.small, args.large):
            path = work / f"ledger-{size}.jsonl"
            write_ledger(path, everything[:size])
            ledgers[size] = path
        del everything

        builds: dict[int, float] = {}
        api: dict[int, list[float]] = {args.small: [], args.large: []}
        cli: dict[int, list[float]] = {args.small: [], args.large: []}
        extra = {
            size: fresh_receipts(campaign, 1 + args.appends + args.cli_appends, 1000 + n * 500)
            for n, size in enumerate((args.small, args.large))
        }
        for size in (args.small, args.large):
            began = time.perf_counter()
            append_receipt(ledgers[size], campaign, extra[size][0])  # builds the lookup cache once
            builds[size] = time.perf_counter() - began
        # Alternate between the two ledgers so that load from other processes hits both alike.
        for i in range(args.appends):
            for size in (args.small, args.large):
                api[size] += time_api_appends(ledgers[size], campaign, [extra[size][1 + i]])
        for i in range(args.cli_appends):
            for size in (args.small, args.large):
                receipt = extra[size][1 + args.appends + i]
                cli[size] += time_cli_appends(ledgers[size], campaign_path, [receipt], command)
        api_median = {size: statistics.median(values) for size, values in api.items()}
        cli_median = {size: statistics.median(values) for size, values in cli.items()}

        print()
        print("evalsite ledger benchmark (one run)")
        small, large = args.small, args.large
        print(
            f"append, in-process API (median of {args.appends}): {ms(api_median[small])} at {small} receipts, "
            f"{ms(api_median[large])} at {large} -> ratio {api_median[large] / api_median[small]:.2f}"
        )
        print(
            f"append, one CLI process each (median of {args.cli_appends}): {ms(cli_median[small])} at {small}, "
            f"{ms(cli_median[large])} at {large} -> ratio {cli_median[large] / cli_median[small]:.2f}"
        )
        print(
            f"one-off lookup-cache build on first append: {builds[args.small]:.2f} s at {args.small}, "
            f"{builds[args.large]:.2f} s at {args.large}"
        )

        summarize_section(
            args.rounds, campaign_path, ledgers[args.large], command, args.product_root, args.baseline_root
        )

        if not args.no_reference and args.reference.is_file():
            compare_reference(args.reference, work, command)
        elif not args.no_reference:
            print("reference tool not found; skipped the comparison")
    finally:
        if not args.keep:
            remove(work)
    return 0


def summarize_section(
    rounds: int,
    campaign_path: Path,
    ledger: Path,
    command: list[str],
    product_root: Path = REPO,
    baseline_root: Path | None = None,
) -> None:
    """``summarize`` and ``verify`` against the read and per-line parse floors, interleaved.

    With ``baseline_root``, the same two commands from that checkout are timed in the same rounds.
    """
    floors = [sys.executable, str(REPO / "bench" / "floors.py")]
    count = ledger.read_bytes().count(b"\n")
    # the ledger as it is now (after the appends), copied aside so every figure reads the same bytes
    frozen = cached(f"ledger-frozen-{count}", lambda folder: shutil.copy(ledger, folder / "ledger.jsonl"))
    path = frozen / "ledger.jsonl"
    common = ["--campaign", str(campaign_path), "--ledger", str(path)]
    figures = {
        "floor: read the ledger": lambda: run_child([*floors, "read", str(path)]),
        "floor: json.loads per line (stdlib)": lambda: run_child([*floors, "json", str(path)]),
        "floor: orjson.loads per line": lambda: run_child([*floors, "orjson", str(path)]),
        "evalsite ledger summarize --json": lambda: run_child(
            [*command, "summarize", *common, "--json"], cwd=product_root
        ),
        "evalsite ledger verify": lambda: run_child([*command, "verify", *common], cwd=product_root),
    }
    if baseline_root is not None:
        root = baseline_root
        figures["baseline: summarize --json"] = lambda: run_child([*command, "summarize", *common, "--json"], cwd=root)
        figures["baseline: verify"] = lambda: run_child([*command, "verify", *common], cwd=root)
    series = interleaved(rounds, figures)
    _read, stdlib, fast, summarize, verify = list(series.values())[:5]
    print(f"summarize and verify at {count:,} receipts ({path.stat().st_size / 1e6:.0f} MB), medians of {rounds}:")
    for item in series.values():
        print("  " + item.line())
    for name, item in (("summarize", summarize), ("verify", verify)):
        print(f"  {name}: {item.seconds:.2f} s (target < 3 s), peak RSS {item.peak_rss / 1e6:.0f} MB (target < 300 MB)")
    print("  " + ratio_line("summarize / stdlib json floor", summarize, stdlib, "information"))
    print("  " + ratio_line("summarize / orjson floor", summarize, fast, "same parser family"))
    print("  " + ratio_line("verify / stdlib json floor", verify, stdlib, "information"))
    print("  " + ratio_line("verify / orjson floor", verify, fast, "same parser family"))
    if baseline_root is not None:
        print("  " + ratio_line("summarize / baseline", summarize, series["baseline: summarize --json"], "speed-up"))
        print("  " + ratio_line("verify / baseline", verify, series["baseline: verify"], "speed-up"))


def bench_campaign():
    """The raw campaign of the full run (deterministic), and its parsed form."""
    raw = make_campaign(
        campaign_id="bench-ledger",
        defect_cases=600,
        clean_cases=396,
        candidates=[arm("candidate")],
        thresholds={"qualityRepetitions": 10},
    )
    return raw, parse_campaign(raw)


def frozen_section(rounds: int, command: list[str], product_root: Path, baseline_root: Path | None) -> int:
    """summarize/verify on the cached frozen ledger, then one CLI append against Python's start."""
    found = [path.parent for path in CACHE.glob("ledger-frozen-*/.complete")]
    counts = [int(folder.name.rsplit("-", 1)[1]) for folder in found if folder.name.rsplit("-", 1)[1].isdigit()]
    if not counts:
        print(f"no frozen ledger in {CACHE}: run the full benchmark once first", file=sys.stderr)
        return 2
    ledger = CACHE / f"ledger-frozen-{max(counts)}" / "ledger.jsonl"  # the largest
    raw, campaign = bench_campaign()
    with tempfile.TemporaryDirectory(prefix="bench-ledger-") as folder:
        work = Path(folder)
        campaign_path = work / "campaign.json"
        campaign_path.write_text(json.dumps(raw), encoding="utf-8")
        summarize_section(rounds, campaign_path, ledger, command, product_root, baseline_root)
        startup_section(max(rounds, 5), campaign, campaign_path, work, command, product_root)
    return 0


def startup_section(
    rounds: int, campaign, campaign_path: Path, work: Path, command: list[str], product_root: Path
) -> None:
    """One ``ledger append`` CLI process (a new receipt each time, small ledger) against ``python -c pass``.

    Children run with their bytecode cached, as an installed package does (``benchlib.QUIET_ENV``);
    the same call compiling every module from source at each start (``PYTHONDONTWRITEBYTECODE=1``
    and no cache, as this sandbox runs Python) is printed for information.
    """
    receipts = iter(fresh_receipts(campaign, 2 * rounds + 1, 1))
    from_source = ["env", "-u", "PYTHONPYCACHEPREFIX", "PYTHONDONTWRITEBYTECODE=1"]

    def append(prefix: list[str], ledger: Path) -> Any:
        return run_child(
            [*prefix, *command, "append", "--campaign", str(campaign_path), "--ledger", str(ledger)],
            cwd=product_root,
            stdin=json.dumps(next(receipts)).encode("utf-8"),
        )

    append([], work / "cached.jsonl")  # writes the bytecode
    figures = {
        "floor: python -c pass": lambda: run_child([sys.executable, "-c", "pass"]),
        "evalsite ledger append (CLI)": lambda: append([], work / "cached.jsonl"),
        "evalsite ledger append (CLI, from source)": lambda: append(from_source, work / "startup.jsonl"),
    }
    series = interleaved(rounds, figures)
    print(f"CLI start-up, medians of {rounds} ({BYTECODE_NOTE}):")
    for item in series.values():
        print("  " + item.line())
    floor, warm, cold = series.values()
    for name, item in (("append", warm), ("append, compiled from source", cold)):
        print(f"  {name}: {(item.seconds - floor.seconds) * 1000:.0f} ms more than Python's start")


def compare_reference(script: Path, work: Path, command) -> None:
    """Upstream on ledgers it can handle: appends at 100 and 1,000 receipts, summarize at ~600."""
    raw = make_campaign(
        campaign_id="bench-ledger-reference", defect_cases=16, clean_cases=12, candidates=[arm("candidate")]
    )
    campaign = parse_campaign(raw)
    campaign_path = work / "reference-campaign.json"
    campaign_path.write_text(json.dumps(raw), encoding="utf-8")
    everything = grid(campaign, ["codex-baseline", "candidate"], 10**9, 20)
    reference_cmd = [sys.executable, str(script)]
    appends = {}
    for size in (100, 1000):
        path = work / f"reference-{size}.jsonl"
        write_ledger(path, everything[:size])
        extra = fresh_receipts(campaign, 5, 300 + size)
        appends[size] = statistics.median(time_cli_appends(path, campaign_path, extra, reference_cmd))
    sized = work / "reference-summary.jsonl"
    write_ledger(sized, everything[:600])
    timings = {}
    for name, cmd in (("reference", reference_cmd), ("evalsite", command)):
        began = time.perf_counter()
        proc = subprocess.run(
            [*cmd, "summarize", "--campaign", str(campaign_path), "--ledger", str(sized)],
            capture_output=True,
            check=False,
        )
        timings[name] = time.perf_counter() - began
        if proc.returncode != 0:
            raise SystemExit(f"{name} summarize failed: {proc.stderr.decode()}")
    print(
        f"reference, append as a CLI process (median of 5): {ms(appends[100])} at 100 receipts, "
        f"{ms(appends[1000])} at 1000 -> ratio {appends[1000] / appends[100]:.2f}"
    )
    print(
        f"summarize at 600 receipts as a CLI process: reference {timings['reference']:.2f} s, "
        f"evalsite {timings['evalsite']:.2f} s"
    )


if __name__ == "__main__":
    sys.exit(main())
