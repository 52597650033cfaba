"""Ledger inputs that hang, flood or race: FIFOs, size caps, a closed stdout, the build's one read
(issue 11, ledger items 4, 10, 12 and 13).

Anything that could hang runs under an alarm (``no_hang``) or in a subprocess with a timeout, so a
regression fails instead of hanging the suite.  Commands run in this process (a child adds only its
start and imports), except where only a real process shows the behaviour (a full or closed stdout)
or a regression would read a gigabyte into the test's own memory (the sparse ledger).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import io
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from generator.analyze.ledger.schema import canonical_text, parse_campaign
from generator.read.ledger.files import LEDGER_SIZE_CAP
from generator.read.ledger.reader import CAMPAIGN_SIZE_CAP, RECEIPT_SIZE_CAP
from tests.support.cli import evalsite as in_process
from tests.support.hang import HANG, no_hang
from tests.support.ledger_synth import arm, full_grid, make_campaign

RAW = make_campaign(defect_cases=12, clean_cases=8, candidates=[arm("candidate")])
CAMPAIGN = parse_campaign(RAW)
GRID = full_grid(CAMPAIGN, ["codex-baseline", "candidate"])
TIMEOUT = HANG
ROOT = Path(__file__).resolve().parents[2]


def evalsite(
    *args: str, cwd: Path, stdin: bytes | None = None, child: bool = False, **kwargs: Any
) -> subprocess.CompletedProcess[bytes]:
    """``evalsite ARGS`` in this process under an alarm (a hang fails the test, as a child's time-out
    would), or in a real child with *child* or a redirected stream (*kwargs*: ``stdout=``...)."""
    if not child and not kwargs:
        with no_hang(TIMEOUT), _stdin(stdin or b""):
            done = in_process(*args, cwd=cwd)
        command = [sys.executable, "-m", "generator", *args]
        return subprocess.CompletedProcess(command, done.returncode, done.stdout.encode(), done.stderr.encode())
    try:
        return subprocess.run(
            [sys.executable, "-m", "generator", *args],
            cwd=cwd,
            input=stdin,
            capture_output="stdout" not in kwargs,
            timeout=TIMEOUT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            **kwargs,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"evalsite {' '.join(args)} hung")


@contextlib.contextmanager
def _stdin(data: bytes) -> Iterator[None]:
    """*data* as this process's standard input (the command reads ``sys.stdin.buffer``)."""
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(data))
    try:
        yield
    finally:
        sys.stdin = saved


def one_error(result: subprocess.CompletedProcess[bytes], needle: str, tmp_path: Path) -> None:
    err = result.stderr.decode()
    assert result.returncode == 2, (result.returncode, err)
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert needle in err, err
    assert str(tmp_path) not in err and "unexpected" not in err


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    campaign = tmp_path / "c.json"
    campaign.write_text(json.dumps(RAW))
    ledger = tmp_path / "L.jsonl"
    ledger.write_bytes("".join(canonical_text(r) + "\n" for r in GRID[:6]).encode())
    return campaign, ledger


# --------------------------------------------------------------------------- item 4: FIFOs


@pytest.mark.parametrize(
    "command",
    [
        ["verify", "--campaign", "c.json", "--ledger", "fifo"],
        ["summarize", "--campaign", "c.json", "--ledger", "fifo"],
        ["repair", "--ledger", "fifo"],
        ["verify", "--campaign", "fifo", "--ledger", "L.jsonl"],
        ["append", "--campaign", "fifo", "--ledger", "L.jsonl", "--receipt", "r.json"],
        ["append", "--campaign", "c.json", "--ledger", "L.jsonl", "--receipt", "fifo"],
    ],
)
def test_a_fifo_input_fails_at_once(files, tmp_path, command) -> None:
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "r.json").write_text(canonical_text(GRID[6]))
    before = (tmp_path / "L.jsonl").read_bytes()
    result = evalsite("ledger", *command, cwd=tmp_path)
    one_error(result, "not a regular file", tmp_path)
    assert (tmp_path / "L.jsonl").read_bytes() == before


def test_a_fifo_lock_file_fails_at_once(files, tmp_path) -> None:
    os.mkfifo(tmp_path / "L.jsonl.lock")
    result = evalsite("ledger", "verify", "--campaign", "c.json", "--ledger", "L.jsonl", cwd=tmp_path)
    one_error(result, "could not open the ledger lock file (it is not a regular file)", tmp_path)


def test_the_builds_ledger_inputs_never_block_on_a_fifo(files, tmp_path, monkeypatch) -> None:
    from generator.model.errors import EvalsiteError
    from generator.pipelines.ledger import site_inputs

    os.mkfifo(tmp_path / "fifo")
    monkeypatch.chdir(tmp_path)
    errors = []
    for pair in (("fifo", "L.jsonl"), ("c.json", "fifo")):
        with no_hang(TIMEOUT), pytest.raises(EvalsiteError) as error:
            site_inputs(*pair)
        errors.append(str(error.value))
    assert errors == [
        "could not read campaign (it is not a regular file)",
        "could not read ledger (it is not a regular file)",
    ]


# --------------------------------------------------------------------------- item 12: size caps


