"""The build: files, determinism, atomic replacement, leaks, links, sizes, data errors."""

from __future__ import annotations

import filecmp
import hashlib
import os
import stat
import tempfile
from pathlib import Path

import pytest
from sitecheck import check_links, find_leaks
from sitefixtures import FixtureCore, hostile, typical_document, typical_instruction, write_config

from generator.cli import main as cli_main
from generator.model.errors import EvalsiteError
from generator.pipelines.build import build_site, progress_wanted, tree_digest
from generator.read.config import load_config
from generator.render.env import default_templates_dir
from generator.write.site import MARKER, SiteWriter, plotly_js


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_site_layout(hostile_site):
    files = set(_tree(hostile_site))
    for expected in (
        "index.html",
        "data.json",
        MARKER,
        "assets/plotly.min.js",
        "assets/charts.js",
        "assets/tables.js",
        "assets/site.css",
        "comparisons/cmp-0/index.html",
        "comparisons/cmp-0/data.json",
        "comparisons/cmp-0/report.md",
        "ledgers/ledger-0/index.html",
        "ledgers/ledger-0/data.json",
    ):
        assert expected in files
    task_pages = [f for f in files if f.startswith("comparisons/cmp-0/tasks/") and f.endswith("/index.html")]
    arm_pages = [f for f in files if f.startswith("ledgers/ledger-0/arms/") and f.endswith("/index.html")]
    assert len(task_pages) == len(hostile.TASKS) and len(arm_pages) == 4
    for page in task_pages + arm_pages:
        assert page.replace("index.html", "data.json") in files
    assert (hostile_site / "assets" / "plotly.min.js").read_bytes() == plotly_js(default_templates_dir())
    assert sum(1 for f in files if f.endswith("plotly.min.js")) == 1


def test_vendored_plotly_is_the_cartesian_bundle_of_the_installed_plotly_version():
    """The partial bundle draws every trace type the figures use, at the plotly.js version plotly.py builds for."""
    from plotly.offline import get_plotlyjs_version  # type: ignore[import-untyped]

    head = plotly_js(default_templates_dir())[:200].decode("ascii")
    assert f"plotly.js (cartesian - minified) v{get_plotlyjs_version()}" in head
    assert (default_templates_dir() / "assets" / "vendor" / "LICENSE").read_text().startswith("MIT License")


def test_files_are_regular_and_world_readable(hostile_site):
    for path in hostile_site.rglob("*"):
        mode = path.lstat().st_mode
        assert not stat.S_ISLNK(mode)
        assert stat.S_IMODE(mode) == (0o755 if path.is_dir() else 0o644), path


def test_links_and_anchors_resolve(hostile_site):
    assert check_links(hostile_site) == []


def test_link_checker_can_fail(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "index.html").write_text(
        '<a href="a/missing.html">x</a><a href="#nope">y</a><a href="/abs.html">z</a>'
        '<a href="javascript:alert(1)">j</a><a href="a/">dir</a><a href="../out.html">up</a>'
        '<p id="d"></p><p id="d"></p>'
    )
    problems = "\n".join(check_links(tmp_path))
    for fragment in (
        "missing file",
        "missing anchor",
        "root-absolute",
        "disallowed scheme",
        "points at a folder",
        "leaves the site",
        "duplicate id",
    ):
        assert fragment in problems


def test_no_local_path_leaks_into_any_file(hostile_build):
    site, inputs, _report = hostile_build
    needles = [str(inputs), str(inputs.resolve()), str(site.parent), str(Path.home()), os.getcwd(), "/tmp/", "/root/"]
    needles.append(tempfile.gettempdir())  # the temporary root (make test: in /dev/shm)
    assert find_leaks(site, needles) == []


