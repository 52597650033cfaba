"""Runs grouped per task (``run_pages: task``, issue 30): every run and pair a page-per-run site
publishes is on its task's transcript pages, reachable from the task page, with every link resolving;
the ``transcripts:`` policy still decides which runs; long runs continue on later pages."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest

from generator.model.errors import EvalsiteError
from generator.model.transcript import Step, StepAlignment, Transcript, TranscriptRef
from generator.pages.models import SiteInfo
from generator.pages.runs.grouped import RunItem, TaskRuns
from generator.pages.runs.page import PAGE_BUDGET
from generator.pipelines.build import build_site
from generator.pipelines.task_transcripts import groups_per_task
from generator.read.config import load_config
from generator.render.env import default_templates_dir, render_page

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "site"))
from sitecheck import check_links  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
RUN_DIR = re.compile(r"^(candidate|baseline)-(\d+)(?:-([0-9a-f]{12}))?$")


def _config(tmp: Path, policy: str, mode: str) -> Path:
    root = tmp / "inputs"
    if not root.exists():
        for name in ("native", "beta"):
            shutil.copytree(REPO / "examples" / "experiments" / name, root / "experiments" / name)
    config = root / f"site-{policy}-{mode}.yaml"
    config.write_text(
        f"title: t\noutput: _site\ntranscripts: {policy}\nrun_pages: {mode}\n"
        "comparisons:\n  - id: nb\n    title: nb\n"
        "    candidate: {experiment: experiments/native, treatment: COMET_NATIVE_PHASE1}\n"
        "    baseline: {experiment: experiments/beta, treatment: COMET_FULL_040_BETA}\n",
        encoding="utf-8",
    )
    return config


def _tasks(site: Path) -> Path:
    return site / "comparisons" / "nb" / "tasks"


def _per_run(site: Path) -> tuple[set[tuple[str, str, int, str]], set[tuple[str, int]]]:
    """(side, task folder, rep, variant) of every run page and (task folder, rep) of every pair page."""
    runs, pairs = set(), set()
    for task in _tasks(site).iterdir():
        for folder in (task / "runs").iterdir() if (task / "runs").is_dir() else ():
            match = RUN_DIR.match(folder.name)
            if match and (folder / "index.html").is_file():
                runs.add((match[1], task.name, int(match[2]), match[3] or ""))
        for folder in (task / "pairs").iterdir() if (task / "pairs").is_dir() else ():
            pairs.add((task.name, int(folder.name)))
    return runs, pairs


def _grouped(site: Path) -> tuple[set[tuple[str, str, int, str]], set[tuple[str, int]], dict[str, int]]:
    """The same, read from the grouped pages' data.json; and the pages each task has."""
    runs, pairs, pages = set(), set(), {}
    for task in _tasks(site).iterdir():
        assert not (task / "runs").exists() and not (task / "pairs").exists()
        if not (task / "transcripts").is_dir():
            continue
        documents = [json.loads(p.read_text()) for p in (task / "transcripts").rglob("data.json")]
        for data in documents:
            assert data["schema"] == "evalsite.site.task-transcripts.v1"
            runs |= {(r["side"], task.name, r["rep"], r["variant"]) for r in data["runs"] if not r["continued"]}
            pairs |= {(task.name, p["rep"]) for p in data["pairs"]}
        first = next(d for d in documents if d["page"] == 1)
        pages[task.name] = first["pages"]
        assert sorted(d["page"] for d in documents) == list(range(1, first["pages"] + 1))
    return runs, pairs, pages


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Path]:
    tmp = tmp_path_factory.mktemp("grouped")
    built = {}
    for policy in ("all", "differing"):
        for mode in ("run", "task"):
            out = tmp / f"{policy}-{mode}"
            build_site(load_config(_config(tmp, policy, mode)), out)
            built[(policy, mode)] = out
    return built


@pytest.mark.parametrize("policy", ["all", "differing"])
def test_grouping_keeps_every_published_run_and_pair(sites, policy: str) -> None:  # type: ignore[no-untyped-def]
    runs, pairs = _per_run(sites[(policy, "run")])
    grouped_runs, grouped_pairs, _pages = _grouped(sites[(policy, "task")])
    assert runs and grouped_runs == runs
    assert grouped_pairs == pairs
    if policy == "all":
        assert pairs  # the example has pairs whose two runs are both shown
    before = sum(1 for p in sites[(policy, "run")].rglob("*") if p.is_file())
    after = sum(1 for p in sites[(policy, "task")].rglob("*") if p.is_file())
    assert after < before


@pytest.mark.parametrize("policy", ["all", "differing"])
def test_every_link_of_a_grouped_site_resolves(sites, policy: str) -> None:  # type: ignore[no-untyped-def]
    assert check_links(sites[(policy, "task")]) == []


def test_the_task_page_links_each_shown_run_and_pair_to_its_index_row(sites) -> None:  # type: ignore[no-untyped-def]
    site = sites[("all", "task")]
    runs, pairs, _pages = _grouped(site)
    for side, task, rep, variant in runs:
        page = (_tasks(site) / task / "index.html").read_text()
        anchor = f"run-{side}-r{rep}" + (f"-{variant}" if variant else "")
        assert f'href="transcripts/index.html#{anchor}"' in page
        assert f'id="{anchor}"' in (_tasks(site) / task / "transcripts" / "index.html").read_text()
    for task, rep in pairs:
        assert f'href="transcripts/index.html#pair-r{rep}"' in (_tasks(site) / task / "index.html").read_text()


