"""Lines that repeat a known receipt's bytes (``analyze/ledger/templates.py``) are decided exactly.

* Soundness: whenever ``Templates.match`` decides a line, the line is UTF-8 JSON that the full
  validator accepts, it is the canonical bytes of what it parses to, and the four values it
  read (``receiptId``, ``repeat``, ``usage``, ``wallMs``) plus the template's receipt are exactly
  that parsed receipt.  Checked on generated lines that vary those four fields and then damage
  the bytes (spaces, ``\\u`` escapes, unsorted or duplicate keys, leading zeros, floats, upper-case
  hex, non-ASCII text, ...).
* Equivalence: ``LedgerChecker`` fed line bytes first (``add_raw``, parsing only what it does not
  decide) finds the problems, the ``ledger1:`` digest and the kept values that the full validator
  finds on the parsed lines.
* The common case takes the byte path: repeats of a known receipt are not parsed.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.analyze.ledger.checks import LedgerChecker
from generator.analyze.ledger.receipt import check_receipt
from generator.analyze.ledger.schema import canonical_text, receipt_id
from generator.analyze.ledger.slim import Slimmer
from generator.analyze.ledger.templates import MAX_TEMPLATES, Templates, cut
from generator.model.ledger import LedgerDataError
from generator.read.ledger.files import parse_line, parse_line_stdlib
from tests.ledger.test_ledger_fastcheck import CAMPAIGN, ODD_VALUES, SEEDS, _old_check, mutated
from tests.support.hypo import examples

V2 = [item for item in SEEDS if item["schemaVersion"] == 2]

USAGES: list[Any] = [
    None,
    {
        "inputTokens": 10,
        "cachedInputTokens": None,
        "outputTokens": 3,
        "totalTokens": 13,
        "costUsd": 0.25,
        "costSource": "provider_receipt",
    },
    {
        "inputTokens": None,
        "cachedInputTokens": None,
        "outputTokens": None,
        "totalTokens": None,
        "costUsd": None,
        "costSource": "unavailable",
    },
    {
        "inputTokens": 2**53 - 1,
        "cachedInputTokens": 0,
        "outputTokens": 1,
        "totalTokens": 2,
        "costUsd": 3,
        "costSource": "provider_receipt",
    },
]
ODD_NUMBERS = [0, 1, 2, 9, 10, 99, -1, 2**53 - 1, 2**53, 10**20, 1.0, 0.5, 1e-05, 1e16, -0.0, True, None, "1"]

# (old, new) text replacements applied once to a canonical line
DAMAGE = [
    ('"receiptId":"bench1:', '"receiptId":"\\u0062ench1:'),
    ('"receiptId":"bench1:', '"receiptId": "bench1:'),
    ('"armId":', '"arm\\u0049d":'),
    ('"repeat":', '"repeat" :'),
    ('"repeat":', '"repeat":0'),
    ('"repeat":', '"repeat":-'),
    ('"repeat":', '"repeat": '),
    (',"rerunOf":', ', "rerunOf":'),
    (',"rerunOf":', ',"rerunOf":null,"rerunOf":'),
    ('"usage":', '"usage": '),
    ('"usage":null', '"usage":nul\\u006c'),
    ('"wallMs":', '"wallMs":0'),
    ('"wallMs":', '"wallMs":-'),
    ('"wallMs":', '"repeat":7,"wallMs":'),
    ('"wallMs":', '"usage":null,"wallMs":'),
    ('{"armId":', '{"receiptId":"bench1:' + "0" * 64 + '","armId":'),
    ('{"armId":', '{"wallMs":1,"armId":'),
    ('"costUsd":', '"costUsd": '),
    ('"costUsd":0.25', '"costUsd":0.250'),
    ('"costUsd":0.25', '"costUsd":2.5e-1'),
    ('"inputTokens":10', '"inputTokens":1e1'),
    ('"inputTokens":', '"inputTokens":0'),
    ('"costSource":"provider_receipt"', '"costSource":"provider\\u005freceipt"'),
    ('"costSource":', '"costSource":"x","costSource":'),
    ('"cachedInputTokens":null,', ""),
    ("}", " }"),
    ("}", "}}"),
]


def _receipt_text(receipt: Any) -> str | None:
    try:
        return canonical_text(receipt)
    except LedgerDataError:
        return None


@st.composite
def lines(draw: Any) -> bytes:
    """A line that repeats a seed receipt: its four varying fields changed, then maybe damaged."""
    receipt = copy.deepcopy(draw(st.sampled_from(V2)))
    receipt["repeat"] = draw(st.one_of(st.integers(-2, 30), st.sampled_from(ODD_NUMBERS)))
    receipt["wallMs"] = draw(st.one_of(st.integers(-2, 10**6), st.sampled_from(ODD_NUMBERS)))
    receipt["usage"] = copy.deepcopy(draw(st.sampled_from(USAGES)))
    if receipt["usage"] is not None and draw(st.booleans()):
        receipt["usage"][draw(st.sampled_from(sorted(receipt["usage"])))] = draw(st.sampled_from(ODD_NUMBERS))
    if draw(st.integers(0, 4)) == 0:  # sometimes another field too: the template must not match
        receipt[draw(st.sampled_from(sorted(receipt)))] = copy.deepcopy(draw(st.sampled_from(ODD_VALUES)))
    address = draw(st.sampled_from(["right", "right", "right", "stale", "upper"]))
    if address != "stale":
        try:
            receipt["receiptId"] = receipt_id(receipt)
        except (LedgerDataError, TypeError):
            pass
    if address == "upper" and isinstance(receipt["receiptId"], str):
        receipt["receiptId"] = receipt["receiptId"].upper().replace("BENCH1:", "bench1:")
    text = _receipt_text(receipt)
    if text is None:
        text = json.dumps(receipt, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    if draw(st.integers(0, 2)) == 0:
        old, new = draw(st.sampled_from(DAMAGE))
        text = text.replace(old, new, 1)
    if draw(st.integers(0, 5)) == 0:
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from([" ", "\t", "é", "\\", '"', ",", "0", "\u2028"])) + text[at:]
    return text.encode("utf-8", "surrogatepass")


def _taught() -> Templates:
    """Templates made as the checker makes them: from the canonical line of each accepted seed."""
    checker = LedgerChecker(CAMPAIGN)
    for line, item in enumerate(V2, 1):
        raw = canonical_text(item).encode("utf-8")
        if checker.add_raw(line, raw) is None:
            checker.add_entry(line, parse_line(raw.decode("utf-8")))
    assert checker.templates is not None
    return checker.templates


TEMPLATES = _taught()


@settings(max_examples=examples(3000), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines())
def test_a_decided_line_is_a_valid_canonical_receipt(line: bytes) -> None:
    found = TEMPLATES.match(line)
    if found is None:
        return
    template, rid, repeat, usage, usage_bytes, wall_ms = found
    parsed = parse_line_stdlib(line.decode("utf-8"))  # the reference parser; raises if not JSON
    assert check_receipt(copy.deepcopy(parsed), CAMPAIGN) is not None
    assert canonical_text(parsed).encode("utf-8") == line
    rebuilt = dict(template.receipt)
    rebuilt.update(receiptId=rid, repeat=repeat, usage=usage, wallMs=wall_ms)
    assert canonical_text(rebuilt) == canonical_text(parsed)  # the same values, types included
    assert list(rebuilt) == list(parsed)
    assert usage_bytes == canonical_text(usage).encode("utf-8")
    assert (template.cell, template.rerun_of) == ((parsed["armId"], parsed["caseId"]), parsed["rerunOf"])


def _stream(raws: list[bytes], keep: Any) -> tuple[LedgerChecker, list[Any], int]:
    """What ``check_ledger_stream`` does per line: bytes first, then parse what they leave open."""
    checker = LedgerChecker(CAMPAIGN, keep)
    kept: list[Any] = []
    decided = 0
    for line, raw in enumerate(raws, 1):
        entry = checker.add_raw(line, raw)
        if entry is not None:
            decided += 1
        else:
            entry = checker.add_entry(line, parse_line(raw.decode("utf-8")))
        kept.append(None if entry is None else entry.value)
    return checker, kept, decided


def _parses(raw: bytes) -> bool:
    try:
        parse_line(raw.decode("utf-8"))
    except ValueError:
        return False
    return True


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(lines(), st.sampled_from(V2).map(lambda r: canonical_text(r).encode())), max_size=16))
def test_checker_on_bytes_matches_the_full_check(raws: list[bytes]) -> None:
    raws = [raw for raw in raws if _parses(raw)]  # the reader reports the others before checking
    values = [parse_line_stdlib(raw.decode("utf-8")) for raw in raws]
    problems, digest = _old_check(copy.deepcopy(values))
    checker, kept, _decided = _stream(raws, None)
    result = checker.result()
    assert (list(result.problems), result.ledger_digest) == (problems, digest)
    for value, item in zip(values, kept, strict=True):
        if item is not None:
            assert canonical_text(item) == canonical_text(value) and list(item) == list(value)
    # slim copies: what Slimmer makes of each parsed receipt
    slimmer = Slimmer(CAMPAIGN)
    checker, slim, _decided = _stream(raws, Slimmer(CAMPAIGN))
    assert list(checker.result().problems) == problems
    for value, item in zip(values, slim, strict=True):
        if item is not None:
            expected = slimmer(copy.deepcopy(value))
            assert canonical_text(item) == canonical_text(expected) and list(item) == list(expected)


def test_repeats_of_a_known_receipt_are_not_parsed() -> None:
    raws = []
    for number, item in enumerate(V2):
        more = ((100 + 3 * number + offset, usage) for offset, usage in enumerate(USAGES[:3]))
        for repeat, usage in ((item["repeat"], item["usage"]), *more):
            receipt = copy.deepcopy(item)
            receipt.update(repeat=repeat, usage=copy.deepcopy(usage), wallMs=7 * repeat)
            receipt["receiptId"] = receipt_id(receipt)
            raws.append(canonical_text(receipt).encode("utf-8"))
    checker, kept, decided = _stream(raws, Slimmer(CAMPAIGN))
    assert checker.result().problems == ()
    shapes = {cut(raw) for raw in raws}  # the bytes around the four varying fields
    assert len(shapes) < len(V2)
    assert decided == len(raws) - len(shapes)  # only the first line of each shape is parsed
    assert all(item is not None for item in kept)


def test_a_wrong_address_or_a_damaged_line_is_left_to_the_full_path() -> None:
    item = V2[0]
    line = canonical_text({**item, "repeat": 9}).encode("utf-8")
    assert TEMPLATES.match(line) is None  # the address no longer matches the content
    good = {**item, "repeat": 9}
    good["receiptId"] = receipt_id(good)
    line = canonical_text(good).encode("utf-8")
    assert TEMPLATES.match(line) is not None
    for old, new in DAMAGE:
        damaged = line.decode().replace(old, new, 1).encode()
        if damaged != line:
            assert TEMPLATES.match(damaged) is None, (old, new)


@pytest.mark.parametrize("text", ['{"receiptId":"bench1:x"}', "{}", '{"armId":"a","receiptId":"bench1:'])
def test_cut_refuses_what_is_not_a_receipt(text: str) -> None:
    assert cut(text.encode()) is None


def test_templates_are_capped() -> None:
    templates = Templates()
    item = V2[0]
    for number in range(MAX_TEMPLATES + 5):
        receipt = {**item, "blockingFindingCount": number}
        templates.add(canonical_text(receipt).encode(), ("a", "b"), None, receipt, receipt)
    assert len(templates) == MAX_TEMPLATES


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.sampled_from(V2), mutated()), max_size=6))
def test_the_append_check_refuses_exactly_what_the_full_validator_refuses(values: list[Any]) -> None:
    from generator.pipelines.ledger import _AppendCheck

    check = _AppendCheck()  # the first call is the receipt being appended, the rest a catch-up
    for value in values:
        try:
            check_receipt(copy.deepcopy(value), CAMPAIGN)
            expected = "ok"
        except LedgerDataError as exc:
            expected = str(exc)
        try:
            check(copy.deepcopy(value), CAMPAIGN)
            got = "ok"
        except LedgerDataError as exc:
            got = str(exc)
        assert got == expected
