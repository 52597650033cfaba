"""``SiteWriter.write_json`` redacts every string of a value (keys too) and writes ``json_text`` of the
result; the check that decides whether anything changes (``_changes``) agrees with the copying walk
(``_redacted``) on every value, and a pre-serialised ``JsonText`` writes the same bytes."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from generator.model.jsonfmt import json_text
from generator.model.redaction import Redactor
from generator.write.site import JsonText, SiteWriter
from tests.support.hypo import examples


class _Label(str):
    """A str subclass: the general rule applies to it."""


_STRINGS = st.sampled_from(
    ["input_tokens", "plain", "API_KEY=hK29xQ7mZp4L", "ghp_" + "a" * 36, "token", "sk-", "", "x" * 300]
) | st.text(max_size=12)
_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | _STRINGS
_VALUES = st.recursive(
    _SCALARS | st.builds(_Label, _STRINGS),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(_STRINGS | st.integers(), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=examples(300), deadline=None)
@given(_VALUES)
def test_the_check_agrees_with_the_copying_walk(value: object) -> None:
    for redactor in (Redactor(), Redactor(enabled=False)):
        writer = SiteWriter(Path("/nonexistent"), redactor)
        assert writer._changes(value) == writer._redacted(value)[1]


@settings(max_examples=examples(100), deadline=None)
@given(st.dictionaries(_STRINGS, _SCALARS | st.lists(_SCALARS, max_size=3), max_size=5))
def test_written_json_is_the_redacted_value_and_json_text_changes_nothing(tmp_path_factory, value) -> None:
    root = tmp_path_factory.mktemp("site")
    writer = SiteWriter(root, Redactor())
    writer.write_json("a.json", value)
    writer.write_json("b.json", JsonText(value, json_text(value)))
    written = (root / "a.json").read_text(encoding="utf-8")
    assert written == (root / "b.json").read_text(encoding="utf-8")
    assert written == json_text(Redactor().value(value))
    assert "hK29xQ7mZp4L" not in written and "ghp_aaaa" not in written
    assert json.loads(written).keys() <= {Redactor().text(k) for k in value}
