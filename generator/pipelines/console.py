"""Standard output for every command, in one place.

A command's text goes to stdout through :func:`emit`.  When stdout cannot take it (closed, a full
disk, ``/dev/full``, an I/O error), the failure is worded like every other: if the command's results
are already safely written elsewhere (a site, a ledger receipt, an ``--out`` file), a ``warning:``
line on stderr and the command goes on; otherwise the text *is* the result, so
``error: could not write to standard output (...)`` and exit 2.  A reader that stops reading
(``| head``) is no failure.  After a failed write, descriptor 1 points at ``/dev/null`` so the
interpreter's own flush at exit cannot fail again.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
from collections.abc import Iterable

from generator.model.errors import EvalsiteError

__all__ = ["emit", "silence_stdout", "stdout_failure"]


def silence_stdout() -> None:
    """Point file descriptor 1 at /dev/null so no later flush (at exit) fails again."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, 1)
        finally:
            os.close(devnull)


def stdout_failure(error: BaseException) -> str:
    """The reason a write to stdout failed, in words (``No space left on device``), never a path."""
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return type(error).__name__


def emit(text: str | Iterable[str], *, results_already_written: bool = False, warning: str = "") -> None:
    """Write ``text`` (or its pieces, as they are made) to stdout and flush.

    ``results_already_written``: the command's results are safe elsewhere, so a failed write is a
    ``warning:`` and not an error; ``warning`` words it (what was done and not printed), followed by
    the reason in parentheses.
    """
    try:
        if sys.stdout is None:
            raise OSError(errno.EBADF, "standard output is closed")
        for piece in (text,) if isinstance(text, str) else text:
            sys.stdout.write(piece)
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. `evalsite compare ... | head`
        silence_stdout()
    except (OSError, ValueError) as error:  # ValueError: a closed stream object
        silence_stdout()
        reason = stdout_failure(error)
        if not results_already_written:
            raise EvalsiteError(f"could not write to standard output ({reason})") from None
        message = (
            f"{warning} ({reason})"
            if warning
            else f"could not write to standard output ({reason}); the output was written"
        )
        with contextlib.suppress(OSError, ValueError, AttributeError):
            print(f"warning: {message}", file=sys.stderr)
