"""The append protocol: lookup cache, torn tails, repair, locking, fsync and concurrency."""

from __future__ import annotations

import fcntl
import json
import multiprocessing
import os
import sqlite3
import threading
import time
from pathlib import Path

import pytest
from ledgerkit import (
    append_worker,
    assert_one_line_error,
    run_cli,
    small_campaign,
    upstream_style_append,
    write_campaign,
    write_ledger,
)

from generator.analyze.ledger.receipt import check_receipt
from generator.analyze.ledger.schema import LedgerDataError, canonical_text, parse_campaign, receipt_id
from generator.model.errors import EvalsiteError
from generator.pipelines.ledger import append_receipt, read_ledger, repair_ledger
from generator.write.ledger import append as ledger_write
from generator.write.ledger import index as ledger_index
from generator.write.ledger.index import LedgerIndex, index_path_for
from tests.support.hang import HANG
from tests.support.ledger_synth import full_grid, make_receipt

RAW = small_campaign()
CAMPAIGN = parse_campaign(RAW)
GRID = full_grid(CAMPAIGN, ["codex-baseline", "candidate"])


def _fresh(case: str = "defect-01", repeat: int = 50, **fields):
    return make_receipt(CAMPAIGN, "candidate", case, repeat, **fields)


def _index_count(ledger: Path) -> int:
    with sqlite3.connect(index_path_for(ledger)) as conn:
        return conn.execute("SELECT COUNT(*) FROM receipt").fetchone()[0]


# -- the cache ------------------------------------------------------------------


def test_index_is_private_and_tracks_every_receipt(tmp_path):
    ledger = tmp_path / "ledger.jsonl"
    for n, receipt in enumerate(GRID[:25], 1):
        assert append_receipt(ledger, CAMPAIGN, receipt).count == n
    assert os.stat(index_path_for(ledger)).st_mode & 0o777 == 0o600
    assert _index_count(ledger) == 25
    assert ledger.read_bytes() == "".join(canonical_text(r) + "\n" for r in GRID[:25]).encode()


def test_cache_catches_up_after_another_tool_appends(tmp_path):
    ledger = tmp_path / "ledger.jsonl"
    for receipt in GRID[:5]:
        append_receipt(ledger, CAMPAIGN, receipt)
    foreign = _fresh()
    upstream_style_append(ledger, foreign)
    # The foreign receipt is now known: a duplicate cell is refused, a rerun of it accepted.
    with pytest.raises(LedgerDataError, match="different immutable receipt"):
        append_receipt(ledger, CAMPAIGN, _fresh(wallMs=1))
    assert append_receipt(ledger, CAMPAIGN, foreign).appended is False
    rerun = _fresh(repeat=51, rerunOf=foreign["receiptId"])
    assert append_receipt(ledger, CAMPAIGN, rerun).count == 7
    assert _index_count(ledger) == 7


def test_append_reads_only_a_constant_amount_of_the_ledger(tmp_path, monkeypatch):
    """No re-reading: bytes read per append do not depend on the ledger's size."""
    read_sizes: list[int] = []
    original = os.pread

    def counting_pread(fd, size, offset):
        data = original(fd, size, offset)
        read_sizes.append(len(data))
        return data

    per_size = {}
    for count in (20, 400):
        ledger = tmp_path / f"ledger-{count}.jsonl"
        write_ledger(ledger, GRID[:count])
        append_receipt(ledger, CAMPAIGN, _fresh(repeat=60))  # builds the cache once
        monkeypatch.setattr(os, "pread", counting_pread)
        read_sizes.clear()
        append_receipt(ledger, CAMPAIGN, _fresh(repeat=61))
        monkeypatch.setattr(os, "pread", original)
        per_size[count] = sum(read_sizes)
    assert per_size[20] == per_size[400] or max(per_size.values()) < 4096
    assert max(per_size.values()) < 4096


