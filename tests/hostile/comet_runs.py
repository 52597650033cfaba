"""Small Comet experiment pairs for the hostile-input tests (issue 11, items 6, 7, 8, 11, 12).

``pair(tmp, tasks)`` writes one candidate and one baseline run per task with
the builders of ``tests/compare/comet_fixtures.py``; ``edit_report`` and
``write_stdout`` then plant the hostile value.  ``compare`` and ``build`` run
the real pipelines.
"""

from __future__ import annotations

import io
import json
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "compare"))

from comet_fixtures import BASE, CAND, write_run  # noqa: E402

from generator.cli import main  # noqa: E402
from generator.model.comparison import ComparisonInputs  # noqa: E402
from generator.pipelines.compare import ComparisonOutput, run_comparison  # noqa: E402

__all__ = ["BASE", "CAND", "build", "compare", "edit_report", "pair", "stdout_of", "write_stdout"]


def pair(root: Path, tasks: list[str], *, candidate_passes: bool = True) -> dict[str, Path]:
    """One candidate and one baseline run per task; returns candidate report paths by task."""
    reports = {}
    for task in tasks:
        reports[task] = write_run(root / "cand", task, CAND, 1, candidate_passes)
        write_run(root / "base", task, BASE, 1, False)
    return reports


def edit_report(path: Path, **changes: Any) -> None:
    """Set top-level report fields (``name`` is given as the task part only); written with ASCII escapes."""
    report = json.loads(path.read_text())
    if "name" in changes:
        changes["name"] = f"{changes['name']}-{CAND}-r1"
        report["events_summary"]["case_manifest"] = None  # the manifest names the old task
    report.update(changes)
    path.write_text(json.dumps(report))


def stdout_of(report: Path) -> Path:
    return Path(json.loads(report.read_text())["events_summary"]["artifact_references"]["raw_stdout"])


def write_stdout(report: Path, text: str) -> None:
    stdout_of(report).write_text(text)


def compare(root: Path, *, tasks: Path | None = None) -> ComparisonOutput:
    return run_comparison(
        ComparisonInputs(
            candidate_dir=root / "cand",
            candidate_treatment=CAND,
            baseline_dir=root / "base",
            baseline_treatment=BASE,
            tasks_dir=tasks,
        )
    )


def build(root: Path, *, tasks: bool = False) -> tuple[int, str, Path]:
    """Build a one-comparison site from ``root``; return (exit code, stderr, output folder)."""
    config = root / "site.yaml"
    config.write_text(
        "title: hostile\ncomparisons:\n  - id: a\n    title: a\n"
        f"    candidate: {{experiment: cand, treatment: {CAND}}}\n"
        f"    baseline: {{experiment: base, treatment: {BASE}}}\n" + ("    tasks: tasks\n" if tasks else ""),
        encoding="utf-8",
    )
    err = io.StringIO()
    with redirect_stderr(err), redirect_stdout(io.StringIO()):
        code = main(["build", "--config", str(config), "--out", str(root / "out")])
    return code, err.getvalue(), root / "out"
