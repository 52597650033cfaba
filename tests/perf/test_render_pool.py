"""Pages written by forked workers are the bytes a one-process build writes (generator/pipelines/site_pool.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "site"))

from sitefixtures import build_hostile_site  # noqa: E402

from generator.model.errors import EvalsiteError  # noqa: E402
from generator.write.site import SiteWriter  # noqa: E402


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_pooled_build_is_byte_identical(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    monkeypatch.setenv("EVALSITE_WORKERS", "1")
    serial = build_hostile_site(tmp_path / "serial" / "_site", entry_errors=True, dialogs=True)
    monkeypatch.setenv("EVALSITE_WORKERS", "2")
    pooled = build_hostile_site(tmp_path / "pooled" / "_site", entry_errors=True, dialogs=True)
    one, two = _files(serial), _files(pooled)
    assert len(one) > 10
    assert one.keys() == two.keys()
    assert [name for name in one if one[name] != two[name]] == []  # the manifest (sizes, digests) included
    modes = {p.relative_to(pooled).as_posix(): p.stat().st_mode for p in pooled.rglob("*")}
    assert modes == {p.relative_to(serial).as_posix(): p.stat().st_mode for p in serial.rglob("*")}


def test_claimed_paths_fail_like_writes(tmp_path: Path) -> None:
    writer = SiteWriter(tmp_path)
    writer.claim("a/index.html")
    with pytest.raises(EvalsiteError, match="two pages claim the same output file"):
        writer.claim("a/index.html")
    with pytest.raises(EvalsiteError, match="unsafe site path"):
        writer.claim("../escape.html")
    writer.merge({"a/index.html": 3}, {"a/index.html": "00"}, {"api-key": {"abc"}})
    assert writer.written == {"a/index.html": 3} and writer.redacted == {"api-key": {"abc"}}
