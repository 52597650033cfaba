"""The one way to run work in parallel (``generator.pipelines.parallel``): a pooled map gives what
the serial map gives, in order; a failing, dying or silent worker is one clear error, never a hang
and never a partial result; the workers are ended whichever way the map stops."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest

from generator.model.errors import EvalsiteError
from generator.pipelines import parallel
from generator.pipelines.parallel import WorkerError, ordered_map, workers
from tests.support.hang import HANG

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _never_hangs() -> Iterator[None]:
    """Each test fails after :data:`HANG` seconds instead of hanging (what the pool must never do).

    Issue 27: a fixed two minutes failed a working run on a busy machine (a compare child took longer);
    the shared limit is far above any working run and still ends a real hang."""
    _BEFORE.clear()
    _BEFORE.update(_children())  # children other tests left (the suite's own): not this test's

    def hung(signum: int, frame: FrameType | None) -> None:
        raise AssertionError("hung: the pool did not end")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(HANG)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


_BEFORE: set[int] = set()


def _new_children() -> set[int]:
    """This process's living child processes that this test started."""
    return _children() - _BEFORE


def _children() -> set[int]:
    """This process's living child processes (zombies excluded: they are reaped by now or never)."""
    found: set[int] = set()
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/children") as handle:
                found.update(int(pid) for pid in handle.read().split())
        except OSError:  # a thread (a pool's) that ended since the listing: it holds no child now
            continue
    alive = set()
    for pid in found:
        try:
            with open(f"/proc/{pid}/stat") as handle:
                state = handle.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.add(pid)
    return alive


def _square_with_pid(shared: dict[str, int], task: int) -> tuple[int, int]:
    return os.getpid(), task * task + shared["offset"]


def test_the_pooled_map_equals_the_serial_map_in_order() -> None:
    tasks = list(range(40))
    serial = list(ordered_map(_square_with_pid, {"offset": 3}, tasks, 1))
    pooled = list(ordered_map(_square_with_pid, {"offset": 3}, tasks, 2))
    assert [value for _pid, value in pooled] == [value for _pid, value in serial] == [t * t + 3 for t in tasks]
    assert {pid for pid, _value in serial} == {os.getpid()}
    assert os.getpid() not in {pid for pid, _value in pooled}  # computed by the workers
    assert _new_children() == set()  # and they are gone


def _shared_identity(shared: list[int], task: int) -> int:
    return len(shared) + task


def test_shared_data_reaches_the_workers_without_being_sent_per_task() -> None:
    large = list(range(200_000))  # inherited at the fork, never pickled
    assert list(ordered_map(_shared_identity, large, [1, 2, 3], 2)) == [200_001, 200_002, 200_003]


def _fails_at_five(shared: None, task: int) -> int:
    if task == 5:
        raise EvalsiteError(f"task {task} cannot be read")
    return task


def test_a_failing_task_raises_its_own_error_after_the_results_before_it() -> None:
    got: list[int] = []
    with pytest.raises(EvalsiteError, match="^task 5 cannot be read$") as raised:
        for value in ordered_map(_fails_at_five, None, list(range(20)), 2):
            got.append(value)
    assert got == [0, 1, 2, 3, 4]  # in order, then the error: the serial map's outcome
    assert type(raised.value) is EvalsiteError
    assert _new_children() == set()
    with pytest.raises(EvalsiteError, match="^task 5 cannot be read$"):
        list(ordered_map(_fails_at_five, None, list(range(20)), 1))


class _Unpicklable(Exception):
    def __init__(self, handle: object) -> None:
        super().__init__("an error holding a lock")
        self.handle = handle


def _raises_unpicklable(shared: None, task: int) -> int:
    import threading

    raise _Unpicklable(threading.Lock())


def test_an_error_that_cannot_travel_is_one_line() -> None:
    with pytest.raises(WorkerError, match=r"^a worker failed: _Unpicklable: an error holding a lock$"):
        list(ordered_map(_raises_unpicklable, None, [1, 2], 2))
    assert _new_children() == set()


def _dies(shared: None, task: int) -> int:
    if task == 3:
        os.kill(os.getpid(), signal.SIGKILL)  # as the kernel's out-of-memory killer would
    return task


def test_a_worker_that_dies_is_a_clear_error_not_a_hang() -> None:
    with pytest.raises(WorkerError, match="a worker process stopped unexpectedly"):
        list(ordered_map(_dies, None, list(range(10)), 2))
    assert _new_children() == set()


def _stalls(shared: None, task: int) -> int:
    if task == 1:
        time.sleep(3600)
    return task


def test_a_silent_worker_is_stopped_after_the_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVALSITE_WORKER_TIMEOUT", "1")
    started = time.monotonic()
    with pytest.raises(WorkerError, match=r"gave no result in 1 s and was stopped"):
        list(ordered_map(_stalls, None, [0, 1, 2], 2))
    assert time.monotonic() - started < HANG  # not the hour the worker sleeps
    assert _new_children() == set()  # the sleeping worker was killed, not waited for


def test_leaving_the_iteration_early_ends_the_workers() -> None:
    results = ordered_map(_stalls, None, [0, 1, 2, 3], 2)
    assert next(results) == 0
    results.close()  # task 1 still sleeps in its worker
    assert _new_children() == set()


def test_pool_sizes_obey_one_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EVALSITE_WORKERS", raising=False)
    assert workers(63, 64) == 1  # below the pool's minimum
    assert workers(64, 64) == len(os.sched_getaffinity(0))
    monkeypatch.setenv("EVALSITE_WORKERS", "3")
    assert workers(1, 64) == 3
    monkeypatch.setenv("EVALSITE_WORKERS", "0")
    assert workers(10**6, 64) == 1
    monkeypatch.setenv("EVALSITE_WORKER_TIMEOUT", "nonsense")
    assert parallel.task_timeout() == parallel.DEFAULT_TIMEOUT


_COMPARE = (
    "import os, sys\n"
    "from generator.cli import main\n"
    "from generator.pipelines import compare\n"
    "compare.POOL_MIN_RUNS = 0\n"
    "parent = os.getpid()\n"
    "real = compare._read_reports_task\n"
    "def worker(plans, task):\n"
    "    if os.getpid() != parent and task[1] >= 32:\n"
    "        {failure}\n"
    "    return real(plans, task)\n"
    "compare._read_reports_task = worker\n"
    "sys.exit(main(['compare', '--candidate', 'examples/experiments/native', '--candidate-treatment',\n"
    "               'COMET_NATIVE_PHASE1', '--baseline', 'examples/experiments/beta',\n"
    "               '--baseline-treatment', 'COMET_FULL_040_BETA', '--format', 'json']))\n"
)


@pytest.mark.parametrize(
    ("failure", "message"),
    [
        ("os.kill(os.getpid(), 9)", "error: a worker process stopped unexpectedly"),
        ("raise RuntimeError('disk on fire')", "error: unexpected RuntimeError: disk on fire"),
    ],
)
def test_compare_with_a_failing_worker_prints_one_line_and_no_output(failure: str, message: str) -> None:
    env = dict(os.environ, EVALSITE_WORKERS="2", PYTHONPATH=str(ROOT))
    env.pop("EVALSITE_DEBUG", None)
    done = subprocess.run(
        [sys.executable, "-c", _COMPARE.format(failure=failure)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""  # no partial document
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith(message), done.stderr