@pytest.mark.parametrize("damage", ["truncate", "rewrite_same_size", "replace_file", "garbage_index", "foreign_db"])
def test_stale_or_broken_cache_is_rebuilt(tmp_path, damage):
    ledger = tmp_path / "ledger.jsonl"
    for receipt in GRID[:6]:
        append_receipt(ledger, CAMPAIGN, receipt)
    lines = ledger.read_bytes().splitlines(keepends=True)
    if damage == "truncate":
        ledger.write_bytes(b"".join(lines[:3]))  # receipts 4-6 are gone: they may be appended again
        expected = 4
        again = GRID[3]
    elif damage == "rewrite_same_size":
        time.sleep(0.01)
        ledger.write_bytes(b"".join([lines[1], lines[0], *lines[2:]]))  # same bytes, reordered
        expected, again = 7, _fresh()
    elif damage == "replace_file":
        copy = tmp_path / "copy.jsonl"
        copy.write_bytes(b"".join(lines[:2]))
        os.replace(copy, ledger)
        expected, again = 3, GRID[5]
    elif damage == "garbage_index":
        Path(index_path_for(ledger)).write_bytes(b"not a database at all" * 100)
        expected, again = 7, _fresh()
    else:
        Path(index_path_for(ledger)).unlink()
        with sqlite3.connect(index_path_for(ledger)) as conn:
            conn.execute("CREATE TABLE meta (key TEXT, value TEXT)")
        expected, again = 7, _fresh()
    assert append_receipt(ledger, CAMPAIGN, again).count == expected
    assert _index_count(ledger) == expected
    assert (
        run_cli("verify", "--campaign", str(write_campaign(tmp_path / "c.json", RAW)), "--ledger", str(ledger)).code
        == 0
    )


def test_cache_is_tied_to_the_campaign(tmp_path):
    ledger = tmp_path / "ledger.jsonl"
    append_receipt(ledger, CAMPAIGN, GRID[0])
    changed = json.loads(json.dumps(RAW))
    changed["thresholds"]["fprEpsilon"] = 0.04
    other = parse_campaign(changed)
    with pytest.raises(LedgerDataError, match="line 1: benchmark receipt campaignDigest mismatches"):
        append_receipt(ledger, other, make_receipt(other, "candidate", "clean-01", 1))


def test_hand_duplicated_ledger_refuses_appends(tmp_path):
    ledger = tmp_path / "ledger.jsonl"
    write_ledger(ledger, GRID[:5] + [GRID[2]])
    with pytest.raises(LedgerDataError, match=r"duplicate receipt or arm/case/repeat \(line 6 repeats line 3\)"):
        append_receipt(ledger, CAMPAIGN, _fresh())


def test_index_sync_without_ledger_and_after_removal(tmp_path):
    ledger = tmp_path / "ledger.jsonl"
    index = LedgerIndex.synced(ledger, CAMPAIGN, None, check=check_receipt)
    assert index.state.count == 0
    index.close()
    append_receipt(ledger, CAMPAIGN, GRID[0])
    ledger.unlink()
    assert append_receipt(ledger, CAMPAIGN, GRID[0]).count == 1  # a new, empty ledger


# -- torn tails and repair -------------------------------------------------------


def test_append_refuses_a_torn_tail_and_names_the_line(tmp_path):
    campaign = write_campaign(tmp_path / "c.json", RAW)
    ledger = tmp_path / "ledger.jsonl"
    write_ledger(ledger, GRID[:4])
    with open(ledger, "ab") as handle:
        handle.write(canonical_text(GRID[4]).encode()[:50])
    before = ledger.read_bytes()
    run = run_cli("append", "--campaign", str(campaign), "--ledger", str(ledger), stdin=json.dumps(_fresh()))
    assert_one_line_error(run)
    assert "line 5 has no trailing newline (a torn write); nothing was appended" in run.err
    assert ledger.read_bytes() == before
    verify = run_cli("verify", "--campaign", str(campaign), "--ledger", str(ledger))
    assert verify.code == 2 and "line 5 is a torn write: 50 bytes" in verify.out
    assert "verdict: NOT SOUND" in verify.out


