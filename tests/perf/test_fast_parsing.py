"""The fast paths of compare (orjson, the line pre-filter) give exactly what json.loads gives.

``extract_telemetry`` skips lines that cannot count and parses the rest with orjson, falling back
to the standard library; ``extract_telemetry_stdlib`` parses every line with ``json.loads``.  The
two must agree on every stream: the same telemetry (types included: 1 is not 1.0) or the same
``InvalidTelemetry`` message.  Reports likewise (``_decode_report`` against
``decode_report_stdlib``), and ledger lines (``parse_line`` against ``parse_line_stdlib``).
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from generator.read.comet.experiment import _decode_report, decode_report_stdlib
from generator.read.comet.telemetry import (
    InvalidTelemetry,
    _cannot_count,
    extract_telemetry,
    extract_telemetry_stdlib,
)
from generator.read.ledger.files import has_long_digit_run, long_digit_lines, parse_line, parse_line_stdlib
from tests.support.hypo import examples

KINDS = ["assistant", "result", "user", "system", "turn.completed", "item.completed", "assistan", "Result"]
KEYS = [
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
    "duration_ms",
    "num_turns",
    "total_cost_usd",
    "inputTokens",
    "outputTokens",
    "costUSD",
    "contextWindow",
    "cached_input_tokens",
]
# Number spellings on both sides of every boundary the fast path has: 64-bit, 10^15, doubles.
NUMBERS = [
    "0",
    "-0",
    "1",
    "12",
    "1.0",
    "-0.0",
    "0.5",
    "1e3",
    "1E-7",
    "999999999999999",
    "1000000000000001",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775809",
    "1" * 30,
    "1" * 400,
    "1" * 4301,
    "1e308",
    "1e309",
    "-1e400",
    "NaN",
    "Infinity",
    "-Infinity",
    "true",
    "null",
    '"12"',
]


def _number() -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(NUMBERS), st.integers(-(10**20), 10**20).map(str), st.floats().map(repr))


def _usage() -> st.SearchStrategy[str]:
    pair = st.tuples(st.sampled_from(KEYS), _number()).map(lambda kv: f'"{kv[0]}": {kv[1]}')
    return st.lists(pair, max_size=5).map(lambda items: "{" + ", ".join(items) + "}")


def _type_literal() -> st.SearchStrategy[str]:
    plain = st.sampled_from(KINDS).map(json.dumps)
    escaped = st.sampled_from(KINDS).map(lambda kind: '"' + "".join(f"\\u{ord(c):04x}" for c in kind) + '"')
    return st.one_of(plain, escaped, st.just("1"), st.just("null"))


def _model() -> st.SearchStrategy[str]:
    return st.sampled_from(['"m1"', '"m2"', '"\\ud800"', '"mod\\u00e9le"', "7", '"claude-sonnet-4-5"'])


def _event() -> st.SearchStrategy[str]:
    message = st.tuples(st.sampled_from(['"a"', '"b"', '"c"', "3"]), _model(), _usage()).map(
        lambda t: (
            f'{{"id": {t[0]}, "model": {t[1]}, "usage": {t[2]}, '
            f'"content": [{{"type": "tool_use"}}, {{"type": "text"}}]}}'
        )
    )
    model_usage = st.tuples(_model(), _usage()).map(lambda t: f"{{{t[0]}: {t[1]}}}" if t[0] != "7" else "{}")
    fields = st.tuples(_type_literal(), message, _usage(), _number(), model_usage, st.sampled_from(KEYS))
    return fields.map(
        lambda f: (
            f'{{"type": {f[0]}, "message": {f[1]}, "usage": {f[2]}, "{f[5]}": {f[3]}, '
            f'"duration_ms": {f[3]}, "modelUsage": {f[4]}, "item": {{"type": "command_execution"}}}}'
        )
    )


def _assistant_event() -> st.SearchStrategy[str]:
    """Assistant events of every shape: what msgspec decodes (``_AssistantEvent``) and what it refuses."""
    block = st.sampled_from(
        [
            '{"type": "tool_use"}',
            '{"type": "text", "text": "x"}',
            '{"type": "tool_use", "type": "text"}',
            '"tool_use"',
            "7",
            "null",
            '{"type": "tool_use", "input": {"n": NaN}}',
            '{"type": "\\u0074ool_use"}',
            "[]",
        ]
    )
    content = st.one_of(
        st.lists(block, max_size=4).map(lambda items: "[" + ", ".join(items) + "]"),
        st.sampled_from(['"text"', "null", "{}", "3"]),
    )
    message = st.tuples(st.sampled_from(['"a"', '"b"', "3", "null"]), _model(), _usage(), content).map(
        lambda t: f'{{"id": {t[0]}, "model": {t[1]}, "usage": {t[2]}, "content": {t[3]}}}'
    )
    shapes = st.one_of(message, st.sampled_from(["null", "[1]", '"m"', "{}"]))
    kind = st.sampled_from(['"assistant"', '"\\u0061ssistant"', '"user"', '"result"'])
    extra = st.sampled_from(
        [
            "",
            ', "message": null',
            ', "message": {"id": "z", "usage": {"input_tokens": 5}}',
            ', "type": "result"',
            ', "n": 1e400',
            ', "s": "\\ud800"',
            ', "t": "\\n\\u00e9"',
        ]
    )
    return st.tuples(kind, shapes, extra).map(
        lambda t: f'{{"type": {t[0]}, "role": "assistant", "message": {t[1]}{t[2]}}}'
    )


def _junk() -> st.SearchStrategy[str]:
    return st.sampled_from(
        [
            "",
            "not json",
            "[1, 2]",
            '"assistant"',
            "{",
            "[" * 600 + "]" * 600,
            '{"type": "result", "x": ' + "[" * 990 + "]" * 990 + "}",
            '{"type": "result", "x": ' + "[" * 1010 + "]" * 1010 + "}",  # json.loads: too deep; orjson: not
            '{"type": "user", "n": ' + "9" * 5000 + "}",
            '{"type": "user", "n": 1e999}',
            '{"type": "result", "type": "user"}',
            '{"type": "user", "type": "result", "num_turns": 2}',
            '{"type":"result","num_turns":3}',
            '  {"type": "result"}  ',
            "\ufeff{}",
        ]
    )


def _outcome(function: Any, text: str) -> tuple[str, str]:
    try:
        return "ok", repr(function(text))
    except InvalidTelemetry as problem:
        return "invalid", str(problem)


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(st.one_of(_event(), _junk()), max_size=8), st.sampled_from(["\n", "\n\n", "\r\n"]))
def test_telemetry_matches_the_stdlib_reading(lines: list[str], separator: str) -> None:
    text = separator.join(lines) + "\n"
    assert _outcome(extract_telemetry, text) == _outcome(extract_telemetry_stdlib, text)


@settings(max_examples=examples(500), deadline=None)
@given(st.lists(st.one_of(_assistant_event(), _event(), _junk()), max_size=8))
def test_assistant_events_of_every_shape_match_the_stdlib_reading(lines: list[str]) -> None:
    """msgspec decodes the assistant events it can (``_AssistantEvent``); every other shape goes the
    general way, and the result is ``json.loads``'s either way."""
    text = "\n".join(lines) + "\n"
    assert _outcome(extract_telemetry, text) == _outcome(extract_telemetry_stdlib, text)


