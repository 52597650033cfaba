"""The wheel ships the templates beside the package (they live in top-level templates/)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow  # several seconds: make test runs it, make test-fast does not
@pytest.mark.slow
def test_wheel_contains_templates_and_assets(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(REPO)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    (wheel,) = tmp_path.glob("evalsite-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for required in (
        "generator/cli.py",
        "generator/templates/base.html",
        "generator/templates/comparison.html",
        "generator/templates/assets/charts.js",
        "generator/templates/assets/site.css",
        "generator/templates/assets/vendor/plotly-cartesian.min.js",
        "generator/templates/assets/vendor/LICENSE",
        "generator/model/rules/gitleaks.toml",  # the vendored redaction rules (issue 26) and their licence
        "generator/model/rules/LICENSE-gitleaks",
        "generator/model/rules/README.md",
    ):
        assert required in names, required
    assert not any(name.startswith(("tests/", "examples/")) for name in names)
