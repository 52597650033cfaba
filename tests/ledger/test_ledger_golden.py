"""evalsite against outputs recorded from the upstream reference tool (scripts/make_ledger_golden.py)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from ledgerkit import GOLDEN, golden_json, golden_ledger_bytes, json_close, run_cli

from generator.analyze.ledger.schema import canonical_text
from generator.analyze.ledger.summary import summarize
from generator.pipelines.ledger import load_campaign, read_ledger

SUMMARIES = sorted(p.name for p in (GOLDEN / "summaries").iterdir())
APPENDS = sorted(p.name for p in (GOLDEN / "appends").iterdir())


def _materialize(folder: Path, tmp_path: Path) -> tuple[Path, Path]:
    campaign = tmp_path / "campaign.json"
    campaign.write_bytes((folder / "campaign.json").read_bytes())
    ledger = tmp_path / "receipts.jsonl"
    if (folder / "receipts.jsonl.gz").exists():
        ledger.write_bytes(golden_ledger_bytes(folder))
    return campaign, ledger


def test_golden_set_is_complete():
    assert {"passing", "mixed", "transport", "maker", "legacy", "live_shape", "empty"} <= set(SUMMARIES)
    assert {"legacy", "passing_head"} <= set(APPENDS)


@pytest.mark.parametrize("name", SUMMARIES)
def test_summarize_json_matches_reference(name, tmp_path):
    folder = GOLDEN / "summaries" / name
    reference = golden_json("summaries", name, "reference.json")
    assert reference["returncode"] == 0
    campaign, ledger = _materialize(folder, tmp_path)
    run = run_cli("summarize", "--campaign", str(campaign), "--ledger", str(ledger), "--json")
    assert run.code == 0, run.err
    assert run.err == ""
    mine, theirs = run.json(), json.loads(reference["stdout"])
    assert json_close(mine, theirs) == []
    # Digests and every non-float byte agree exactly.
    for key in ("campaignDigest", "ledgerDigest", "executionDigest", "receiptSchemaVersions", "receiptCount"):
        assert mine[key] == theirs[key]
    assert [row["recommendation"] for row in mine["candidates"]] == [
        row["recommendation"] for row in theirs["candidates"]
    ]
    assert [row["conditions"] for row in mine["candidates"]] == [row["conditions"] for row in theirs["candidates"]]
    # The output is the canonical serialization, one line.
    assert run.out == canonical_text(mine) + "\n"


@pytest.mark.parametrize("name", [n for n in SUMMARIES if n != "empty"])
def test_api_summarize_matches_reference(name):
    folder = GOLDEN / "summaries" / name
    reference = json.loads(golden_json("summaries", name, "reference.json")["stdout"])
    campaign = load_campaign(folder / "campaign.json")
    lines = golden_ledger_bytes(folder).decode("utf-8").splitlines()
    receipts = [json.loads(line) for line in lines]
    summary = summarize(campaign, receipts)
    assert json_close(json.loads(canonical_text(summary)), reference) == []


def test_summarize_out_writes_indented_private_file(tmp_path):
    folder = GOLDEN / "summaries" / "passing"
    reference = json.loads(golden_json("summaries", "passing", "reference.json")["stdout"])
    campaign, ledger = _materialize(folder, tmp_path)
    out = tmp_path / "reports" / "summary.json"
    run = run_cli("summarize", "--campaign", str(campaign), "--ledger", str(ledger), "--out", str(out))
    assert run.code == 0
    assert run.out == f"wrote {out} (424 receipts; 1 candidate rows)\n"
    text = out.read_text(encoding="utf-8")
    assert text.endswith("}\n") and text.startswith('{\n  "arms": {')
    assert json_close(json.loads(text), reference) == []
    assert os.stat(out).st_mode & 0o777 == 0o600
    both = run_cli("summarize", "--campaign", str(campaign), "--ledger", str(ledger), "--out", str(out), "--json")
    assert json_close(both.json(), reference) == []


def test_summarize_is_repeatable(tmp_path):
    campaign, ledger = _materialize(GOLDEN / "summaries" / "legacy", tmp_path)
    first = run_cli("summarize", "--campaign", str(campaign), "--ledger", str(ledger))
    second = run_cli("summarize", "--campaign", str(campaign), "--ledger", str(ledger))
    assert first.code == 0 and first.out == second.out


@pytest.mark.parametrize("name", APPENDS)
def test_append_reproduces_reference_ledger_and_outputs(name, tmp_path):
    folder = GOLDEN / "appends" / name
    reference = golden_json("appends", name, "reference.json")
    campaign = tmp_path / "campaign.json"
    campaign.write_bytes((folder / "campaign.json").read_bytes())
    ledger = tmp_path / "deep" / "ledger.jsonl"
    receipts = golden_ledger_bytes(folder).decode("utf-8").splitlines()
    feed = receipts + receipts[:2]
    assert len(feed) == len(reference["outputs"])
    for line, expected in zip(feed, reference["outputs"], strict=False):
        run = run_cli("append", "--campaign", str(campaign), "--ledger", str(ledger), stdin=line)
        assert (run.code, run.out, run.err) == (expected["returncode"], expected["stdout"], expected["stderr"])
    assert hashlib.sha256(ledger.read_bytes()).hexdigest() == reference["ledgerSha256"]
    assert oct(os.stat(ledger).st_mode & 0o777) == reference["ledgerMode"] == "0o600"
    assert oct(os.stat(str(ledger) + ".lock").st_mode & 0o777) == reference["lockMode"]


@pytest.mark.parametrize("name", [n for n in SUMMARIES if n != "empty"])
def test_reference_ledgers_read_cleanly(name, tmp_path):
    campaign_path, ledger_path = _materialize(GOLDEN / "summaries" / name, tmp_path)
    ledger = read_ledger(ledger_path, load_campaign(campaign_path))
    assert ledger.sound and ledger.problems == () and ledger.torn_tail is None
    expected = json.loads(golden_json("summaries", name, "reference.json")["stdout"])
    assert len(ledger.receipts) == expected["receiptCount"]
    assert ledger.check is not None and ledger.check.ledger_digest == expected["ledgerDigest"]
    assert not os.path.exists(str(ledger_path) + ".lock")  # the API reader leaves no files behind