def test_an_oversized_sparse_ledger_is_refused_without_reading_it(files, tmp_path) -> None:
    _, ledger = files
    with open(ledger, "r+b") as handle:
        handle.truncate(LEDGER_SIZE_CAP + 1)  # sparse: no disk, and no memory if never read
    for command in (  # each in a child with a time-out: reading the gigabyte would hang there
        ["verify", "--campaign", "c.json", "--ledger", "L.jsonl"],
        ["summarize", "--campaign", "c.json", "--ledger", "L.jsonl"],
        ["repair", "--ledger", "L.jsonl"],
        ["append", "--campaign", "c.json", "--ledger", "L.jsonl", "--receipt", "-"],
    ):
        result = evalsite("ledger", *command, cwd=tmp_path, stdin=canonical_text(GRID[6]).encode(), child=True)
        one_error(result, "could not read ledger (larger than the 1 GiB limit)", tmp_path)
    assert ledger.stat().st_size == LEDGER_SIZE_CAP + 1


def test_an_oversized_campaign_is_refused(files, tmp_path) -> None:
    campaign, _ = files
    with open(campaign, "r+b") as handle:
        handle.truncate(CAMPAIGN_SIZE_CAP + 1)
    result = evalsite("ledger", "verify", "--campaign", "c.json", "--ledger", "L.jsonl", cwd=tmp_path)
    one_error(result, "could not read campaign (larger than the 64 MiB limit)", tmp_path)


def test_an_oversized_receipt_on_stdin_or_in_a_file_is_refused(files, tmp_path) -> None:
    huge = b" " * (RECEIPT_SIZE_CAP + 1)
    before = (tmp_path / "L.jsonl").read_bytes()
    result = evalsite("ledger", "append", "--campaign", "c.json", "--ledger", "L.jsonl", cwd=tmp_path, stdin=huge)
    one_error(result, "could not read receipt (larger than the 16 MiB limit)", tmp_path)
    (tmp_path / "r.json").write_bytes(huge)
    result = evalsite(
        "ledger", "append", "--campaign", "c.json", "--ledger", "L.jsonl", "--receipt", "r.json", cwd=tmp_path
    )
    one_error(result, "could not read receipt (larger than the 16 MiB limit)", tmp_path)
    assert (tmp_path / "L.jsonl").read_bytes() == before


# --------------------------------------------------------------------------- item 13: append with a broken stdout


@pytest.mark.parametrize("stdout", ["full", "closed"])
def test_append_with_a_broken_stdout_reports_the_durable_receipt(files, tmp_path, stdout) -> None:
    """The receipt is in the ledger: exit 0, and a warning on stderr says so."""
    args = ["ledger", "append", "--campaign", "c.json", "--ledger", "L.jsonl"]
    receipt = canonical_text(GRID[6]).encode()
    if stdout == "full":
        if not os.path.exists("/dev/full"):
            pytest.skip("no /dev/full here")
        with open("/dev/full", "wb") as full:
            result = evalsite(*args, cwd=tmp_path, stdin=receipt, stdout=full, stderr=subprocess.PIPE)
    else:
        command = " ".join([sys.executable, "-m", "generator", *args]) + " >&-"
        try:
            result = subprocess.run(
                command,
                shell=True,
                cwd=tmp_path,
                input=receipt,
                stderr=subprocess.PIPE,
                timeout=TIMEOUT,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
            )
        except subprocess.TimeoutExpired:
            pytest.fail("hung")
    err = result.stderr.decode()
    assert result.returncode == 0, err
    assert err.startswith(f"warning: receipt {GRID[6]['receiptId']} appended (count 7)"), err
    assert err.count("\n") == 1 and str(tmp_path) not in err
    assert (tmp_path / "L.jsonl").read_bytes().endswith(receipt + b"\n")


# --------------------------------------------------------------------------- item 10: the build reads once


def test_the_build_digest_and_summary_come_from_one_locked_read(files, tmp_path, monkeypatch) -> None:
    """An appender holding the lock: the build waits, then digests and summarizes the same bytes."""
    from generator.pipelines.build import DefaultCore
    from generator.read.config import LedgerConfig
    from generator.read.ledger import reader

    campaign, ledger = files
    opened: list[str] = []
    real_open = reader.open_regular

    def counting(path):
        opened.append(os.path.basename(path))
        return real_open(path)

    monkeypatch.setattr(reader, "open_regular", counting)
    entry = LedgerConfig("l", "L", campaign, ledger)
    lock = os.open(str(ledger) + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(lock, fcntl.LOCK_EX)
    out: dict[str, object] = {}
    worker = threading.Thread(target=lambda: out.setdefault("data", DefaultCore().ledger(entry)))
    worker.start()
    time.sleep(0.3)
    assert worker.is_alive()  # waiting for the shared lock
    with open(ledger, "ab") as handle:
        handle.write((canonical_text(GRID[6]) + "\n").encode())
    fcntl.flock(lock, fcntl.LOCK_UN)
    os.close(lock)
    worker.join(HANG)
    data = out["data"]
    digests = {item.role: item.sha256 for item in data.inputs}  # type: ignore[attr-defined]
    assert digests["ledger file"] == "sha256:" + hashlib.sha256(ledger.read_bytes()).hexdigest()
    assert data.result.summary["receiptCount"] == 7  # type: ignore[attr-defined]
    assert opened.count("L.jsonl") == 1 and opened.count("c.json") == 1