def test_build_is_deterministic(tmp_path):
    config = load_config(write_config(tmp_path))
    first = build_site(config, tmp_path / "one", core=FixtureCore())
    second = build_site(config, tmp_path / "two", core=FixtureCore())
    assert _tree(tmp_path / "one") == _tree(tmp_path / "two")
    assert first.pages == second.pages == 1 + 1 + len(hostile.TASKS) + 1 + 4
    # rebuilding in place gives the same bytes as well
    build_site(config, tmp_path / "one", core=FixtureCore())
    assert _tree(tmp_path / "one") == _tree(tmp_path / "two")


def test_build_is_deterministic_across_processes_and_hash_seeds(tmp_path):
    import subprocess
    import sys

    config_path = write_config(tmp_path)
    build_site(load_config(config_path), tmp_path / "here", core=FixtureCore())
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "from sitefixtures import FixtureCore;"
        "from generator.pipelines.build import build_site; from generator.read.config import load_config;"
        "build_site(load_config(sys.argv[2]), sys.argv[3], core=FixtureCore())"
    )
    env = dict(os.environ, PYTHONHASHSEED="12345")
    subprocess.run(
        [sys.executable, "-c", script, str(Path(__file__).parent), str(config_path), str(tmp_path / "there")],
        check=True,
        env=env,
        cwd=Path(__file__).parents[2],
    )
    assert _tree(tmp_path / "here") == _tree(tmp_path / "there")


def test_source_date_epoch_is_the_only_clock(tmp_path, monkeypatch):
    config = load_config(write_config(tmp_path))
    build_site(config, tmp_path / "plain", core=FixtureCore())
    assert "Generated by evalsite." in (tmp_path / "plain" / "index.html").read_text()
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    build_site(config, tmp_path / "dated", core=FixtureCore())
    assert "on 2023-11-14 22:13 UTC" in (tmp_path / "dated" / "index.html").read_text()
    assert int((tmp_path / "dated" / "index.html").stat().st_mtime) == 1700000000


class _Boom(Exception):
    pass


class _FailingCore(FixtureCore):
    def ledger(self, entry):
        raise _Boom("a bug, not a data error")


def test_failed_build_leaves_the_previous_site_untouched(tmp_path):
    config = load_config(write_config(tmp_path))
    out = tmp_path / "_site"
    build_site(config, out, core=FixtureCore())
    before = _tree(out)
    with pytest.raises(_Boom):
        build_site(config, out, core=_FailingCore())
    assert _tree(out) == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # temp folder removed


def test_failure_while_writing_also_keeps_the_old_site(tmp_path, monkeypatch):
    config = load_config(write_config(tmp_path))
    out = tmp_path / "_site"
    build_site(config, out, core=FixtureCore())
    before = _tree(out)
    calls = {"n": 0}
    original = SiteWriter.write_bytes

    def flaky(self, rel_path, data):
        calls["n"] += 1
        if calls["n"] == 20:
            raise OSError(28, "No space left on device")
        return original(self, rel_path, data)

    monkeypatch.setattr(SiteWriter, "write_bytes", flaky)
    with pytest.raises(OSError):
        build_site(config, out, core=FixtureCore())
    assert _tree(out) == before


def test_refuses_to_replace_a_folder_it_did_not_write(tmp_path):
    config = load_config(write_config(tmp_path))
    out = tmp_path / "docs"
    out.mkdir()
    (out / "precious.txt").write_text("keep me")
    with pytest.raises(EvalsiteError, match="not written by evalsite"):
        build_site(config, out, core=FixtureCore())
    assert (out / "precious.txt").read_text() == "keep me"
    build_site(config, tmp_path / "empty-is-fine", core=FixtureCore())


@pytest.mark.parametrize("where", [".", "exp", "exp/native/_site", "ledger"])
def test_refuses_an_output_folder_that_holds_or_sits_in_the_inputs(tmp_path, where):
    config = load_config(write_config(tmp_path))
    with pytest.raises(EvalsiteError, match="output folder"):
        build_site(config, tmp_path / where, core=FixtureCore())


