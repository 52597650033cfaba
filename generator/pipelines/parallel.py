"""The one way evalsite runs work in parallel: an ordered map over a process pool.

:func:`ordered_map` gives ``function(shared, task)`` for every task, in task order, computed in
this process or by forked worker processes of a :class:`concurrent.futures.ProcessPoolExecutor`.
The comparison's readers, the site's page writers and nothing else use it; what a task needs
besides its own small description (the reading plans, the page bundles) is ``shared``: handed to
the workers at the fork, never pickled or sent per task.  Because each task depends on ``shared``
and itself alone and results come back in task order, the outcome is the same whichever way it
is computed -- the pool only decides where.

The pool cannot hang and never fails silently: a task that raises raises the same exception
here (the first in task order); a worker that dies (killed, out of memory) or gives no result
for :func:`task_timeout` seconds ends every worker and raises one :class:`WorkerError` line;
leaving the iteration early (an error while its results are used) ends the workers too.
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
import pickle
from collections.abc import Callable, Generator, Sequence
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from generator.model.errors import EvalsiteError
from generator.read.safe_io import merge_recorded, take_recorded

__all__ = ["WorkerError", "ordered_map", "task_timeout", "workers"]

S = TypeVar("S")
T = TypeVar("T")
R = TypeVar("R")

#: Seconds a worker may take over one task's result before the pool is ended (``EVALSITE_WORKER_TIMEOUT``).
DEFAULT_TIMEOUT = 600.0


class WorkerError(EvalsiteError):
    """A worker process died or stopped answering: the pool was ended (one line, exit status 2)."""


def _forced() -> int | None:
    """``EVALSITE_WORKERS`` when it is a number: the process count every pool obeys."""
    forced = os.environ.get("EVALSITE_WORKERS", "").strip()
    return max(1, int(forced)) if forced.isdigit() else None


def workers(items: int, minimum: int) -> int:
    """How many processes a pool over ``items`` uses: ``EVALSITE_WORKERS`` when set, else 1 below
    ``minimum`` items (a pool costs more to start than it saves) or without ``fork``, else one per
    usable core."""
    forced = _forced()
    if forced is not None:
        return forced
    if items < minimum or not hasattr(os, "fork"):
        return 1
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)


def task_timeout() -> float:
    """Seconds to wait for one task's result (``EVALSITE_WORKER_TIMEOUT``, default 600)."""
    try:
        value = float(os.environ.get("EVALSITE_WORKER_TIMEOUT", ""))
    except ValueError:
        return DEFAULT_TIMEOUT
    return value if value > 0 else DEFAULT_TIMEOUT


_SHARED: list[Any] = []  # a worker's copy of ``shared``, set by _install once it is forked


def _install(shared: object) -> None:
    _SHARED[:] = [shared]


def _run(function: Callable[[Any, Any], Any], task: object) -> tuple[Any, dict[Any, str]]:
    """One task in a worker, with the input digests it recorded (``safe_io.recording_digests``: a
    build's "Built from" reuses them); an exception that could not come back whole comes back as
    its line."""
    try:
        return function(_SHARED[0], task), take_recorded()
    except Exception as error:
        try:
            pickle.loads(pickle.dumps(error))
        except Exception:
            raise WorkerError(f"a worker failed: {type(error).__name__}: {error}") from None
        raise


def ordered_map(
    function: Callable[[S, T], R], shared: S, tasks: Sequence[T], processes: int
) -> Generator[R, None, None]:
    """``function(shared, task)`` for each task, in task order, as an iterator.

    With ``processes`` below 2 (or a single task) every task runs here, one at a time as the
    iterator is read.  Otherwise that many workers are forked when the iteration starts (so they
    inherit ``shared`` as it is then); ``function`` must be a module-level function and each task
    and result picklable.  Close the iterator (or read it to the end) to end the workers.
    """
    if processes < 2 or len(tasks) < 2:
        for task in tasks:
            yield function(shared, task)
        return
    yield from _pooled(function, shared, tasks, min(processes, len(tasks)))


def _pooled(function: Callable[[S, T], R], shared: S, tasks: Sequence[T], processes: int) -> Generator[R, None, None]:
    timeout = task_timeout()
    pool = concurrent.futures.ProcessPoolExecutor(
        processes, mp_context=multiprocessing.get_context("fork"), initializer=_install, initargs=(shared,)
    )
    finished = False
    try:
        futures = [pool.submit(_run, function, task) for task in tasks]
        for future in futures:
            try:
                result, digests = future.result(timeout=timeout)
            except BrokenProcessPool:
                raise WorkerError(
                    "a worker process stopped unexpectedly (killed or out of memory); "
                    "EVALSITE_WORKERS=1 runs everything in one process"
                ) from None
            except concurrent.futures.TimeoutError:
                raise WorkerError(
                    f"a worker process gave no result in {timeout:g} s and was stopped "
                    "(EVALSITE_WORKER_TIMEOUT sets the limit)"
                ) from None
            if digests:
                merge_recorded(digests)
            yield result
        finished = True
    finally:
        _shut(pool, finished)


def _shut(pool: concurrent.futures.ProcessPoolExecutor, finished: bool) -> None:
    """End the pool: at once, killing its workers, unless every result was read."""
    if not finished:
        # no public way to end running workers before Python 3.14 (``terminate_workers``)
        for process in list((getattr(pool, "_processes", None) or {}).values()):
            process.kill()
    pool.shutdown(wait=True, cancel_futures=True)
