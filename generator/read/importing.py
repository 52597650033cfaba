"""What every importer (Inspect, Harbor, SWE-bench) shares: one run record, one rule each.

An imported run becomes the same :class:`~generator.model.runs.RunRecord` a Comet report
becomes.  Its ``report`` is a small normalised mapping (``passed``, ``checks_failed``, the
format, the score it was decided by, and the telemetry the harness reported), so the pass rule
(``passed`` true and no failed check) is the one the Comet path uses.  Errors are not failures:
an errored or limit-stopped run is *excluded* with its reason (a ``quality-excluded`` issue row),
unless the options say to count it as a failure, in which case it stays in, flagged, and fails.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

import orjson

from generator.model.common import Side, is_number, sha256_text
from generator.model.formats import NOT_HASHED, ImportOptions
from generator.model.redaction import safe_cut
from generator.model.runs import MAX_NAME_BYTES, TELEMETRY_FIELDS, CaseManifest, Quality, RunRecord
from generator.read.jsonfast import has_long_digit_run, shallow

__all__ = [
    "MAX_JSON_DEPTH",
    "canonical_hash",
    "error_quality",
    "excluded_quality",
    "imported_manifest",
    "imported_record",
    "included_quality",
    "json_object",
    "json_object_stdlib",
    "json_problem",
    "name_problem",
    "readable_name",
    "reported_telemetry",
    "scrub_paths",
    "unusable_value",
]

# Deeper than this, a value is refused: real Inspect samples and Harbor results nest 8 to 20 levels,
# json.loads stops near 1,000, and later steps of the build recurse.  254 is where orjson.dumps stops
# (its recursion limit), so that check, run first because it is fast, decides exactly as the walk does.
MAX_JSON_DEPTH = 254

# The folders of an absolute path (POSIX, or a Windows drive), not a URL's or a relative path's.
_POSIX_FOLDERS = re.compile(r"(?<![\w:/.~<>-])/(?:[^\s/\\'\"()<>:,;]+/)+")
_WINDOWS_FOLDERS = re.compile(r"(?<![\w])[A-Za-z]:[\\/](?:[^\s\\/'\"()<>:,;]+[\\/])+")
# A file URL's host and folders, and a home folder's (``~/``, ``~user/``) folders.
_FILE_URL_FOLDERS = re.compile(r"(?i)\bfile://[^\s'\"()<>]*/")
_HOME_FOLDERS = re.compile(r"(?<![\w/.-])~[\w.-]*/(?:[^\s/\\'\"()<>:,;]+/)*")


def scrub_paths(text: str) -> str:
    """``text`` with the folders of every absolute path replaced by ``…`` (the file name stays).

    A harness's error message may name files on the machine that ran it (``/home/someone/…``);
    the site never shows a foreign machine's paths, so ``/home/someone/proj/x.py`` reads ``…/x.py``,
    ``file:///home/someone/x.py`` reads ``file://…/x.py`` and ``~/proj/x.py`` reads ``…/x.py``.
    """
    text = _HOME_FOLDERS.sub("…/", _FILE_URL_FOLDERS.sub("file://…/", text))
    return _WINDOWS_FOLDERS.sub(lambda match: "…" + match.group()[-1], _POSIX_FOLDERS.sub("…/", text))


def json_problem(error: ValueError | RecursionError) -> str:
    """Why :func:`json.loads` refused a text, as a short phrase."""
    if isinstance(error, RecursionError):
        return f"nested deeper than {MAX_JSON_DEPTH} levels"
    if isinstance(error, json.JSONDecodeError):
        return "not valid JSON"
    return "not usable: it holds an integer with too many digits"


def json_object(data: bytes | str) -> dict[str, Any] | str:
    """The JSON object in ``data`` (a leading UTF-8 byte-order mark allowed), or why it is not one.

    The value and the verdict are those of :func:`json_object_stdlib`.  orjson (three times
    faster on an Inspect sample) reads bytes holding no run of 19 digits (the only numbers it would
    read otherwise); it refuses NaN, infinities, ``1e400``, lone surrogates and bytes that are not
    UTF-8, which the standard library then reads or refuses in its own words.  Its nesting limit
    (1,024) is above the standard library's (about 1,000), so a value that might nest between the
    two (more than 500 brackets) is kept only if :func:`orjson.dumps` can write it (at most 254
    levels); otherwise the standard library decides.
    """
    if isinstance(data, bytes) and not has_long_digit_run(data):
        try:
            value = orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
        else:
            if not isinstance(value, dict):
                return "not a JSON object"
            if shallow(data) or _writable(value):
                return value
    return json_object_stdlib(data)


def _writable(value: Any) -> bool:
    try:
        orjson.dumps(value)
    except orjson.JSONEncodeError:
        return False
    return True


def json_object_stdlib(data: bytes | str) -> dict[str, Any] | str:
    """:func:`json_object` by the standard library alone (the reference the fast path keeps to)."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
    except UnicodeDecodeError:
        return "not valid UTF-8"
    try:
        value = json.loads(text.removeprefix("\ufeff"))
    except (ValueError, RecursionError) as error:
        return json_problem(error)
    return value if isinstance(value, dict) else "not a JSON object"


