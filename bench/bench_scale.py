#!/usr/bin/env python3
"""Does a site of 100,000 runs a side build within GitHub Pages' limits (issue 30)?

Generates look-alike data once (cached under /tmp/evalsite-bench, ``benchlib.cached``):

* Comet: ``bench/bench_compare.py``'s synthetic pair at 10,000 tasks x 10 repetitions a side
  (~20 KB of Claude stream-json per run, about 4 GB in 400,000 files);
* Inspect: two ``.eval`` logs of 10,000 sample ids x 10 epochs a side.  Writing 100,000 samples with
  the real inspect-ai would take far longer than the build it feeds, so the logs are written directly
  in its format: every member (header, samples, summaries, reductions) is a member of
  ``bench/bench_inspect.py``'s cached 2,000-sample log, written by the real inspect-ai (its
  ``--inspect-python``), with the ids, epochs and scores changed, deflate-compressed (a reader takes
  both; inspect-ai itself writes zstd).

Then it builds each site once, as a large team would (``transcripts: sample``, ``run_pages: auto``,
which groups the runs per task above 2,000 published transcripts), into a new folder, and prints
the wall time, the peak of the summed PSS of the build and all its worker processes (sampled every
0.1 s, ``benchlib.TreeWatch``), its largest process's peak RSS, and the site's files and bytes
against the targets: 10 minutes, 500 MB, 1 GB, 100,000 files.  Usage:

    python bench/bench_scale.py [--tasks 10000] [--reps 10] [--only comet|inspect] [--policy sample]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_compare import BASELINE, CANDIDATE, synthetic_pair  # noqa: E402
from benchlib import CACHE, QUIET_ENV, TIME, TreeWatch, cached, remove, settle  # noqa: E402

TARGETS = {"seconds": 600.0, "pss": 500e6, "bytes": 1e9, "files": 100_000}
_RSS_MARK = "EVALSITE_BENCH_MAXRSS_KB "


def _inspect_members(log: Path) -> dict[str, bytes]:
    """Every member of a log written by inspect-ai, decompressed (zstd members by their raw bytes)."""
    import zstandard

    data = log.read_bytes()
    out = {}
    with zipfile.ZipFile(log) as archive:
        for info in archive.infolist():
            if info.compress_type == 93:
                start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
                raw = data[start : start + info.compress_size]
                out[info.filename] = zstandard.ZstdDecompressor().decompressobj().decompress(raw)
            else:
                out[info.filename] = archive.read(info)
    return out


def _write_inspect(folder: Path, ids: int, epochs: int, template: Path) -> None:
    """Two logs of *ids* samples x *epochs*, members shaped as *template*'s (a real inspect-ai log)."""
    members = _inspect_members(template)
    header = json.loads(members["header.json"])
    sample = json.loads(members["samples/1_epoch_1.json"])
    summary = json.loads(members["summaries.json"])[0]
    for side, right in (("candidate", 0.62), ("baseline", 0.55)):
        rng = random.Random(f"{side}-{ids}-{epochs}")
        head = json.loads(json.dumps(header))
        head["eval"]["dataset"].update(samples=ids, sample_ids=list(range(1, ids + 1)))
        head["eval"]["config"]["epochs"] = epochs
        head["results"].update(total_samples=ids * epochs, completed_samples=ids * epochs)
        summaries = []
        with zipfile.ZipFile(folder / f"{side}.eval", "w", zipfile.ZIP_DEFLATED, compresslevel=1) as out:
            for epoch in range(1, epochs + 1):
                for number in range(1, ids + 1):
                    ok = rng.random() < right
                    answer = "yes" if ok else "no"
                    sample.update(id=number, epoch=epoch)
                    sample["input"] = f"Question {number}: is the statement number {number} true? Answer yes or no."
                    sample["scores"]["match"].update(value="C" if ok else "I", answer=answer, explanation=answer)
                    sample["scores"]["closeness"]["value"] = 1.0 if ok else 0.5 if number % 3 else 0.0
                    out.writestr(f"samples/{number}_epoch_{epoch}.json", json.dumps(sample))
                    summaries.append(dict(summary, id=number, epoch=epoch, scores=sample["scores"]))
            out.writestr("summaries.json", json.dumps(summaries))
            out.writestr("reductions.json", members["reductions.json"])
            out.writestr("header.json", json.dumps(head))


def _config(root: Path, name: str, sides: dict[str, str], policy: str) -> Path:
    path = root / f"{name}.yaml"
    text = (
        f"title: Scale bench\ntranscripts: {policy}\nrun_pages: auto\ncomparisons:\n  - id: {name}\n    title: {name}\n"
    )
    for side, spec in sides.items():
        text += f"    {side}: {spec}\n"
    path.write_text(text)
    return path


