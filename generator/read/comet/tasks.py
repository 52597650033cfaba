"""A task's ``instruction.md``, read for display.

Task names come from report names and are untrusted: only a plain folder
name directly inside the tasks tree is looked up, nothing on the way may be
a symbolic link, and the file is size-capped (see :mod:`generator.read.safe_io`).
"""

from __future__ import annotations

import os
from pathlib import Path

from generator.model.runs import task_folder_problem
from generator.read.safe_io import Refusal, read_contained, resolve_root

INSTRUCTION_CAP = 256 * 1024


def read_instruction(tasks_dir: Path, task: str) -> str | None:
    """The instruction's text (undecodable bytes replaced), or None when it cannot be shown."""
    if task_folder_problem(task) is not None:
        return None
    root = resolve_root(tasks_dir)
    if root is None:
        return None
    data = read_contained(
        os.path.join(root, task, "instruction.md"), root, max_bytes=INSTRUCTION_CAP, root_is_resolved=True
    )
    if isinstance(data, Refusal):
        if data.reason == "exceeds the size limit":
            return f"*instruction.md is larger than {INSTRUCTION_CAP // 1024} KiB and is not shown.*\n"
        return None
    return data.decode("utf-8", errors="replace")
