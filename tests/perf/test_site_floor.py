"""``bench/site_floor.py`` writes a built site again as the build writes it: the same bytes, the same
manifest and mtimes, and every page and ``data.json`` through the final redaction (so the floor
``bench/bench_site.py`` prints beside the build is a floor of the same work, not of a cheaper one)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from generator.model.redaction import marker
from tests.support.shared import Built

ROOT = Path(__file__).resolve().parents[2]
FLOOR = ROOT / "bench" / "site_floor.py"
EPOCH = "1700000000"
SECRET = "ghp_" + "Q" * 36


def _tree(folder: Path) -> dict[str, tuple[bytes, int, int]]:
    """Every file and folder below *folder*: its bytes (files), mtime and mode."""
    found: dict[str, tuple[bytes, int, int]] = {}
    for path in sorted(folder.rglob("*")):
        info = path.lstat()
        found[path.relative_to(folder).as_posix()] = (
            path.read_bytes() if path.is_file() else b"",
            int(info.st_mtime),
            info.st_mode,
        )
    return found


def _floor(site: Path, out: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, str(FLOOR), str(ROOT / "site-config.yaml"), str(site), str(out)],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "SOURCE_DATE_EPOCH": EPOCH},
    )
    figures: dict[str, float] = json.loads(done.stdout)
    return figures


@pytest.fixture(scope="module")
def built_site(example_site: Built) -> Path:
    """The example site (built once per run, tests/conftest.py): read only; a test that plants copies it."""
    assert example_site.pages > 100 and example_site.redacted  # every page kind, and secrets the build redacted
    return example_site.site


@pytest.mark.slow  # several seconds: make test runs it, make test-fast does not
def test_the_floor_writes_the_built_site_again_byte_for_byte(built_site: Path, tmp_path: Path) -> None:
    figures = _floor(built_site, tmp_path / "again")
    assert _tree(tmp_path / "again") == _tree(built_site)  # files, manifest, mtimes and modes
    assert figures["files"] == sum(1 for p in built_site.rglob("*") if p.is_file()) - 1  # all but the manifest
    assert figures["pages"] == sum(1 for _ in built_site.rglob("*.html"))
    assert figures["cpu"] > 0 and figures["seconds"] > 0


@pytest.mark.slow  # several seconds: make test runs it, make test-fast does not
def test_the_floor_redacts_pages_and_data_files_as_the_build_does(built_site: Path, tmp_path: Path) -> None:
    """A secret put into a page and into a data.json of the built site is redacted by the floor."""
    site = tmp_path / "planted"
    subprocess.run(["cp", "-a", str(built_site), str(site)], check=True)
    page = site / "glossary.html"
    page.write_text(page.read_text().replace("</body>", f"<p>{SECRET}</p></body>"))
    data = next(p for p in sorted(site.rglob("data.json")) if p.stat().st_size > 10_000)
    document = json.loads(data.read_text())
    document["planted"] = SECRET
    data.write_text(json.dumps(document))
    out = tmp_path / "again"
    _floor(site, out)
    assert SECRET not in (out / "glossary.html").read_text()
    assert marker("github-token", SECRET) in (out / "glossary.html").read_text()
    written = json.loads((out / data.relative_to(site)).read_text())
    assert written["planted"] == marker("github-token", SECRET)
