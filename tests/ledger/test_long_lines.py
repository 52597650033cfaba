"""A line longer than any receipt is never held whole (issue 31, item 3).

* Both readers (streamed from the file, and ``parse_ledger_bytes`` over bytes already read) give
  what an independent reference gives: the general splitter (``split_lines``) and one rule per line,
  for any line ends ("\\n", "\\r\\n", a lone "\\r", split anywhere between chunks) and any cap.
* A line past the cap is a ``too_long`` problem (or the torn tail when it is the unterminated last
  line, which ``ledger repair`` still sets aside).
* ``ledger verify`` and ``ledger summarize`` read a sparse ledger much larger than the memory they
  may use (``RLIMIT_AS``), with or without a "\\r" line end before the hole; the old reader held
  the hole as one line (or read a ledger with a "\\r" whole) and ran out of memory.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.analyze.ledger.schema import canonical_text, parse_campaign
from generator.model.errors import EvalsiteError
from generator.model.ledger import LedgerEntry, LedgerProblem
from generator.pipelines import ledger as pipeline
from generator.read.ledger import reader
from generator.read.ledger.files import parse_line_stdlib, size_text, split_lines
from generator.read.ledger.reader import LedgerRead, TornTail, parse_ledger_bytes, stream_ledger_file
from generator.write.ledger.append import repair_ledger
from tests.support.hang import HANG
from tests.support.hypo import examples
from tests.support.ledger_synth import arm, make_campaign, make_receipt

RAW = make_campaign(campaign_id="long-lines", defect_cases=2, clean_cases=1, candidates=[arm("candidate")])
CAMPAIGN = parse_campaign(RAW)
RECEIPTS = [
    make_receipt(CAMPAIGN, arm_id, case["caseId"], repeat)
    for arm_id in ("codex-baseline", "candidate")
    for case in RAW["cases"]
    for repeat in (1, 2)
]
LINES = b"".join(canonical_text(item).encode() + b"\n" for item in RECEIPTS)
ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = HANG
MIB = 1 << 20


def _torn_problem(number: int) -> LedgerProblem:
    return LedgerProblem(
        "torn_tail",
        number,
        f"benchmark ledger line {number} is not JSON (a torn write with no trailing newline; "
        "'evalsite ledger repair' sets it aside, keeping a backup)",
    )


def _reference(data: bytes, cap: int) -> tuple[list[LedgerEntry], list[LedgerProblem], TornTail | None, int]:
    """The rules, one physical line at a time, on the general splitter."""
    entries: list[LedgerEntry] = []
    problems: list[LedgerProblem] = []
    torn: TornTail | None = None
    count = 0
    for raw in split_lines(data):
        number, size, count = raw.number, len(raw.content), raw.number
        if size > cap:
            if raw.terminated:
                message = f"is longer than {size_text(cap)} ({size} bytes); not a receipt"
                problems.append(LedgerProblem("too_long", number, f"benchmark ledger line {number} {message}"))
            else:
                torn = TornTail(number, raw.start, size, False)
                problems.append(_torn_problem(number))
            continue
        try:
            text = raw.content.decode("utf-8")
        except UnicodeDecodeError:
            problems.append(LedgerProblem("not_utf8", number, f"benchmark ledger line {number} is not UTF-8"))
            if not raw.terminated:
                torn = TornTail(number, raw.start, size, False)
            continue
        if not text.strip():
            continue
        try:
            value = parse_line_stdlib(text)
        except ValueError:
            if raw.terminated:
                problems.append(LedgerProblem("not_json", number, f"benchmark ledger line {number} is not JSON"))
            else:
                torn = TornTail(number, raw.start, size, False)
                problems.append(_torn_problem(number))
            continue
        if not raw.terminated:
            torn = TornTail(number, raw.start, size, True)
        entries.append(LedgerEntry(number, value))
    return entries, problems, torn, count


PIECES = st.sampled_from(
    [
        b'{"a":1}',
        b'{"n":12345678901234567890}',
        b'{"a":NaN}',
        b"[" + b"1," * 30 + b"1]",
        b"\n",
        b"\r",
        b"\r\n",
        b" ",
        b"\xff",
        b"x" * 25,
        b"\x00" * 60,
        b"{",
    ]
)


def _decide(line: int, content: bytes) -> LedgerEntry | None:
    """A ``raw`` callback that decides one kind of line from its bytes (the rest is parsed)."""
    return LedgerEntry(line, {"a": 1}) if content == b'{"a":1}' else None


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pieces=st.lists(PIECES, max_size=24),
    cap=st.sampled_from([0, 1, 7, 20, 40, 1 << 24]),
    chunk=st.sampled_from([1, 2, 3, 7, 16, 1 << 20]),
)
def test_both_readers_follow_the_reference_rules(
    tmp_path_factory: Any, pieces: list[bytes], cap: int, chunk: int
) -> None:
    data = b"".join(pieces)
    path = tmp_path_factory.mktemp("lines") / "l.jsonl"
    path.write_bytes(data)
    entries, problems, torn, count = _reference(data, cap)
    expected = LedgerRead(True, len(data), tuple(entries), tuple(problems), torn, count)
    with mock.patch.object(reader, "LINE_CAP", cap), mock.patch.object(reader, "STREAM_CHUNK", chunk):
        assert parse_ledger_bytes(data) == (entries, problems, torn, count)
        assert stream_ledger_file(path, LedgerEntry, lock="none") == expected
        assert stream_ledger_file(path, LedgerEntry, lock="none", raw=_decide) == expected
        assert reader.read_ledger_file(path, lock="none") == expected


def _sparse(path: Path, head: bytes, hole: int, tail: bytes = b"") -> Path:
    """``head``, then ``hole`` NUL bytes the file system does not store, then ``tail``."""
    with open(path, "wb") as handle:
        handle.write(head)
        if tail:
            handle.seek(len(head) + hole)
            handle.write(tail)
        else:
            handle.truncate(len(head) + hole)
    return path


def _campaign(tmp_path: Path) -> Path:
    campaign = tmp_path / "campaign.json"
    campaign.write_text(json.dumps(RAW), encoding="utf-8")
    return campaign


def test_a_line_past_the_cap_is_too_long_and_the_rest_is_read(tmp_path: Path) -> None:
    size, first = 20 * MIB, LINES.index(b"\n") + 1
    ledger = _sparse(tmp_path / "l.jsonl", LINES[:first], size, b"\n" + LINES[first:])
    long_line = f"benchmark ledger line 2 is longer than 16 MiB ({size} bytes); not a receipt"
    report = pipeline.verify_ledger(_campaign(tmp_path), ledger)
    assert not report.sound and report.problem_count == 1
    assert f"problem: {long_line}" in report.lines
    assert f"receipts: {len(RECEIPTS)} valid, 0 invalid, 1 unreadable line(s)" in report.lines
    assert "tail: ends with a newline" in report.lines
    with pytest.raises(EvalsiteError, match="line 2 is longer than 16 MiB"):
        pipeline.summarize_ledger(_campaign(tmp_path), ledger)
    entries, problems, torn, count = parse_ledger_bytes(ledger.read_bytes())
    assert (problems, torn, count) == ([LedgerProblem("too_long", 2, long_line)], None, len(RECEIPTS) + 1)
    assert [entry.line for entry in entries] == [1, *range(3, len(RECEIPTS) + 2)]


def test_a_torn_tail_past_the_cap_keeps_its_offset_and_repair_sets_it_aside(tmp_path: Path) -> None:
    ledger = _sparse(tmp_path / "l.jsonl", LINES, 17 * MIB)
    read = reader.read_ledger_file(ledger)
    number = len(RECEIPTS) + 1
    assert read.torn_tail == TornTail(number, len(LINES), 17 * MIB, False)
    assert read.problems == (_torn_problem(number),)
    assert len(read.entries) == len(RECEIPTS)
    report = repair_ledger(ledger)
    assert [action.action for action in report.actions] == ["fragment_set_aside"]
    assert ledger.read_bytes() == LINES
    assert pipeline.verify_ledger(_campaign(tmp_path), ledger).sound


def test_carriage_returns_and_a_lock_that_appears_are_streamed(tmp_path: Path) -> None:
    """A "\\r" is read by the stream itself; only an appender appearing re-reads (under its lock)."""
    ledger = tmp_path / "l.jsonl"
    texts = [canonical_text(item).encode() for item in RECEIPTS]
    ends = [b"\r\n", b"\r", b"\n"] * len(texts)
    ledger.write_bytes(b"".join(text + end for text, end in zip(texts, ends, strict=False)) + b'{"torn')
    resets: list[int] = []
    streamed = stream_ledger_file(ledger, LedgerEntry, reset=lambda: resets.append(1))
    assert resets == [] and streamed.torn_tail is not None
    assert streamed == reader.read_ledger_file(ledger, lock="none")
    lock = Path(str(ledger) + ".lock")

    def appender_appears(_size: int) -> None:
        lock.touch()

    again = stream_ledger_file(ledger, LedgerEntry, reset=lambda: resets.append(1), tick=appender_appears)
    assert resets == [1] and again == streamed


# ---------------------------------------------------------------------- the memory a read may use

#: The address space the command may use: about twice what it needs, far below the ledger's size.
ADDRESS_SPACE = 240 * MIB
HOLE = 256 * MIB


def _limited(*args: str) -> subprocess.CompletedProcess[bytes]:
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))

    try:
        return subprocess.run(
            [sys.executable, "-m", "generator", *args],
            cwd=ROOT,
            capture_output=True,
            timeout=TIMEOUT,
            # summarize imports numpy: one BLAS thread fits the limit
            env={**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"},
            preexec_fn=limit,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"evalsite {' '.join(args)} hung")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is enforced on Linux")
@pytest.mark.parametrize("line_end", [b"", b"\r"])
def test_a_huge_sparse_tail_is_read_in_bounded_memory(tmp_path: Path, line_end: bytes) -> None:
    ledger = _sparse(tmp_path / "l.jsonl", LINES + line_end, HOLE)
    campaign = _campaign(tmp_path)
    number = len(RECEIPTS) + 1 + len(line_end)
    common = ["--campaign", str(campaign), "--ledger", str(ledger)]
    verify = _limited("ledger", "verify", *common)
    assert verify.returncode == 2, verify.stderr.decode()
    assert verify.stderr.decode() == "error: ledger is not sound (1 problem(s); see the report above)\n"
    report = verify.stdout.decode().splitlines()
    assert f"tail: ledger line {number} is a torn write: {HOLE} bytes without a trailing newline" in report
    assert report[-1] == "verdict: NOT SOUND (1 problem)"
    summarize = _limited("ledger", "summarize", *common, "--json")
    assert summarize.returncode == 2 and not summarize.stdout
    assert summarize.stderr.decode() == f"error: {_torn_problem(number).message}\n"
