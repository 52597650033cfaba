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
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from generator.model.common import sha256_label
from generator.model.runs import ExpectedMatrix, MatrixCases, MatrixLoad
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


class _CasesHash:
    """``matrix_payload(cases)["matrix_hash"]`` for sorted, distinct cases, hashed piece by piece.

    The same canonical JSON text (``{"cases":[{"rep":..,"task":..,"treatment":..},..],"schema":..}``)
    is fed to the digest a case at a time, so no second list of every case and no text of the
    whole matrix is held (issue 16: memory flat in the runs).
    """

    def __init__(self) -> None:
        self.digest = hashlib.sha256(b'{"cases":[')
        self.names: dict[str, str] = {}
        self.separator = ""

    def add(self, task: str, treatment: str, rep: int) -> None:
        names = self.names
        task_json = names.get(task) or names.setdefault(task, json.dumps(task))
        treatment_json = names.get(treatment) or names.setdefault(treatment, json.dumps(treatment))
        piece = f'{self.separator}{{"rep":{json.dumps(rep)},"task":{task_json},"treatment":{treatment_json}}}'
        self.digest.update(piece.encode("utf-8"))
        self.separator = ","

    def label(self) -> str:
        self.digest.update(f'],"schema":{json.dumps(MATRIX_SCHEMA)}}}'.encode())
        return sha256_label(self.digest.hexdigest())


def _cases_hash(cases: Iterable[tuple[str, str, int]]) -> str:
    """The matrix hash of sorted, distinct ``cases`` (:class:`_CasesHash` fed them all)."""
    digest = _CasesHash()
    for case in cases:
        digest.add(*case)
    return digest.label()


def _case(item: Any) -> tuple[str, str, int]:
    """One listed case, checked (Comet's wording for what is wrong)."""
    if not isinstance(item, dict) or set(item) != {"task", "treatment", "rep"}:
        raise MatrixError("expected case matrix contains an invalid case")
    task, treatment, rep = item["task"], item["treatment"], item["rep"]
    for name in (task, treatment):
        if not isinstance(name, str) or not _IDENTIFIER.fullmatch(name):
            raise MatrixError("expected case matrix contains an invalid task or treatment")
    if isinstance(rep, bool) or not isinstance(rep, int) or rep < 1:
        raise MatrixError("expected case matrix contains an invalid repetition")
    return (sys.intern(task), sys.intern(treatment), rep)  # one string per name, not per case


def _checked_cases(listed: list[Any], digest: _CasesHash) -> Iterator[tuple[str, str, int]]:
    """The listed cases, checked, hashed and yielded one at a time (no list of every case is made).

    While the cases are strictly ascending (the canonical order every valid matrix has), a
    duplicate can only be the case before; a set of the cases is made only once they are not
    (the matrix is then invalid: a duplicate or a later invalid case is reported first, as the
    order is checked last).
    """
    last: tuple[str, str, int] | None = None
    seen: set[tuple[str, str, int]] | None = None
    for position, item in enumerate(listed):
        case = _case(item)
        if seen is None and last is not None and not last < case:
            seen = {_case(earlier) for earlier in listed[:position]}
        if seen is not None:
            if case in seen:
                raise MatrixError("expected case matrix contains a duplicate case")
            seen.add(case)
        digest.add(*case)
        last = case
        yield case
    if seen is not None:
        raise MatrixError("expected case matrix cases are not canonically ordered")


def parse_matrix(raw: Any) -> ExpectedMatrix:
    """Validate a decoded matrix object; raise :class:`MatrixError` with Comet's wording."""
    if not isinstance(raw, dict) or set(raw) != {"schema", "matrix_hash", "cases"}:
        raise MatrixError("expected case matrix has an invalid object shape")
    if raw["schema"] != MATRIX_SCHEMA:
        raise MatrixError("expected case matrix schema is invalid")
    if not isinstance(raw["cases"], list):
        raise MatrixError("expected case matrix cases must be a list")
    digest = _CasesHash()
    cases = MatrixCases(_checked_cases(raw["cases"], digest))
    if raw["matrix_hash"] != digest.label():
        raise MatrixError("expected case matrix hash does not match its cases")
    return ExpectedMatrix(raw["matrix_hash"], cases)


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
