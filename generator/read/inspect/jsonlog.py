"""A ``.json`` Inspect log read sample by sample, so that one bad sample never rejects the log.

The log is one JSON object; its ``samples`` array is decoded one element at a time
(:meth:`json.JSONDecoder.raw_decode`, the standard library's own scanner).  A sample that nests
past the decoder's recursion limit, or holds an integer longer than Python reads, is found by
bracket counting (outside strings, with no recursion), skipped, and returned as an
:class:`Unreadable` with its reason; the rest of the log is read as usual.  A syntax error anywhere,
or an unreadable value outside ``samples``, leaves the log unreadable (a reason string).  A leading
UTF-8 byte-order mark is accepted.  Bytes that are not UTF-8 become lone surrogates, which the
importer's checks (:func:`~generator.read.importing.unusable_value`) refuse in the one sample that
holds them, or in the header.

At most :data:`MAX_SAMPLES` samples are read: a log holding more is refused, as an ``.eval`` log
with more members is.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from generator.read.importing import json_problem
from generator.read.inspect.archive import MAX_MEMBERS

__all__ = ["MAX_SAMPLES", "Unreadable", "parse_json_log"]

MAX_SAMPLES = MAX_MEMBERS
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET_OR_QUOTE = re.compile(r'[\[\]{}"]')
_SCALAR = re.compile(r"-?[0-9][0-9.eE+-]*")
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class Unreadable:
    """A sample that could not be decoded, and why (a short phrase)."""

    reason: str


class _Broken(Exception):
    """The log is not valid JSON (or not usable outside its samples); the message says why."""


def _skip(text: str, pos: int) -> int:
    return _WHITESPACE.match(text, pos).end()  # type: ignore[union-attr]  # matches the empty string


def _value_end(text: str, pos: int) -> int:
    """Where the JSON value at ``pos`` ends, found without decoding it (brackets counted outside strings)."""
    if text.startswith(("{", "["), pos):
        depth = 0
        while True:
            found = _BRACKET_OR_QUOTE.search(text, pos)
            if found is None:
                raise _Broken("not valid JSON")
            if found.group() == '"':
                string = _STRING.match(text, found.start())
                if string is None:
                    raise _Broken("not valid JSON")
                pos = string.end()
                continue
            depth += 1 if found.group() in "[{" else -1
            pos = found.end()
            if depth == 0:
                return pos
    number = _SCALAR.match(text, pos)
    if number is None:
        raise _Broken("not valid JSON")
    return number.end()


def _decode(text: str, pos: int) -> tuple[Any, int]:
    try:
        return _DECODER.raw_decode(text, pos)
    except (ValueError, RecursionError) as error:
        raise _Broken(json_problem(error)) from None


def _samples(text: str, pos: int) -> tuple[list[Any], int]:
    """The elements of the array at ``pos`` (each a value or an :class:`Unreadable`), and its end."""
    samples: list[Any] = []
    pos = _skip(text, pos + 1)
    if text.startswith("]", pos):
        return samples, pos + 1
    while True:
        if len(samples) >= MAX_SAMPLES:
            raise _Broken(f"a log of more than {MAX_SAMPLES:,} samples")
        try:
            value, pos = _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError:
            raise _Broken("not valid JSON") from None
        except (ValueError, RecursionError) as error:
            value, pos = Unreadable(json_problem(error)), _value_end(text, pos)
        samples.append(value)
        pos = _skip(text, pos)
        if text.startswith("]", pos):
            return samples, pos + 1
        if not text.startswith(",", pos):
            raise _Broken("not valid JSON")
        pos = _skip(text, pos + 1)


def _log(text: str) -> tuple[dict[str, Any], list[Any]]:
    header: dict[str, Any] = {}
    samples: list[Any] = []
    pos = _skip(text, 0)
    if not text.startswith("{", pos):
        _decode(text, pos)  # a syntax error says so; any other value is not an object
        raise _Broken("not a JSON object")
    pos = _skip(text, pos + 1)
    if not text.startswith("}", pos):
        while True:
            key, pos = _decode(text, pos)
            pos = _skip(text, pos)
            if not isinstance(key, str) or not text.startswith(":", pos):
                raise _Broken("not valid JSON")
            pos = _skip(text, pos + 1)
            if key == "samples" and text.startswith("[", pos):
                samples, pos = _samples(text, pos)
                header.pop(key, None)
            else:
                header[key], pos = _decode(text, pos)
                samples = [] if key == "samples" else samples  # the last "samples" counts, as for json.loads
            pos = _skip(text, pos)
            if text.startswith("}", pos):
                break
            if not text.startswith(",", pos):
                raise _Broken("not valid JSON")
            pos = _skip(text, pos + 1)
    if _skip(text, pos + 1) != len(text):
        raise _Broken("not valid JSON")
    return header, samples


def parse_json_log(data: bytes) -> tuple[dict[str, Any], list[Any]] | str:
    """(the log without its samples, its samples each a value or an :class:`Unreadable`), or why the
    log cannot be read (a short phrase, e.g. ``not valid JSON``)."""
    text = data.decode("utf-8", "surrogateescape").removeprefix("\ufeff")
    try:
        return _log(text)
    except _Broken as broken:
        return str(broken)