def test_repair_sets_a_fragment_aside_and_keeps_a_backup(tmp_path):
    campaign = write_campaign(tmp_path / "c.json", RAW)
    ledger = tmp_path / "ledger.jsonl"
    write_ledger(ledger, GRID[:4])
    with open(ledger, "ab") as handle:
        handle.write(b'{"armId":"cand')
    original = ledger.read_bytes()
    mode = os.stat(ledger).st_mode & 0o777
    dry = run_cli("repair", "--ledger", str(ledger), "--dry-run")
    assert dry.code == 0 and "line 5: set aside 14 bytes of a torn write" in dry.out
    assert ledger.read_bytes() == original
    run = run_cli("repair", "--ledger", str(ledger))
    assert run.code == 0 and "backup of the original ledger:" in run.out
    backups = list(tmp_path.glob("ledger.jsonl.repair-*.bak"))
    assert len(backups) == 1 and backups[0].read_bytes() == original
    # The backup is private; the repaired ledger keeps the permission bits it had (never forced).
    assert os.stat(backups[0]).st_mode & 0o777 == 0o600 and os.stat(ledger).st_mode & 0o777 == mode
    assert ledger.read_bytes() == original[: original.rindex(b"\n") + 1]
    assert run_cli("verify", "--campaign", str(campaign), "--ledger", str(ledger)).code == 0
    assert append_receipt(ledger, CAMPAIGN, GRID[4]).count == 5
    assert run_cli("repair", "--ledger", str(ledger)).out.startswith("nothing to repair")


def test_repair_adds_a_missing_newline_to_a_complete_line(tmp_path):
    ledger = tmp_path / "ledger.jsonl"
    write_ledger(ledger, GRID[:3])
    ledger.write_bytes(ledger.read_bytes()[:-1])
    with pytest.raises(EvalsiteError, match="line 3 has no trailing newline"):
        append_receipt(ledger, CAMPAIGN, GRID[3])
    report = repair_ledger(ledger)
    assert [a.action for a in report.actions] == ["newline_added"] and report.receipts_after == 3
    assert append_receipt(ledger, CAMPAIGN, GRID[3]).count == 4


def test_repair_splits_a_receipt_glued_onto_a_torn_fragment(tmp_path):
    """Upstream glues the next receipt onto a torn line; repair recovers that receipt."""
    ledger = tmp_path / "ledger.jsonl"
    write_ledger(ledger, GRID[:3])
    with open(ledger, "ab") as handle:
        handle.write(canonical_text(GRID[3]).encode()[:80] + (canonical_text(GRID[4]) + "\n").encode())
    assert not read_ledger(ledger, CAMPAIGN).sound
    report = repair_ledger(ledger)
    assert [a.action for a in report.actions] == ["glued_split"]
    assert ledger.read_bytes() == "".join(canonical_text(r) + "\n" for r in GRID[:3] + [GRID[4]]).encode()
    assert read_ledger(ledger, CAMPAIGN).sound


def test_repair_refuses_to_guess_about_a_bad_middle_line(tmp_path):
    ledger = tmp_path / "ledger.jsonl"
    ledger.write_bytes((canonical_text(GRID[0]) + "\nnot json\n" + canonical_text(GRID[1]) + "\n").encode())
    before = ledger.read_bytes()
    run = run_cli("repair", "--ledger", str(ledger))
    assert_one_line_error(run)
    assert "line 2 is not JSON and is not a torn tail" in run.err
    assert ledger.read_bytes() == before and not list(tmp_path.glob("*.bak"))


def test_failed_write_leaves_no_torn_line(tmp_path, monkeypatch):
    ledger = tmp_path / "ledger.jsonl"
    write_ledger(ledger, GRID[:2])
    before = ledger.read_bytes()
    real_write = os.write

    def half_then_fail(fd, data):
        if len(data) > 200:
            real_write(fd, bytes(data[:100]))
            raise OSError(28, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(ledger_write.os, "write", half_then_fail)
    with pytest.raises(EvalsiteError, match="could not append to ledger"):
        append_receipt(ledger, CAMPAIGN, GRID[2])
    monkeypatch.undo()
    assert ledger.read_bytes() == before
    assert append_receipt(ledger, CAMPAIGN, GRID[2]).count == 3


def test_each_append_is_fsynced(tmp_path, monkeypatch):
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(ledger_write.os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd))[1])
    ledger = tmp_path / "sub" / "ledger.jsonl"
    append_receipt(ledger, CAMPAIGN, GRID[0])
    assert len(synced) >= 2  # the ledger, then its folder (the file was just created)
    synced.clear()
    append_receipt(ledger, CAMPAIGN, GRID[1])
    assert len(synced) >= 1


# -- locking -----------------------------------------------------------------------


