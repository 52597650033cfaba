"""Canonical JSON, content addresses and line splitting: properties (Hypothesis) and fixed vectors."""

from __future__ import annotations

import hashlib
import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ledgerkit import small_campaign

from generator.analyze.ledger.schema import (
    LedgerDataError,
    canonical_bytes,
    canonical_text,
    check_receipt,
    ledger_digest,
    parse_campaign,
    receipt_id,
)
from generator.read.ledger.files import split_lines
from tests.support.hypo import examples
from tests.support.ledger_synth import make_receipt

CAMPAIGN = parse_campaign(small_campaign())

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=12),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=6), inner, max_size=4),
    ),
    max_leaves=20,
)


@settings(max_examples=examples(150), deadline=None)
@given(json_values)
def test_canonical_round_trips(value):
    text = canonical_text(value)
    assert canonical_text(json.loads(text)) == text
    assert "\n" not in text and "\r" not in text  # one ledger line, always
    assert canonical_bytes(value) == text.encode("utf-8")


@settings(max_examples=examples(100), deadline=None)
@given(st.dictionaries(st.text(max_size=5).filter(lambda k: "\ud800" > k or k > "\udfff"), scalars, max_size=6))
def test_canonical_ignores_key_order(mapping):
    reordered = dict(reversed(list(mapping.items())))
    assert canonical_text(mapping) == canonical_text(reordered)


def test_canonical_vectors():
    assert canonical_text({"b": 1, "a": [1.0, 0, -0.0, "é", None, True]}) == '{"a":[1.0,0,-0.0,"é",null,true],"b":1}'
    assert canonical_text({"\u2028": "\t"}) == '{"\u2028":"\\t"}'
    for bad in (float("nan"), float("inf"), {"x": float("-inf")}, {1, 2}):
        with pytest.raises(LedgerDataError, match="not finite canonical JSON"):
            canonical_text(bad)
    with pytest.raises(LedgerDataError, match="lone surrogate"):
        canonical_bytes({"seed": "\ud800"})


receipt_edits = st.sampled_from(
    [
        ("wallMs", 1),
        ("wallMs", 123456),
        ("latencyClass", "cold"),
        ("repeat", 2),
        ("detectedDefects", []),
        ("decoding", {"temperature": 0.0, "seed": "x", "pinned": True}),
        ("decoding", {"temperature": -0.0, "seed": "x", "pinned": True}),
    ]
)


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(receipt_edits, max_size=3), st.randoms(use_true_random=False))
def test_receipt_id_is_content_address(edits, rng):
    receipt = make_receipt(CAMPAIGN, "candidate", "defect-01", 1)
    for key, value in edits:
        receipt[key] = value
    receipt["receiptId"] = receipt_id(receipt)
    items = list(receipt.items())
    rng.shuffle(items)
    shuffled = dict(items)
    assert receipt_id(shuffled) == receipt["receiptId"]
    assert receipt_id(dict(shuffled, receiptId="anything")) == receipt["receiptId"]
    body = {k: v for k, v in receipt.items() if k != "receiptId"}
    expected = (
        "bench1:"
        + hashlib.sha256(
            json.dumps(body, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()
        ).hexdigest()
    )
    assert receipt["receiptId"] == expected
    # The fast path (splicing the member out of the receipt's own canonical text) agrees.
    check_receipt(receipt, CAMPAIGN, canonical=canonical_text(receipt))


def test_spliced_address_never_accepts_a_wrong_id():
    receipt = make_receipt(CAMPAIGN, "candidate", "defect-01", 1)
    forged = dict(receipt, wallMs=receipt["wallMs"] + 1)
    with pytest.raises(LedgerDataError, match="receiptId does not match"):
        check_receipt(forged, CAMPAIGN, canonical=canonical_text(forged))
    # A second receiptId member (a nested one) disables the fast path rather than confusing it.
    nested = dict(receipt, usage={"receiptId": receipt["receiptId"]})
    with pytest.raises(LedgerDataError, match="receiptId does not match"):
        check_receipt(nested, CAMPAIGN, canonical=canonical_text(nested))


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(st.sampled_from([1, 2, 3]), max_size=6))
def test_ledger_digest_is_the_canonical_list(picks):
    receipts = [make_receipt(CAMPAIGN, "candidate", "clean-01", n) for n in picks]
    expected = "ledger1:" + hashlib.sha256(canonical_text(receipts).encode("utf-8")).hexdigest()
    assert ledger_digest(receipts) == expected
    assert ledger_digest([]) == "ledger1:" + hashlib.sha256(b"[]").hexdigest()
    assert ledger_digest([]).startswith("ledger1:4f53cda1")


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.sampled_from(["a", "{}", "\n", "\r", "\r\n", " ", "\u2028", "\x85", "é"]), max_size=12))
def test_line_splitting_matches_python_text_mode(parts):
    data = "".join(parts).encode("utf-8")
    mine = [line.content.decode("utf-8") for line in split_lines(data)]
    with io.TextIOWrapper(io.BytesIO(data), encoding="utf-8") as handle:
        theirs = [line.rstrip("\n") for line in handle]
    assert mine == theirs
    rebuilt = b"".join(data[line.start : line.end] for line in split_lines(data))
    assert rebuilt == data
