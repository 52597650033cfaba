#!/usr/bin/env python3
"""What does rendering the site cost on top of the cores it renders?

Builds, in one run:

* the large synthetic experiment pair of ``bench/bench_compare.py``
  (default 1,000 tasks x 10 repetitions per side, ~20 KB of stdout per run);
* a 100,000-receipt ledger (baseline + one candidate, 1,000 cases, 50
  repeats each, realistic latency/usage/decoding fields);

then times, as subprocesses on a warm page cache:

* ``evalsite compare --format json`` on the pair,
* ``evalsite ledger summarize --json`` on the ledger,
* ``evalsite build`` of a site holding both,

and prints the build time as a ratio to compare + summarize (target <= 2x),
the total site size and the largest page.  Usage:

    python bench/bench_site.py [--tasks 1000] [--reps 10] [--receipts 100000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_compare import BASELINE, CANDIDATE, make_synthetic_pair  # noqa: E402

from generator.analyze.ledger.schema import canonical_text, parse_campaign  # noqa: E402
from tests.support.ledger_synth import arm, make_campaign, make_receipt, realistic_fields, unit  # noqa: E402


def make_ledger(folder: Path, receipts: int) -> tuple[Path, Path]:
    """A campaign and a ledger of about *receipts* receipts (two arms, 1,000 cases)."""
    folder.mkdir(parents=True, exist_ok=True)
    cases, kill = 1000, 4
    repeats = max(1, receipts // (2 * cases))
    manifest = make_campaign(
        campaign_id="bench-campaign",
        defect_cases=700,
        clean_cases=cases - 700 - kill,
        kill_cases=kill,
        candidates=[arm("candidate")],
        thresholds={"qualityRepetitions": 10, "killRepetitions": 3},
    )
    campaign_path = folder / "campaign.json"
    campaign_path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    campaign = parse_campaign(manifest)
    ledger_path = folder / "receipts.jsonl"
    with open(ledger_path, "w", encoding="utf-8") as out:
        for arm_id in ("codex-baseline", "candidate"):
            for case in manifest["cases"]:
                for repeat in range(1, repeats + 1):
                    fields = realistic_fields(arm_id, case["caseId"], repeat)
                    if case["kind"] == "defect" and unit(arm_id, case["caseId"], repeat, "miss") < 0.08:
                        fields["detectedDefects"] = []
                        fields["blockingFindingCount"] = 0
                    if case["kind"] == "clean" and unit(arm_id, case["caseId"], repeat, "fp") < 0.03:
                        fields["blockingFindingCount"] = 1
                    receipt = make_receipt(campaign, arm_id, case["caseId"], repeat, **fields)
                    out.write(canonical_text(receipt) + "\n")
    return campaign_path, ledger_path


def timed(command: list[str]) -> float:
    env = dict(os.environ, CI="true")  # no progress bar
    start = time.perf_counter()
    subprocess.run(command, check=True, cwd=ROOT, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--stdout-bytes", type=int, default=20_000)
    parser.add_argument("--receipts", type=int, default=100_000)
    parser.add_argument("--keep", metavar="DIR", help="build the data here and keep it")
    args = parser.parse_args()
    root = Path(args.keep).resolve() if args.keep else Path(tempfile.mkdtemp(prefix="evalsite-bench-site-"))
    try:
        if not (root / "candidate").exists():
            started = time.perf_counter()
            make_synthetic_pair(root, args.tasks, args.reps, args.stdout_bytes)
            print(f"generated {args.tasks} tasks x {args.reps} reps per side in {time.perf_counter() - started:.1f}s")
        if not (root / "ledger" / "receipts.jsonl").exists():
            started = time.perf_counter()
            make_ledger(root / "ledger", args.receipts)
            print(f"generated a {args.receipts:,}-receipt ledger in {time.perf_counter() - started:.1f}s")
        (root / "site-config.yaml").write_text(
            "title: Benchmark site\n"
            "comparisons:\n"
            "  - id: synthetic\n"
            "    title: Synthetic pair\n"
            f"    candidate: {{experiment: candidate, treatment: {CANDIDATE}}}\n"
            f"    baseline: {{experiment: baseline, treatment: {BASELINE}}}\n"
            "ledgers:\n"
            "  - id: synthetic-ledger\n"
            "    title: Synthetic ledger\n"
            "    campaign: ledger/campaign.json\n"
            "    ledger: ledger/receipts.jsonl\n"
        )
        py = [sys.executable, "-m", "generator"]
        compare = py + [
            "compare",
            "--candidate",
            str(root / "candidate"),
            "--candidate-treatment",
            CANDIDATE,
            "--baseline",
            str(root / "baseline"),
            "--baseline-treatment",
            BASELINE,
            "--format",
            "json",
        ]
        summarize = py + [
            "ledger",
            "summarize",
            "--campaign",
            str(root / "ledger" / "campaign.json"),
            "--ledger",
            str(root / "ledger" / "receipts.jsonl"),
            "--json",
        ]
        build = py + ["build", "--config", str(root / "site-config.yaml"), "--out", str(root / "_site")]
        timed(compare)  # warm the page cache for every measurement
        t_compare = timed(compare)
        t_summarize = timed(summarize)
        t_build = timed(build)
        site = root / "_site"
        files = [p for p in site.rglob("*") if p.is_file()]
        pages = [p for p in files if p.suffix == ".html"]
        largest = max(pages, key=lambda p: p.stat().st_size)
        task_pages = [p for p in pages if "/tasks/" in p.as_posix()]
        largest_task = max(task_pages, key=lambda p: p.stat().st_size) if task_pages else None
        total = sum(p.stat().st_size for p in files)
        html_total = sum(p.stat().st_size for p in pages)
        print(f"compare --format json : {t_compare:6.2f}s")
        print(f"ledger summarize --json: {t_summarize:6.2f}s")
        print(f"build (both entries)  : {t_build:6.2f}s")
        print(f"ratio build / (compare + summarize) = {t_build / (t_compare + t_summarize):.2f} (target <= 2)")
        print(
            f"site: {len(pages):,} pages, {len(files):,} files, {total / 1e6:.1f} MB total "
            f"({html_total / 1e6:.1f} MB HTML, "
            f"plotly.min.js {(site / 'assets' / 'plotly.min.js').stat().st_size / 1e6:.1f} MB)"
        )
        print(f"largest page: {largest.relative_to(site).as_posix()} {largest.stat().st_size / 1e3:.0f} KB")
        if largest_task is not None:
            print(f"largest task page: {largest_task.stat().st_size / 1e3:.0f} KB (target < 200 KB)")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
