"""The importers' JSON reader: orjson's fast path gives the value and the verdict of the standard
library's reference (``json_object_stdlib``) on every input, hostile ones included."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.read.importing import json_object, json_object_stdlib
from tests.support.hypo import examples

TRICKY = [
    b'{"a": NaN}',
    b'{"a": Infinity, "b": -Infinity}',
    b'{"a": 1e400}',
    b'\xef\xbb\xbf{"bom": true}',
    b'{"big": 12345678901234567890123}',
    b'{"neg": -9223372036854775809}',
    b'{"s": "\\ud800"}',
    b'{"s": "\xff"}',
    b"[1, 2]",
    b'"text"',
    b"{",
    b"",
    b'{"a": 1, "a": 2}',
    b'{"d": ' + b"[" * 300 + b"]" * 300 + b"}",
    b'{"d": ' + b"[" * 1010 + b"]" * 1010 + b"}",  # orjson reads it, json.loads cannot: json decides
    b'{"d": ' + b"[" * 2000 + b"]" * 2000 + b"}",
    b'{"wide": [' + b",".join(b"{}" for _ in range(600)) + b"]}",
]


def _same(data: bytes) -> None:
    fast, slow = json_object(data), json_object_stdlib(data)
    if isinstance(slow, dict) and any(isinstance(v, float) and math.isnan(v) for v in slow.values()):
        assert isinstance(fast, dict) and json.dumps(fast) == json.dumps(slow)
    else:
        assert fast == slow and type(fast) is type(slow)


@pytest.mark.parametrize("data", TRICKY, ids=range(len(TRICKY)))
def test_the_fast_reader_agrees_with_the_reference_on_hostile_text(data: bytes) -> None:
    _same(data)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=examples(2000))
@given(st.dictionaries(st.text(max_size=8), JSON, max_size=6))
def test_the_fast_reader_agrees_with_the_reference_on_any_object(value: dict[str, object]) -> None:
    _same(json.dumps(value).encode("utf-8"))
