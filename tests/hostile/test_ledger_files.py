"""Ledger commands never destroy inputs, never trust a torn backup, never force modes on foreign files,
and lock by the real file (issue 11, ledger items 1, 2, 3, 5 and 13)."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import io
import json
import os
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from generator.analyze.ledger.schema import canonical_text, parse_campaign
from generator.cli import main
from generator.write.ledger import append as ledger_write
from generator.write.ledger.index import index_path_for
from tests.support.hang import HANG
from tests.support.ledger_synth import arm, full_grid, make_campaign

RAW = make_campaign(defect_cases=12, clean_cases=8, candidates=[arm("candidate")])
CAMPAIGN = parse_campaign(RAW)
GRID = full_grid(CAMPAIGN, ["codex-baseline", "candidate"])


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str


def ledger_cli(*args: str, stdin: str = "") -> Run:
    out, err = io.StringIO(), io.StringIO()
    old_stdin = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode()), encoding="utf-8")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["ledger", *args])
    finally:
        sys.stdin = old_stdin
    return Run(code, out.getvalue(), err.getvalue())


def one_error(run: Run, needle: str, tmp_path: Path) -> None:
    assert run.code == 2, run
    assert run.err.startswith("error: ") and run.err.count("\n") == 1, run.err
    assert needle in run.err, run.err
    assert str(tmp_path) not in run.err and "unexpected" not in run.err


def lines(receipts: list[dict[str, Any]]) -> bytes:
    return "".join(canonical_text(item) + "\n" for item in receipts).encode()


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    campaign = tmp_path / "c.json"
    campaign.write_text(json.dumps(RAW))
    ledger = tmp_path / "L.jsonl"
    ledger.write_bytes(lines(GRID[:6]))
    return campaign, ledger


# --------------------------------------------------------------------------- item 1: outputs over inputs


@pytest.mark.parametrize(
    "option,target",
    [("--out", "L.jsonl"), ("--extended", "L.jsonl"), ("--out", "c.json"), ("--extended", "c.json")],
)
def test_summarize_never_writes_over_its_inputs(files, tmp_path, option, target) -> None:
    campaign, ledger = files
    before = {path: path.read_bytes() for path in (campaign, ledger)}
    run = ledger_cli("summarize", "--campaign", str(campaign), "--ledger", str(ledger), option, str(tmp_path / target))
    one_error(run, "is one of this command's inputs", tmp_path)
    assert {path: path.read_bytes() for path in before} == before


def test_summarize_sees_inputs_through_links(files, tmp_path) -> None:
    campaign, ledger = files
    before = ledger.read_bytes()
    (tmp_path / "soft.json").symlink_to(ledger)
    os.link(ledger, tmp_path / "hard.json")
    for name in ("soft.json", "hard.json"):
        run = ledger_cli(
            "summarize", "--campaign", str(campaign), "--ledger", str(ledger), "--out", str(tmp_path / name)
        )
        one_error(run, "is one of this command's inputs", tmp_path)
    assert ledger.read_bytes() == before


def test_summarize_replaces_only_its_own_kind_of_output_without_force(files, tmp_path) -> None:
    campaign, ledger = files
    notes = tmp_path / "notes.txt"
    notes.write_text("precious\n")
    args = ("summarize", "--campaign", str(campaign), "--ledger", str(ledger))
    one_error(ledger_cli(*args, "--out", str(notes)), "use --force", tmp_path)
    one_error(ledger_cli(*args, "--extended", str(notes)), "use --force", tmp_path)
    assert notes.read_text() == "precious\n"
    out, ext = tmp_path / "s.json", tmp_path / "e.json"
    assert ledger_cli(*args, "--out", str(out), "--extended", str(ext)).code == 0
    assert ledger_cli(*args, "--out", str(out), "--extended", str(ext)).code == 0  # its own outputs: replaced
    one_error(ledger_cli(*args, "--out", str(ext)), "use --force", tmp_path)  # an extended file is no summary
    assert ledger_cli(*args, "--out", str(notes), "--force").code == 0
    assert json.loads(notes.read_text())["receiptCount"] == 6


def test_out_and_extended_may_not_name_one_file(files, tmp_path) -> None:
    campaign, ledger = files
    same = tmp_path / "both.json"
    run = ledger_cli(
        "summarize", "--campaign", str(campaign), "--ledger", str(ledger), "--out", str(same), "--extended", str(same)
    )
    one_error(run, "--out and --extended name the same file", tmp_path)
    assert not same.exists()


def test_append_never_appends_to_its_campaign_or_receipt(files, tmp_path) -> None:
    campaign, _ = files
    before = campaign.read_bytes()
    run = ledger_cli("append", "--campaign", str(campaign), "--ledger", str(campaign), stdin=canonical_text(GRID[6]))
    one_error(run, "--ledger is the same file as --campaign", tmp_path)
    receipt = tmp_path / "r.json"
    receipt.write_text(canonical_text(GRID[6]))
    run = ledger_cli("append", "--campaign", str(campaign), "--ledger", str(receipt), "--receipt", str(receipt))
    one_error(run, "--ledger is the same file as --receipt", tmp_path)
    assert campaign.read_bytes() == before and receipt.read_text() == canonical_text(GRID[6])


# --------------------------------------------------------------------------- item 2: backups


def _torn(ledger: Path) -> bytes:
    with open(ledger, "ab") as handle:
        handle.write(b'{"armId":"cand')
    return ledger.read_bytes()


def _backup_name(ledger: Path, data: bytes) -> Path:
    return ledger.with_name(f"{ledger.name}.repair-{hashlib.sha256(data).hexdigest()[:16]}.bak")


@pytest.mark.parametrize("left_behind", [0, 100])
def test_repair_never_trusts_a_torn_backup(files, tmp_path, left_behind) -> None:
    """A backup cut short (0 bytes, or part of the ledger) by an earlier repair is rewritten in full."""
    _, ledger = files
    original = _torn(ledger)
    backup = _backup_name(ledger, original)
    backup.write_bytes(original[:left_behind])
    run = ledger_cli("repair", "--ledger", str(ledger))
    assert run.code == 0, run
    assert f"backup of the original ledger: {backup}" in run.out
    assert backup.read_bytes() == original  # the torn fragment is recoverable from the backup
    assert ledger.read_bytes() == original[: original.rindex(b"\n") + 1]
    assert not list(tmp_path.glob(".*.tmp"))


def test_repair_keeps_a_foreign_file_under_the_backup_name(files, tmp_path) -> None:
    _, ledger = files
    original = _torn(ledger)
    backup = _backup_name(ledger, original)
    backup.write_bytes(b"somebody else's file\n")
    run = ledger_cli("repair", "--ledger", str(ledger))
    assert run.code == 0, run
    assert backup.read_bytes() == b"somebody else's file\n"
    second = backup.with_name(backup.name.replace(".bak", "-2.bak"))
    assert second.read_bytes() == original and str(second) in run.out


def test_repair_reuses_only_a_verified_backup(files) -> None:
    _, ledger = files
    original = _torn(ledger)
    backup = _backup_name(ledger, original)
    backup.write_bytes(original)
    inode = backup.stat().st_ino
    assert ledger_cli("repair", "--ledger", str(ledger)).code == 0
    assert backup.stat().st_ino == inode and backup.read_bytes() == original


@pytest.mark.parametrize("failing_write", [1, 2])
def test_repair_out_of_space_is_a_clean_error_and_changes_nothing(files, tmp_path, monkeypatch, failing_write) -> None:
    """ENOSPC while writing the backup (1st write) or the repaired ledger (2nd): the ledger is untouched."""
    _, ledger = files
    original = _torn(ledger)
    real_write_all = ledger_write._write_all
    calls = []

    def write_all(fd: int, data: bytes) -> None:
        calls.append(1)
        if len(calls) == failing_write:
            real_write_all(fd, data[: len(data) // 2])
            raise OSError(errno.ENOSPC, "No space left on device")
        real_write_all(fd, data)

    monkeypatch.setattr(ledger_write, "_write_all", write_all)
    run = ledger_cli("repair", "--ledger", str(ledger))
    what = "the ledger backup" if failing_write == 1 else "the repaired ledger"
    one_error(run, f"could not write {what} (No space left on device); the ledger was not changed", tmp_path)
    assert ledger.read_bytes() == original
    assert not list(tmp_path.glob(".*.tmp"))
    backup = _backup_name(ledger, original)
    if failing_write == 1:
        assert not backup.exists()
    else:
        assert backup.read_bytes() == original
    monkeypatch.undo()
    assert ledger_cli("repair", "--ledger", str(ledger)).code == 0 and backup.read_bytes() == original


# --------------------------------------------------------------------------- item 3: modes and side files


def test_append_through_a_link_keeps_the_shared_ledgers_mode(files, tmp_path) -> None:
    campaign, ledger = files
    ledger.chmod(0o644)
    link = tmp_path / "link.jsonl"
    link.symlink_to(ledger.name)
    run = ledger_cli("append", "--campaign", str(campaign), "--ledger", str(link), stdin=canonical_text(GRID[6]))
    assert run.code == 0, run
    assert json.loads(run.out)["count"] == 7
    assert ledger.stat().st_mode & 0o777 == 0o644 and link.is_symlink()
    assert Path(str(ledger) + ".lock").exists() and not Path(str(link) + ".lock").exists()


def test_append_leaves_a_foreign_lock_files_mode_alone(files) -> None:
    campaign, ledger = files
    lock = Path(str(ledger) + ".lock")
    lock.write_bytes(b"")
    lock.chmod(0o664)
    assert (
        ledger_cli("append", "--campaign", str(campaign), "--ledger", str(ledger), stdin=canonical_text(GRID[6])).code
        == 0
    )
    assert lock.stat().st_mode & 0o777 == 0o664


def test_new_ledger_and_lock_are_private(files, tmp_path) -> None:
    campaign, _ = files
    fresh = tmp_path / "new" / "L.jsonl"
    assert (
        ledger_cli("append", "--campaign", str(campaign), "--ledger", str(fresh), stdin=canonical_text(GRID[0])).code
        == 0
    )
    assert fresh.stat().st_mode & 0o777 == 0o600
    assert Path(str(fresh) + ".lock").stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("content", [b"", b"do not touch"])
def test_a_planted_index_link_is_never_written_through(files, tmp_path, content) -> None:
    """An empty file is an empty SQLite database: opening the cache through a link would write into it."""
    campaign, ledger = files
    victim = tmp_path / "victim.db"
    victim.write_bytes(content)
    victim.chmod(0o644)
    Path(index_path_for(ledger)).symlink_to(victim)
    Path(index_path_for(ledger) + "-wal").symlink_to(tmp_path / "victim-wal")
    run = ledger_cli("append", "--campaign", str(campaign), "--ledger", str(ledger), stdin=canonical_text(GRID[6]))
    assert run.code == 0, run
    assert victim.read_bytes() == content and victim.stat().st_mode & 0o777 == 0o644
    assert not (tmp_path / "victim-wal").exists()
    assert not Path(index_path_for(ledger)).is_symlink()


def test_a_planted_lock_link_is_refused(files, tmp_path) -> None:
    campaign, ledger = files
    victim = tmp_path / "victim"
    victim.write_bytes(b"x")
    victim.chmod(0o644)
    Path(str(ledger) + ".lock").symlink_to(victim)
    before = ledger.read_bytes()
    run = ledger_cli("append", "--campaign", str(campaign), "--ledger", str(ledger), stdin=canonical_text(GRID[6]))
    one_error(run, "could not open the ledger lock file (it is a symbolic link)", tmp_path)
    assert victim.stat().st_mode & 0o777 == 0o644 and ledger.read_bytes() == before


def test_non_regular_ledgers_are_refused_before_opening(files, tmp_path) -> None:
    campaign, _ = files
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo, 0o644)
    run = ledger_cli("append", "--campaign", str(campaign), "--ledger", str(fifo), stdin=canonical_text(GRID[0]))
    one_error(run, "could not open ledger (it is not a regular file)", tmp_path)
    assert fifo.stat().st_mode & 0o777 == 0o644
    run = ledger_cli("append", "--campaign", str(campaign), "--ledger", str(tmp_path), stdin=canonical_text(GRID[0]))
    one_error(run, "not a regular file", tmp_path)
    dangling = tmp_path / "dangling.jsonl"
    dangling.symlink_to(tmp_path / "nowhere.jsonl")
    run = ledger_cli("append", "--campaign", str(campaign), "--ledger", str(dangling), stdin=canonical_text(GRID[0]))
    one_error(run, "the ledger path is a symbolic link to nothing", tmp_path)
    assert not (tmp_path / "nowhere.jsonl").exists()


# --------------------------------------------------------------------------- item 5: one lock per real file


@contextlib.contextmanager
def held(lock: Path) -> Iterator[None]:
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def test_an_append_through_a_link_waits_for_the_real_files_lock(files, tmp_path) -> None:
    campaign, ledger = files
    link = tmp_path / "elsewhere.jsonl"
    link.symlink_to(ledger)
    result: dict[str, Run] = {}
    with held(Path(str(ledger) + ".lock")):
        worker = threading.Thread(
            target=lambda: result.setdefault(
                "run",
                ledger_cli("append", "--campaign", str(campaign), "--ledger", str(link), stdin=canonical_text(GRID[6])),
            )
        )
        worker.start()
        time.sleep(0.3)
        assert worker.is_alive()  # serialised with appends through the real path
        with open(ledger, "ab") as handle:
            handle.write((canonical_text(GRID[7]) + "\n").encode())
    worker.join(HANG)
    assert result["run"].code == 0 and json.loads(result["run"].out)["count"] == 8


def test_repair_through_a_link_repairs_the_target_and_keeps_the_link(files, tmp_path) -> None:
    _, ledger = files
    original = _torn(ledger)
    other = tmp_path / "other"
    other.mkdir()
    link = other / "link.jsonl"
    link.symlink_to(ledger)
    run = ledger_cli("repair", "--ledger", str(link))
    assert run.code == 0, run
    assert link.is_symlink() and os.readlink(link) == str(ledger)
    assert ledger.read_bytes() == original[: original.rindex(b"\n") + 1]
    assert _backup_name(ledger, original).read_bytes() == original
    assert str(tmp_path) not in run.out and "next to the file the ledger link points to" in run.out
    assert list(other.iterdir()) == [link]
