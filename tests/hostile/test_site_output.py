"""The site swap deletes only what evalsite wrote (issue 11, items 9 and 10)."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from generator.model.errors import EvalsiteError
from generator.write.site import MARKER, staged_site
from tests.support.hang import HANG


def _build(out: Path, files: dict[str, str], **kwargs: object):
    with staged_site(out, **kwargs) as writer:  # type: ignore[arg-type]
        for name, text in files.items():
            writer.write_text(name, text)
    return writer


def test_the_marker_is_a_manifest_of_every_file_written(tmp_path: Path) -> None:
    out = tmp_path / "_site"
    _build(out, {"index.html": "<p>a</p>", "a/b.json": "{}"})
    manifest = json.loads((out / MARKER).read_text())
    assert manifest["schema"] == "evalsite.site-manifest.v1"
    assert sorted(manifest["files"]) == ["a/b.json", "index.html"]
    assert manifest["files"]["index.html"]["bytes"] == 8


def test_a_copied_marker_does_not_let_a_build_delete_other_files(tmp_path: Path) -> None:
    site = tmp_path / "_site"
    _build(site, {"index.html": "<p>a</p>"})
    docs = tmp_path / "docs"
    shutil.copytree(site, docs)  # cp -a _site/. docs/
    (docs / "guide.md").write_text("hand-written guide")
    with pytest.raises(EvalsiteError, match="guide.md"):
        _build(docs, {"index.html": "<p>b</p>"})
    assert (docs / "guide.md").read_text() == "hand-written guide"
    assert (docs / "index.html").read_text() == "<p>a</p>"


def test_an_edited_file_in_the_old_site_is_not_vouched_for(tmp_path: Path) -> None:
    out = tmp_path / "_site"
    _build(out, {"index.html": "<p>a</p>"})
    (out / "index.html").write_text("<p>edited by hand</p>")
    with pytest.raises(EvalsiteError, match="index.html"):
        _build(out, {"index.html": "<p>b</p>"})
    assert (out / "index.html").read_text() == "<p>edited by hand</p>"


def test_an_old_style_marker_is_not_a_manifest(tmp_path: Path) -> None:
    out = tmp_path / "docs"
    out.mkdir()
    (out / MARKER).write_text("Written by `evalsite build`.\n")
    (out / "guide.md").write_text("keep")
    with pytest.raises(EvalsiteError, match="not a manifest"):
        _build(out, {"index.html": "x"})
    assert (out / "guide.md").exists()


def test_a_file_written_into_the_output_during_the_build_is_kept(tmp_path: Path) -> None:
    out = tmp_path / "_site"
    out.mkdir()  # empty: replaceable
    with staged_site(out) as writer:
        writer.write_text("index.html", "new")
        (out / "notes.txt").write_text("written while the build ran")
    assert (out / "index.html").read_text() == "new"
    assert writer.kept == ["notes.txt"]
    assert writer.kept_in is not None
    assert (tmp_path / writer.kept_in / "notes.txt").read_text() == "written while the build ran"


def test_a_rebuild_replaces_its_own_files_and_leaves_no_litter(tmp_path: Path) -> None:
    out = tmp_path / "_site"
    _build(out, {"index.html": "a", "old.html": "gone next time"})
    writer = _build(out, {"index.html": "b"})
    assert writer.kept == []
    assert sorted(p.name for p in out.iterdir()) == [MARKER, "index.html"]
    assert [p.name for p in tmp_path.iterdir()] == ["_site"]


def test_a_rebuild_hashes_each_old_file_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The previous site is checked before the build and again before its files are deleted; a
    file unchanged since the first check (same inode, size, mtime and ctime) is not hashed again."""
    from generator.write import site as site_module

    out = tmp_path / "_site"
    _build(out, {"index.html": "a", "a/b.json": "{}", "c.html": "c"})
    hashed: list[str] = []
    real = site_module._file_sha256

    def counting(path: str) -> str:
        hashed.append(os.path.relpath(path, tmp_path).split(os.sep, 1)[1])
        return real(path)

    monkeypatch.setattr(site_module, "_file_sha256", counting)
    writer = _build(out, {"index.html": "b"})
    assert writer.kept == []
    assert sorted(hashed) == ["a/b.json", "c.html", "index.html"]


def test_an_old_file_edited_during_the_build_is_hashed_again_and_kept(tmp_path: Path) -> None:
    """Vouched for before the build, edited (same size) while it ran: the second check sees a new
    identity, hashes the file again, and keeps it instead of deleting it."""
    out = tmp_path / "_site"
    _build(out, {"index.html": "a", "page.html": "original"})
    with staged_site(out) as writer:
        writer.write_text("index.html", "b")
        (out / "page.html").write_text("replaced")  # same size, other bytes
    assert writer.kept == ["page.html"]
    assert writer.kept_in is not None
    assert (tmp_path / writer.kept_in / "page.html").read_text() == "replaced"


