"""Which reader reads a side: ``load_side(format, ...)`` and ``run_telemetry(format, ...)``.

``format`` is one of :data:`~generator.model.formats.FORMATS`, or ``auto``: the format is then
detected from the path, and only when exactly one format fits (otherwise a one-line error names
the candidates).  Every reader returns the same :class:`~generator.model.runs.Experiment`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from generator.model.common import Side
from generator.model.errors import EvalsiteError
from generator.model.formats import FORMATS, REPORTED, ImportOptions
from generator.model.runs import Artifact, CaseManifest, Experiment, RunRecord
from generator.read.comet.experiment import load_experiment, read_run_telemetry
from generator.read.comet.telemetry import extract_telemetry
from generator.read.harbor.job import is_harbor_job, load_harbor
from generator.read.inspect.log import is_inspect_log, load_inspect
from generator.read.records.reader import load_records
from generator.read.safe_io import Refusal, read_contained
from generator.read.swebench.run import is_swebench, load_swebench

__all__ = [
    "AUTO",
    "MAX_AGENT_STDOUT_BYTES",
    "check_shape",
    "detect_format",
    "file_hint",
    "load_side",
    "looks_like",
    "run_telemetry",
]

AUTO = "auto"
MAX_AGENT_STDOUT_BYTES = 64 * 1024 * 1024


def _is_comet(path: Path) -> bool:
    return path.is_dir() and (path / "reports").is_dir()


_TESTS: dict[str, Callable[[Path], bool]] = {
    "comet": _is_comet,
    "inspect": is_inspect_log,
    "harbor": is_harbor_job,
    "swebench": is_swebench,
}


def detect_format(path: Path) -> str:
    """The one format ``path`` fits; an error when none or several fit."""
    found = [name for name, test in _TESTS.items() if test(path)]
    if len(found) == 1:
        return found[0]
    what = "no known format" if not found else f"several formats ({', '.join(found)})"
    raise EvalsiteError(f"{path.name!r} fits {what}: give its format ({', '.join(FORMATS)})")


_FOLDER_FORMATS = {"comet": "a Comet experiment", "harbor": "a Harbor job"}
_LOOKS_LIKE = {
    "comet": "a Comet experiment",
    "inspect": "an Inspect log",
    "harbor": "a Harbor job",
    "swebench": "a SWE-bench run",
}


def check_shape(fmt: str, side: str, path: Path) -> None:
    """Refuse, with the format to set, a file given where the format needs a folder.

    Comet experiments and Harbor jobs are folders; a file given as one (an Inspect ``.json`` log with
    no ``format:``, say) would otherwise read "is not a folder" with no word of what to do.  The
    message names what the path looks like (by the same tests ``auto`` uses) and the option to set.
    """
    if fmt not in _FOLDER_FORMATS or not path.is_file():
        return
    fits = looks_like(path, but_not=fmt)
    hint = (
        f"; it looks like {_LOOKS_LIKE[fits]}: set --{side}-format {fits} (format: {fits} in the site config)"
        if fits is not None
        else f"; give its format with --{side}-format ({', '.join(FORMATS)}), or format: in the site config"
    )
    raise EvalsiteError(f"{side} input {path.name!r} is a file, but {_FOLDER_FORMATS[fmt]} is a folder{hint}")


def looks_like(path: Path, *, but_not: str = "") -> str | None:
    """The one format (other than *but_not*) that *path* fits by the tests ``auto`` uses, if exactly one."""
    fits = [name for name, test in _TESTS.items() if name != but_not and test(path)]
    return fits[0] if len(fits) == 1 else None


def file_hint(path: Path) -> str:
    """What to set when a file is given where a folder format (the default, comet) is assumed."""
    fits = looks_like(path, but_not="comet")
    if fits is not None:
        return f"; it looks like {_LOOKS_LIKE[fits]}: set format: {fits}"
    files = ", ".join(name for name in FORMATS if name not in _FOLDER_FORMATS)
    return f"; a Comet experiment is a folder: for a file, set format: to its format ({files})"


def load_side(
    fmt: str,
    side: Side,
    path: Path,
    treatment: str,
    *,
    options: ImportOptions,
    manifest_for: Callable[[str], CaseManifest],
) -> tuple[str, Experiment]:
    """The side's format (as detected, for ``auto``) and its runs."""
    if fmt == AUTO:
        fmt = detect_format(path)
    check_shape(fmt, side, path)
    if fmt == "comet":
        return fmt, load_experiment(side, path, treatment, manifest_for=manifest_for)
    if fmt == "inspect":
        return fmt, load_inspect(side, path, treatment, options)
    if fmt == "harbor":
        return fmt, load_harbor(side, path, treatment, options)
    if fmt == "swebench":
        return fmt, load_swebench(side, path, treatment, options)
    if fmt == "records":  # never detected by auto: any JSONL or CSV would fit
        return fmt, load_records(side, path, treatment, options)
    raise EvalsiteError(f"unknown {side} format {fmt!r} (use one of: {', '.join(FORMATS)}, {AUTO})")


def _from_agent_stdout(experiment: Experiment, relative: str, reported: dict[str, Any]) -> Artifact | None:
    root = str(experiment.root)
    path = os.path.normpath(os.path.join(root, relative))
    data = read_contained(path, root, max_bytes=MAX_AGENT_STDOUT_BYTES, root_is_resolved=True)
    if isinstance(data, Refusal):
        return None
    telemetry = extract_telemetry(data.decode("utf-8", errors="replace"))
    if telemetry["subject_invocations"] == 0:
        return None
    return Artifact("verified", None, telemetry, reported)


def telemetry_reads_file(fmt: str, record: RunRecord) -> bool:
    """Whether :func:`run_telemetry` reads a file for this run (Comet's raw stdout, an imported agent stdout)."""
    report = record.report
    return fmt == "comet" or (
        isinstance(report.get("agent_stdout"), str) and isinstance(report.get("reported_telemetry"), dict)
    )


def run_telemetry(fmt: str, experiment: Experiment, record: RunRecord, *, rebase: bool) -> Artifact:
    """One paired run's telemetry: re-derived from agent stdout where the format holds it, else as reported."""
    if fmt == "comet":
        return read_run_telemetry(experiment, record, rebase=rebase)
    reported = record.report.get("reported_telemetry")
    if isinstance(reported, dict) and telemetry_reads_file(fmt, record):
        derived = _from_agent_stdout(experiment, record.report["agent_stdout"], reported)
        if derived is not None:
            return derived
    if isinstance(reported, dict):
        source = str(reported.get("source") or "reported by the harness")
        return Artifact(REPORTED, source, None, reported)
    return Artifact("absent", f"{fmt} reports no telemetry", None)
