"""Telemetry re-derived from an agent's raw stdout stream.

The stream is JSON Lines: Claude Code ``stream-json`` events, or Codex
``--json`` events.  A run that was resumed has one ``result`` (Claude) or
``turn.completed`` (Codex) event per model start, and each carries only that
invocation's figures, so totals are *sums over every such event*.  Streamed
``assistant`` events repeat their message's usage once per content block, so
context samples are de-duplicated by message id (keeping the largest).

Token totals come only from result events; context samples only from
assistant events; the context window only from a result event's
``modelUsage``.  Lines that are not JSON objects are ignored.

A number that no real run produces (NaN, an infinity, ``1e309``, a
4,000-digit integer, anything of magnitude above :data:`MAX_TELEMETRY_VALUE`),
a line whose integer is too long for Python to parse, or a model name that is
not valid Unicode makes the whole stream *invalid telemetry*:
:func:`extract_telemetry` raises :class:`InvalidTelemetry` and the run's
artifact is disclosed as rejected, with that reason, instead of a sum being
computed from it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec
import orjson

from generator.model.common import is_json_number
from generator.model.runs import (  # re-exported
    EFFICIENCY_FIELDS,
    EXTRA_FIELDS,
    REPORTED_FIELDS,
    REPORTED_ONLY_FIELDS,
    TELEMETRY_FIELDS,
)
from generator.read.jsonfast import SHALLOW

__all__ = [
    "EFFICIENCY_FIELDS",
    "EXTRA_FIELDS",
    "MAX_TELEMETRY_VALUE",
    "REPORTED_SOURCE",
    "InvalidTelemetry",
    "extract_telemetry",
    "reported_telemetry",
]

#: How reported numbers are labelled wherever they are shown.
REPORTED_SOURCE = "reported by the harness (report events_summary)"

# No token count, duration (ms), turn count or cost of one run comes near 10**15.
MAX_TELEMETRY_VALUE = 10**15


class InvalidTelemetry(ValueError):
    """Raw stdout whose figures cannot be real; the message says which field."""


def _check(key: str, value: Any) -> None:
    """Raise :class:`InvalidTelemetry` for a non-finite or absurdly large number."""
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidTelemetry(f"invalid telemetry: {key} is not a finite number")
    if abs(value) > MAX_TELEMETRY_VALUE:
        raise InvalidTelemetry(f"invalid telemetry: {key} is larger than 10^15")


def _check_name(name: str) -> None:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidTelemetry("invalid telemetry: a model name is not valid Unicode") from None


_SUMMED_MODEL_KEYS = (
    "inputTokens",
    "outputTokens",
    "cacheReadInputTokens",
    "cacheCreationInputTokens",
    "webSearchRequests",
    "costUSD",
)
_MAXED_MODEL_KEYS = ("contextWindow", "maxOutputTokens")
_CONTEXT_KEYS = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
_CONTEXT_NAMES = {key: f"message.usage.{key}" for key in _CONTEXT_KEYS}
_CODEX_TOOL_ITEMS = ("command_execution", "mcp_tool_call", "tool_call")


@dataclass
class _Totals:
    """Mutable accumulator used while one stream is scanned."""

    invocations: int = 0
    sums: dict[str, Any] = field(default_factory=dict)  # only keys seen with a number
    models: dict[str, dict[str, Any]] = field(default_factory=dict)
    context: dict[str, list[Any]] = field(default_factory=dict)  # msg id -> [value, model]
    tool_calls: int = 0

    def add(self, key: str, value: Any) -> None:
        if is_json_number(value):
            if type(value) is not int or not -MAX_TELEMETRY_VALUE <= value <= MAX_TELEMETRY_VALUE:
                _check(key, value)
            self.sums[key] = self.sums.get(key, 0) + value

    def merge_models(self, usage: Any) -> None:
        if not isinstance(usage, dict):
            return
        for model, figures in usage.items():
            if not isinstance(figures, dict):
                continue
            _check_name(model)
            into = self.models.setdefault(model, {})
            for key in _SUMMED_MODEL_KEYS:
                value = figures.get(key)
                if is_json_number(value):
                    _check(f"modelUsage.{key}", value)
                    into[key] = into.get(key, 0) + value
            for key in _MAXED_MODEL_KEYS:
                value = figures.get(key)
                if is_json_number(value):
                    _check(f"modelUsage.{key}", value)
                    into[key] = max(into[key], value) if key in into else value


def _result_event(event: dict[str, Any], totals: _Totals) -> None:
    totals.invocations += 1
    totals.add("duration_ms", event.get("duration_ms"))
    totals.add("num_turns", event.get("num_turns"))
    usage = event.get("usage")
    if isinstance(usage, dict):
        for key in ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"):
            totals.add(key, usage.get(key))
    totals.add("total_cost_usd", event.get("total_cost_usd"))
    totals.merge_models(event.get("modelUsage"))


def _first_number(usage: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        if is_json_number(usage.get(key)):
            return usage[key]
    return None


def _codex_turn(event: dict[str, Any], totals: _Totals) -> None:
    totals.invocations += 1
    totals.add("num_turns", 1)
    usage = event.get("usage")
    if isinstance(usage, dict):
        totals.add("input_tokens", _first_number(usage, "input_tokens", "inputTokens"))
        totals.add("output_tokens", _first_number(usage, "output_tokens", "outputTokens"))
        totals.add("cache_read_input_tokens", _first_number(usage, "cached_input_tokens", "cacheReadInputTokens"))
    totals.add("duration_ms", event.get("duration_ms"))


def _sample_context(contexts: dict[str, list[Any]], message_id: str, usage: dict[str, Any], model: Any) -> None:
    """One assistant message's context sample: the input-side tokens of its *usage*, the largest kept
    per message id with its *model* (streamed messages repeat their usage once per content block)."""
    context: int | float = 0
    for key in _CONTEXT_KEYS:
        value: Any = usage.get(key)
        kind = type(value)
        if kind is int:  # exact types: bool is not a count
            if not -MAX_TELEMETRY_VALUE <= value <= MAX_TELEMETRY_VALUE:
                _check(_CONTEXT_NAMES[key], value)
            context += value
        elif kind is float:
            _check(_CONTEXT_NAMES[key], value)
            context += value
    if context > 0:
        seen = contexts.get(message_id)
        if type(model) is str and not model.isascii():  # JSON strings are exact str
            _check_name(model)
        if seen is None:
            contexts[message_id] = [context, model]
        elif context > seen[0]:
            seen[0] = context
            seen[1] = model


def _assistant_event(event: dict[str, Any], totals: _Totals) -> None:
    message = event.get("message")
    if type(message) is not dict:
        return
    message_id = message.get("id")
    usage = message.get("usage")
    if type(message_id) is str and type(usage) is dict:
        _sample_context(totals.context, message_id, usage, message.get("model"))
    content = message.get("content")
    if type(content) is list:
        for block in content:
            if type(block) is dict and block.get("type") == "tool_use":
                totals.tool_calls += 1


def _codex_item(event: dict[str, Any], totals: _Totals) -> None:
    item = event.get("item")
    if isinstance(item, dict) and item.get("type") in _CODEX_TOOL_ITEMS:
        totals.tool_calls += 1


_HANDLERS = {  # the most frequent first: the pre-filter looks for their names in this order
    "assistant": _assistant_event,
    "result": _result_event,
    "item.completed": _codex_item,
    "turn.completed": _codex_turn,
}


def _finish(totals: _Totals) -> dict[str, Any]:
    sums = totals.sums
    out: dict[str, Any] = {name: None for name in TELEMETRY_FIELDS}
    out["subject_invocations"] = totals.invocations
    out["tool_calls"] = totals.tool_calls
    if "duration_ms" in sums:
        out["duration_seconds"] = sums["duration_ms"] / 1000
    for key in (
        "num_turns",
        "input_tokens",
        "output_tokens",
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
        "total_cost_usd",
    ):
        out[key] = sums.get(key)
    token_keys = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    if any(key in sums for key in token_keys):
        out["total_tokens"] = sum(sums.get(key, 0) for key in token_keys)
    if totals.context:
        samples = sorted(value for value, _model in totals.context.values())
        peak = samples[-1]
        out["peak_context_input_tokens"] = peak
        out["p95_context_input_tokens"] = samples[max(0, math.ceil(len(samples) * 0.95) - 1)]
        out["average_context_input_tokens"] = round(sum(samples) / len(samples), 2)
        peak_model = next(model for value, model in totals.context.values() if value == peak)
        window: Any = totals.models.get(peak_model, {}).get("contextWindow") if isinstance(peak_model, str) else None
        if is_json_number(window):
            out["peak_context_window_tokens"] = window
            if window > 0:
                out["peak_context_occupancy_pct"] = peak / window * 100
    out["model_usage"] = {model: dict(figures) for model, figures in sorted(totals.models.items())}
    return out


def _stdlib_line(line: str) -> Any:
    """One line as :func:`json.loads` reads it; ``None`` for a line that is not JSON."""
    try:
        return json.loads(line)
    except json.JSONDecodeError:
        return None
    except RecursionError:
        return None
    except ValueError:  # an integer longer than Python parses (4,300 digits)
        raise InvalidTelemetry("invalid telemetry: a number has too many digits") from None


#: Lines with at most this many ``[`` and ``{`` (or shorter than twice this) nest too shallowly
#: for the standard library's recursion limit; deeper ones are read by it alone (read/jsonfast.py).
_SHALLOW = SHALLOW
#: A line this short cannot hold an integer too long for Python to parse (4,300 digits).
_SHORT = 4300
#: The event types that carry telemetry, as they appear in a line that has no escapes.
_TELEMETRY_TYPES = tuple(f'"{kind}"' for kind in _HANDLERS)


def _cannot_count(line: str) -> bool:
    """True when a line cannot contribute to telemetry, decided without parsing it (exact).

    A line contributes only when it is a JSON object whose ``type`` is one of the handled event
    types, or raises because it holds an integer too long to parse.  Without a backslash a JSON
    string is spelled as it reads, so such a ``type`` appears in the line in quotes; a short line
    cannot hold a 4,300-digit integer.
    """
    if len(line) > _SHORT or "\\" in line:
        return False
    for kind in _TELEMETRY_TYPES:
        if kind in line:
            return False
    return True


class _Block(msgspec.Struct):
    type: Any = None


class _Message(msgspec.Struct):
    id: Any = None
    model: Any = None
    usage: Any = None
    content: list[_Block] | None = None


class _AssistantEvent(msgspec.Struct):
    """What :func:`_assistant_event` reads of an event, and nothing else.

    msgspec decodes a line into it without making Python objects for the rest (an assistant event's
    text and tool input are most of a stream): about 1.5x faster than orjson makes the whole event.
    Where it decodes a line, the fields hold what ``json.loads`` gives them: exact integers of any
    size, correctly rounded floats, the last of repeated keys, absent and ``null`` both None.  Every
    line it refuses goes the general way (orjson, then the standard library) and so keeps its
    verdict: a ``message`` that is not an object, ``content`` that is not a list of objects, NaN or
    an infinity (the standard library reads them, and the run is rejected), a lone surrogate, or
    broken JSON.  Lines longer than ``_SHORT`` (which might hold an integer too long for
    ``json.loads``, rejecting the run, in a field msgspec skips) and lines that might nest deeper than
    the standard library allows never get here.  ``tests/perf/test_fast_parsing.py`` holds the result
    to ``json.loads``'s on generated streams.
    """

    type: Any = None
    message: _Message | None = None


_decode_assistant = msgspec.json.Decoder(_AssistantEvent).decode
_NOT_DECODED = (msgspec.DecodeError, UnicodeEncodeError, RecursionError)  # ValidationError is a DecodeError


def _fast_line(line: str) -> Any:
    """The same value as :func:`_stdlib_line` where it matters, parsed by orjson when orjson can.

    orjson refuses what only the standard library accepts (NaN, infinities, ``1e309``, lone
    surrogates, integers beyond 64 bits that overflow a double): such a line is read again by the
    standard library, and so is any line that might nest deeper than the standard library's limit,
    so accepted and rejected lines are the same.  The one value orjson reads differently, an
    integer beyond 64 bits that fits a double, becomes that float; every telemetry figure of that
    size (over 1.8 * 10^19) is rejected with the same words either way ("larger than 10^15"), and
    no other field is read.
    """
    if len(line) > 2 * _SHALLOW and line.count("{") + line.count("[") > _SHALLOW:
        return _stdlib_line(line)  # might nest deeper than json.loads allows
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return _stdlib_line(line)


def _assistant_message(message: _Message | None, totals: _Totals) -> None:
    """:func:`_assistant_event` of an event msgspec decoded (its fields are what ``json.loads`` reads)."""
    if message is None:
        return
    message_id, usage = message.id, message.usage
    if type(message_id) is str and type(usage) is dict:
        _sample_context(totals.context, message_id, usage, message.model)
    if message.content is not None:
        for block in message.content:
            if block.type == "tool_use":
                totals.tool_calls += 1


def _scan(text: str, parse: Callable[[str], Any], *, fast: bool) -> dict[str, Any]:
    """Every line of *text* parsed by *parse* and handed to its event's handler.

    ``fast``: a line that cannot count is skipped unparsed (:func:`_cannot_count`, inlined: the
    type is searched first, as most lines that hold one count), and a short line naming
    ``"assistant"`` is first decoded by msgspec (:class:`_AssistantEvent`; any line it refuses is
    parsed as the others are).
    """
    totals = _Totals()
    handlers, kinds, short, shallow = _HANDLERS, _TELEMETRY_TYPES, _SHORT, _SHALLOW
    decode, not_decoded, assistant = _decode_assistant, _NOT_DECODED, _assistant_message  # locals: a hot loop
    for line in text.strip().split("\n"):
        if not line:
            continue
        size = len(line)
        if fast and size <= short:
            for spelled in kinds:
                if spelled in line:
                    break
            else:
                if "\\" not in line:
                    continue
                spelled = ""
            if spelled == '"assistant"' and (size <= 2 * shallow or line.count("{") + line.count("[") <= shallow):
                try:
                    decoded = decode(line)
                except not_decoded:
                    decoded = None
                if decoded is not None and decoded.type == "assistant":
                    assistant(decoded.message, totals)
                    continue
        event = parse(line)
        if type(event) is dict:
            kind = event.get("type")
            if type(kind) is str:
                handler = handlers.get(kind)
                if handler is not None:
                    handler(event, totals)
    return _finish(totals)


def extract_telemetry(text: str) -> dict[str, Any]:
    """Scan one raw stdout stream; return its telemetry (numbers or None).

    Raises :class:`InvalidTelemetry` when a figure cannot be real (see the module text).
    Lines that cannot count are skipped unparsed (:func:`_cannot_count`), the others parsed by
    msgspec or orjson, falling back to the standard library (:func:`_fast_line`); the result is
    that of :func:`extract_telemetry_stdlib`, which tests hold it to.
    """
    return _scan(text, _fast_line, fast=True)


def extract_telemetry_stdlib(text: str) -> dict[str, Any]:
    """:func:`extract_telemetry` with every line parsed by :func:`json.loads` (the reference)."""
    return _scan(text, _stdlib_line, fast=False)


def _reported_number(value: Any) -> int | float | None:
    """A usable reported figure: a finite, non-negative JSON number of magnitude at most 10^15."""
    if not is_json_number(value) or (isinstance(value, float) and not math.isfinite(value)):
        return None
    return value if 0 <= value <= MAX_TELEMETRY_VALUE else None


def reported_telemetry(events: Any) -> dict[str, Any] | None:
    """The numbers a report's ``events_summary`` carries, under telemetry field names, or None.

    These are what the harness reported, never re-derived: they are kept apart from the
    telemetry of raw stdout (``Artifact.reported``).  Keys are mapped by
    :data:`~generator.model.runs.REPORTED_FIELDS` (``duration_s`` -> ``duration_seconds``,
    ``cost_usd`` -> ``total_cost_usd``, ``turns`` -> ``num_turns``, ...); a value that is not a
    finite, non-negative number up to 10^15 (or a bool) is left out.  None when no figure is found.
    """
    if not isinstance(events, dict):
        return None
    out: dict[str, Any] = {name: None for name in (*TELEMETRY_FIELDS, *REPORTED_ONLY_FIELDS)}
    found = False
    for key in sorted(events):  # sorted: a spelled-out field name wins over its alias deterministically
        field_name = REPORTED_FIELDS.get(key)
        if field_name is None:
            continue
        value = _reported_number(events[key])
        if value is not None and (out[field_name] is None or key == field_name):
            out[field_name] = value
            found = True
    if not found:
        return None
    if out["total_tokens"] is None and out["input_tokens"] is not None and out["output_tokens"] is not None:
        out["total_tokens"] = out["input_tokens"] + out["output_tokens"]
    out["source"] = REPORTED_SOURCE
    return out