def _lone_surrogate(text: str) -> bool:
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def unusable_value(value: Any) -> str | None:
    """Why a decoded value cannot reach the site, or None: it nests deeper than
    :data:`MAX_JSON_DEPTH` levels, or holds text that is not valid Unicode (a lone surrogate such as
    ``"\\ud800"``, which no page can be written with).

    :func:`orjson.dumps` refuses exactly these (and integers beyond 64 bits), at C speed: a value it
    writes is usable; any other is walked with an explicit stack (no recursion) to say why."""
    try:
        orjson.dumps(value)
    except orjson.JSONEncodeError:
        pass
    else:
        return None
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > MAX_JSON_DEPTH:
                return f"nests deeper than {MAX_JSON_DEPTH} levels"
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children if isinstance(child, str | dict | list))
        elif isinstance(item, str) and _lone_surrogate(item):
            return "holds text that is not valid Unicode (a lone surrogate)"
    return None


def name_problem(name: str) -> str | None:
    """Why a harness's task or sample id cannot name a task, or None: empty, not valid Unicode, or
    longer than :data:`~generator.model.runs.MAX_NAME_BYTES` bytes (an id, not a document)."""
    if name == "":
        return "is empty"
    if _lone_surrogate(name):
        return "is not valid Unicode (a lone surrogate)"
    if len(name) > MAX_NAME_BYTES or len(name.encode("utf-8")) > MAX_NAME_BYTES:
        return f"is longer than {MAX_NAME_BYTES} bytes"
    return None


def readable_name(name: str) -> str | None:
    """None for a file name that is valid UTF-8, else the name with its undecodable bytes escaped
    (``os.scandir`` gives them as surrogates), so that a message can show it."""
    if not _lone_surrogate(name):
        return None
    try:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate that no undecodable byte gave
        return name.encode("utf-8", "backslashreplace").decode("utf-8")


def canonical_hash(value: Any) -> str:
    """``sha256:`` of ``value`` as canonical JSON (sorted keys, no spaces, UTF-8)."""
    try:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (ValueError, TypeError, RecursionError):
        text = json.dumps(repr(value))
    return sha256_text(text)


def imported_manifest(task: str, fmt: str, case_hash: str | None, schema: str) -> CaseManifest:
    """A format's identity of one task: its case hash, or :data:`NOT_HASHED` when it gives none."""
    value = case_hash if case_hash else NOT_HASHED
    return CaseManifest(
        task=task,
        source=f"{fmt}-{'hashed' if case_hash else 'not-hashed'}",
        schema=schema,
        components={},
        case_hash=value,
        core_hash=value,
    )


def included_quality(evidence: str) -> Quality:
    return Quality("included", "valid_signal", "Scored by the harness", True, "high", (evidence,))


def _evidence(text: str) -> str:
    """The first 200 characters of an error text, never ending inside a secret (redacted later)."""
    return text[: safe_cut(text, 200)]


def excluded_quality(code: str, reason: str, evidence: str) -> Quality:
    """A run with no valid score that is not an error (e.g. unscored): always excluded."""
    return Quality("excluded", code, reason, False, "high", (_evidence(scrub_paths(evidence)),))


def error_quality(code: str, reason: str, evidence: str, options: ImportOptions) -> Quality:
    """An errored or limit-stopped run: excluded, or (by option) kept in as a flagged failure."""
    evidence = scrub_paths(evidence)
    if options.errors_as_failures:
        return Quality(
            "flagged", code, reason + " (counted as a failure by configuration)", True, "high", (_evidence(evidence),)
        )
    return Quality("excluded", code, reason, False, "high", (_evidence(evidence),))


def reported_telemetry(figures: Mapping[str, Any]) -> dict[str, Any]:
    """The telemetry fields (numbers or None) from what a harness reported; totals where all parts are known."""
    out: dict[str, Any] = {name: None for name in TELEMETRY_FIELDS}
    for name in TELEMETRY_FIELDS:
        value = figures.get(name)
        if is_number(value) and not (isinstance(value, float) and math.isnan(value)):
            out[name] = value
    if out["total_tokens"] is None:
        parts = [out[key] for key in ("input_tokens", "output_tokens")]
        if all(part is not None for part in parts):
            extra = [out[key] or 0 for key in ("cache_read_input_tokens", "cache_creation_input_tokens")]
            out["total_tokens"] = sum(parts) + sum(extra)
    return out


def imported_record(
    side: Side,
    *,
    fmt: str,
    task: str,
    rep: int,
    file: str,
    passed: bool,
    checks_failed: list[str],
    manifest: CaseManifest,
    quality: Quality,
    details: Mapping[str, Any],
) -> RunRecord:
    """One imported run.  ``details`` (score, reported telemetry, artifact names) is kept in its report."""
    report: dict[str, Any] = dict(details)
    report.update({"format": fmt, "name": task, "rep": rep, "passed": passed, "checks_failed": checks_failed})
    return RunRecord(side, task, rep, file, report, manifest, True, quality)