def test_the_assistant_fast_path_reads_what_json_loads_reads() -> None:
    from generator.read.comet.telemetry import _decode_assistant

    line = (
        '{"type": "assistant", "message": {"id": "m", "model": "mod\\u00e8le", "usage": {"input_tokens": 7, '
        '"input_tokens": 9, "cache_read_input_tokens": 0.5}, "content": [{"type": "tool_use"}, '
        '{"type": "text", "text": "a \\"quoted\\" word"}]}}'
    )
    event = _decode_assistant(line)  # msgspec decodes it: it is not sent the general way
    assert event.message is not None and event.message.usage == json.loads(line)["message"]["usage"]
    telemetry = extract_telemetry(line)
    assert telemetry == extract_telemetry_stdlib(line)
    assert (telemetry["tool_calls"], telemetry["peak_context_input_tokens"]) == (1, 9.5)
    huge = line.replace("0.5", "18446744073709551616")  # exact in msgspec and json.loads, a float in orjson
    assert _outcome(extract_telemetry, huge) == _outcome(extract_telemetry_stdlib, huge)
    assert _outcome(extract_telemetry, huge) == (
        "invalid",
        "invalid telemetry: message.usage.cache_read_input_tokens is larger than 10^15",
    )


@settings(max_examples=examples(300), deadline=None)
@given(st.text(alphabet=st.sampled_from('{}[]":,\\ ue0123456789abcdefghijklmnopqrstuvwxyz.'), max_size=80))
def test_telemetry_matches_on_arbitrary_text(text: str) -> None:
    assert _outcome(extract_telemetry, text) == _outcome(extract_telemetry_stdlib, text)


@settings(max_examples=examples(300), deadline=None)
@given(st.one_of(_event(), _junk(), st.text(max_size=60)))
def test_a_skipped_line_never_counts(line: str) -> None:
    """The pre-filter is exact: a line it skips gives the telemetry of an empty stream."""
    if _cannot_count(line):
        assert _outcome(extract_telemetry_stdlib, line) == _outcome(extract_telemetry_stdlib, "")


