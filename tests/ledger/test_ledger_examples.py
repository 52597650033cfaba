"""The bundled example campaign and ledger: reproducible, sound, one candidate passing and one failing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from generator.analyze.ledger.summary import summarize
from generator.pipelines.ledger import load_campaign, read_ledger

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "ledger"


def test_example_script_reproduces_the_committed_files(tmp_path):
    proc = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "make_example_ledger.py"), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    for name in ("campaign.json", "receipts.jsonl"):
        assert (tmp_path / name).read_bytes() == (EXAMPLE / name).read_bytes(), name


def test_example_verdicts():
    campaign = load_campaign(EXAMPLE / "campaign.json")
    ledger = read_ledger(EXAMPLE / "receipts.jsonl", campaign)
    assert ledger.sound and len(ledger.receipts) > 600
    rows = {row["armId"]: row for row in summarize(campaign, ledger.receipts)["candidates"]}
    assert all(rows["open-reviewer-70b"]["conditions"].values())
    assert rows["open-reviewer-70b"]["recommendation"] == "eligible_for_human_admission"
    failed = {key for key, ok in rows["open-reviewer-8b"]["conditions"].items() if not ok}
    assert {
        "recallNonInferior",
        "falsePositiveMargin",
        "structuredOutputValidity",
        "identityHonesty",
        "killPaths",
    } <= failed
    assert sorted(p.name for p in EXAMPLE.iterdir()) == ["campaign.json", "receipts.jsonl"]
