"""The public API: what ``generator.__all__`` promises exists, and docs/api.md's examples run."""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

import generator

ROOT = Path(__file__).resolve().parents[1]


def test_every_public_name_resolves_and_is_documented() -> None:
    doc = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    for name in generator.__all__:
        assert getattr(generator, name) is not None
        if name != "__version__":
            assert f"`{name}" in doc, f"{name} is exported but not in docs/api.md"
    for name in (
        "compare_experiments",
        "ComparisonInputs",
        "ComparisonResult",
        "summarize_ledger",
        "build_site",
        "load_config",
        "EvalsiteError",
    ):
        assert name in generator.__all__
    with pytest.raises(AttributeError):
        generator.no_such_name  # noqa: B018


def test_the_package_ships_type_information() -> None:
    assert (ROOT / "generator" / "py.typed").is_file()


def test_importing_the_package_loads_no_heavy_modules() -> None:
    code = "import sys, generator; print(sorted(m for m in ('numpy', 'scipy', 'plotly', 'jinja2') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert out.strip() == "[]"


# The site the build example (docs/api.md, block 1) reads as ``site-config.yaml``: one small comparison of
# the bundled inputs (the whole example site is built and checked by tests/site/test_site_examples.py).
_SMALL_SITE = """title: docs/api.md example
comparisons:
  - id: inspect-quiz
    title: Inspect AI logs
    candidate: {{experiment: {root}/examples/inspect/candidate.json, treatment: candidate-solver, format: inspect}}
    baseline: {{experiment: {root}/examples/inspect/baseline.json, treatment: baseline-solver, format: inspect}}
"""


@pytest.mark.parametrize("index", [0, 1, 2])
def test_docs_api_examples_run(index: int, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "api.md").read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 3
    if index == 1:
        (tmp_path / "site-config.yaml").write_text(_SMALL_SITE.format(root=ROOT.as_posix()), encoding="utf-8")
        monkeypatch.chdir(tmp_path)
    else:
        monkeypatch.chdir(ROOT)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(blocks[index], f"docs/api.md[{index}]", "exec"), {"__name__": "__docs__"})
    lines = printed.getvalue().splitlines()
    if index == 0:
        assert lines[0].split()[0] in {"candidate better", "candidate", "not"}
        assert lines[0].endswith("pairs")
        assert lines[-1].startswith("error: no NO_SUCH reports found")
    elif index == 1:
        assert re.fullmatch(r"\d+ pages, \d+ files", lines[0])
    else:
        assert lines[0].startswith("better +0.")
        assert lines[1] == "True False None"
        assert lines[-1] == "[None, None, 'regression', 'regression']"
