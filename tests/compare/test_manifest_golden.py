"""Fallback case manifests are byte-identical to the reference Comet module's.

``golden/fallback_manifests.json`` was produced by ``scripts/make_comet_golden.py``
from the reference module on awkward trees (ordering by path components, dotenv
files, ``__pycache__``, ``*.pyc``, symlinks to files, folders and nowhere,
missing parts, binary data), with and without Comet's controller files.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from generator.read.comet.manifest import CORE_PARTS, fallback_manifest

GOLDEN = json.loads((Path(__file__).parent / "golden" / "fallback_manifests.json").read_text(encoding="utf-8"))


def materialize(root: Path, entries: list[list[str]]) -> None:
    for kind, rel, *rest in entries:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if kind == "f":
            path.write_bytes(rest[0].encode("utf-8"))
        elif kind == "l":
            os.symlink(rest[0], path)
        else:
            path.mkdir(parents=True, exist_ok=True)


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("golden")
    for task, entries in GOLDEN["trees"].items():
        materialize(base / "tasks" / task, entries)
    materialize(base / "eval", GOLDEN["eval_files"])
    return base / "tasks", base / "eval"


@pytest.mark.parametrize(
    "expected", GOLDEN["manifests"], ids=lambda m: f"{m['task']}-{'eval' if m['with_eval_files'] else 'noeval'}"
)
def test_fallback_manifest_matches_reference(trees: tuple[Path, Path], expected: dict) -> None:
    tasks, eval_root = trees
    manifest = fallback_manifest(expected["task"], tasks, eval_root if expected["with_eval_files"] else None)
    for part in CORE_PARTS:
        assert manifest.get(part) == expected[part], part
    assert manifest.case_hash == expected["case_hash"]
    assert manifest.core_hash == expected["core_hash"]


def test_golden_covers_every_tricky_case() -> None:
    """Guard against a golden file regenerated from a smaller tree set."""
    names = {entry[1] for entries in GOLDEN["trees"].values() for entry in entries}
    assert {"environment/.envrc", "environment/.envdir/kept.txt", "environment/pkg/.pyc"} <= names
    assert any(entry[0] == "l" for entries in GOLDEN["trees"].values() for entry in entries)
    assert len({m["case_hash"] for m in GOLDEN["manifests"]}) == len(GOLDEN["manifests"])


def test_instruction_link_leaving_the_tasks_tree_is_not_followed(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    (tasks / "task-a").mkdir(parents=True)
    outside = tmp_path / "secret.md"
    outside.write_text("secret brief")
    os.symlink(outside, tasks / "task-a" / "instruction.md")
    linked = fallback_manifest("task-a", tasks, None)
    (tasks / "task-a" / "instruction.md").unlink()
    os.symlink(tmp_path / "nowhere.md", tasks / "task-a" / "instruction.md")
    dangling = fallback_manifest("task-a", tasks, None)
    # Same prompt hash as a missing instruction: the outside file was never read.
    assert linked.get("prompt_hash") == dangling.get("prompt_hash")