def measure(command: list[str], every: float = 0.1) -> tuple[float, int, int, str]:
    """One run of *command*: wall seconds, the peak summed PSS of it and its descendants, the largest
    process's peak RSS (``/usr/bin/time``), and its stderr's last line."""
    wrapped = [TIME, "-f", f"{_RSS_MARK}%M", *command] if TIME else command
    start = time.perf_counter()
    proc = subprocess.Popen(wrapped, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=QUIET_ENV, cwd=ROOT)
    watch = TreeWatch(proc.pid, every)
    assert proc.stderr is not None
    err = proc.stderr.read().decode(errors="replace")
    proc.wait()
    seconds = time.perf_counter() - start
    peak, _most = watch.stop()
    if proc.returncode != 0:
        raise SystemExit(f"build failed ({proc.returncode}): {err[-2000:]}")
    rss = 0
    lines = err.splitlines()
    for line in lines:
        if line.startswith(_RSS_MARK):
            rss = int(line[len(_RSS_MARK) :]) * 1024
    said = [line for line in lines if line.strip() and not line.startswith(_RSS_MARK)]
    return seconds, peak, rss, said[-1].strip() if said else ""


def _site_size(site: Path) -> tuple[int, int]:
    files = total = 0
    for folder, _dirs, names in os.walk(site):
        for name in names:
            files += 1
            total += os.lstat(os.path.join(folder, name)).st_size
    return files, total


def _report(name: str, runs: int, seconds: float, pss: int, rss: int, files: int, size: int, said: str) -> bool:
    checks = [
        ("time", f"{seconds:,.0f} s", f"<= {TARGETS['seconds']:.0f} s", seconds <= TARGETS["seconds"]),
        ("peak PSS, all processes", f"{pss / 1e6:,.0f} MB", "<= 500 MB", pss <= TARGETS["pss"]),
        ("site bytes", f"{size / 1e6:,.0f} MB", "<= 1,000 MB", size <= TARGETS["bytes"]),
        ("site files", f"{files:,}", "<= 100,000", files <= TARGETS["files"]),
    ]
    print(f"{name}: {runs:,} runs a side; {said}")
    print(f"  largest process's peak RSS {rss / 1e6:,.0f} MB (information)")
    for what, got, target, ok in checks:
        print(f"  {what:<26} {got:>12}   target {target:<12} {'PASS' if ok else 'FAIL'}")
    return all(ok for *_, ok in checks)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=10_000, help="tasks (Inspect: sample ids) a side")
    parser.add_argument("--reps", type=int, default=10, help="repetitions (Inspect: epochs)")
    parser.add_argument("--stdout-bytes", type=int, default=20_000)
    parser.add_argument("--policy", default="sample", help="the transcripts: policy of the build")
    parser.add_argument("--only", choices=("comet", "inspect"), help="one variant only")
    parser.add_argument("--keep", action="store_true", help="keep the built sites (their folder is printed)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="evalsite-bench-scale-"))
    runs = args.tasks * args.reps
    variants: dict[str, dict[str, str]] = {}
    if args.only in (None, "comet"):
        data = synthetic_pair(args.tasks, args.reps, args.stdout_bytes)
        variants["comet"] = {
            "candidate": f"{{experiment: {data / 'candidate'}, treatment: {CANDIDATE}}}",
            "baseline": f"{{experiment: {data / 'baseline'}, treatment: {BASELINE}}}",
        }
    if args.only in (None, "inspect"):
        template = CACHE / "inspect-2000" / "candidate.eval"  # bench/bench_inspect.py's, by inspect-ai
        if not (template.parent / ".complete").is_file():
            raise SystemExit("run bench/bench_inspect.py once first: its log (by the real inspect-ai) is the template")
        logs = cached(
            f"scale-inspect-{args.tasks}x{args.reps}", lambda f: _write_inspect(f, args.tasks, args.reps, template)
        )
        variants["inspect"] = {
            side: f"{{experiment: {logs / (side + '.eval')}, treatment: {side}, format: inspect}}"
            for side in ("candidate", "baseline")
        }
    ok = True
    try:
        for name, sides in variants.items():
            config = _config(work, name, sides, args.policy)
            site = work / f"site-{name}"
            settle(work)
            seconds, pss, rss, said = measure(
                [sys.executable, "-m", "generator", "build", "--config", str(config), "--out", str(site)]
            )
            files, size = _site_size(site)
            ok &= _report(f"{name} (transcripts: {args.policy})", runs, seconds, pss, rss, files, size, said)
            if not args.keep:
                remove(site)
    finally:
        if args.keep:
            print(f"sites kept in {work}")
        else:
            remove(work)
    # The incremental-rebuild and split-then-merge figures: bench/bench_incremental.py (make bench-scale runs both).
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
