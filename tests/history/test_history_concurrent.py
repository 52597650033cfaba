"""Concurrent appenders to one history lose nothing: every entry lands, and the chain verifies."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

from generator.model.history import HISTORY_SCHEMA
from generator.read.history import read_history, verify_history
from generator.write.history import append_history
from tests.support.hang import HANG

WORKERS = 6
EACH = 8


def _body(worker: int, number: int) -> dict[str, object]:
    return {
        "schema": HISTORY_SCHEMA,
        "kind": "comparison",
        "subject": f"s{worker}",
        "title": "t",
        "revision": None,
        "time": None,
        "inputs": {},
        "inputs_digest": f"sha256:{worker:02d}{number:062d}",
        "verdict": None,
        "issues": 0,
        "tiers": None,
        "sides": [{"label": "candidate", "tasks": [{"task": "x", "passes": number % 2, "runs": 1, "excluded": 0}]}],
    }


def _append_many(path: str, worker: int) -> None:
    for number in range(EACH):
        append_history(path, [_body(worker, number)])


def test_concurrent_processes_lose_nothing(tmp_path: Path) -> None:
    path = str(tmp_path / "history.jsonl")
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_append_many, args=(path, w)) for w in range(WORKERS)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(HANG)
        assert process.exitcode == 0
    read = read_history(path)
    assert verify_history(read) is None
    assert len(read.entries) == WORKERS * EACH
    assert {(e.subject, e.inputs_digest) for e in read.entries} == {
        (f"s{w}", f"sha256:{w:02d}{n:062d}") for w in range(WORKERS) for n in range(EACH)
    }


def test_same_inputs_append_nothing(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    assert len(append_history(path, [_body(1, 1)]).appended) == 1
    again = append_history(path, [_body(1, 1), _body(2, 1)])
    assert again.unchanged == ("s1",) and len(again.appended) == 1
    assert len(again.history.entries) == 2
