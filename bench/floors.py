#!/usr/bin/env python3
"""Floors for bench_compare.py, each run as its own process: read every input byte, and parse it.

    python bench/floors.py {read,json,orjson} FOLDER_OR_FILE...

``read`` only reads every regular file given or under the folders; ``json`` also parses every
report and matrix file whole and every line of a raw stdout or ``.jsonl`` file with the standard
library's ``json.loads``; ``orjson`` parses the same bytes with ``orjson.loads`` (the parser
evalsite uses where it can).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any


def files(folder: str) -> Iterator[str]:
    if os.path.isfile(folder):
        yield folder
        return
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames.sort()
        for name in sorted(filenames):
            if not name.startswith("."):
                yield os.path.join(dirpath, name)


def main() -> int:
    mode, folders = sys.argv[1], sys.argv[2:]
    loads: Callable[[Any], Any] | None
    if mode == "read":
        loads = None
    elif mode == "json":
        loads = json.loads
    else:
        import orjson

        loads = orjson.loads
    total = 0
    for folder in folders:
        for path in files(folder):
            with open(path, "rb") as handle:
                data = handle.read()
            total += len(data)
            if loads is None:
                continue
            if path.endswith(("_stdout.json", ".jsonl")):
                for line in data.decode("utf-8").strip().split("\n"):
                    loads(line)
            else:
                loads(data.decode("utf-8"))
    return 0 if total else 1


if __name__ == "__main__":
    sys.exit(main())
