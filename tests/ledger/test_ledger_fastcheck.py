"""The ledger's fast paths give exactly what the full paths give.

* ``FastChecker.canonical`` (the common-shape receipt, checked and serialized with orjson) accepts
  only receipts ``check_receipt`` accepts, and its bytes are ``canonical_text(...)``'s.
* ``LedgerChecker`` (streamed, fast path first) finds the same problems, in the same order with the
  same messages, and the same ``ledger1:`` digest as the full validator run line by line.
* ``stream_ledger_file`` reads what ``read_ledger_file`` reads (lines, problems, torn tail; "\r" line
  ends too, without reading the ledger again), and
  ``summarize_ledger``/``verify_ledger`` (streamed, slim receipts) give the summary, the extended
  summary and the report of the whole-ledger path.
"""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.analyze.ledger.checks import LedgerChecker, require_sound
from generator.analyze.ledger.extended import extended_summary
from generator.analyze.ledger.fastcheck import FastChecker
from generator.analyze.ledger.receipt import check_receipt
from generator.analyze.ledger.schema import canonical_text, parse_campaign, receipt_id
from generator.analyze.ledger.summary import build_summary
from generator.analyze.ledger.verify import verify_report
from generator.model.errors import EvalsiteError
from generator.model.jsonfmt import json_text
from generator.model.ledger import LedgerDataError, LedgerEntry, LedgerProblem
from generator.pipelines import ledger as pipeline
from generator.read.ledger.reader import LedgerRead, parse_ledger_bytes, read_ledger_file, stream_ledger_file
from tests.support.hypo import examples
from tests.support.ledger_synth import arm, make_campaign, make_receipt

RAW = make_campaign(
    campaign_id="fast-path",
    defect_cases=3,
    clean_cases=2,
    defects_per_case=2,
    candidates=[arm("candidate"), arm("tunnel", transport="ssh_tunnel"), arm("maker", role="maker")],
    transport_pairs=[("candidate", "tunnel")],
)
CAMPAIGN = parse_campaign(RAW)
CASES = [case["caseId"] for case in RAW["cases"]]
ARMS = ["codex-baseline", "candidate", "tunnel", "maker"]

SEEDS = [make_receipt(CAMPAIGN, arm_id, case_id, repeat) for arm_id in ARMS for case_id in CASES for repeat in (1, 2)]
SEEDS.append(make_receipt(CAMPAIGN, "candidate", CASES[0], 3, version=1))
SEEDS.append(
    make_receipt(
        CAMPAIGN,
        "maker",
        CASES[0],
        4,
        mutationEntered=True,
        containmentConclusive=True,
        containmentBreach=False,
        toolUsing=True,
        toolCallCorrect=True,
        usage={
            "inputTokens": 10,
            "cachedInputTokens": None,
            "outputTokens": 3,
            "totalTokens": 13,
            "costUsd": 0.25,
            "costSource": "provider_receipt",
        },
        decoding={"temperature": 0.7, "seed": "s1", "pinned": True},
    )
)

