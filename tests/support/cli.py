"""The ``evalsite`` command run in this process: its exit status and what it printed.

For tests of a command's wording and results, a child interpreter only adds its start and imports
(about a second of CPU each, most of it scipy).  Tests of what only a real process shows (a closed or
full stdout, bytes that are not UTF-8, a hang) keep running ``python -m generator`` in a child.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import NamedTuple

from generator.cli import main

__all__ = ["Result", "evalsite"]


class Result(NamedTuple):
    returncode: int
    stdout: str
    stderr: str


def evalsite(*args: str, cwd: Path | None = None) -> Result:
    """``evalsite ARGS`` run from *cwd* (default: the current folder)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.ExitStack() as stack:
        if cwd is not None:
            stack.enter_context(contextlib.chdir(cwd))
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(err))
        code = main(list(args))
    return Result(code, out.getvalue(), err.getvalue())
