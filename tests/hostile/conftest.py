"""The hostile-input suite never hangs: each test fails after a time limit instead (issue 31).

A hang is what several of these tests guard against (a FIFO, a sparse file, a lock held forever),
so a regression must show as a failure, not as a CI run that stops at its own limit.  The limit is
an alarm signal: it interrupts a blocking system call in this process (an ``open`` of a FIFO, a
``read``, a ``flock``), and the exception it raises fails the test.  Probes that run in a child
process carry their own ``timeout=`` as well.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from types import FrameType

import pytest

from tests.support.hang import HANG

#: Seconds a hostile-input test may take, setup and teardown included; the slowest takes a few on a
#: quiet machine, and the limit is far above what any load makes of that (tests/support/hang.py).
LIMIT = HANG


class HungTest(Exception):
    """A hostile-input test ran past :data:`LIMIT`: something it guards against hangs again."""


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise HungTest(f"did not finish within {LIMIT} s: a hostile input hangs again")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(LIMIT)
    try:
        return (yield)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
