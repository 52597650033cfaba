"""The ``transcripts:`` policy (issue 30): which runs get a run page, what is said for the others,
and the build's count of what was left out."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from generator.model.errors import EvalsiteError
from generator.pipelines.build import build_site
from generator.read.config import load_config

REPO = Path(__file__).resolve().parents[2]
RUN_DIR = re.compile(r"^(candidate|baseline)-(\d+)(-[0-9a-f]{12})?$")  # a variant: two reports of one key


def _config(tmp_path: Path, policy: str) -> Path:
    root = tmp_path / "inputs"
    if not root.exists():
        for name in ("native", "beta"):
            shutil.copytree(REPO / "examples" / "experiments" / name, root / "experiments" / name)
    config = root / f"site-{policy}.yaml"
    config.write_text(
        f"title: t\noutput: _site\ntranscripts: {policy}\ncomparisons:\n  - id: nb\n    title: nb\n"
        "    candidate: {experiment: experiments/native, treatment: COMET_NATIVE_PHASE1}\n"
        "    baseline: {experiment: experiments/beta, treatment: COMET_FULL_040_BETA}\n",
        encoding="utf-8",
    )
    return config


def _published(site: Path) -> set[tuple[str, str, int, str]]:
    """(side, task, rep, variant) of every run page written."""
    found = set()
    for runs in (site / "comparisons" / "nb" / "tasks").glob("*/runs"):
        task = runs.parent.name.rpartition("-")[0]
        for folder in runs.iterdir():
            match = RUN_DIR.match(folder.name)
            if match and (folder / "index.html").is_file():
                found.add((match[1], task, int(match[2]), match[3] or ""))
    return found


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[set[tuple[str, str, int, str]], int, Path]]:
    tmp = tmp_path_factory.mktemp("policy")
    sites = {}
    for policy in ("all", "failures", "differing", "sample", "none"):
        out = tmp / policy
        report = build_site(load_config(_config(tmp, policy)), out)
        sites[policy] = (_published(out), report.transcripts_left_out, out)
    return sites


def test_each_policy_publishes_the_runs_it_names_and_counts_the_rest(built) -> None:  # type: ignore[no-untyped-def]
    everything, none_left, out = built["all"]
    assert everything and none_left == 0
    document = json.loads((out / "comparisons" / "nb" / "data.json").read_text())
    failed = {(r["side"], r["task"], r["rep"]) for r in document["runs"] if not r["passed"]}
    differing = {
        (side, p["task"], p["rep"])
        for p in document["pairs"]
        if p["candidate_passed"] != p["baseline_passed"]
        for side in ("candidate", "baseline")
    }
    lowest: dict[str, int] = {}
    for p in document["pairs"]:
        lowest[p["task"]] = min(p["rep"], lowest.get(p["task"], p["rep"]))
    sample = {(side, task, rep) for task, rep in lowest.items() for side in ("candidate", "baseline")}
    alone: dict[tuple[str, str], int] = {}  # a task with no matched pair: each side's lowest repetition
    for r in document["runs"]:
        if r["task"] not in lowest:
            alone[(r["side"], r["task"])] = min(r["rep"], alone.get((r["side"], r["task"]), r["rep"]))
    sample |= {(side, task, rep) for (side, task), rep in alone.items()}
    keys = {run[:3] for run in everything}
    assert failed & keys and differing & keys < keys and sample & keys < keys
    for policy, wanted in (("failures", failed), ("differing", differing), ("sample", sample), ("none", set())):
        published, left, _ = built[policy]
        assert published == {run for run in everything if run[:3] in wanted}, policy
        if policy != "none":  # none locates no transcript at all, as transcripts: false always did
            assert left == len(everything - published), policy


def test_a_left_out_run_says_why_and_how_to_publish_it(built) -> None:  # type: ignore[no-untyped-def]
    published, _, out = built["differing"]
    pages = [p.read_text() for p in (out / "comparisons" / "nb" / "tasks").glob("*/index.html")]
    reason = "transcript not shown: left out by transcripts: differing (set transcripts: all to publish it)"
    assert any(reason in page for page in pages)


@pytest.mark.parametrize("value", ["some", 3, "ALL"])
def test_an_unknown_policy_is_a_one_line_config_error(tmp_path: Path, value: object) -> None:
    config = _config(tmp_path, "all")
    config.write_text(config.read_text().replace("transcripts: all", f"transcripts: {value}"))
    with pytest.raises(EvalsiteError, match="transcripts: must be true, false or one of: all, failures, differing"):
        load_config(config)
