#!/usr/bin/env python3
"""How fast are run pages and redaction on the largest transcript a comparison reads (64 MiB)?

Generates (in a temporary folder) a Claude stream-json transcript of about 64 MiB (many tool calls
with ~50 KB outputs, each cut on the page), then measures, in this process:

* the floor: ``json.loads`` of every line;
* ``parse_transcript`` (the run-page reader) and its ratio to the floor;
* ``Redactor.redact`` over the whole raw text (MB/s);
* a whole site build of the bundled native-vs-beta comparison with that transcript in place of one
  run's raw stdout: seconds, files, the largest file (the budget is 2 MB) and peak RSS.

Usage: ``python bench/bench_transcripts.py [--mib 64]``
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "transcripts"))

from test_transcripts import _big_transcript, _example_copy  # noqa: E402

from generator.model.redaction import Redactor  # noqa: E402
from generator.pipelines.build import build_site  # noqa: E402
from generator.read.config import load_config  # noqa: E402
from generator.read.transcripts import parse_transcript  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=64)
    args = parser.parse_args()
    data = _big_transcript(args.mib * 1024 * 1024 - 200_000)
    mb = len(data) / 1e6
    started = time.perf_counter()
    for line in data.splitlines():
        if line:
            json.loads(line)
    floor = time.perf_counter() - started
    started = time.perf_counter()
    parse_transcript(data)
    parse = time.perf_counter() - started
    started = time.perf_counter()
    Redactor().redact(data.decode("utf-8"))
    redact = time.perf_counter() - started
    print(f"transcript: {mb:.1f} MB")
    print(f"json.loads floor: {floor:.2f}s; parse_transcript: {parse:.2f}s (ratio {parse / floor:.2f}x)")
    print(f"redaction over the raw text: {redact:.2f}s ({mb / redact:.1f} MB/s)")
    tmp = Path(tempfile.mkdtemp(prefix="evalsite-bench-transcripts-"))
    try:
        config = _example_copy(tmp)
        raw = sorted((tmp / "inputs" / "experiments" / "native" / "raw").glob("*_stdout.json"))[0]
        raw.write_bytes(data)
        del data
        out = tmp / "site"
        started = time.perf_counter()
        build_site(load_config(config), out)
        build = time.perf_counter() - started
        files = [p for p in out.rglob("*") if p.is_file()]
        largest = max(files, key=lambda p: p.stat().st_size)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        print(
            f"site build with it: {build:.2f}s, {len(files)} files, largest {largest.stat().st_size:,} bytes "
            f"({largest.relative_to(out).as_posix()}), peak RSS {rss} MiB"
        )
    finally:
        shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
