"""The second-core helper (``generator.pipelines.forked``): the answer is always what the
computation gives here, whichever process computed it."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from generator.pipelines import build as build_module
from generator.pipelines.build import build_site, load_config
from generator.pipelines.forked import Helper, in_child, second_core, workers
from tests.support.hang import HANG


def test_the_value_comes_from_the_child() -> None:
    assert in_child(os.getpid, force=True)() != os.getpid()


def test_one_worker_keeps_it_in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVALSITE_WORKERS", "1")
    assert not second_core()
    assert in_child(os.getpid)() == os.getpid()


def test_a_failing_child_is_computed_again_here() -> None:
    parent = os.getpid()
    calls: list[int] = []

    def compute() -> int:
        calls.append(os.getpid())
        if os.getpid() != parent:
            raise RuntimeError("only in the child")
        return 7

    assert in_child(compute, force=True)() == 7
    assert calls == [parent]  # the child's attempt failed there; the parent computed it


def test_an_error_reaches_the_caller() -> None:
    def compute() -> int:
        raise ValueError("bad data")

    with pytest.raises(ValueError, match="bad data"):
        in_child(compute, force=True)()


def _files(root: Path) -> dict[str, bytes]:
    out = {}
    for folder, _dirs, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            with open(path, "rb") as handle:
                out[os.path.relpath(path, root)] = handle.read()
    return out


def test_input_digests_walked_in_a_child_build_the_same_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ "Built from" digests walked on the other core (forced here for the small example) give the
    same site, byte for byte, as the digests walked in the building process."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    config = load_config("site-config.yaml")
    walked_in: list[str] = []
    real = build_module.in_child

    def watched(compute):  # type: ignore[no-untyped-def]
        walked_in.append("child")
        return real(compute, force=True)

    monkeypatch.setattr(build_module, "_FORK_MIN_RUNS", 0)
    monkeypatch.setattr(build_module, "in_child", watched)
    build_site(config, tmp_path / "forked")
    assert walked_in  # every comparison's digests were walked in a child
    monkeypatch.setattr(build_module, "_FORK_MIN_RUNS", 10**9)
    build_site(config, tmp_path / "here")
    forked, here = _files(tmp_path / "forked"), _files(tmp_path / "here")
    assert forked == here
    assert any(b"sha256:" in text for name, text in here.items() if name.endswith(".html"))


def test_pool_sizes_obey_one_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EVALSITE_WORKERS", raising=False)
    assert workers(63, 64) == 1  # below the pool's minimum
    assert workers(64, 64) == (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count())
    monkeypatch.setenv("EVALSITE_WORKERS", "3")
    assert workers(1, 64) == 3 and second_core()
    monkeypatch.setenv("EVALSITE_WORKERS", "0")
    assert workers(10**6, 64) == 1 and not second_core()


# --------------------------------------------------------------------------- Helper


def _pid_and(data: int) -> tuple[int, int]:
    return os.getpid(), data * 2


def test_a_helper_prepares_and_computes_in_its_own_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVALSITE_WORKERS", "2")
    prepared: list[int] = []
    helper = Helper.start(_pid_and, lambda: prepared.append(os.getpid()))
    assert helper is not None
    pid, value = helper.compute(21)
    assert value == 42 and pid != os.getpid()
    assert prepared == []  # prepare() ran in the helper, not here
    assert helper.compute(5) == (os.getpid(), 10)  # asked again: computed here


def test_a_process_forked_after_the_helper_does_not_hold_it_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pool worker or child forked later inherits the helper's pipe; the length-prefixed ask does
    not wait for that copy to close (an end-of-file protocol would hang until it exits)."""
    import signal
    import time

    monkeypatch.setenv("EVALSITE_WORKERS", "2")
    helper = Helper.start(_pid_and, lambda: None)
    assert helper is not None
    holder = os.fork()
    if holder == 0:  # holds every inherited descriptor until it is killed
        while True:
            time.sleep(HANG)
    previous = signal.signal(signal.SIGALRM, _hung)
    signal.alarm(HANG)  # an ask that waited for the holder to close its copy would never return
    try:
        assert helper.compute(4)[1] == 8
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        os.kill(holder, signal.SIGKILL)
        os.waitpid(holder, 0)


def test_a_failing_helper_leaves_the_computation_to_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVALSITE_WORKERS", "2")
    parent = os.getpid()

    def only_here(data: int) -> int:
        if os.getpid() != parent:
            raise RuntimeError("fails in the helper")
        return data + 1

    helper = Helper.start(only_here, lambda: None)
    assert helper is not None
    assert helper.compute(1) == 2


def test_an_unused_helper_is_ended_and_one_core_starts_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVALSITE_WORKERS", "2")
    helper = Helper.start(_pid_and, lambda: None)
    assert helper is not None
    pid = helper._pid
    helper.close()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # already reaped
    monkeypatch.setenv("EVALSITE_WORKERS", "1")
    assert Helper.start(_pid_and, lambda: None) is None


