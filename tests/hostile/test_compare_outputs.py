"""`compare --out` never writes over an input or a foreign file; stdout failures are plain (issue 11, items 1, 13)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from generator.cli import main
from tests.support.hang import HANG

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


@pytest.fixture
def experiments(tmp_path: Path) -> Path:
    for name in ("native", "beta"):
        shutil.copytree(EXAMPLES / "experiments" / name, tmp_path / name, symlinks=True)
    return tmp_path


def _compare(root: Path, *extra: str) -> list[str]:
    return [
        "compare",
        "--candidate", str(root / "native"), "--candidate-treatment", "COMET_NATIVE_PHASE1",
        "--baseline", str(root / "beta"), "--baseline-treatment", "COMET_FULL_040_BETA",
        *extra,
    ]  # fmt: skip


def test_out_inside_an_experiment_is_refused(experiments: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = next((experiments / "native" / "reports").glob("*.json"))
    before = report.read_bytes()
    assert main(_compare(experiments, "--format", "json", "--out", str(report))) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --out ") and "inside the input folder 'native'" in err
    assert report.read_bytes() == before


def test_out_through_a_symlink_into_an_experiment_is_refused(experiments: Path) -> None:
    report = next((experiments / "beta" / "reports").glob("*.json"))
    link = experiments / "elsewhere.json"
    link.symlink_to(report)
    before = report.read_bytes()
    assert main(_compare(experiments, "--out", str(link))) == 2
    assert report.read_bytes() == before


def test_a_foreign_file_needs_force(experiments: Path, capsys: pytest.CaptureFixture[str]) -> None:
    notes = experiments / "notes.md"
    notes.write_text("my notes\n")
    assert main(_compare(experiments, "--out", str(notes))) == 2
    assert "is not an evalsite comparison report; use --force" in capsys.readouterr().err
    assert notes.read_text() == "my notes\n"
    assert main(_compare(experiments, "--out", str(notes), "--force")) == 0
    assert notes.read_text().startswith("# Strict experiment comparison")


def test_its_own_kind_of_output_is_replaced(experiments: Path) -> None:
    out = experiments / "report.json"
    assert main(_compare(experiments, "--format", "json", "--out", str(out))) == 0
    first = out.read_bytes()
    assert main(_compare(experiments, "--format", "json", "--out", str(out))) == 0
    assert out.read_bytes() == first
    # a Markdown report does not silently replace a JSON document
    assert main(_compare(experiments, "--out", str(out))) == 2


def test_compare_to_a_closed_stdout_is_a_plain_error(experiments: Path) -> None:
    """A full stdout: ``test_every_command_words_a_full_stdout_like_the_others[compare]``."""
    command = [sys.executable, "-m", "generator", *_compare(experiments)]
    result = subprocess.run(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=ROOT, timeout=HANG,
        preexec_fn=lambda: os.close(1),
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr.startswith("error: could not write to standard output (")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_build_with_a_full_stdout_keeps_the_site_and_warns(tmp_path: Path) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    (tmp_path / "c.yaml").write_text("title: x\n")
    command = [
        sys.executable,
        "-m",
        "generator",
        "build",
        "--config",
        str(tmp_path / "c.yaml"),
        "--out",
        str(tmp_path / "o"),
    ]
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            command,
            stdout=full, stderr=subprocess.PIPE, text=True, cwd=ROOT, timeout=HANG,
        )  # fmt: skip
    assert result.returncode == 0
    assert result.stderr.startswith("warning: could not write to standard output")
    assert (tmp_path / "o" / "index.html").is_file()


_LEDGER = ["--campaign", "ledger/campaign.json", "--ledger", "ledger/receipts.jsonl"]
_EVERY_PRINTING_COMMAND = {
    "ledger summarize": ["ledger", "summarize", *_LEDGER],
    "ledger verify": ["ledger", "verify", *_LEDGER],
    "history verify": ["history", "verify", "history/history.jsonl"],
    "leaderboard": [
        "leaderboard",
        "--system",
        "a=leaderboard/agent-a:LB_AGENT_A",
        "--system",
        "b=leaderboard/agent-b:LB_AGENT_B",
    ],  # fmt: skip
    "compare": _compare(EXAMPLES / "experiments"),
}


@pytest.mark.parametrize("name", sorted(_EVERY_PRINTING_COMMAND))
def test_every_command_words_a_full_stdout_like_the_others(name: str) -> None:
    """Issue 31, item 4: `ledger verify` and others said "unexpected OSError: [Errno 28]" on /dev/full."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    command = [sys.executable, "-m", "generator", *_EVERY_PRINTING_COMMAND[name]]
    with open("/dev/full", "w") as full:
        result = subprocess.run(command, stdout=full, stderr=subprocess.PIPE, text=True, cwd=EXAMPLES, timeout=HANG)
    assert result.returncode == 2
    assert result.stderr == "error: could not write to standard output (No space left on device)\n"