def test_writer_refuses_duplicate_and_unsafe_paths(tmp_path):
    writer = SiteWriter(tmp_path)
    writer.write_text("a/index.html", "x")
    with pytest.raises(EvalsiteError, match="same output file"):
        writer.write_text("a/index.html", "y")
    for bad in ("../x", "/abs", "a/../../x", "a\\b", "", "a//b"):
        with pytest.raises(EvalsiteError, match="unsafe"):
            writer.write_text(bad, "z")


def test_a_data_error_in_one_entry_does_not_stop_the_build(tmp_path, capsys):
    path = write_config(tmp_path, comparisons=2)
    config = load_config(path)
    secret = str(tmp_path / "exp" / "native")
    core = FixtureCore(fail={"cmp-1": EvalsiteError(f"no COMET reports found in {secret}")})
    report = build_site(config, tmp_path / "_site", core=core)
    assert len(report.warnings) == 1 and "cmp-1" in report.warnings[0]
    page = (tmp_path / "_site" / "comparisons" / "cmp-1" / "index.html").read_text()
    assert "could not be built" in page and "no COMET reports found" in page
    assert secret not in page and str(tmp_path) not in page
    index = (tmp_path / "_site" / "index.html").read_text()
    assert "Not built:" in index and 'href="comparisons/cmp-0/index.html"' in index
    assert (tmp_path / "_site" / "comparisons" / "cmp-0" / "tasks").is_dir()
    assert check_links(tmp_path / "_site") == []


def test_strict_config_turns_data_errors_into_a_failed_build(tmp_path):
    path = write_config(tmp_path, extra="strict: true\n")
    config = load_config(path)
    out = tmp_path / "_site"
    build_site(config, out, core=FixtureCore())
    before = _tree(out)
    with pytest.raises(EvalsiteError, match="strict build"):
        build_site(config, out, core=FixtureCore(fail={"ledger-0": ValueError("ledger line 3 is not JSON")}))
    assert _tree(out) == before


def test_run_build_command_reports_warnings_and_exit_status(tmp_path, monkeypatch, capsys):
    path = write_config(tmp_path)
    monkeypatch.setattr(
        "generator.pipelines.build.DefaultCore", lambda: FixtureCore(fail={"ledger-0": ValueError("bad receipts")})
    )
    assert cli_main(["build", "--config", str(path), "--out", str(tmp_path / "out")]) == 0
    captured = capsys.readouterr()
    assert "warning: ledger 'ledger-0': bad receipts" in captured.err
    assert captured.out.startswith("built ") and "1 entry with data problems" in captured.out
    assert (tmp_path / "out" / "index.html").is_file()
    assert not (tmp_path / "_site").exists()  # --out wins over the config's output


