"""Single-shot probes recorded from the reference: same verdicts, same messages, deliberate fixes listed.

Every probe the reference accepts, evalsite accepts with the same output.
Every probe the reference refuses (exit 2) or crashes on (exit 1, a
traceback), evalsite refuses with exit 2 and one ``error:`` line, leaving the
ledger untouched.  Messages equal the reference's except where listed in the
``*_FIXED`` tables, each a deliberate improvement.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ledgerkit import assert_one_line_error, golden_cases, json_close, run_cli, unpack

CASES = golden_cases()
BASE = unpack(CASES["base_ledger_b64"])

JSON_HINT = "could not read {label} (JSONDecodeError: {detail})"
RECEIPT_FIXED = {
    # upstream: "could not read receipt (BenchmarkError)" -- it hid the reason
    "nan_in_file": "receipt contains non-finite JSON number NaN",
    # upstream crashed with a TypeError traceback (exit 1)
    "arm_id_array": "benchmark receipt names an unknown arm or case (armId is a JSON array, not a string)",
    "case_id_object": "benchmark receipt names an unknown arm or case (caseId is a JSON object, not a string)",
    # upstream printed a raw codec message
    "lone_surrogate": "benchmark data contains a lone surrogate (\\ud800-\\udfff), which UTF-8 cannot encode",
    # upstream crashed with OverflowError / RecursionError tracebacks
    "temperature_huge_int": "benchmark receipt.decoding.temperature is too large to be a temperature",
    "cost_huge_int": "benchmark receipt.usage.costUsd is too large to be a number of dollars",
    "deeply_nested": "could not read receipt (nested too deeply)",
    # upstream: bare class name (file) or raw decoder text (stdin)
    "not_json_file": JSON_HINT.format(label="receipt", detail="Expecting value at line 1 column 1"),
    "stdin_nope": JSON_HINT.format(label="receipt", detail="Expecting value at line 1 column 1"),
}
CAMPAIGN_FIXED = {
    "recall_delta_huge_int": "campaign.thresholds.recallDelta must be in [0,1]",  # upstream: OverflowError
    "fpr_epsilon_infinite": "campaign contains non-finite JSON number Infinity",
    "nan_in_campaign": "campaign contains non-finite JSON number NaN",
    "campaign_not_json": JSON_HINT.format(
        label="campaign", detail="Expecting property name enclosed in double quotes at line 1 column 2"
    ),
}
LEDGER_LINE_PREFIX = "benchmark ledger line 1: "  # evalsite names the offending line
CAMPAIGN_WITH_LEDGER_FIXED = {
    name: LEDGER_LINE_PREFIX + "benchmark receipt campaignDigest mismatches frozen campaign content"
    for name in ("validity_lower_int_1", "schema_version_float", "campaign_id_padded")
}
LEDGER_FIXED = {
    "duplicated_line": "benchmark ledger contains a duplicate receipt or arm/case/repeat (line 9 repeats line 4)",
    "rerun_before_original": "benchmark ledger line 1: rerunOf must name an earlier receipt for the same arm and case",
    "torn_partial_tail": "benchmark ledger line 97 is not JSON (a torn write with no trailing newline; "
    "'evalsite ledger repair' sets it aside, keeping a backup)",
    "invalid_utf8_line": "benchmark ledger line 97 is not UTF-8",
    "line_is_array": "benchmark ledger line 97: benchmark receipt must be an object",
    "line_is_number": "benchmark ledger line 97: benchmark receipt must be an object",
}
TORN_APPEND = (
    "benchmark ledger line {line} has no trailing newline (a torn write); nothing was appended. "
    "Run 'evalsite ledger repair --ledger <ledger>' (it keeps a backup), then append again"
)
LEDGER_APPEND_FIXED = {
    # upstream appended onto a ledger it cannot summarize
    "duplicated_line": "benchmark ledger contains a duplicate receipt or arm/case/repeat (line 9 repeats line 4); "
    "run 'evalsite ledger verify'",
    "torn_partial_tail": TORN_APPEND.format(line=97),
    # upstream glued the new receipt onto the unterminated line (and exited 0)
    "complete_tail_without_newline": TORN_APPEND.format(line=96),
}


def _reference_message(result: dict) -> str:
    assert result["stderr"].startswith("error: ")
    return result["stderr"][len("error: ") :].rstrip("\n")


def _expect_same(mine, reference, fixed: str | None) -> None:
    if reference["returncode"] == 0 and fixed is None:
        assert (mine.code, mine.err) == (0, ""), mine
        return
    expected = fixed if fixed is not None else _reference_message(reference)
    assert_one_line_error(mine, expected)


@pytest.mark.parametrize("probe", CASES["receipts"], ids=lambda p: p["name"])
def test_receipt_probe(probe, tmp_path: Path):
    campaign = tmp_path / "campaign.json"
    campaign.write_text(json.dumps(CASES["campaign"]), encoding="utf-8")
    ledger = tmp_path / "ledger.jsonl"
    ledger.write_bytes(BASE)
    args = ["append", "--campaign", str(campaign), "--ledger", str(ledger)]
    if probe["via"] == "stdin":
        mine = run_cli(*args, stdin=probe["receipt"])
    elif probe["via"] == "file":
        receipt = tmp_path / "receipt.json"
        receipt.write_text(probe["receipt"], encoding="utf-8")
        mine = run_cli(*args, "--receipt", str(receipt))
    else:
        mine = run_cli(*args, "--receipt", str(tmp_path / "missing.json"))
    reference = probe["reference"]
    assert reference["returncode"] in (0, 1, 2)
    if reference["returncode"] == 1:
        assert probe["name"] in RECEIPT_FIXED, "every reference crash needs a clean evalsite message"
    _expect_same(mine, reference, RECEIPT_FIXED.get(probe["name"]))
    if reference["returncode"] == 0:
        assert mine.out == reference["stdout"]
    assert (ledger.read_bytes() != BASE) == reference["ledgerChanged"]


@pytest.mark.parametrize("probe", CASES["campaigns"], ids=lambda p: p["name"])
def test_campaign_probe(probe, tmp_path: Path):
    campaign = tmp_path / "campaign.json"
    if probe["campaign"] is not None:
        campaign.write_text(probe["campaign"], encoding="utf-8")
    mine = run_cli("summarize", "--campaign", str(campaign), "--ledger", str(tmp_path / "none.jsonl"), "--json")
    reference = probe["reference"]
    _expect_same(mine, reference, CAMPAIGN_FIXED.get(probe["name"]))
    if reference["returncode"] == 0:
        assert json_close(mine.json(), json.loads(reference["stdout"])) == []
    if probe["withLedger"] is not None:
        ledger = tmp_path / "ledger.jsonl"
        ledger.write_bytes(BASE)
        mine = run_cli("summarize", "--campaign", str(campaign), "--ledger", str(ledger), "--json")
        reference = probe["withLedger"]
        fixed = CAMPAIGN_FIXED.get(probe["name"]) or CAMPAIGN_WITH_LEDGER_FIXED.get(probe["name"])
        _expect_same(mine, reference, fixed)
        if reference["returncode"] == 0:
            assert json_close(mine.json(), json.loads(reference["stdout"])) == []


def test_validity_lower_int_and_float_share_a_digest(tmp_path: Path):
    by_name = {p["name"]: p for p in CASES["campaigns"]}
    ok = json.loads(by_name["campaign_ok"]["reference"]["stdout"])
    as_int = json.loads(by_name["validity_lower_int_1"]["reference"]["stdout"])
    as_float_version = json.loads(by_name["schema_version_float"]["reference"]["stdout"])
    campaign = tmp_path / "c.json"
    campaign.write_text(by_name["validity_lower_int_1"]["campaign"], encoding="utf-8")
    mine = run_cli("summarize", "--campaign", str(campaign), "--ledger", str(tmp_path / "x.jsonl")).json()
    assert mine["campaignDigest"] == as_int["campaignDigest"]
    assert mine["thresholds"]["validityLower"] == 1.0 and isinstance(mine["thresholds"]["validityLower"], float)
    assert as_float_version["campaignDigest"] != ok["campaignDigest"]


@pytest.mark.parametrize("probe", CASES["ledgers"], ids=lambda p: p["name"])
def test_ledger_probe(probe, tmp_path: Path):
    campaign = tmp_path / "campaign.json"
    campaign.write_text(json.dumps(CASES["campaign"]), encoding="utf-8")
    ledger = tmp_path / "ledger.jsonl"
    data = unpack(probe["ledger_b64"])
    ledger.write_bytes(data)
    mine = run_cli("summarize", "--campaign", str(campaign), "--ledger", str(ledger), "--json")
    reference = probe["reference"]
    _expect_same(mine, reference, LEDGER_FIXED.get(probe["name"]))
    if reference["returncode"] == 0:
        assert json_close(mine.json(), json.loads(reference["stdout"])) == []
    if probe["append"] is not None:
        mine = run_cli("append", "--campaign", str(campaign), "--ledger", str(ledger), stdin=probe["append"])
        reference = probe["referenceAppend"]
        fixed = LEDGER_APPEND_FIXED.get(probe["name"])
        _expect_same(mine, reference, fixed)
        if reference["returncode"] == 0 and fixed is None:
            assert mine.out == reference["stdout"]
        else:
            assert ledger.read_bytes() == data  # refused: nothing written