def test_summarize_waits_for_an_appender_holding_the_lock(tmp_path):
    campaign = write_campaign(tmp_path / "c.json", RAW)
    ledger = tmp_path / "ledger.jsonl"
    write_ledger(ledger, GRID[:3])
    fd = os.open(str(ledger) + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    result = {}
    reader = threading.Thread(
        target=lambda: result.setdefault(
            "run", run_cli("summarize", "--campaign", str(campaign), "--ledger", str(ledger))
        )
    )
    reader.start()
    time.sleep(0.3)
    assert reader.is_alive()  # blocked on the shared lock
    with open(ledger, "ab") as handle:  # the "appender" finishes its line...
        handle.write((canonical_text(GRID[3]) + "\n").encode())
    fcntl.flock(fd, fcntl.LOCK_UN)
    os.close(fd)
    reader.join(HANG)
    assert result["run"].code == 0 and result["run"].json()["receiptCount"] == 4


def test_eight_concurrent_appenders_never_lose_duplicate_or_interleave(tmp_path):
    ledger = tmp_path / "ledger.jsonl"
    receipts = GRID[:80]
    chunks = [receipts[i::8] for i in range(8)]
    # A fork server: workers start from a clean single-threaded process, cheaply.
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["ledgerkit"])
    results = context.Queue()
    workers = [
        context.Process(target=append_worker, args=(str(ledger), RAW, chunk, i == 7, results))
        for i, chunk in enumerate(chunks)
    ]
    for worker in workers:
        worker.start()
    counts = [results.get(timeout=HANG) for _ in workers]
    for worker in workers:
        worker.join(HANG)
        assert worker.exitcode == 0
    lines = ledger.read_bytes().split(b"\n")
    assert lines[-1] == b"" and len(lines) - 1 == 80
    parsed = [json.loads(line) for line in lines[:-1]]
    assert sorted(r["receiptId"] for r in parsed) == sorted(r["receiptId"] for r in receipts)
    assert all(canonical_text(r).encode() == line for r, line in zip(parsed, lines, strict=False))
    mine = [n for chunk in counts for n in chunk if n != -1]
    assert len(mine) == 70 and len(set(mine)) == 70 and all(1 <= n <= 80 for n in mine)
    campaign = write_campaign(tmp_path / "c.json", RAW)
    assert run_cli("verify", "--campaign", str(campaign), "--ledger", str(ledger)).code == 0
    # Duplicates raced in from every process are still refused afterwards.
    assert append_receipt(ledger, CAMPAIGN, receipts[0]).appended is False
    assert _index_count(ledger) == 80


def test_lock_file_failure_is_a_clean_error(tmp_path):
    ledger = tmp_path / "ledger.jsonl"
    os.mkdir(str(ledger) + ".lock")  # a folder where the lock file should be
    with pytest.raises(EvalsiteError, match="could not open the ledger lock file"):
        append_receipt(ledger, CAMPAIGN, GRID[0])
    assert not ledger.exists()


def test_unused_index_module_hooks_stay_consistent():
    assert ledger_index.INDEX_SUFFIX == ".evalsite-index"


def test_unusable_cache_file_falls_back_to_reading_the_ledger(tmp_path, monkeypatch):
    ledger = tmp_path / "ledger.jsonl"
    write_ledger(ledger, GRID[:4])

    def refuse(path):
        raise OSError(13, "Permission denied")

    monkeypatch.setattr(ledger_index, "_create_private", refuse)
    assert append_receipt(ledger, CAMPAIGN, GRID[4]).count == 5
    changed = dict(GRID[4], wallMs=3)
    changed["receiptId"] = receipt_id(changed)
    with pytest.raises(LedgerDataError, match="different immutable receipt"):
        append_receipt(ledger, CAMPAIGN, changed)
    assert not Path(index_path_for(ledger)).exists()
    monkeypatch.undo()
    assert append_receipt(ledger, CAMPAIGN, GRID[5]).count == 6
    assert _index_count(ledger) == 6


def test_failed_cache_update_still_reports_the_append(tmp_path, monkeypatch):
    ledger = tmp_path / "ledger.jsonl"
    append_receipt(ledger, CAMPAIGN, GRID[0])

    def broken(self, *args, **kwargs):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(LedgerIndex, "record", broken)
    assert append_receipt(ledger, CAMPAIGN, GRID[1]).count == 2
    monkeypatch.undo()
    assert append_receipt(ledger, CAMPAIGN, GRID[2]).count == 3
    assert append_receipt(ledger, CAMPAIGN, GRID[1]).appended is False
