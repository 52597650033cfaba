#!/usr/bin/env python3
"""Generate golden hashes for the comparison tests from the reference Comet module.

Run from the project root with the shared folder beside it:

    python3 scripts/make_comet_golden.py [../shared/reference/000_a2ce38efccbeca50.txt]

It extracts the reference comparison module from the diff into a throw-away
``eval/scaffold/python/`` folder (so its controller paths resolve the way they
do inside Comet), builds a set of deliberately awkward task trees described
in ``TREES`` below, asks the reference for each task's fallback case manifest,
and writes the descriptions plus the expected hashes to
``tests/compare/golden/fallback_manifests.json``.  The tests rebuild the same
trees and must reproduce every hash.  Nothing from the reference is imported
by the project or its tests; only these numbers are kept.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import tempfile
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_REFERENCE = ROOT.parent / "shared" / "reference" / "000_a2ce38efccbeca50.txt"
OUT = ROOT / "tests" / "compare" / "golden" / "fallback_manifests.json"

# Each tree: a list of entries. ("f", path, text) file, ("l", path, target) symlink, ("d", path) folder.
TREES: dict[str, list[list[str]]] = {
    "plain-task": [
        ["f", "task.toml", '[metadata]\nname = "plain-task"\n'],
        ["f", "instruction.md", "# Do the thing\n\nAdd a flag.\n"],
        ["f", "validation/test_flag.py", "def test():\n    assert True\n"],
        ["f", "environment/Dockerfile", "FROM python:3.11\n"],
        ["f", "data/input.csv", "a,b\n1,2\n"],
    ],
    "ordering-task": [
        ["f", "task.toml", "x = 1\n"],
        ["f", "instruction.md", "order\n"],
        ["f", "environment/a-b", "dash\n"],
        ["f", "environment/a/b", "slash\n"],
        ["f", "environment/a.b", "dot\n"],
        ["f", "environment/a0", "zero\n"],
        ["f", "environment/A", "upper\n"],
        ["f", "environment/\u00e9t\u00e9.txt", "unicode\n"],
        ["f", "environment/a/b-c/d", "deep\n"],
    ],
    "skips-task": [
        ["f", "task.toml", "y = 2\n"],
        ["f", "instruction.md", "skips\n"],
        ["f", "environment/.envrc", "SECRET=1\n"],
        ["f", "environment/.env", "SECRET=2\n"],
        ["f", "environment/.env.local", "SECRET=3\n"],
        ["f", "environment/.envdir/kept.txt", "a file under a .env-named folder\n"],
        ["f", "environment/__pycache__/m.cpython-311.pyc", "bytecode\n"],
        ["f", "environment/pkg/__pycache__/x.txt", "inside pycache\n"],
        ["f", "environment/pkg/mod.pyc", "pyc\n"],
        ["f", "environment/pkg/mod.pyo", "pyo\n"],
        ["f", "environment/pkg/.pyc", "dotfile named .pyc is kept\n"],
        ["f", "environment/pkg/mod.py", "print(1)\n"],
        ["d", "environment/empty"],
        ["f", "validation/.hidden", "hidden files count\n"],
    ],
    "links-task": [
        ["f", "task.toml", "z = 3\n"],
        ["f", "instruction.md", "links\n"],
        ["f", "environment/real.txt", "real\n"],
        ["l", "environment/link.txt", "real.txt"],
        ["l", "environment/dangling", "does/not/exist"],
        ["f", "environment/sub/inner.txt", "inner\n"],
        ["l", "environment/subdir-link", "sub"],
        ["l", "data", "environment/sub"],
    ],
    "instruction-link-task": [
        ["f", "task.toml", "w = 4\n"],
        ["f", "docs/brief.md", "# The brief\n\nFollowed for the prompt hash, hashed as a link otherwise.\n"],
        ["l", "instruction.md", "docs/brief.md"],
    ],
    "missing-parts": [
        ["f", "instruction.md", "only an instruction\n"],
    ],
    "binary-task": [
        ["f", "task.toml", "b = 1\n"],
        ["f", "instruction.md", "bin\n"],
        ["f", "data/blob.bin", "\u0000\u0001\u00ff binary-ish"],
    ],
}
EVAL_FILES = [
    ["f", "scaffold/python/validation/common.py", "SHARED = True\n"],
    ["f", "scaffold/python/validation/__pycache__/common.pyc", "x"],
    ["f", "scaffold/python/native_eval.py", "NATIVE = 1\n"],
    ["f", "scaffold/python/tasks.py", "RENDER = 1\n"],
]


def materialize(root: Path, entries: list[list[str]]) -> None:
    for entry in entries:
        kind, rel = entry[0], entry[1]
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if kind == "f":
            path.write_bytes(entry[2].encode("utf-8"))
        elif kind == "l":
            os.symlink(entry[2], path)
        elif kind == "d":
            path.mkdir(parents=True, exist_ok=True)


def load_reference(diff: Path, eval_root: Path) -> types.ModuleType:
    lines = diff.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("@@"))
    source = "\n".join(line[1:] for line in lines[start + 1 :] if line.startswith("+")) + "\n"
    module_path = eval_root / "scaffold" / "python" / "aligned_comparison.py"
    module_path.parent.mkdir(parents=True, exist_ok=True)
    module_path.write_text(source, encoding="utf-8")
    for name in ("scaffold", "scaffold.python"):
        sys.modules.setdefault(name, types.ModuleType(name))
    stubs = {
        "scaffold.python.logging": {"extract_events": None, "parse_output": None},
        "scaffold.python.pass_at_k": {"compute_pass_metrics": None},
        "scaffold.python.sample_quality": {"quality_from_report": None},
    }
    for name, attrs in stubs.items():
        module = types.ModuleType(name)
        module.__dict__.update(attrs)
        sys.modules[name] = module
    spec = importlib.util.spec_from_file_location("reference_aligned_comparison", module_path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def main() -> int:
    diff = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_REFERENCE
    results = []
    with tempfile.TemporaryDirectory() as temp:
        for with_eval in (False, True):
            base = Path(temp) / ("with-eval" if with_eval else "no-eval")
            eval_root = base / "eval"
            reference = load_reference(diff, eval_root)
            if with_eval:
                materialize(eval_root, EVAL_FILES)
            tasks = base / "tasks"
            for task, entries in TREES.items():
                materialize(tasks / task, entries)
            for task in [*TREES, "absent-task"]:
                manifest = reference.build_case_manifest(task, tasks)
                results.append(
                    {
                        "task": task,
                        "with_eval_files": with_eval,
                        "case_hash": manifest.case_hash,
                        "core_hash": manifest.core_hash,
                        **{
                            part: getattr(manifest, part)
                            for part in (
                                "task_hash",
                                "instruction_hash",
                                "validator_hash",
                                "environment_hash",
                                "data_hash",
                                "prompt_hash",
                            )
                        },
                    }
                )
    OUT.parent.mkdir(parents=True, exist_ok=True)
    payload = {"trees": TREES, "eval_files": EVAL_FILES, "manifests": results}
    OUT.write_text(json.dumps(payload, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {len(results)} manifests to {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
