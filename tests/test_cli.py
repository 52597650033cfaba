"""The command line's contract: one-line errors, exit status 2, no traceback."""

import subprocess
import sys

from generator.cli import main


def test_unknown_option_is_one_line_error(capsys):
    assert main(["compare", "--nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ")
    assert err.count("\n") == 1


def test_no_command_prints_help_and_fails(capsys):
    assert main([]) == 2
    assert "COMMAND" in capsys.readouterr().err


def test_python_dash_m_generator_runs():
    proc = subprocess.run([sys.executable, "-m", "generator", "--version"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0
    assert proc.stdout.startswith("evalsite ")


def test_ledger_help_reaches_the_ledger_tool(capsys):
    assert main(["ledger", "--help"]) == 0
    assert "summarize" in capsys.readouterr().out


def test_the_command_exits_hard_with_mains_code_and_every_byte_written(tmp_path, capsys):
    """``python -m generator`` skips the interpreter's teardown (``os._exit``): the text written
    before it is complete, the exit status is main's, and an error is still one line."""
    campaign, ledger = "examples/ledger/campaign.json", "examples/ledger/receipts.jsonl"
    argv = ["ledger", "summarize", "--campaign", campaign, "--ledger", ledger, "--json"]
    assert main(argv) == 0
    expected = capsys.readouterr().out
    proc = subprocess.run([sys.executable, "-m", "generator", *argv], capture_output=True, text=True, check=False)
    assert (proc.returncode, proc.stdout) == (0, expected)
    assert len(expected) > 1000
    missing = subprocess.run(
        [sys.executable, "-m", "generator", "ledger", "verify", "--campaign", str(tmp_path / "x"), "--ledger", ledger],
        capture_output=True,
        text=True,
        check=False,
    )
    assert missing.returncode == 2
    assert missing.stderr.startswith("error: ") and missing.stderr.count("\n") == 1
