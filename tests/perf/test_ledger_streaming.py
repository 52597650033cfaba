"""``ledger summarize`` loads the power analysis only for ``--extended``, and never scipy.stats; the
streamed read holds slim receipts.

Behaviour tests, not timings (``bench/bench_ledger.py`` prints those): a fresh interpreter runs
the command and reports whether the power analysis and the extended summary's intervals
(``generator.analyze.stats.power``) and ``scipy.stats`` (whose import alone took about half of
the time before ``analyze/stats/dist.py`` replaced it) were imported.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from generator.analyze.ledger.schema import canonical_text, parse_campaign
from generator.analyze.ledger.slim import DROPPED_FIELDS
from generator.pipelines.ledger import check_ledger_stream, summarize_ledger
from generator.pipelines.ledger import load_campaign as load
from tests.support.ledger_synth import arm, make_campaign, make_receipt

ROOT = Path(__file__).resolve().parents[2]

_PROBE = """
import sys
from generator import cli
try:
    code = cli.main(sys.argv[1:])
except SystemExit as exit:
    code = exit.code
loaded = [name in sys.modules for name in ("generator.analyze.stats.power", "scipy.stats")]
print("EXIT", code, "POWER", loaded[0], "STATS", loaded[1], file=sys.stderr)
"""


@pytest.fixture
def ledger_files(tmp_path: Path) -> tuple[Path, Path]:
    raw = make_campaign(campaign_id="streaming", defect_cases=3, clean_cases=2, candidates=[arm("candidate")])
    campaign = parse_campaign(raw)
    campaign_path = tmp_path / "campaign.json"
    campaign_path.write_text(json.dumps(raw), encoding="utf-8")
    receipts = [
        make_receipt(campaign, arm_id, case["caseId"], repeat)
        for arm_id in ("codex-baseline", "candidate")
        for case in raw["cases"]
        for repeat in (1, 2)
    ]
    ledger = tmp_path / "ledger.jsonl"
    ledger.write_bytes(b"".join(canonical_text(item).encode() + b"\n" for item in receipts))
    return campaign_path, ledger


def _stats_loaded(args: list[str]) -> tuple[str, str, str]:
    proc = subprocess.run([sys.executable, "-c", _PROBE, *args], cwd=ROOT, capture_output=True, check=False)
    last = proc.stderr.decode().strip().splitlines()[-1].split(" ")
    return last[1], last[3], last[5]


def test_summarize_loads_the_power_analysis_only_for_extended(ledger_files: tuple[Path, Path], tmp_path: Path) -> None:
    campaign, ledger = ledger_files
    common = ["ledger", "summarize", "--campaign", str(campaign), "--ledger", str(ledger)]
    assert _stats_loaded([*common, "--json"]) == ("0", "False", "False")
    extended = tmp_path / "extended.json"
    assert _stats_loaded([*common, "--extended", str(extended)]) == ("0", "True", "False")
    assert extended.stat().st_size > 0  # the extended analyses ran, without scipy.stats


def test_streamed_summary_keeps_slim_shared_receipts(ledger_files: tuple[Path, Path]) -> None:
    campaign_path, ledger = ledger_files
    campaign = load(campaign_path)
    from generator.analyze.ledger.slim import Slimmer

    read = check_ledger_stream(ledger, campaign, keep=Slimmer(campaign))
    assert read.check is not None and read.sound
    kept = [entry.value for entry in read.check.valid]
    assert [entry.value for entry in read.entries] == kept  # the same entries, nothing more
    assert not any(DROPPED_FIELDS & item.keys() for item in kept)
    decodings = {id(item["decoding"]) for item in kept}
    assert len(decodings) == 1  # one shared object for the one decoding of this ledger
    by_case = {item["caseId"]: item["expectedDefects"] for item in kept}
    assert all(by_case[case_id] is campaign.cases[case_id]["expectedDefects"] for case_id in by_case)
    # and the public result is unchanged by slimming (facts included)
    facts = summarize_ledger(campaign_path, ledger).facts
    assert facts is not None and facts.candidates