def test_a_left_out_run_is_still_said_on_the_task_page(sites) -> None:  # type: ignore[no-untyped-def]
    site = sites[("differing", "task")]
    pages = [p.read_text() for p in _tasks(site).glob("*/index.html")]
    assert any("transcript not shown: left out by transcripts: differing" in page for page in pages)


def test_auto_groups_above_the_documented_count(monkeypatch: pytest.MonkeyPatch) -> None:
    refs = [TranscriptRef("candidate", "t", rep, "/x", "/", None) for rep in range(1, 4)]
    refs.append(TranscriptRef("baseline", "t", 1, None, None, "left out"))  # not published: not counted
    assert not groups_per_task("auto", refs) and groups_per_task("task", refs) and not groups_per_task("run", refs)
    monkeypatch.setattr("generator.pipelines.task_transcripts.TASK_GROUPED_ABOVE", 2)
    assert groups_per_task("auto", refs) and not groups_per_task("run", refs)
    monkeypatch.setattr("generator.pipelines.task_transcripts.TASK_GROUPED_ABOVE", 3)
    assert not groups_per_task("auto", refs)


@pytest.mark.parametrize("value", ["pair", 1, "TASK"])
def test_an_unknown_run_pages_value_is_a_one_line_config_error(tmp_path: Path, value: object) -> None:
    config = _config(tmp_path, "all", "auto")
    config.write_text(config.read_text().replace("run_pages: auto", f"run_pages: {value}"))
    with pytest.raises(EvalsiteError, match="run_pages: must be one of: auto, run, task"):
        load_config(config)


def _transcript(steps: int, size: int, text: str = "x") -> Transcript:
    body = tuple(
        Step(i, "tool_use" if i % 2 else "tool_result", (text * size)[:size], "Bash", size) for i in range(1, steps + 1)
    )
    return Transcript("claude-code stream-json", body, steps * size, "ab" * 32)


def test_long_runs_continue_on_later_pages_and_the_index_says_where() -> None:
    site = SiteInfo("t")
    pages = TaskRuns(site, "c", "C", "task-1")
    big = _transcript(6, PAGE_BUDGET // 3)  # two pages of steps
    runs = [RunItem("candidate", 1, "", "A", big), RunItem("baseline", 1, "", "B", _transcript(2, 10))]
    done = pages.add(1, runs, StepAlignment((), None))
    done += pages.add(2, [RunItem("candidate", 2, "", "A", None, "is missing")], None)
    done += pages.finish()
    by_page = {data["page"]: (view, data) for view, data in done}
    assert sorted(by_page) == list(range(1, len(by_page) + 1)) and len(by_page) >= 3
    first, data = by_page[1]
    assert data["pages"] == len(by_page)
    where = {entry["anchor"]: entry["page"] for entry in data["index"]}
    assert where["pair-r1"] == 1 and where["run-candidate-r1"] == 1
    assert where["run-baseline-r1"] > 1 and where["run-candidate-r2"] == where["run-baseline-r1"]
    links = {entry.anchor: entry.link.href for entry in first.index}
    assert links["pair-r1"] == "#steps-r1"
    assert links["run-baseline-r1"] == f"page-{where['run-baseline-r1']}/index.html#transcript-baseline-r1"
    continued = [r for _view, d in done for r in d["runs"] if r["continued"]]
    assert {(r["side"], r["rep"]) for r in continued} == {("candidate", 1)} and len(continued) == 2
    in_order = [by_page[n][1] for n in sorted(by_page)]
    shown = [s[0] for d in in_order for r in d["runs"] if (r["side"], r["rep"]) == ("candidate", 1) for s in r["steps"]]
    assert shown == list(range(1, 7))  # every step once, in order, across the pages
    last = by_page[len(by_page)][0]
    assert last.next is None and last.first is not None and first.next is not None
    assert any(r.get("problem") == "is missing" for _view, d in done for r in d["runs"])


def test_untrusted_text_stays_escaped_on_a_grouped_page() -> None:
    site = SiteInfo("t")
    pages = TaskRuns(site, "c", "C", "<b>task</b>")
    hostile = _transcript(2, 40, "<script>alert(1)</script>")
    done = pages.add(1, [RunItem("candidate", 1, "", "<i>A</i>", hostile)], None)
    done += pages.finish()
    html = render_page(done[-1][0], default_templates_dir())
    assert "<script>alert" not in html and "<b>task</b>" not in html and "<i>A</i>" not in html
    assert "&lt;script&gt;alert(1)" in html


def test_grouped_pages_written_by_workers_are_the_same_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = _config(tmp_path, "all", "task")
    files = {}
    for workers in ("1", "2"):
        monkeypatch.setenv("EVALSITE_WORKERS", workers)
        monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
        out = tmp_path / f"site-{workers}"
        build_site(load_config(config), out)
        files[workers] = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert any("/transcripts/" in path for path in files["1"])
    assert files["1"] == files["2"]
