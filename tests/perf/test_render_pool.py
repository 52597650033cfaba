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


def test_background_writes_are_complete_when_the_block_ends(tmp_path: Path) -> None:
    writer = SiteWriter(tmp_path)
    pages = {f"tasks/t-{i:03d}/index.html": f"<p>page {i}</p>\n" * (i + 1) for i in range(100)}
    with writer.background():
        other = writer.sharing()  # a second record of what was written, the same thread
        for index, (path, text) in enumerate(pages.items()):
            (writer if index % 2 else other).write_text(path, text)
    assert _files(tmp_path) == {path: text.encode() for path, text in pages.items()}
    assert {**writer.written, **other.written} == {path: len(text.encode()) for path, text in pages.items()}
    assert all((tmp_path / path).stat().st_mode & 0o777 == 0o644 for path in pages)


def test_a_failed_background_write_fails_the_block(tmp_path: Path) -> None:
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "index.html").write_text("someone else's file")
    writer = SiteWriter(tmp_path)
    with pytest.raises(FileExistsError), writer.background():
        writer.write_text("first/index.html", "<p>one</p>")
        writer.write_text("taken/index.html", "<p>two</p>")  # never overwritten: the block raises
        writer.write_text("later/index.html", "<p>three</p>")
    assert (tmp_path / "taken" / "index.html").read_text() == "someone else's file"


def test_an_error_while_rendering_still_waits_for_the_writer(tmp_path: Path) -> None:
    writer = SiteWriter(tmp_path)
    with pytest.raises(RuntimeError, match="render failed"), writer.background():
        writer.write_text("a/index.html", "<p>a</p>")
        raise RuntimeError("render failed")
    assert (tmp_path / "a" / "index.html").read_text() == "<p>a</p>"  # the thread finished first
    writer.write_text("b/index.html", "<p>b</p>")  # and writes go straight to disk again
    assert (tmp_path / "b" / "index.html").exists()
