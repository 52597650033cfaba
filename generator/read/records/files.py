"""The records of one records file: JSONL (a JSON object a line), CSV (a header row), or one JSON document.

Each yields ``(where, record or why not)``: ``where`` is ``line N`` (JSONL, CSV) or ``record N``
(a JSON document), and a record that cannot be used is a short phrase, never an exception, so one
bad line is one disclosed skipped row and the rest of the file is read.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from typing import Any

from generator.read.importing import json_object, json_problem, unusable_value

__all__ = ["MAX_FIELDS", "MAX_RECORD_BYTES", "file_records"]

MAX_FIELDS = 2_000  # keys of one record (a JSON object's top level, a CSV header's columns)
MAX_RECORD_BYTES = 8 * 1024 * 1024  # one JSONL line

Found = tuple[str, dict[str, Any] | str]


def _checked(value: dict[str, Any]) -> dict[str, Any] | str:
    if len(value) > MAX_FIELDS:
        return f"has more than {MAX_FIELDS:,} fields"
    problem = unusable_value(value)
    return value if problem is None else problem


def _jsonl(data: bytes) -> Iterator[Found]:
    for number, line in enumerate(data.split(b"\n"), start=1):
        line = line.rstrip(b"\r")
        if number == 1:
            line = line.removeprefix(b"\xef\xbb\xbf")
        if not line.strip():
            continue
        if len(line) > MAX_RECORD_BYTES:
            yield f"line {number}", f"is longer than {MAX_RECORD_BYTES // (1024 * 1024)} MiB"
            continue
        value = json_object(line)
        yield f"line {number}", (f"is {value}" if isinstance(value, str) else _checked(value))


def _undecodable(cells: list[str]) -> bool:
    return any(not cell.isascii() and any("\udc80" <= ch <= "\udcff" for ch in cell) for cell in cells)


def _csv(data: bytes) -> Iterator[Found]:
    text = data.removeprefix(b"\xef\xbb\xbf").decode("utf-8", "surrogateescape")
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    header: list[str] | None = None
    while True:
        before = reader.line_num
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            yield f"line {reader.line_num}", f"is not valid CSV ({str(error)[:80]})"
            if reader.line_num == before:
                return
            continue
        where = f"line {reader.line_num}"
        if header is None:
            problem = _header_problem(row)
            if problem is not None:
                yield where, problem
                return
            header = row
            continue
        if not any(cell.strip() for cell in row):
            continue
        if _undecodable(row):
            yield where, "is not valid UTF-8"
        elif len(row) != len(header):
            yield where, f"has {len(row)} cell{'' if len(row) == 1 else 's'} where the header has {len(header)}"
        else:
            yield where, dict(zip(header, row, strict=True))


def _header_problem(row: list[str]) -> str | None:
    if _undecodable(row):
        return "is a header that is not valid UTF-8 (the file is not read)"
    if len(row) > MAX_FIELDS:
        return f"is a header of more than {MAX_FIELDS:,} columns (the file is not read)"
    if len(set(row)) != len(row):
        return "is a header that names a column twice (the file is not read)"
    return None


def _document_records(value: Any) -> list[Any] | None:
    """A JSON list of records, ``{"results": [...]}``, or promptfoo's ``{"results": {"results": [...]}}``."""
    if isinstance(value, list):
        return value
    inner = value.get("results") if isinstance(value, dict) else None
    if isinstance(inner, dict):
        inner = inner.get("results")
    return inner if isinstance(inner, list) else None


def _document(data: bytes) -> Iterator[Found]:
    try:
        value = json.loads(data.decode("utf-8").removeprefix("\ufeff"))
    except UnicodeDecodeError:
        yield "file", "is not valid UTF-8"
        return
    except (ValueError, RecursionError) as error:
        yield "file", f"is {json_problem(error)}"
        return
    records = _document_records(value)
    if records is None:
        yield "file", "holds no list of records (a JSON list, results, or promptfoo's results.results)"
        return
    for number, item in enumerate(records, start=1):
        where = f"record {number}"
        yield where, (_checked(item) if isinstance(item, dict) else "is not a JSON object")


def file_records(name: str, data: bytes) -> Iterator[Found]:
    """The records of one file, by its name: ``.csv``, ``.json`` (one document), else JSONL."""
    lowered = name.lower()
    if lowered.endswith(".csv"):
        return _csv(data)
    if lowered.endswith(".json"):
        return _document(data)
    return _jsonl(data)
