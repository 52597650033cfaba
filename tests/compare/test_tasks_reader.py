"""Instructions are read for display only from plain task folders, never through links."""

from __future__ import annotations

import os
from pathlib import Path

from generator.read.comet.tasks import INSTRUCTION_CAP, read_instruction


def test_reads_a_plain_task(tmp_path: Path) -> None:
    (tmp_path / "task-a").mkdir()
    (tmp_path / "task-a" / "instruction.md").write_bytes(b"# Hi \xff\n")
    assert read_instruction(tmp_path, "task-a") == "# Hi \ufffd\n"


def test_refuses_escapes_links_and_missing(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "instruction.md").write_text("SECRET")
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    assert read_instruction(tasks, "../secret") is None
    assert read_instruction(tasks, "..") is None
    os.symlink(secret, tasks / "linked-task")
    assert read_instruction(tasks, "linked-task") is None
    (tasks / "task-b").mkdir()
    os.symlink(secret / "instruction.md", tasks / "task-b" / "instruction.md")
    assert read_instruction(tasks, "task-b") is None
    assert read_instruction(tasks, "absent") is None
    assert read_instruction(tmp_path / "no-tasks", "task-a") is None


def test_oversized_instruction_is_replaced_by_a_note(tmp_path: Path) -> None:
    (tmp_path / "big").mkdir()
    (tmp_path / "big" / "instruction.md").write_bytes(b"x" * (INSTRUCTION_CAP + 1))
    assert "not shown" in read_instruction(tmp_path, "big")
