"""Small CLI calls import only what they use: no scipy, numpy, plotly, Jinja or Markdown.

A behaviour test, not a timing test: each command runs in a fresh interpreter, which then reports
which of the heavy top-level packages ended up in ``sys.modules``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from generator.analyze.ledger.schema import parse_campaign
from tests.support.ledger_synth import arm, make_campaign, make_receipt

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("scipy", "numpy", "plotly", "jinja2", "markdown_it", "yaml")

_PROBE = """
import sys
from generator import cli
heavy = sys.argv.pop(1)
try:
    code = cli.main(sys.argv[1:])
except SystemExit as exit:
    code = exit.code
loaded = sorted({name.split(".")[0] for name in sys.modules} & set(heavy.split(",")))
print("EXIT", code, "HEAVY", ",".join(loaded), file=sys.stderr)
"""


def _heavy_modules(args: list[str], stdin: bytes = b"", workers: str | None = None) -> tuple[str, str]:
    env = dict(os.environ)
    if workers is not None:
        env["EVALSITE_WORKERS"] = workers
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, ",".join(HEAVY), *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        check=False,
        env=env,
    )
    last = proc.stderr.decode().strip().splitlines()[-1]
    _, code, _, loaded = (last.split(" ") + [""])[:4]
    return code, loaded


@pytest.fixture
def ledger_files(tmp_path: Path) -> tuple[Path, Path, bytes]:
    raw = make_campaign(campaign_id="lazy-imports", defect_cases=3, clean_cases=2, candidates=[arm("candidate")])
    campaign_path = tmp_path / "campaign.json"
    campaign_path.write_text(json.dumps(raw), encoding="utf-8")
    receipt = make_receipt(parse_campaign(raw), "candidate", raw["cases"][0]["caseId"], 1)
    return campaign_path, tmp_path / "ledger.jsonl", json.dumps(receipt).encode()


def test_ledger_append_and_verify_import_nothing_heavy(ledger_files: tuple[Path, Path, bytes]) -> None:
    campaign, ledger, receipt = ledger_files
    append = ["ledger", "append", "--campaign", str(campaign), "--ledger", str(ledger)]
    assert _heavy_modules(append, receipt) == ("0", "")
    assert ledger.read_bytes().count(b"\n") == 1  # the append really happened
    verify = ["ledger", "verify", "--campaign", str(campaign), "--ledger", str(ledger)]
    assert _heavy_modules(verify) == ("0", "")


@pytest.mark.parametrize("args", [["--help"], ["compare", "--help"], ["build", "--help"], ["ledger", "--help"]])
def test_help_imports_nothing_heavy(args: list[str]) -> None:
    assert _heavy_modules(args) == ("0", "")


def test_the_probe_sees_heavy_imports_when_they_happen(ledger_files: tuple[Path, Path, bytes]) -> None:
    """The same probe on ``ledger summarize`` (which computes exact intervals) does report scipy."""
    campaign, ledger, receipt = ledger_files
    _heavy_modules(["ledger", "append", "--campaign", str(campaign), "--ledger", str(ledger)], receipt)
    summarize = ["ledger", "summarize", "--campaign", str(campaign), "--ledger", str(ledger)]
    code, loaded = _heavy_modules(summarize)
    assert code == "0" and "scipy" in loaded.split(",")
