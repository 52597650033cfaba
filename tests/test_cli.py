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
