"""The controller-written ``expected-case-matrix.json``.

Comet writes the matrix after test collection and before any model run, so it
says which (task, treatment, repetition) cases *should* exist.  It is trusted
only when every check passes; otherwise it is *invalid* and the comparison
fails closed for that side (its observed reports are not used as a
substitute).  A missing file is not an error: the side falls back to the
reports it has, and the report says so.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

from generator.model.common import sha256_label
from generator.model.runs import ExpectedMatrix, MatrixLoad
from generator.read.comet.manifest import canonical_hash
from generator.read.safe_io import Refusal, read_regular_file

__all__ = [
    "MATRIX_FILE",
    "MATRIX_SCHEMA",
    "MAX_MATRIX_BYTES",
    "ExpectedMatrix",
    "MatrixError",
    "MatrixLoad",
    "load_matrix",
    "matrix_payload",
    "parse_matrix",
]

MATRIX_FILE = "expected-case-matrix.json"
MATRIX_SCHEMA = "comet.eval.expected-case-matrix.v1"
MAX_MATRIX_BYTES = 8 * 1024 * 1024
_IDENTIFIER = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")

# How a refused read is described, in Comet's wording.
_REFUSAL_TEXT = {
    "missing": None,
    "is a symbolic link": "matrix is not a regular file",
    "is not a regular file": "matrix is not a regular file",
    "exceeds the size limit": "matrix exceeds the size limit",
    "changed during read": "matrix changed during read",
    "cannot be inspected": "matrix metadata cannot be read",
}


class MatrixError(ValueError):
    pass


def matrix_payload(cases: list[tuple[str, str, int]]) -> dict[str, Any]:
    """The canonical matrix object for ``cases`` (used by tests and example data)."""
    ordered = sorted(set(cases))
    listed = [{"task": t, "treatment": tr, "rep": r} for t, tr, r in ordered]
    body = {"schema": MATRIX_SCHEMA, "cases": listed}
    return {**body, "matrix_hash": canonical_hash(body)}


def _cases_hash(cases: list[tuple[str, str, int]]) -> str:
    """``matrix_payload(cases)["matrix_hash"]`` for sorted, distinct cases, hashed piece by piece.

    The same canonical JSON text (``{"cases":[{"rep":..,"task":..,"treatment":..},..],"schema":..}``)
    is fed to the digest a case at a time, so no second list of every case and no text of the
    whole matrix is held (issue 16: memory flat in the runs).
    """
    digest = hashlib.sha256(b'{"cases":[')
    names: dict[str, str] = {}
    for index, (task, treatment, rep) in enumerate(cases):
        task_json = names.get(task) or names.setdefault(task, json.dumps(task))
        treatment_json = names.get(treatment) or names.setdefault(treatment, json.dumps(treatment))
        piece = f'{"," if index else ""}{{"rep":{json.dumps(rep)},"task":{task_json},"treatment":{treatment_json}}}'
        digest.update(piece.encode("utf-8"))
    digest.update(f'],"schema":{json.dumps(MATRIX_SCHEMA)}}}'.encode())
    return sha256_label(digest.hexdigest())


def parse_matrix(raw: Any) -> ExpectedMatrix:
    """Validate a decoded matrix object; raise :class:`MatrixError` with Comet's wording."""
    if not isinstance(raw, dict) or set(raw) != {"schema", "matrix_hash", "cases"}:
        raise MatrixError("expected case matrix has an invalid object shape")
    if raw["schema"] != MATRIX_SCHEMA:
        raise MatrixError("expected case matrix schema is invalid")
    if not isinstance(raw["cases"], list):
        raise MatrixError("expected case matrix cases must be a list")
    cases: list[tuple[str, str, int]] = []
    seen: set[tuple[str, str, int]] = set()
    for item in raw["cases"]:
        if not isinstance(item, dict) or set(item) != {"task", "treatment", "rep"}:
            raise MatrixError("expected case matrix contains an invalid case")
        task, treatment, rep = item["task"], item["treatment"], item["rep"]
        for name in (task, treatment):
            if not isinstance(name, str) or not _IDENTIFIER.fullmatch(name):
                raise MatrixError("expected case matrix contains an invalid task or treatment")
        if isinstance(rep, bool) or not isinstance(rep, int) or rep < 1:
            raise MatrixError("expected case matrix contains an invalid repetition")
        case = (sys.intern(task), sys.intern(treatment), rep)  # one string per name, not per case
        if case in seen:
            raise MatrixError("expected case matrix contains a duplicate case")
        seen.add(case)
        cases.append(case)
    if cases != sorted(cases):
        raise MatrixError("expected case matrix cases are not canonically ordered")
    if raw["matrix_hash"] != _cases_hash(cases):
        raise MatrixError("expected case matrix hash does not match its cases")
    return ExpectedMatrix(raw["matrix_hash"], tuple(cases))


def load_matrix(experiment_dir: Path) -> MatrixLoad:
    """Find and validate an experiment's matrix; never raises for bad content."""
    data = read_regular_file(experiment_dir / MATRIX_FILE, max_bytes=MAX_MATRIX_BYTES)
    if isinstance(data, Refusal):
        text = _REFUSAL_TEXT.get(data.reason, "matrix cannot be read")
        return MatrixLoad(error=text)
    try:
        decoded = data.decode("utf-8")
    except UnicodeDecodeError:
        return MatrixLoad(error="matrix is not valid UTF-8")
    try:
        raw = json.loads(decoded)
    except (ValueError, RecursionError):  # JSONDecodeError, or an integer too long to parse
        return MatrixLoad(error="matrix is not valid JSON")
    try:
        return MatrixLoad(matrix=parse_matrix(raw))
    except MatrixError as error:
        return MatrixLoad(error=str(error))
