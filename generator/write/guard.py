"""No command writes over one of its own inputs, or over a file that is not its kind of output.

:func:`check_output_file` is called by every command that writes a named file (``compare --out``,
``ledger summarize --out/--extended``, ``build --summary``) before anything is computed:

- the output may not be one of the command's input files: compared by device and inode, so a
  symbolic link or a second hard link to an input is caught too;
- the output may not lie inside one of the command's input folders (a report written into an
  experiment would become evidence the next time it is read);
- an existing output is replaced only when it is recognisably the same kind of evalsite output
  (a comparison document, a comparison report, a ledger summary, ...); anything else needs
  ``--force``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from generator.model.errors import EvalsiteError
from generator.read.safe_io import Refusal, open_regular

__all__ = ["OUTPUT_KINDS", "check_output_file"]

_SNIFF_BYTES = 64 * 1024 * 1024  # a larger file is not a recognisable output


def _json_object(data: bytes) -> dict[str, object] | None:
    try:
        value = json.loads(data)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _is_comparison_json(data: bytes) -> bool:
    value = _json_object(data)
    return value is not None and value.get("schema") == "evalsite.comparison.v1"


def _is_comparison_markdown(data: bytes) -> bool:
    return data.startswith(b"# Strict experiment comparison\n")


def _is_ledger_summary(data: bytes) -> bool:
    value = _json_object(data)
    return value is not None and {"campaignId", "ledgerDigest", "arms"} <= value.keys() and "schema" not in value


def _is_ledger_extended(data: bytes) -> bool:
    value = _json_object(data)
    return value is not None and value.get("schema") == "evalsite.ledger.extended.v1"


def _is_leaderboard_json(data: bytes) -> bool:
    value = _json_object(data)
    return value is not None and value.get("schema") == "evalsite.leaderboard.v1"


def _is_leaderboard_markdown(data: bytes) -> bool:
    return data.startswith(b"# Leaderboard\n")


def _is_markdown_summary(data: bytes) -> bool:
    return data.startswith(b"<!-- evalsite summary -->")


#: What each kind of output looks like, so that only a file of that kind is replaced without --force.
OUTPUT_KINDS: dict[str, tuple[str, Callable[[bytes], bool]]] = {
    "comparison-json": ("an evalsite comparison document", _is_comparison_json),
    "comparison-markdown": ("an evalsite comparison report", _is_comparison_markdown),
    "comparison": (
        "an evalsite comparison document or report",
        lambda data: _is_comparison_json(data) or _is_comparison_markdown(data),
    ),
    "ledger-summary": ("a ledger summary", _is_ledger_summary),
    "ledger-extended": ("an evalsite extended ledger summary", _is_ledger_extended),
    "summary": ("an evalsite build summary", _is_markdown_summary),
    "leaderboard-json": ("an evalsite leaderboard document", _is_leaderboard_json),
    "leaderboard-markdown": ("an evalsite leaderboard report", _is_leaderboard_markdown),
}


def _identity(path: str | os.PathLike[str]) -> tuple[int, int] | None:
    try:
        info = os.stat(path)  # follows links: a link to an input is that input
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _inside(child: str, folder: str) -> bool:
    return child == folder or child.startswith(folder.rstrip(os.sep) + os.sep)


def check_output_file(
    path: str | os.PathLike[str],
    *,
    kind: str,
    input_files: Sequence[str | os.PathLike[str]] = (),
    input_folders: Sequence[str | os.PathLike[str]] = (),
    force: bool = False,
    option: str = "--out",
) -> None:
    """Refuse an output path that would destroy an input or a file of another kind."""
    target = Path(path)
    name = target.name or str(target)
    described, recognise = OUTPUT_KINDS[kind]
    out_id = _identity(target)
    for item in input_files:
        if out_id is not None and _identity(item) == out_id:
            raise EvalsiteError(f"{option} {name!r} is one of this command's inputs; refusing to write over it")
    real_out = os.path.realpath(target)
    for folder in input_folders:
        if _inside(real_out, os.path.realpath(folder)):
            raise EvalsiteError(
                f"{option} {name!r} lies inside the input folder {Path(folder).name!r}; write it somewhere else"
            )
    if not os.path.lexists(target) or force:
        return
    fd = open_regular(target)
    if isinstance(fd, Refusal):
        raise EvalsiteError(f"{option} {name!r} exists and {fd.reason}; refusing to replace it")
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(_SNIFF_BYTES + 1)
    if len(data) > _SNIFF_BYTES or not recognise(data):
        raise EvalsiteError(f"{option} {name!r} exists and is not {described}; use --force to replace it")