ODD_VALUES = [
    None,
    True,
    False,
    0,
    1,
    -1,
    2,
    2.0,
    1.0,
    0.5,
    -0.0,
    1e-05,
    1e16,
    2**53,
    2**64,
    10**30,
    "",
    " ",
    "x",
    "é",
    "\u2028",
    "a" * 101,
    "a" * 501,
    [],
    {},
    ["x"],
    ["x", "x"],
    {"a": 1},
    "bench1:" + "0" * 64,
    "campaign1:" + "0" * 64,
    "execution1:" + "e" * 64,
    "cold",
    "na",
    "kill_path",
    "clean",
    "defect",
    "provider_receipt",
    "unavailable",
    "abort",
    "maker",
    "tunnel",
    "candidate",
    "codex-baseline",
    *CASES,
]


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            out.extend(_paths(item, (*prefix, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out.extend(_paths(item, (*prefix, index)))
    return out


@st.composite
def mutated(draw: Any) -> dict[str, Any]:
    receipt = copy.deepcopy(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(0, 3))):
        paths = _paths(receipt)
        path = draw(st.sampled_from(paths))
        parent: Any = receipt
        for step in path[:-1]:
            parent = parent[step]
        action = draw(st.sampled_from(["set", "set", "set", "delete", "add", "reorder"]))
        if action == "set":
            parent[path[-1]] = copy.deepcopy(draw(st.sampled_from(ODD_VALUES)))
        elif action == "delete" and isinstance(parent, dict):
            del parent[path[-1]]
        elif action == "add" and isinstance(parent, dict):
            parent[draw(st.sampled_from(["extra", "aaa", "zzz"]))] = 1
        elif action == "reorder" and isinstance(parent, dict):
            items = list(parent.items())
            parent.clear()
            parent.update(reversed(items))
    if draw(st.booleans()):  # most mutations get a correct address, so the checks behind it run
        try:
            receipt["receiptId"] = receipt_id(receipt)
        except (LedgerDataError, TypeError):
            pass
    return receipt


def _full(receipt: Any) -> tuple[str, bytes | None]:
    try:
        blob: bytes | None = canonical_text(receipt).encode("utf-8")
    except (LedgerDataError, UnicodeEncodeError):
        blob = None
    try:
        check_receipt(receipt, CAMPAIGN)
    except LedgerDataError as exc:
        return str(exc), blob
    return "ok", blob


@settings(max_examples=examples(1500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_fast_path_accepts_only_what_the_full_validator_accepts(receipt: dict[str, Any]) -> None:
    verdict, blob = _full(receipt)
    fast = FastChecker(CAMPAIGN).canonical(receipt)
    if fast is not None:
        assert verdict == "ok"
        assert fast == blob


def test_fast_path_takes_the_common_receipts() -> None:
    checker = FastChecker(CAMPAIGN)
    v2 = [item for item in SEEDS if item["schemaVersion"] == 2]
    assert all(checker.canonical(item) == canonical_text(item).encode() for item in v2)
    v1 = [item for item in SEEDS if item["schemaVersion"] == 1]
    assert all(checker.canonical(item) is None for item in v1)  # v1 goes the full way


def test_fast_path_declines_float_text_that_is_not_repr() -> None:
    receipt = copy.deepcopy(SEEDS[-1])
    receipt["usage"]["costUsd"] = 1e-05  # orjson writes 0.00001, canonical JSON 1e-05
    receipt["receiptId"] = receipt_id(receipt)
    assert check_receipt(receipt, CAMPAIGN) is receipt
    assert FastChecker(CAMPAIGN).canonical(receipt) is None


def _old_check(values: list[Any]) -> tuple[list[LedgerProblem], str | None]:
    """The former whole-ledger check: the full validator on every entry, then duplicates and reruns."""
    problems: list[LedgerProblem] = []
    first_by_id: dict[str, int] = {}
    first_by_run: dict[tuple[Any, ...], int] = {}
    owner: dict[str, tuple[str, str]] = {}
    hasher: Any = hashlib.sha256(b"[")
    separator = b""
    for line, receipt in enumerate(values, 1):
        if hasher is not None:
            try:
                blob = canonical_text(receipt).encode("utf-8")
                hasher.update(separator + blob)
                separator = b","
            except (LedgerDataError, UnicodeEncodeError):
                hasher = None
        try:
            check_receipt(receipt, CAMPAIGN)
        except LedgerDataError as exc:
            problems.append(LedgerProblem("invalid", line, str(exc)))
            continue
        rid, key = receipt["receiptId"], (receipt["armId"], receipt["caseId"], receipt["repeat"])
        if rid in first_by_id:
            problems.append(
                LedgerProblem("duplicate_id", line, "benchmark ledger contains a duplicate receipt", first_by_id[rid])
            )
            continue
        if key in first_by_run:
            problems.append(
                LedgerProblem(
                    "duplicate_run", line, "benchmark ledger contains a duplicate arm/case/repeat", first_by_run[key]
                )
            )
            continue
        original = receipt["rerunOf"]
        if original is not None and owner.get(original) != (receipt["armId"], receipt["caseId"]):
            problems.append(
                LedgerProblem("bad_rerun", line, "rerunOf must name an earlier receipt for the same arm and case")
            )
        first_by_id[rid], first_by_run[key] = line, line
        owner[rid] = (receipt["armId"], receipt["caseId"])
    digest = None
    if hasher is not None:
        hasher.update(b"]")
        digest = "ledger1:" + hasher.hexdigest()
    return problems, digest


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(mutated(), st.sampled_from(SEEDS)), min_size=0, max_size=12))
def test_streamed_checker_matches_the_full_check(values: list[Any]) -> None:
    expected = _old_check(copy.deepcopy(values))
    checker = LedgerChecker(CAMPAIGN)
    for line, value in enumerate(copy.deepcopy(values), 1):
        checker.add(line, value)
    result = checker.result()
    assert (list(result.problems), result.ledger_digest) == expected


def _write(path: Path, receipts: list[Any], tail: bytes = b"") -> Path:
    path.write_bytes(b"".join(canonical_text(item).encode() + b"\n" for item in receipts) + tail)
    return path


@pytest.mark.parametrize(
    "tail",
    [
        b"",
        b"\n\n  \n",
        b'{"torn":',
        b"\xff\xfe\n",
        b"{not json\n",
        b'{"a":NaN}\n',
        b'{"n":12345678901234567890}\n',
        b" ",
        b'\r{"a":1}\r\n\r',
        b'{"a":1}\r',
    ],
)
@pytest.mark.parametrize("chunk", [7, 1 << 20])
def test_stream_reads_what_the_whole_read_reads(tmp_path: Path, monkeypatch: Any, tail: bytes, chunk: int) -> None:
    from generator.read.ledger import reader

    monkeypatch.setattr(reader, "STREAM_CHUNK", chunk)
    path = _write(tmp_path / "l.jsonl", SEEDS[:5], tail)
    whole = read_ledger_file(path)
    kept: list[Any] = []
    streamed = stream_ledger_file(path, lambda line, value: kept.append(value) or LedgerEntry(line, None))
    assert [entry.line for entry in streamed.entries] == [entry.line for entry in whole.entries]
    assert kept == [entry.value for entry in whole.entries]
    assert (streamed.problems, streamed.torn_tail, streamed.line_count, streamed.size) == (
        whole.problems,
        whole.torn_tail,
        whole.line_count,
        whole.size,
    )


def test_carriage_returns_are_streamed_without_a_second_read(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    data = b"\r\n".join(canonical_text(item).encode() for item in SEEDS[:3]) + b"\r\n"
    path.write_bytes(data)
    resets: list[int] = []
    streamed = stream_ledger_file(path, LedgerEntry, reset=lambda: resets.append(1))
    entries, problems, torn, count = parse_ledger_bytes(data)
    assert resets == []
    assert streamed == LedgerRead(True, len(data), tuple(entries), tuple(problems), torn, count)
    assert count == 3 and len(entries) == 3


def _ledger(tmp_path: Path, receipts: list[Any]) -> tuple[Path, Path]:
    campaign = tmp_path / "campaign.json"
    campaign.write_text(json.dumps(RAW), encoding="utf-8")
    return campaign, _write(tmp_path / "receipts.jsonl", receipts)


def test_summary_on_slim_receipts_is_the_summary_on_parsed_receipts(tmp_path: Path) -> None:
    receipts = [item for item in SEEDS if item["schemaVersion"] == 2]
    campaign_path, ledger_path = _ledger(tmp_path, receipts)
    result = pipeline.summarize_ledger(campaign_path, ledger_path)
    whole = read_ledger_file(ledger_path)
    summary = build_summary(CAMPAIGN, whole.receipts)
    assert canonical_text(result.summary) == canonical_text(summary)
    assert json_text(result.extended, indent=2) == json_text(
        extended_summary(CAMPAIGN, whole.receipts, summary), indent=2
    )


@pytest.mark.parametrize("damage", ["none", "invalid", "duplicate", "torn"])
def test_verify_report_is_the_whole_ledger_report(tmp_path: Path, damage: str) -> None:
    receipts = copy.deepcopy(SEEDS)
    if damage == "invalid":
        receipts[3]["wallMs"] = -1
    elif damage == "duplicate":
        receipts.append(receipts[2])
    campaign_path, ledger_path = _ledger(tmp_path, receipts)
    if damage == "torn":
        with open(ledger_path, "ab") as handle:
            handle.write(b'{"torn')
    streamed = pipeline.verify_ledger(campaign_path, ledger_path)
    whole = verify_report(CAMPAIGN, pipeline.read_ledger(ledger_path, CAMPAIGN))
    assert streamed == whole
    if damage != "none":
        assert not streamed.sound
        with pytest.raises(EvalsiteError) as caught:
            pipeline.summarize_ledger(campaign_path, ledger_path)
        with pytest.raises(LedgerDataError) as expected:
            require_sound(pipeline.read_ledger(ledger_path, CAMPAIGN).problems)
        assert str(caught.value) == str(expected.value)
