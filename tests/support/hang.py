"""How long a test waits before it calls something hung (issue 27: no test depends on the machine's load).

Tests never time anything; they only give up on a child, a thread or a lock that never finishes, so a
regression fails instead of hanging the suite.  The limit is far above any working run: a build that
takes 3 s on a quiet machine took 15 s on a busy one, and the whole suite once took 27 minutes.  A real
hang still fails, just later.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from types import FrameType

__all__ = ["HANG", "Hung", "no_hang"]

#: Seconds a subprocess, thread join or queue read may take before the test fails as hung.
HANG = 600


class Hung(Exception):
    """Work run in the test's own process went past its limit (:func:`no_hang`)."""


@contextlib.contextmanager
def no_hang(seconds: int = HANG) -> Iterator[None]:
    """Run the block in this process as a child would run under ``timeout=``: past *seconds* an
    alarm raises :class:`Hung` in it (the command line reports it as an unexpected error, which fails
    the test).  The alarm and handler that were set before (a conftest's) are put back after."""

    def hung(signum: int, frame: FrameType | None) -> None:
        raise Hung(f"did not finish within {seconds} s")

    previous = signal.signal(signal.SIGALRM, hung)
    left = signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        if left:
            signal.alarm(left)
