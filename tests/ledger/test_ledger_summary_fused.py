"""The summary counted in one pass is the summary of one pass per definition, byte for byte.

* ``build_summary`` (rows, fused arm pass, bounds asked while counting and filled at the end) gives
  the canonical bytes of ``tests/ledger/summary_oracle.py`` (the summary before the fusion) on
  generated ledgers: random arms, cases, repeats in any order, reruns, v1 receipts, every flag,
  detected-defect subsets in any order, usages, decodings (``0.0`` / ``-0.0`` / ints / strings),
  latency classes, maker containment, transport pairs.
* The CLI path (rows kept while the ledger streams, ``slim.SummaryRows``) gives the same bytes as
  well.
* ``counted_difference`` is ``paired_difference``; bounds asked while counting are filled with
  ``ledger_bounds``'s values.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.analyze.ledger import arms
from generator.analyze.ledger.bounds import Bounds, compute_here
from generator.analyze.ledger.checks import LedgerChecker
from generator.analyze.ledger.schema import canonical_text, parse_campaign
from generator.analyze.ledger.slim import Slimmer, SummaryRows
from generator.analyze.ledger.summary import build_summary, summary_of_rows
from generator.analyze.stats.binomial import counted_difference, ledger_bounds, paired_difference
from generator.model.ledger import LedgerEntry
from generator.pipelines import ledger as pipeline
from tests.ledger import summary_oracle
from tests.support.hypo import examples
from tests.support.ledger_synth import arm, make_campaign, make_receipt

RAW = make_campaign(
    campaign_id="fused",
    defect_cases=3,
    clean_cases=2,
    defects_per_case=3,
    candidates=[arm("candidate"), arm("tunnel", transport="ssh_tunnel"), arm("maker", role="maker")],
    transport_pairs=[("candidate", "tunnel")],
)
CAMPAIGN = parse_campaign(RAW)
ARMS = ["codex-baseline", "candidate", "tunnel", "maker"]
CASES = {case["caseId"]: case for case in RAW["cases"]}
USAGES: list[Any] = [
    None,
    {
        "inputTokens": 10,
        "cachedInputTokens": None,
        "outputTokens": 3,
        "totalTokens": 13,
        "costUsd": 0.1,
        "costSource": "provider_receipt",
    },
    {
        "inputTokens": 7,
        "cachedInputTokens": 2,
        "outputTokens": 5,
        "totalTokens": 12,
        "costUsd": 0.2,
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
]
DECODINGS: list[Any] = [
    {"temperature": None, "seed": None, "pinned": False},
    {"temperature": 0.0, "seed": 7, "pinned": True},
    {"temperature": -0.0, "seed": 7, "pinned": True},
    {"temperature": 0, "seed": "7", "pinned": True},
    {"temperature": 0.2, "seed": None, "pinned": False},
]


@st.composite
def attempt(draw: Any) -> dict[str, Any]:
    """One receipt's coordinates and fields (validity is settled by the checker afterwards)."""
    arm_id = draw(st.sampled_from(ARMS))
    case_id = draw(st.sampled_from(sorted(CASES)))
    case = CASES[case_id]
    fields: dict[str, Any] = {
        "identityMatch": draw(st.booleans()),
        "wallMs": draw(st.integers(0, 5000)),
        "latencyClass": draw(st.sampled_from(["cold", "resident", "na"])),
        "usage": draw(st.sampled_from(USAGES)),
        "decoding": draw(st.sampled_from(DECODINGS)),
    }
    if case["kind"] != "kill_path":
        expected = case["expectedDefects"]
        detected = draw(st.lists(st.sampled_from(expected), unique=True)) if expected else []
        fields["detectedDefects"] = draw(st.sampled_from([detected, list(expected)]))
        fields["normalizerRan"] = draw(st.booleans())
        fields["blockingFindingCount"] = draw(st.integers(0, 3))
        fields["contextSufficient"] = draw(st.sampled_from([None, True, False]))
        if draw(st.booleans()):
            fields["toolUsing"] = True
            fields["toolCallCorrect"] = draw(st.booleans())
            fields["pseudoToolCallCount"] = draw(st.integers(0, 2))
        if arm_id == "maker" and draw(st.booleans()):
            fields["mutationEntered"] = True
            conclusive = draw(st.booleans())
            fields["containmentConclusive"] = conclusive
            fields["containmentBreach"] = draw(st.booleans()) if conclusive else None
    return {
        "arm": arm_id,
        "case": case_id,
        "repeat": draw(st.integers(1, 4)),
        "version": draw(st.sampled_from([2, 2, 2, 1])),
        "rerun": draw(st.booleans()),
        "fields": fields,
    }


