"""One progress display for every long phase: a rich bar with counts on a terminal, silent otherwise.

The command that runs a pipeline opens :class:`Progress` (``with Progress(progress_wanted()):``);
any phase below it asks :func:`stage` for a ``tick`` callable.  With no open display, or when it
is disabled (not a TTY, ``CI`` or ``EVALSITE_NO_PROGRESS`` set), ``tick`` does nothing, so tests
and pipes see no output.  ``rich`` is imported only when a bar is really drawn.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["Progress", "progress_wanted", "stage"]

_ACTIVE: list[Progress] = []


def _nothing() -> None:
    return None


class Progress:
    """A rich progress bar on a terminal; silent otherwise (CI, pipes, tests)."""

    def __init__(self, enabled: bool) -> None:
        self._bar: Any = None
        if enabled:
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
            from rich.progress import Progress as RichProgress

            self._bar = RichProgress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                transient=True,
            )

    def __enter__(self) -> Progress:
        if self._bar is not None:
            self._bar.__enter__()
        _ACTIVE.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        _ACTIVE.remove(self)
        if self._bar is not None:
            self._bar.__exit__(*exc)

    def stage(self, description: str, total: int) -> Callable[[], None]:
        """A new bar of ``total`` steps; call the result once per step."""
        if self._bar is None:
            return _nothing
        bar = self._bar
        task = bar.add_task(description, total=total)
        return lambda: bar.advance(task)


def stage(description: str, total: int) -> Callable[[], None]:
    """A step counter on the innermost open :class:`Progress`, or a no-op when none is open."""
    return _ACTIVE[-1].stage(description, total) if _ACTIVE else _nothing


def progress_wanted(stream: Any = None) -> bool:
    """True on a terminal, unless ``CI`` or ``EVALSITE_NO_PROGRESS`` is set."""
    stream = stream or sys.stderr
    if os.environ.get("CI") or os.environ.get("EVALSITE_NO_PROGRESS"):
        return False
    return bool(getattr(stream, "isatty", lambda: False)())
