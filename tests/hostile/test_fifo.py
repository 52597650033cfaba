"""A FIFO where a file should be fails at once, never hangs (issue 11, item 4).

Each probe runs in a subprocess with a timeout, so a regression shows as a failure, not a hung suite.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support.hang import HANG

TIMEOUT = HANG


def _run(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT
        )
    except subprocess.TimeoutExpired:
        pytest.fail("hung on a FIFO")


def test_a_fifo_swapped_in_after_the_first_look_is_refused_without_blocking(tmp_path: Path) -> None:
    """lstat sees a regular file, then the path is a FIFO when opened: open must not wait for a writer."""
    os.mkfifo(tmp_path / "report.json")
    (tmp_path / "regular").write_text("x")
    result = _run(
        f"""
        import os, stat
        from generator.read import safe_io
        real = os.lstat
        regular = real({str(tmp_path / "regular")!r})
        def fake(path, *a, **k):
            st = real(path, *a, **k)
            return regular if stat.S_ISFIFO(st.st_mode) else st
        os.lstat = fake
        print(safe_io.read_contained({str(tmp_path / "report.json")!r}, {str(tmp_path)!r}, max_bytes=100))
        print(safe_io.open_regular({str(tmp_path / "report.json")!r}))
        """,
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "Refusal(reason='changed during read')",
        "Refusal(reason='changed during read')",
    ]


def test_input_digest_of_a_fifo_is_an_error_not_a_hang(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "ledger.jsonl")
    result = _run(
        f"""
        from pathlib import Path
        from generator.read.digests import file_digest
        from generator.model.errors import EvalsiteError
        try:
            file_digest(Path({str(tmp_path / "ledger.jsonl")!r}), "ledger file")
        except EvalsiteError as error:
            print(error)
        """,
        tmp_path,
    )
    assert result.stdout.strip() == "ledger file 'ledger.jsonl' cannot be hashed: it is not a regular file"


def test_a_fifo_as_the_site_config_fails_at_once(tmp_path: Path) -> None:
    """Issue 31, item 1: `evalsite build --config FIFO` blocked in the kernel waiting for a writer."""
    os.mkfifo(tmp_path / "site.yaml")
    try:
        result = subprocess.run(
            [sys.executable, "-m", "generator", "build", "--config", "site.yaml"],
            cwd=tmp_path, capture_output=True, text=True, timeout=TIMEOUT,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail("hung on a FIFO config")
    assert result.returncode == 2
    assert result.stderr == "error: site config 'site.yaml' could not be read (it is not a regular file)\n"
    assert not any(p.name != "site.yaml" for p in tmp_path.iterdir())  # nothing written
