#!/usr/bin/env python3
"""The floor of a site build beyond its comparison: write a built site's bytes again, nothing rendered.

    python bench/site_floor.py CONFIG SITE OUT

Reads every file of the built site *SITE* (untimed), then writes the same files into the new folder
*OUT* the way ``evalsite build`` writes them: a staged folder swapped into place, every HTML and
Markdown page through the final redaction scan (``docs/security.md``: mandatory), every
``data.json`` through the same check of its strings (the comparison document's is walked string by
string), the assets as bytes, the manifest and
``SOURCE_DATE_EPOCH`` mtimes at the end.  No page model is built and nothing is rendered: what
this costs, any build of that site costs on top of its comparison, however fast its pages are made.
``tests/perf/test_site_floor.py`` checks that *OUT* ends up byte-identical to *SITE*, manifest
included.

Prints one JSON line: ``{"cpu": s, "seconds": s, "pages": n, "files": n, "bytes": n}`` (the
writing only, this process and its writer thread; one core).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from floors import files  # noqa: E402

from generator.read.config import load_config  # noqa: E402
from generator.write.site import JsonText, staged_site  # noqa: E402

_TEXT = (".html", ".md", ".txt")


def _files(site: Path) -> list[tuple[str, bytes]]:
    """Every file of *site* as the build wrote it, in path order; ``floors.files`` skips dot files,
    so the manifest (``.evalsite-site``, which the writer makes again) is left out."""
    return [(Path(path).relative_to(site).as_posix(), Path(path).read_bytes()) for path in files(str(site))]


def main() -> int:
    config_path, site, out = (Path(arg) for arg in sys.argv[1:4])
    redactor = load_config(config_path).redactor
    epoch_text = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    epoch = int(epoch_text) if epoch_text.isdigit() else None
    items: list[tuple[str, object]] = []
    for rel, data in _files(site):
        if rel.endswith(_TEXT):
            items.append((rel, data.decode("utf-8")))
        elif rel.endswith(".json"):  # a value and its text, as the build hands a comparison document over
            text = data.decode("utf-8")
            items.append((rel, JsonText(json.loads(text), text)))
        else:
            items.append((rel, data))
    pages = sum(1 for rel, _ in items if rel.endswith(".html"))
    wall, cpu = time.perf_counter(), time.process_time()
    with staged_site(out, epoch, redactor) as writer:
        for rel, content in items:
            if isinstance(content, str):
                writer.write_text(rel, content)
            elif isinstance(content, JsonText):
                writer.write_json(rel, content)
            else:
                assert isinstance(content, bytes)
                writer.write_bytes(rel, content)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    total = sum(writer.written.values())
    print(json.dumps({"cpu": cpu, "seconds": wall, "pages": pages, "files": len(items), "bytes": total}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