def test_stale_build_folders_of_killed_builds_are_cleaned(tmp_path: Path) -> None:
    out = tmp_path / "_site"
    stale = tmp_path / "._site.building-dead1"
    stale.mkdir()
    (stale / ".evalsite-building").write_text("")
    (stale / "index.html").write_text("half a site")
    foreign = tmp_path / "._site.building-notours"  # no lock file: not evalsite's
    foreign.mkdir()
    (foreign / "x").write_text("keep")
    busy = tmp_path / "._site.building-busy"  # its build still holds the lock
    busy.mkdir()
    (busy / ".evalsite-building").write_text("")
    fd = os.open(busy / ".evalsite-building", os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        _build(out, {"index.html": "a"})
    finally:
        os.close(fd)
    assert not stale.exists()
    assert (foreign / "x").exists()
    assert busy.exists()


def test_a_killed_build_leaves_a_folder_the_next_build_removes(tmp_path: Path) -> None:
    out = tmp_path / "_site"
    script = (
        "import os, signal\n"
        "from pathlib import Path\n"
        "from generator.write.site import staged_site\n"
        f"with staged_site(Path({str(out)!r})) as w:\n"
        "    w.write_text('index.html', 'half')\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    subprocess.run([sys.executable, "-c", script], check=False, timeout=HANG)
    left = [p for p in tmp_path.iterdir() if p.name.startswith("._site.building-")]
    assert len([p for p in left if p.is_dir()]) == 1
    _build(out, {"index.html": "whole"})
    assert [p.name for p in tmp_path.iterdir()] == ["_site"]


_KILLED_BUILDS = {
    # a page worker (any forked child) inherits the build's descriptors and outlives the killed build
    "a forked worker lives on": (
        "with staged_site(Path(OUT)) as w:\n"
        "    w.write_text('index.html', 'half')\n"
        "    if os.fork() == 0:\n"
        "        time.sleep(60); os._exit(0)\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
    ),
    # every file written and the manifest made: killed just before the swap
    "killed after the last file": (
        "real = SiteWriter.finish\n"
        "def finish(self, epoch=None):\n"
        "    real(self, epoch); os.kill(os.getpid(), signal.SIGKILL)\n"
        "SiteWriter.finish = finish\n"
        "with staged_site(Path(OUT)) as w:\n"
        "    w.write_text('index.html', 'half')\n"
    ),
}


@pytest.mark.parametrize("how", sorted(_KILLED_BUILDS))
def test_a_killed_build_is_cleaned_whatever_it_was_doing(tmp_path: Path, how: str) -> None:
    """Issue 31, item 5: litter after SIGKILL, sometimes (a worker holding the lock; the lock gone before the swap)."""
    out = tmp_path / "_site"
    script = (
        "import os, signal, time\n"
        "from pathlib import Path\n"
        "from generator.write.site import SiteWriter, staged_site\n"
        f"OUT = {str(out)!r}\n" + _KILLED_BUILDS[how]
    )
    child = subprocess.Popen([sys.executable, "-c", script], start_new_session=True)
    try:
        child.wait(timeout=HANG)
        assert any(p.name.startswith("._site.building-") for p in tmp_path.iterdir())
        _build(out, {"index.html": "whole"})
        assert [p.name for p in tmp_path.iterdir()] == ["_site"]
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)


def test_an_output_that_is_a_mount_point_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "mnt"
    out.mkdir()
    real = os.path.ismount
    monkeypatch.setattr(os.path, "ismount", lambda p: Path(p) == out or real(p))
    with pytest.raises(EvalsiteError, match="mount point"):
        _build(out, {"index.html": "x"})


def _mount_tmpfs(where: Path) -> bool:
    if os.geteuid() != 0 or not shutil.which("mount"):
        return False
    return subprocess.run(["mount", "-t", "tmpfs", "none", str(where)], capture_output=True).returncode == 0


def test_deleting_the_old_site_never_crosses_a_mount_point(tmp_path: Path) -> None:
    out = tmp_path / "_site"
    _build(out, {"index.html": "a"})
    inner = out / "mounted"
    inner.mkdir()
    if not _mount_tmpfs(inner):
        pytest.skip("needs root and tmpfs to make a mount point")
    try:
        (inner / "other-fs.txt").write_text("on another file system")
        with pytest.raises(EvalsiteError, match="mounted"):
            _build(out, {"index.html": "b"})
        assert (inner / "other-fs.txt").exists()
    finally:
        subprocess.run(["umount", str(inner)], check=False)