def _ledger(plan: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The valid, unique receipts of ``plan`` in order (a rerun names the cell's latest receipt)."""
    latest: dict[tuple[str, str], str] = {}
    drafted = []
    for item in plan:
        cell = (item["arm"], item["case"])
        fields = dict(item["fields"])
        if item["rerun"] and cell in latest:
            fields["rerunOf"] = latest[cell]
        receipt = make_receipt(CAMPAIGN, item["arm"], item["case"], item["repeat"], version=item["version"], **fields)
        drafted.append(receipt)
        latest.setdefault(cell, receipt["receiptId"])
    checker = LedgerChecker(CAMPAIGN)
    for line, receipt in enumerate(drafted, 1):
        checker.add(line, receipt)
    return [entry.value for entry in checker.result().valid]


def _oracle(receipts: list[dict[str, Any]]) -> str:
    return canonical_text(summary_oracle.build_summary(CAMPAIGN, receipts))


def _write(tmp_path: Path, receipts: list[dict[str, Any]]) -> tuple[Path, Path]:
    campaign = tmp_path / "campaign.json"
    campaign.write_text(json.dumps(RAW), encoding="utf-8")
    ledger = tmp_path / "receipts.jsonl"
    ledger.write_bytes(b"".join(canonical_text(item).encode("utf-8") + b"\n" for item in receipts))
    return campaign, ledger


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(attempt(), max_size=60))
def test_the_fused_summary_is_the_summary_of_one_pass_per_definition(plan: list[dict[str, Any]]) -> None:
    receipts = _ledger(plan)
    assert canonical_text(build_summary(CAMPAIGN, receipts)) == _oracle(receipts)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(attempt(), min_size=1, max_size=40))
def test_rows_kept_while_streaming_give_the_same_summary(plan: list[dict[str, Any]]) -> None:
    receipts = _ledger(plan)
    keeper = SummaryRows(CAMPAIGN)
    checker = LedgerChecker(CAMPAIGN, keeper)
    for line, receipt in enumerate(receipts, 1):
        raw = canonical_text(receipt).encode("utf-8")
        if checker.add_raw(line, raw) is None:  # a repeat of a known receipt's bytes, or parsed
            checker.add_entry(line, json.loads(raw))
    check = checker.result()
    assert check.ledger_digest is not None
    rows = [entry.value for entry in check.valid]
    assert rows == arms.receipt_rows(receipts)
    assert canonical_text(summary_of_rows(CAMPAIGN, rows, ledger_digest=check.ledger_digest)) == _oracle(receipts)


def _grid() -> list[dict[str, Any]]:
    plan = []
    for number, arm_id in enumerate(ARMS):
        for case_id in CASES:
            for repeat in (2, 1, 3):  # out of repeat order within a cell
                detected = CASES[case_id]["expectedDefects"][: (repeat + number) % 3]
                fields: dict[str, Any] = {"wallMs": 100 * repeat + number, "usage": USAGES[repeat % 4]}
                if CASES[case_id]["kind"] != "kill_path":
                    fields.update(detectedDefects=detected, blockingFindingCount=repeat % 2, latencyClass="cold")
                plan.append(
                    {"arm": arm_id, "case": case_id, "repeat": repeat, "version": 2, "rerun": False, "fields": fields}
                )
    return _ledger(plan)


def test_the_cli_path_gives_the_same_summary(tmp_path: Path) -> None:
    receipts = _grid()
    campaign_path, ledger_path = _write(tmp_path, receipts)
    expected = _oracle(receipts)
    for extended in (False, True):
        result = pipeline.summarize_ledger(campaign_path, ledger_path, extended=extended, facts=False)
        assert canonical_text(result.summary) == expected
    assert canonical_text(build_summary(CAMPAIGN, receipts)) == expected


def test_slim_receipts_give_the_rows_of_the_parsed_receipts() -> None:
    receipts = _grid()
    slimmer = Slimmer(CAMPAIGN)
    slim = [slimmer(json.loads(canonical_text(item))) for item in receipts]
    assert arms.receipt_rows(slim) == arms.receipt_rows(receipts)


def test_a_v1_receipt_row_has_no_envelope_fields() -> None:
    receipt = make_receipt(CAMPAIGN, "candidate", "defect-01", 1, version=1)
    (row,) = arms.receipt_rows([receipt])
    assert row[arms.EXECUTION_DIGEST] is None and row[arms.KILL_CONTROL] is None
    assert row[arms.CASE_ID] == "defect-01" and row[arms.REPEAT] == 1


