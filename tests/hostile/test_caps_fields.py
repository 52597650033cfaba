"""Every displayed field is capped, the cut disclosed; the input digest reads a bounded prefix (issue 11, item 12).

A 5 MB check name used to be written into every page (a 125.8 MB site); a
16 GB sparse raw stdout was read in full for the "Built from" digest.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from comet_runs import build, compare, edit_report, pair

from generator.model.common import cap_text, sha256_text
from generator.model.runs import REPORT_TEXT_CAP
from generator.pages.format import FIELD_CAP, capped
from generator.read.digests import TREE_FILE_CAP, tree_digest, tree_digest_of
from generator.render.comparison.report import untrusted
from tests.support.hang import HANG


def test_capped_discloses_the_cut() -> None:
    text = "x" * (FIELD_CAP + 1234)
    shown = capped(text)
    assert shown.startswith("x" * FIELD_CAP + "… (1,234 more characters cut; sha256:")
    assert shown.endswith(f"{sha256_text(text)})") and capped("short") == "short"
    assert len(untrusted(text)) < FIELD_CAP + 120


def test_a_5_mb_check_name_does_not_inflate_the_pages(tmp_path: Path) -> None:
    reports = pair(tmp_path, ["t0", "t1"], candidate_passes=False)
    giant = "c" * 5_000_000
    for path in reports.values():
        edit_report(path, checks_failed=[giant])
    code, err, out = build(tmp_path)
    assert code == 0 and "warning" not in err, err
    pages = list(out.rglob("*.html")) + list(out.rglob("*.md"))
    assert pages and all(page.stat().st_size < 200_000 for page in pages)
    task_page = next((out / "comparisons" / "a" / "tasks").glob("t0-*/index.html")).read_text()
    assert "more characters cut; sha256:" in task_page
    # the document (data.json, `compare --format json`) carries the cut too, with the digest of the whole
    shown = json.loads(compare(tmp_path).text("json"))["runs"][0]["checks_failed"]
    assert shown == [cap_text(giant, REPORT_TEXT_CAP)] and sha256_text(giant) in shown[0]
    site_bytes = sum(p.stat().st_size for p in out.rglob("*") if p.is_file() and p.name != "plotly.min.js")
    assert site_bytes < 5_000_000, site_bytes


def test_a_huge_task_name_is_capped_in_report_md(tmp_path: Path) -> None:
    reports = pair(tmp_path, ["good", "bad"])
    edit_report(reports["bad"], name="n" * 100_000)
    markdown = compare(tmp_path).text("markdown")
    assert len(markdown) < 20_000 and "99,500 more characters cut" in markdown


def test_a_sparse_16_gb_file_is_digested_by_size_and_head(tmp_path: Path) -> None:
    folder = tmp_path / "raw"
    folder.mkdir()
    with open(folder / "big_stdout.json", "wb") as handle:
        handle.truncate(16 * 1024**3)  # sparse: no disk used
    (folder / "small.json").write_text("{}")
    # The bytes the digest read, from the kernel's count (/proc/self/io), not a clock: a busy machine
    # cannot make it fail, and reading the whole file would count 16 GiB.
    probe = (
        "import sys, re; from pathlib import Path; from generator.read.digests import tree_digest_of\n"
        "def read(): return int(re.search(r'rchar: (\\d+)', open('/proc/self/io').read()).group(1))\n"
        "before = read(); d = tree_digest_of(Path(sys.argv[1])); print(d.files, d.partial, read() - before)"
    )
    done = subprocess.run([sys.executable, "-c", probe, str(folder)], capture_output=True, text=True, timeout=HANG)
    files, partial, read = done.stdout.split()
    assert (files, partial) == ("2", "1") and int(read) < 65 * 1024**2, done.stderr
    found = tree_digest_of(folder)
    assert found.detail == "folder of 2 files; 1 file(s) over 64 MiB hashed by size and first 64 MiB"
    with open(folder / "big_stdout.json", "r+b") as handle:
        handle.truncate(16 * 1024**3 + 1)  # a different size is a different digest
    assert tree_digest_of(folder).digest != found.digest


def test_files_under_the_cap_keep_their_digest(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(b"x" * 1000)
    found = tree_digest_of(tmp_path)
    assert (found.digest, found.files) == tree_digest(tmp_path) and found.partial == 0
    assert found.detail == "folder of 1 files"
    assert TREE_FILE_CAP == 64 * 1024 * 1024