def test_the_pre_filter_skips_plain_user_lines_only() -> None:
    assert _cannot_count('{"type": "user", "message": {"content": [{"type": "tool_result"}]}}')
    assert not _cannot_count('{"type": "assistant"}')
    assert not _cannot_count('{"type": "\\u0061ssistant"}')  # escaped: parsed
    assert not _cannot_count('{"type": "user", "n": ' + "9" * 5000 + "}")  # may hold a huge integer


def test_lines_deeper_than_the_stdlib_limit_do_not_count() -> None:
    text = '{"type": "result", "num_turns": 2, "x": ' + "[" * 1010 + "]" * 1010 + "}\n"
    assert extract_telemetry(text)["subject_invocations"] == 0 == extract_telemetry_stdlib(text)["subject_invocations"]


def test_huge_numbers_give_the_same_verdict() -> None:
    for number in ("18446744073709551616", "1" * 400, "1" * 5000, "1e309", "NaN"):
        text = f'{{"type": "result", "num_turns": {number}}}\n'
        assert _outcome(extract_telemetry, text) == _outcome(extract_telemetry_stdlib, text)
        assert _outcome(extract_telemetry, text)[0] == "invalid"


def _report_text() -> st.SearchStrategy[str]:
    value = st.recursive(
        st.one_of(
            _number(),
            st.text(max_size=8).map(lambda t: json.dumps(t, ensure_ascii=False)),
            st.sampled_from(['"\\ud800"', '"\\udfff\\ud800"', '"\\ud83d\\ude00"', '"é"']),
        ),
        lambda inner: st.one_of(
            st.lists(inner, max_size=4).map(lambda items: "[" + ",".join(items) + "]"),
            st.lists(st.tuples(st.sampled_from(['"a"', '"b"', '"name"', '"\\ud800"']), inner), max_size=4).map(
                lambda items: "{" + ",".join(f"{k}:{v}" for k, v in items) + "}"
            ),
        ),
        max_leaves=12,
    )
    return st.one_of(value, value.map(lambda v: '{"x": ' + v + "}"))


@settings(max_examples=examples(500), deadline=None)
@given(_report_text(), st.sampled_from(["", " ", "\n", "\ufeff", "x"]))
def test_reports_decode_as_the_stdlib_decodes_them(text: str, tail: str) -> None:
    data = (text + tail).encode("utf-8", "surrogatepass")
    assert repr(_decode_report(data)) == repr(decode_report_stdlib(data))


def test_reports_with_deep_nesting_or_bad_bytes_decode_alike() -> None:
    for data in (
        b'{"a": ' + b"[" * 990 + b"]" * 990 + b"}",
        b'{"a": ' + b"[" * 1010 + b"]" * 1010 + b"}",
        b'{"a": ' + b"[" * 2000 + b"]" * 2000 + b"}",
        b'{"a": "\xff"}',
        b'{"a": 12345678901234567890}',
        b'{"a": 1, "a": 2.0}',
        b"[]",
    ):
        assert repr(_decode_report(data)) == repr(decode_report_stdlib(data))


# --------------------------------------------------------------------------- ledger lines


def _ledger_outcome(text: str, **options: bool) -> tuple[str, str]:
    try:
        return "ok", repr(parse_line(text, **options))
    except ValueError as problem:  # JSONDecodeError and NonFiniteNumber included
        return type(problem).__name__, str(problem)


def _stdlib_outcome(text: str) -> tuple[str, str]:
    try:
        return "ok", repr(parse_line_stdlib(text))
    except ValueError as problem:
        return type(problem).__name__, str(problem)


@settings(max_examples=examples(500), deadline=None)
@given(_report_text(), st.sampled_from(["", " ", "\n", "x", ","]))
def test_ledger_lines_parse_as_the_stdlib_parses_them(text: str, tail: str) -> None:
    line = text + tail
    assert _ledger_outcome(line) == _stdlib_outcome(line)
    data = line.encode("utf-8", "surrogatepass")
    if not has_long_digit_run(data):
        assert _ledger_outcome(line, digits_checked=True) == _stdlib_outcome(line)


def test_ledger_lines_at_the_edges_parse_alike() -> None:
    for line in (
        '{"a": 18446744073709551616}',
        '{"a": 1e400}',
        '{"a": NaN}',
        '{"a": "\\ud800"}',
        '{"a": ' + "[" * 1010 + "]" * 1010 + "}",
        '{"a": ' + "[" * 2000 + "]" * 2000 + "}",
        '{"a": 1, "a": 2}',
        "",
        " ",
    ):
        assert _ledger_outcome(line) == _stdlib_outcome(line)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.text(alphabet="0123456789ab\n", max_size=40), max_size=6))
def test_long_digit_lines_finds_exactly_the_lines_with_19_digits(parts: list[str]) -> None:
    data = "".join(parts).encode()
    expected = {number for number, line in enumerate(data.split(b"\n"), 1) if has_long_digit_run(line)}
    assert long_digit_lines(data) == expected