def test_compare_computes_its_statistics_in_a_helper_without_importing_scipy() -> None:
    """``evalsite compare`` of a pair its readers' pool reads (the minimum lowered here for the small
    example) never imports scipy itself: its statistics come from the helper, which imported it.
    It prints the same document as when everything runs in one process."""
    import subprocess
    import sys

    code = (
        "import contextlib, io, sys\n"
        "from generator.cli import main\n"
        "from generator.pipelines import compare\n"
        "compare.POOL_MIN_RUNS = 0\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        "    rc = main(['compare', '--candidate', 'examples/experiments/native', '--candidate-treatment',\n"
        "              'COMET_NATIVE_PHASE1', '--baseline', 'examples/experiments/beta',\n"
        "              '--baseline-treatment', 'COMET_FULL_040_BETA', '--format', 'json'])\n"
        "print(rc, 'scipy' in sys.modules, 'numpy' in sys.modules)\n"
        "print(out.getvalue(), end='')\n"
    )
    root = Path(__file__).resolve().parent.parent
    outputs = {}
    for count in ("1", "2"):
        env = dict(os.environ, EVALSITE_WORKERS=count)
        done = subprocess.run(
            [sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, check=True
        )
        status, _, document = done.stdout.partition("\n")
        outputs[count] = (status, document)
    assert outputs["2"][0] == "0 False False"  # the helper computed them
    assert outputs["1"][0] == "0 True True"  # one process: computed here
    assert outputs["1"][1] == outputs["2"][1] and '"statistics"' in outputs["2"][1]


class _FakeHelper:
    def __init__(self, ready: bool) -> None:
        self._ready, self.asked, self.closed = ready, False, False

    def ready(self) -> bool:
        return self._ready

    def compute(self, data: object) -> str:
        self.asked = True
        return "from the helper"

    def close(self) -> None:
        self.closed = True


def test_a_small_comparison_does_not_wait_for_the_helper(monkeypatch: pytest.MonkeyPatch) -> None:
    """A comparison too small for the readers' pool asks the helper only if its import is done; else
    it ends the helper and computes here (waiting most of a second for scipy would cost more)."""
    from generator.pipelines import compare

    monkeypatch.setenv("EVALSITE_WORKERS", "2")
    monkeypatch.setattr(compare, "_paired_statistics", lambda data: "computed here")
    for ready, runs, expected in (
        (False, compare.POOL_MIN_RUNS - 1, "computed here"),
        (True, 10, "from the helper"),
        (False, compare.POOL_MIN_RUNS, "from the helper"),  # the reading outlasts the import: wait
    ):
        fake = _FakeHelper(ready)
        monkeypatch.setattr(Helper, "start", classmethod(lambda cls, *args, fake=fake: fake))
        monkeypatch.delitem(sys.modules, "scipy", raising=False)  # as in a fresh CLI process
        statistics = compare._Statistics()
        assert statistics.compute(({}, {}, (1,), 0), runs) == expected  # type: ignore[arg-type]
        assert fake.asked == (expected == "from the helper")
        assert fake.closed == (expected == "computed here")


def _hung(signum: int, frame: object) -> None:
    raise AssertionError(f"still waiting after {HANG} s")


def test_ready_says_whether_prepare_is_done_without_waiting(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """prepare() waits for a file this test writes, not for a clock: ready() is False until then on any
    machine, and a ready() that waited for prepare would never return (the alarm fails it)."""
    import signal
    import time

    gate = tmp_path / "open"

    def gated_prepare() -> None:
        while not gate.exists():
            time.sleep(0.01)

    monkeypatch.setenv("EVALSITE_WORKERS", "2")
    helper = Helper.start(_pid_and, gated_prepare)
    assert helper is not None
    previous = signal.signal(signal.SIGALRM, _hung)
    signal.alarm(HANG)
    try:
        assert not helper.ready()
        gate.touch()
        while not helper.ready():
            time.sleep(0.01)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert helper.compute(3)[1] == 6
    quick = Helper.start(_pid_and, lambda: None)
    assert quick is not None
    assert quick.compute(2)[1] == 4  # asked before ready() was: compute waits for prepare itself


def test_data_that_cannot_be_sent_ends_the_helper_instead_of_hanging(monkeypatch: pytest.MonkeyPatch) -> None:
    import pickle

    monkeypatch.setenv("EVALSITE_WORKERS", "2")
    helper = Helper.start(_pid_and, lambda: None)
    assert helper is not None
    pid = helper._pid
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        helper.compute(lambda: None)  # type: ignore[arg-type]  # a lambda cannot be pickled
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # ended and reaped, not left waiting


def _started_child(tmp_path: Path, value: object) -> tuple[Any, int]:
    """``in_child`` of a computation returning *value*, and the child's pid once it has computed."""
    import time

    mark = tmp_path / "pid"

    def compute() -> object:
        mark.write_text(str(os.getpid()))
        return value

    result = in_child(compute, force=True)
    started = time.monotonic()
    while not mark.exists() or not mark.read_text():
        assert time.monotonic() - started < HANG
        time.sleep(0.02)
    return result, int(mark.read_text())


def test_a_child_whose_result_is_not_asked_for_yet_exits_on_its_own(tmp_path: Path) -> None:
    """The child does not wait for its result to be asked for (a leftover child would hold every pipe
    it inherited: a browser driver's, a pool's); its value waits in the pipe."""
    import time

    result, pid = _started_child(tmp_path, 1)
    started = time.monotonic()
    while os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:  # not reaped here
        assert time.monotonic() - started < HANG, "the child is still waiting"
        time.sleep(0.02)
    assert result() == 1  # read and reaped by the result function


def test_a_child_writing_a_large_unasked_value_is_ended_when_its_result_is_dropped(tmp_path: Path) -> None:
    """A value larger than a pipe holds keeps the child writing until it is read; dropping the result
    function (an error before it was called) ends and reaps that child instead of leaving it blocked."""
    import gc
    import time

    large = b"x" * (4 << 20)  # far more than a pipe buffers
    result, pid = _started_child(tmp_path, large)
    time.sleep(0.2)
    assert os.waitpid(pid, os.WNOHANG) == (0, 0)  # still there, blocked on its write
    del result
    gc.collect()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # ended and reaped with the dropped result function
    assert in_child(lambda: large, force=True)() == large  # asked for: the value, as before
