#!/usr/bin/env python3
"""Write the bundled example build history ``examples/history/history.jsonl`` (deterministic).

Usage::

    python scripts/make_example_history.py [--check]

The history is made by the real build: the script copies ``site-config.yaml`` and ``examples/``
into a temporary folder, edits the copies of a few run reports for each *earlier* build, runs
:func:`generator.pipelines.build.build_site` once per build (``SOURCE_DATE_EPOCH`` fixed per build,
``GITHUB_SHA`` set to the fake revisions ``example1`` ... ``example4``), and keeps the history
those builds appended.  The four builds of the two varied subjects:

1. the inputs as they are;
2. **a dip inside the noise**: one passing run of one task fails (the trend shows it, unflagged;
   the task is marked flaky);
3. **a real regression**: every passing run of every task but the last (in file order) fails;
4. the inputs as they are again (an improvement back).

The varied subjects are the comparison ``native-vs-beta`` (its candidate treatment's reports in
``examples/experiments/native``; ``dynamic-vs-legacy`` reads the same folder, so it gets entries
too, with unchanged counts) and the leaderboard ``example-agents`` (system ``agent-a``).  Every
other subject has one entry.  Because build 4 reads the inputs unchanged, ``make site`` appends
nothing to the committed file: the script checks that with one more build of the repository's own
config into a temporary copy of the new history.

**Re-run it after changing any example input** (``make examples`` does, last): an input that no
longer matches its subject's last entry would make ``make site`` append an entry with the
checkout's real revision.  ``--check`` builds and compares without writing, exit 1 when the
committed file is out of date.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from generator.pipelines.build import build_site  # noqa: E402
from generator.read.config import load_config  # noqa: E402

TARGET = REPO / "examples" / "history" / "history.jsonl"
EPOCH = 1784000000  # 2026-07-14; build n is dated n days later
VARIED = (  # (experiment folder under examples/, treatment) whose reports the earlier builds edit
    ("experiments/native", "COMET_NATIVE_PHASE1"),
    ("leaderboard/agent-a", "LB_AGENT_A"),
)


def _reports(folder: Path, treatment: str) -> dict[str, list[Path]]:
    """The passing reports of *treatment* in *folder*, by task, in a fixed order."""
    found: dict[str, list[Path]] = {}
    for path in sorted((folder / "reports").glob(f"*_{treatment}_r*_report.json")):
        report = json.loads(path.read_text(encoding="utf-8"))
        if report.get("passed") is True:
            found.setdefault(path.name.split(f"_{treatment}_", 1)[0], []).append(path)
    return found


def _fail(path: Path) -> None:
    """Turn one passing report into a failing one, as the example generator writes failures."""
    report: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    report["passed"] = False
    report["checks_passed"] = ["[RUBRIC] completion: 0.50 - 1/2 checks"]
    report["checks_failed"] = ["validator: expected output differs (example history, an earlier build)"]
    summary = report.get("events_summary")
    if isinstance(summary, dict):
        summary["failure_attribution"] = [{"bucket": "task", "check": "validator", "reason": "validator failed"}]
    path.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def _dip(folder: Path, treatment: str) -> None:
    by_task = _reports(folder, treatment)
    task = next(t for t, paths in by_task.items() if len(paths) >= 2)
    _fail(by_task[task][0])


def _regression(folder: Path, treatment: str) -> None:
    by_task = _reports(folder, treatment)
    for task in list(by_task)[:-1]:
        for path in by_task[task]:
            _fail(path)


BUILDS: tuple[tuple[str, Callable[[Path, str], None] | None], ...] = (
    ("example1", None),
    ("example2", _dip),
    ("example3", _regression),
    ("example4", None),
)


@contextmanager
def _env(**values: str) -> Iterator[None]:
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _workspace(root: Path, edit: Callable[[Path, str], None] | None) -> Path:
    """A fresh copy of the example inputs in *root*/inputs (the history folder excluded), edited."""
    inputs = root / "inputs"
    if inputs.exists():
        shutil.rmtree(inputs)
    inputs.mkdir()
    shutil.copy2(REPO / "site-config.yaml", inputs / "site-config.yaml")
    shutil.copytree(REPO / "examples", inputs / "examples", ignore=shutil.ignore_patterns("history"), symlinks=True)
    (inputs / "examples" / "history").mkdir()
    if edit is not None:
        for folder, treatment in VARIED:
            edit(inputs / "examples" / folder, treatment)
    return inputs


def make_history(root: Path) -> Path:
    """Run the four builds in *root*; return the history file they appended to."""
    history = root / "history.jsonl"
    for number, (revision, edit) in enumerate(BUILDS, start=1):
        inputs = _workspace(root, edit)
        config = load_config(inputs / "site-config.yaml")
        if config.history is None:
            raise SystemExit("site-config.yaml has no 'history:' entry")
        with _env(SOURCE_DATE_EPOCH=str(EPOCH + number * 86400), GITHUB_SHA=revision, EVALSITE_NO_PROGRESS="1"):
            report = build_site(replace(config, history=history), root / "site")
        if report.warnings and number == 1:
            print(f"note: build {number}: {len(report.warnings)} warning(s): {report.warnings[0]}", file=sys.stderr)
        print(f"build {number} ({revision}): {report.history_appended} entr(y/ies) appended")
    return history


def _unchanged_by_make_site(history: Path, root: Path) -> int:
    """Build the repository's own config with a copy of *history*: how many entries it appends."""
    copy = root / "check.jsonl"
    shutil.copy2(history, copy)
    config = replace(load_config(REPO / "site-config.yaml"), history=copy)
    with _env(EVALSITE_NO_PROGRESS="1"):
        return build_site(config, root / "check-site").history_appended


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed file, write nothing")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="evalsite-history-") as temp:
        root = Path(temp)
        history = make_history(root)
        extra = _unchanged_by_make_site(history, root)
        if extra:
            print(f"error: a build of the repository's config would append {extra} entries", file=sys.stderr)
            return 2
        if args.check:
            same = TARGET.is_file() and filecmp.cmp(history, TARGET, shallow=False)
            print("examples/history/history.jsonl is " + ("up to date" if same else "out of date"))
            return 0 if same else 1
        TARGET.parent.mkdir(parents=True, exist_ok=True)
        staged = TARGET.with_name(f".{TARGET.name}.new")
        shutil.copyfile(history, staged)
        os.replace(staged, TARGET)
    lines = TARGET.read_text(encoding="utf-8").count("\n")
    print(f"wrote examples/history/history.jsonl ({lines} entries)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
