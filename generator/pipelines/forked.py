"""One computation on the second core: a forked child computes it while this process goes on.

For a stage that would leave a core idle (the ledger summary's baseline arm, a build's input
digests while the comparison document is serialised).  The answer is always what ``compute()``
returns here: without a second core, without ``fork``, or when the child fails, it runs in this
process instead, so the result -- or the error -- is the same either way.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable
from typing import TypeVar

__all__ = ["in_child", "second_core", "workers"]

T = TypeVar("T")


def _forced() -> int | None:
    """``EVALSITE_WORKERS`` when it is a number: the process count every pool and child obeys."""
    forced = os.environ.get("EVALSITE_WORKERS", "").strip()
    return max(1, int(forced)) if forced.isdigit() else None


def _cores() -> int:
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)


def workers(items: int, minimum: int) -> int:
    """How many processes a pool over ``items`` uses: ``EVALSITE_WORKERS`` when set, else 1 below
    ``minimum`` items (a pool costs more to start than it saves) or without ``fork``, else one per
    usable core."""
    forced = _forced()
    if forced is not None:
        return forced
    if items < minimum or not hasattr(os, "fork"):
        return 1
    return _cores()


def second_core() -> bool:
    """True when a second core is there (``EVALSITE_WORKERS=1`` keeps one process, as for every pool).

    Not judged by the load average: a fork costs a few milliseconds, and a load-dependent choice
    made the same summary's time swing by a second between runs on the same machine.
    """
    forced = _forced()
    return (forced if forced is not None else _cores()) >= 2


def in_child(compute: Callable[[], T], *, force: bool = False) -> Callable[[], T]:
    """Start ``compute()`` in a forked child and return a function giving its result.

    The child sends its (pickled) result back through a pipe and exits at once, without cleanup.
    ``force`` skips the second-core check.  Only for a process with no other work in flight (no
    pool, no thread): the child inherits everything and touches nothing but the pipe.  The result
    function must be called once; it waits for the child.
    """
    if not hasattr(os, "fork") or not (force or second_core()):
        value = compute()
        return lambda: value
    read_end, write_end = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        value = compute()
        return lambda: value
    if pid == 0:  # the child: compute, send, leave without cleanup
        status = 1
        try:
            os.close(read_end)
            data = pickle.dumps(compute(), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write_end, "wb") as out:
                out.write(data)
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)

    def result() -> T:
        with os.fdopen(read_end, "rb") as source:
            data = source.read()
        _pid, status = os.waitpid(pid, 0)
        if status != 0 or not data:
            return compute()  # the child failed: the same computation here says why
        value: T = pickle.loads(data)
        return value

    return result
