"""Sites built once per test run and read by every test that needs them, across pytest-xdist workers.

A session fixture runs once per worker; a site built with :func:`built_once` runs once per run: the
first worker to ask builds it into the run's shared temporary folder under a file lock, the others wait
for the lock and read what it left (the recipe of pytest-xdist's docs, with ``fcntl`` instead of the
``filelock`` package).  The site is shared, so tests only read it; a test that changes a site copies
it first.  Each example site costs 3 to 4 CPU-seconds to build; six test files read the two below.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from generator.pipelines.build import BuildReport, build_site
from generator.read.config import SiteConfig, load_config

__all__ = ["EPOCH", "REPO", "Built", "bare_example_config", "built_once", "example_config"]

REPO = Path(__file__).resolve().parents[2]
EPOCH = "1700000000"


@dataclass(frozen=True)
class Built:
    """A shared site and what its build reported (the fields tests read)."""

    site: Path
    pages: int
    files: int
    warnings: list[str]
    history_appended: int
    redacted: dict[str, int]


def _shared_root(factory: pytest.TempPathFactory) -> Path:
    """The folder every worker of this run sees (a worker's own temporary root is inside it)."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def built_once(factory: pytest.TempPathFactory, name: str, config: Callable[[Path], SiteConfig]) -> Built:
    """The site of ``config(folder)`` built into ``folder/_site`` with ``SOURCE_DATE_EPOCH`` set, once
    per run; *folder* is this site's own and holds whatever inputs *config* writes there."""
    folder = _shared_root(factory) / f"shared-{name}"
    done = folder / "built.json"
    with open(folder.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists():
            folder.mkdir(exist_ok=True)
            with pytest.MonkeyPatch.context() as patch:
                patch.setenv("SOURCE_DATE_EPOCH", EPOCH)
                report: BuildReport = build_site(config(folder), folder / "_site")
            fields = {
                "pages": report.pages,
                "files": report.files,
                "warnings": report.warnings,
                "history_appended": report.history_appended,
                "redacted": report.redacted,
            }
            done.write_text(json.dumps(fields), encoding="utf-8")
    return Built(site=folder / "_site", **json.loads(done.read_text(encoding="utf-8")))


def example_config(folder: Path) -> SiteConfig:
    """``site-config.yaml`` with a copy of the committed example history in *folder*: trend pages are
    built, and the committed file is never appended to."""
    history = folder / "history.jsonl"
    history.write_bytes((REPO / "examples" / "history" / "history.jsonl").read_bytes())
    return replace(load_config(REPO / "site-config.yaml"), history=history)


def bare_example_config(folder: Path) -> SiteConfig:
    """``site-config.yaml`` without a history (no trend pages)."""
    return replace(load_config(REPO / "site-config.yaml"), history=None)