def test_the_fields_a_repeat_changes_come_last_in_a_row() -> None:
    # SummaryRows.vary puts (repeat, wallMs, usage) after row[:VARYING]
    assert arms.ROW_FIELDS[arms.VARYING :] == ("repeat", "wallMs", "usage")
    assert (arms.REPEAT, arms.WALL_MS, arms.USAGE) == (arms.VARYING, arms.VARYING + 1, arms.VARYING + 2)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans()), max_size=80), st.sampled_from(["one_sided", "transport_90"]))
def test_counted_difference_is_the_paired_difference_of_the_flags(pairs: list[tuple[bool, bool]], mode: str) -> None:
    candidate = [c for c, _ in pairs]
    baseline = [b for _, b in pairs]
    wins = sum(1 for c, b in pairs if c and not b)
    losses = sum(1 for c, b in pairs if b and not c)
    assert counted_difference(len(pairs), wins, losses, mode) == paired_difference(candidate, baseline, mode)


def test_bounds_fill_every_place_they_were_asked_for() -> None:
    bounds = Bounds()
    first: dict[str, Any] = {"a": 1}
    second: dict[str, Any] = {}
    bounds.interval(first, "interval95", 3, 9)
    bounds.paired(second, "recallDifference", 20, 2, 1, "one_sided")
    other = Bounds()
    other.interval(second, "later", 0, 4)
    bounds.merge(other)
    assert len(bounds) == 3 and len(other) == 0
    assert list(first) == ["a", "interval95"] and first["interval95"] is None
    bounds.fill(compute_here)
    assert first["interval95"] == ledger_bounds([("interval", 3, 9)])[0]
    assert second == {
        "recallDifference": counted_difference(20, 2, 1, "one_sided"),
        "later": ledger_bounds([("interval", 0, 4)])[0],
    }
    with pytest.raises(ValueError, match="incomplete"):
        again = Bounds()
        again.interval({}, "x", 1, 2)
        again.fill(lambda asks: [])


def test_the_counting_imports_no_numpy() -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from tests.support.ledger_synth import full_grid, make_campaign\n"
        "from generator.analyze.ledger.campaign import parse_campaign\n"
        "from generator.analyze.ledger.arms import receipt_rows\n"
        "from generator.analyze.ledger.summary import summary_of_rows\n"
        "CAMPAIGN = parse_campaign(make_campaign())\n"
        "rows = receipt_rows(full_grid(CAMPAIGN, ['codex-baseline', 'candidate']))\n"
        "blank = lambda asks: [{'lower': None, 'upper': None}] * len(asks)\n"
        "summary_of_rows(CAMPAIGN, rows, ledger_digest='ledger1:x', bounds=blank)\n"
        "print('numpy' in sys.modules, 'scipy' in sys.modules)\n"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=False)
    assert out.stdout.strip() == "False False", out.stderr[-2000:]


def test_a_ledger_entry_keeps_the_row_itself() -> None:
    receipts = _grid()[:3]
    checker = LedgerChecker(CAMPAIGN, SummaryRows(CAMPAIGN))
    for line, receipt in enumerate(receipts, 1):
        checker.add_entry(line, json.loads(canonical_text(receipt)))
    assert [entry for entry in checker.result().valid] == [
        LedgerEntry(line, row) for line, row in enumerate(arms.receipt_rows(receipts), 1)
    ]


def test_repeats_decided_from_their_bytes_keep_the_rows_of_their_receipts(tmp_path: Path) -> None:
    from tests.support.ledger_synth import full_grid

    receipts = full_grid(CAMPAIGN, ARMS[:2], quality_repeats=4, kill_repeats=3)  # repeats differ in repeat, wallMs
    decided = 0
    checker = LedgerChecker(CAMPAIGN, SummaryRows(CAMPAIGN))
    for line, receipt in enumerate(receipts, 1):
        raw = canonical_text(receipt).encode("utf-8")
        if checker.add_raw(line, raw) is None:
            checker.add_entry(line, json.loads(raw))
        else:
            decided += 1
    check = checker.result()
    assert decided >= len(receipts) // 2  # most lines took the byte path (SummaryRows.vary)
    assert [entry.value for entry in check.valid] == arms.receipt_rows(receipts)
    campaign_path, ledger_path = _write(tmp_path, receipts)
    result = pipeline.summarize_ledger(campaign_path, ledger_path, extended=False, facts=False)
    assert canonical_text(result.summary) == _oracle(receipts)