def test_cli_build_end_to_end(tmp_path, monkeypatch, capsys):
    from generator.cli import main

    path = write_config(tmp_path)
    monkeypatch.setattr("generator.pipelines.build.DefaultCore", FixtureCore)
    assert main(["build", "--config", str(path)]) == 0
    assert (tmp_path / "_site" / "index.html").is_file()
    path.write_text(path.read_text() + "bogus: 1\n")
    assert main(["build", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: site config: top level: unknown key(s) bogus") and err.count("\n") == 1


def test_progress_is_quiet_off_a_terminal(monkeypatch):
    class Tty:
        def isatty(self):
            return True

    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("EVALSITE_NO_PROGRESS", raising=False)
    assert progress_wanted(Tty()) is True
    monkeypatch.setenv("CI", "true")
    assert progress_wanted(Tty()) is False
    assert progress_wanted(object()) is False


def test_task_page_of_a_typical_comparison_is_small(tmp_path):
    config = load_config(write_config(tmp_path, ledgers=0))
    doc = typical_document(tasks=40, reps=10)
    instructions = {task: typical_instruction() for task in doc["tasks"]}
    report = build_site(config, tmp_path / "_site", core=FixtureCore(document=doc, instructions=instructions))
    pages = list((tmp_path / "_site" / "comparisons" / "cmp-0" / "tasks").rglob("index.html"))
    assert len(pages) == 40
    largest = max(p.stat().st_size for p in pages)
    assert largest < 200_000, largest
    assert report.largest_page[1] >= largest


def test_noindex_adds_meta_and_robots(tmp_path):
    config = load_config(write_config(tmp_path, extra="noindex: true\n"))
    build_site(config, tmp_path / "_site", core=FixtureCore())
    assert (tmp_path / "_site" / "robots.txt").read_text().startswith("User-agent: *")
    assert '<meta name="robots" content="noindex, nofollow">' in (tmp_path / "_site" / "index.html").read_text()


def test_tree_digest_covers_names_and_contents_but_not_symlink_targets(tmp_path):
    (tmp_path / "t" / "sub").mkdir(parents=True)
    (tmp_path / "t" / "a.txt").write_text("a")
    (tmp_path / "t" / "sub" / "b.txt").write_text("b")
    first, count = tree_digest(tmp_path / "t")
    assert count == 2 and first.startswith("sha256:")
    (tmp_path / "t" / "sub" / "b.txt").write_text("B")
    assert tree_digest(tmp_path / "t")[0] != first
    (tmp_path / "t" / "sub" / "b.txt").write_text("b")
    assert tree_digest(tmp_path / "t")[0] == first
    (tmp_path / "t" / "link").symlink_to("/etc")
    assert tree_digest(tmp_path / "t")[1] == 2  # never followed
    assert tree_digest(tmp_path / "t")[0] != first


def test_inputs_are_shown_by_hash_on_every_page(hostile_site):
    for page in hostile_site.rglob("index.html"):
        text = page.read_text()
        assert 'id="inputs"' in text and "sha256:" in text, page


def test_report_and_data_files_match_their_digests(hostile_site):
    data = (hostile_site / "comparisons" / "cmp-0" / "data.json").read_bytes()
    assert data.endswith(b"}\n")
    assert (hostile_site / "comparisons" / "cmp-0" / "report.md").read_text() == hostile.markdown_report()
    assert hashlib.sha256(data).hexdigest()
    assert filecmp.cmp(
        hostile_site / "assets" / "site.css",
        Path(__file__).parents[2] / "templates" / "assets" / "site.css",
        shallow=False,
    )


def test_an_unsound_ledger_becomes_an_error_page_listing_every_problem(tmp_path):
    from generator.pipelines.build import DefaultCore

    path = write_config(tmp_path, comparisons=0)
    receipts = tmp_path / "ledger" / "receipts.jsonl"
    lines = receipts.read_bytes().splitlines(keepends=True)
    receipts.write_bytes(b"".join(lines[:5] + [b"{not json\n"] + lines[5:] + [lines[0][:40]]))  # + a torn tail
    report = build_site(load_config(path), tmp_path / "_site", core=DefaultCore())
    assert len(report.warnings) == 1 and "cannot be summarized" in report.warnings[0]
    page = (tmp_path / "_site" / "ledgers" / "ledger-0" / "index.html").read_text()
    assert "Every problem found" in page and page.count("<li>") >= 2
    assert "sha256:" in page  # the inputs are still named by hash
    assert str(tmp_path) not in page


def test_instruction_reader_never_leaves_the_tasks_folder(tmp_path):
    from generator.read.comet.tasks import read_instruction as _read_instruction_fallback

    tasks = tmp_path / "tasks"
    (tasks / "ok").mkdir(parents=True)
    (tasks / "ok" / "instruction.md").write_text("# hi")
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "instruction.md").write_text("secret")
    (tasks / "link").symlink_to(tmp_path / "secret")
    assert _read_instruction_fallback(tasks, "ok") == "# hi"
    for name in ("../secret", "..", ".", "", "link", "ok/../../secret", "a\\b", "missing"):
        assert _read_instruction_fallback(tasks, name) is None
