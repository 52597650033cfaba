"""One computation on the second core: a forked child computes it while this process goes on.

For a stage that would leave a core idle (the ledger summary's baseline arm, a build's input
digests while the comparison document is serialised): :func:`in_child`.  For a computation whose
imports are heavy (scipy: about 70 MB and most of a second) and whose data is small: a
:class:`Helper`, forked before the data exists, imports them while this process reads, and
computes when asked -- so this process never holds scipy.  The answer is always what the
function returns here: without a second core, without ``fork``, or when the child fails, it runs
in this process instead, so the result -- or the error -- is the same either way.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import struct
import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["Helper", "in_child", "second_core", "workers"]

T = TypeVar("T")
A = TypeVar("A")


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
    function must be called once; it waits for the child.  Not a :class:`Helper`: this child exits
    once its value is written, so a result never asked for (an error in between) leaves no process
    behind holding inherited pipes -- a helper waits for its ask until it is closed -- and a child
    still writing a large value when its result function is dropped is ended then.
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
            _send(write_end, compute())
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)

    def result() -> T:
        dropped.detach()  # asked for: this function reads and reaps the child itself
        data = _received(read_end, pid)
        if data is None:
            return compute()  # the child failed: the same computation here says why
        value: T = pickle.loads(data)
        return value

    # A value larger than the pipe holds keeps the child writing until it is read: if the result
    # function is dropped unasked (an error in between), the child is ended and reaped with it.
    # Its pid cannot have been reused before: an unreaped child keeps it.
    dropped = weakref.finalize(result, _end_child, pid, read_end, os.getpid())
    return result


def _end_child(pid: int, read_end: int, parent: int) -> None:
    if os.getpid() == parent:  # a process forked since inherited the function: not its child
        _end(pid, read_end)


def _send(fd: int, value: object) -> None:
    """*value*, pickled, written to *fd* (which is closed after)."""
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    with os.fdopen(fd, "wb") as sink:
        sink.write(data)


def _received(fd: int, pid: int) -> bytes | None:
    """Everything child *pid* writes to *fd* until it exits, once it is reaped; None if it failed."""
    with os.fdopen(fd, "rb") as source:
        data = source.read()
    _pid, status = os.waitpid(pid, 0)
    return data if status == 0 and data else None


def _end(pid: int, *fds: int) -> None:
    """Close this side's *fds* of child *pid*, kill it (it only waits or computes) and reap it."""
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        os.waitpid(pid, 0)


_LENGTH = struct.Struct(">Q")
_READY = b"R"


def _read_exactly(fd: int, size: int) -> bytes:
    chunks: list[bytes] = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


class Helper(Generic[A, T]):
    """A forked process that runs ``prepare()`` at once and later computes ``function(data)``, once.

    Start it (:meth:`start`) before anything else is opened -- the child holds no lock and no file
    of this process's work -- and while this process is still small: the helper's own memory is
    what it had at the fork plus what ``prepare`` imports.  :meth:`ready` says, without waiting,
    whether ``prepare`` has finished.  :meth:`compute` sends the data (length-prefixed, so
    processes forked later that inherit the pipe do not matter) and returns the helper's answer;
    if the helper failed, or when asked a second time, the same function runs here (so the value,
    or the error, is the same either way).  :meth:`close` ends an unused helper.  Without a second
    core or ``fork``, :meth:`start` returns None.
    """

    def __init__(self, function: Callable[[A], T], pid: int, asks: int, answers: int) -> None:
        self._function, self._pid, self._asks, self._answers = function, pid, asks, answers
        self._done = False
        self._ready: bool | None = None  # None: the helper's "prepared" byte is not read yet

    @classmethod
    def start(
        cls, function: Callable[[A], T], prepare: Callable[[], object], *, force: bool = False
    ) -> Helper[A, T] | None:
        """The helper, forked now (``force`` skips the second-core check); None if none can be."""
        if not hasattr(os, "fork") or not (force or second_core()):
            return None
        asks_in, asks_out = os.pipe()
        answers_in, answers_out = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            for end in (asks_in, asks_out, answers_in, answers_out):
                os.close(end)
            return None
        if pid == 0:  # the helper: prepare, wait for the data, answer, leave without cleanup
            status = 1
            try:
                os.close(asks_out)
                os.close(answers_in)
                prepare()
                os.write(answers_out, _READY)  # one byte, before any answer: prepare() is done
                head = _read_exactly(asks_in, _LENGTH.size)
                if len(head) == _LENGTH.size:
                    (size,) = _LENGTH.unpack(head)
                    data = _read_exactly(asks_in, size)
                    if len(data) == size:
                        _send(answers_out, function(pickle.loads(data)))
                        status = 0
            finally:
                os._exit(status)
        os.close(asks_in)
        os.close(answers_out)
        return cls(function, pid, asks_out, answers_in)

    def ready(self) -> bool:
        """Whether the helper has finished ``prepare()`` (never waits; False once it has failed)."""
        if self._ready is None and not self._done:
            readable, _w, _x = select.select([self._answers], [], [], 0)
            if readable:
                self._ready = os.read(self._answers, 1) == _READY
        return bool(self._ready)

    def compute(self, data: A) -> T:
        """``function(data)``, computed by the helper (or here, if it failed or was used)."""
        if self._done:
            return self._function(data)
        try:
            payload = pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException:
            self.close()  # never left waiting for an ask that cannot be sent
            raise
        self._done = True
        sent = False
        try:
            if self._ready is None:
                self._ready = os.read(self._answers, 1) == _READY  # waits for prepare()
            with os.fdopen(self._asks, "wb") as sink:  # closed on leaving: the ask is complete or cut
                sent = True
                sink.write(_LENGTH.pack(len(payload)) + payload)
        except OSError:  # the helper is gone (a closed pipe): computed here below
            pass
        finally:
            if not sent:  # it may still wait for an ask: end it rather than wait for it
                _end(self._pid, self._asks, self._answers)
        answer = _received(self._answers, self._pid) if sent else None
        if answer is None or not self._ready:
            return self._function(data)  # the helper failed: the same computation here says why
        value: T = pickle.loads(answer)
        return value

    def close(self) -> None:
        """End the helper if :meth:`compute` was never called (preparing or waiting, it is killed)."""
        if not self._done:
            self._done = True
            _end(self._pid, self._asks, self._answers)
