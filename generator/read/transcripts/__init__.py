"""Run transcripts: one parser per format (Claude Code stream-json, Codex ``--json``, Harbor ATIF,
Inspect AI samples).

Every file is read through ``read/safe_io.py`` (containment, no links, the 64 MiB raw stdout cap);
a refused file becomes a disclosed reason, never a page.  Lines are parsed one at a time; texts are
cut to :data:`TEXT_BUDGET` bytes with the cut and the full text's SHA-256 disclosed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from typing import Any

from generator.model.transcript import Step, Transcript, TranscriptRef
from generator.read.safe_io import Refusal, read_contained
from generator.read.transcripts.atif import AtifParser, parse_atif
from generator.read.transcripts.claude import ClaudeParser
from generator.read.transcripts.codex import CodexParser
from generator.read.transcripts.inspect import InspectLogs
from generator.read.transcripts.text import TEXT_BUDGET, cut

__all__ = [
    "MAX_TRANSCRIPT_BYTES",
    "TEXT_BUDGET",
    "InspectLogs",
    "cut",
    "parse_transcript",
    "read_ref",
    "read_transcript",
]

MAX_TRANSCRIPT_BYTES = 64 * 1024 * 1024  # the largest raw stdout a comparison reads


def _lines(data: bytes) -> Any:
    start = 0
    size = len(data)
    while start < size:
        end = data.find(b"\n", start)
        if end < 0:
            end = size
        yield data[start:end]
        start = end + 1


def parse_transcript(data: bytes) -> Transcript:
    """The steps of one raw stdout stream (format detected from its events)."""
    claude, codex = ClaudeParser(), CodexParser()
    non_json = 0
    for raw in _lines(data):
        line = raw.strip()
        if not line:
            continue
        try:
            event = json.loads(line.decode("utf-8", errors="replace"))
        except (ValueError, RecursionError):
            non_json += 1
            continue
        if type(event) is not dict or type(event.get("type")) is not str:
            non_json += 1
            continue
        kind = event["type"]
        if "." in kind or kind in ("error",) and codex.steps:
            codex.feed(event)
        else:
            claude.feed(event)
    parser = codex if len(codex.steps) > len(claude.steps) else claude
    steps = tuple(
        Step(i + 1, s.kind, s.text, s.name, s.size, s.is_error, s.model, s.tokens, s.cost_usd, s.elapsed_s, s.call_id)
        for i, s in enumerate(parser.steps)
    )
    return Transcript(
        parser.format,
        steps,
        len(data),
        hashlib.sha256(data).hexdigest(),
        non_json,
        getattr(parser, "duplicates", 0),
        parser.sessions,
    )


def _from_parser(parser: AtifParser, data: bytes) -> Transcript:
    steps = tuple(
        Step(i + 1, s.kind, s.text, s.name, s.size, s.is_error, s.model, s.tokens, s.cost_usd, s.elapsed_s, s.call_id)
        for i, s in enumerate(parser.steps)
    )
    return Transcript(parser.format, steps, len(data), hashlib.sha256(data).hexdigest(), 0, 0, parser.sessions)


def read_transcript(path: str, root: str) -> Transcript | Refusal:
    """One run's transcript: a JSON Lines event stream, or a Harbor ``trajectory.json`` (ATIF)."""
    data = read_contained(path, root, max_bytes=MAX_TRANSCRIPT_BYTES)
    if isinstance(data, Refusal):
        return data
    if path.endswith("trajectory.json"):
        parser = parse_atif(data)
        if parser is None:
            return Refusal("not an ATIF trajectory (no steps list)")
        return _from_parser(parser, data)
    return parse_transcript(data)


def read_ref(ref: TranscriptRef, logs: InspectLogs) -> Transcript | Refusal:
    """The transcript *ref* names: an Inspect sample of a log, or a stdout stream / trajectory file.

    A file refused at its bound place is read at ``ref.fallback`` when there is one (the
    ``rebase_artifacts`` place :meth:`ArtifactBinder.locations` gives); the first refusal is kept.
    """
    if ref.path is None or ref.root is None:
        return Refusal(ref.problem or "missing")
    if ref.member:
        return logs.read(ref.path, ref.root, ref.member)
    first = read_transcript(ref.path, ref.root)
    if not isinstance(first, Refusal):
        return dataclasses.replace(first, source=_REBASED) if ref.rebased else first
    if ref.fallback is not None:
        second = read_transcript(*ref.fallback)
        if not isinstance(second, Refusal):
            return dataclasses.replace(second, source=_REBASED)
    return first


_REBASED = "Raw stdout (found by its exact name in raw/: rebase_artifacts)"
