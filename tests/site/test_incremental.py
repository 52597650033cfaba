"""Incremental rebuilds and split builds (issue 30): always byte for byte a full build.

A small site of the bundled examples (copied, so that a test can change an input): two
comparisons on their own, a leaderboard with a comparison on the same evidence (one group), a
ledger and a single-system report.  Each rebuild is compared file by file with a full build of
the same inputs, and the entries it recomputed are counted (``report.reused``).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from generator import cli
from generator.model.errors import EvalsiteError
from generator.pipelines import incremental
from generator.pipelines.build import build_site
from generator.pipelines.incremental import BUILD_FILE
from generator.read.config import load_config
from generator.render.env import default_templates_dir
from generator.write.site import MARKER

REPO = Path(__file__).resolve().parents[2]

CONFIG = """\
title: Incremental
transcripts: false  # run pages: the example site's test below has them
comparisons:
  - id: quiz
    title: Inspect quiz
    candidate: {experiment: ex/inspect/candidate.json, treatment: candidate-solver, format: inspect}
    baseline: {experiment: ex/inspect/baseline.json, treatment: baseline-solver, format: inspect}
    ks: [1, 2]
  - id: records
    title: Records
    candidate:
      experiment: ex/records/candidate.jsonl
      treatment: new-prompt
      format: records
      fields: &f {task: case, repetition: attempt, passed: result.ok, cost: cost_usd}
    baseline: {experiment: ex/records/baseline.csv, treatment: old-prompt, format: records, fields: *f}
  - id: a-vs-b
    title: agent-a vs agent-b
    candidate: {experiment: ex/leaderboard/agent-a, treatment: LB_AGENT_A}
    baseline: {experiment: ex/leaderboard/agent-b, treatment: LB_AGENT_B}
    tasks: ex/tasks
    ks: [1, 2]
ledgers:
  - {id: pilot, title: Pilot, campaign: ex/ledger-pilot/campaign.json, ledger: ex/ledger-pilot/receipts.jsonl}
leaderboards:
  - id: board
    title: Three agents
    systems:
      - {label: agent-a, experiment: ex/leaderboard/agent-a, treatment: LB_AGENT_A}
      - {label: agent-b, experiment: ex/leaderboard/agent-b, treatment: LB_AGENT_B}
      - {label: agent-c, experiment: ex/leaderboard/agent-c, treatment: LB_AGENT_C}
    baseline: agent-b
    tasks: ex/tasks
    ks: [1, 2]
reports:
  - {id: agent-c, title: agent-c alone, experiment: ex/leaderboard/agent-c, treatment: LB_AGENT_C, tasks: ex/tasks}
"""

ALL = [
    "comparison a-vs-b",
    "comparison quiz",
    "comparison records",
    "leaderboard board",
    "ledger pilot",
    "report agent-c",
]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    for name in ("inspect", "records", "leaderboard", "tasks", "ledger-pilot"):
        shutil.copytree(REPO / "examples" / name, tmp_path / "ex" / name)
    (tmp_path / "site-config.yaml").write_text(CONFIG, encoding="utf-8")
    return tmp_path


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _build(project: Path, out: str, **options: object):
    return build_site(load_config(project / "site-config.yaml"), project / out, incremental=True, **options)


def _same_as_full(project: Path, out: str) -> None:
    """*out* holds byte for byte what a full build of the same inputs writes."""
    reference = project / "full-reference"
    shutil.rmtree(reference, ignore_errors=True)
    report = _build(project, "full-reference", full=True)
    assert report.reused == []
    built, full = _files(project / out), _files(reference)
    assert sorted(built) == sorted(full)
    assert [name for name in full if built[name] != full[name]] == []


def _update_manifest(out: Path, *paths: str) -> None:
    """Edit the manifest as a consistent forger would: the edited files' sizes and digests."""
    manifest = json.loads((out / MARKER).read_text())
    for path in paths:
        data = (out / path).read_bytes()
        manifest["files"][path] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    (out / MARKER).write_text(json.dumps(manifest))


def test_a_rebuild_with_nothing_changed_copies_every_entry(project: Path) -> None:
    first = _build(project, "site")
    assert first.reused == []
    again = _build(project, "site")
    assert again.reused == ALL
    assert (again.pages, again.files, again.total_bytes) == (first.pages, first.files, first.total_bytes)
    _same_as_full(project, "site")
    recorded = (project / "site" / BUILD_FILE).read_text()
    assert str(project) not in recorded and "/tmp" not in recorded  # no local path


def test_a_changed_input_rebuilds_its_entry_alone(project: Path) -> None:
    _build(project, "site")
    candidate = project / "ex" / "records" / "candidate.jsonl"
    lines = candidate.read_text().splitlines()
    flipped = lines[0].replace('"ok": true', '"ok": false') if '"ok": true' in lines[0] else None
    lines[0] = flipped or lines[0].replace('"ok": false', '"ok": true')
    candidate.write_text("\n".join(lines) + "\n")
    report = _build(project, "site")
    assert report.reused == [name for name in ALL if name != "comparison records"]
    _same_as_full(project, "site")


@pytest.mark.slow  # several seconds: make test runs it, make test-fast does not
def test_a_change_to_shared_evidence_rebuilds_the_whole_group(project: Path) -> None:
    """agent-a is read by the leaderboard and by a comparison (links, family sentences, verdicts)."""
    _build(project, "site")
    report_file = next((project / "ex" / "leaderboard" / "agent-a").rglob("*.json"))
    report_file.write_bytes(report_file.read_bytes() + b"\n")
    report = _build(project, "site")
    assert report.reused == ["comparison quiz", "comparison records", "ledger pilot", "report agent-c"]
    _same_as_full(project, "site")


@pytest.mark.slow  # several seconds: make test runs it, make test-fast does not
def test_a_config_change_rebuilds_the_entries_it_affects(project: Path) -> None:
    _build(project, "site")
    config = project / "site-config.yaml"
    config.write_text(config.read_text().replace("title: Inspect quiz", "title: Inspect quiz, renamed"))
    assert _build(project, "site").reused == [name for name in ALL if name != "comparison quiz"]
    _same_as_full(project, "site")
    config.write_text(config.read_text().replace("title: Incremental", "title: Incremental, renamed"))
    assert _build(project, "site").reused == []  # every page shows the site's title
    _same_as_full(project, "site")


@pytest.mark.slow  # several seconds: make test runs it, make test-fast does not
def test_full_rebuilds_everything(project: Path) -> None:
    _build(project, "site")
    assert _build(project, "site", full=True).reused == []
    _same_as_full(project, "site")


@pytest.mark.slow  # several seconds: make test runs it, make test-fast does not
def test_a_tampered_page_is_rebuilt_even_with_its_manifest_line_forged(project: Path) -> None:
    _build(project, "site")
    page = "comparisons/quiz/index.html"
    path = project / "site" / page
    path.write_bytes(path.read_bytes().replace(b"Inspect quiz", b"Forged quiz"))
    _update_manifest(project / "site", page)
    report = _build(project, "site")
    assert "comparison quiz" not in report.reused and len(report.reused) == len(ALL) - 1
    _same_as_full(project, "site")


def test_a_tampered_page_the_manifest_does_not_vouch_for_refuses_the_build_as_a_full_build_does(
    project: Path,
) -> None:
    _build(project, "site")
    path = project / "site" / "comparisons" / "quiz" / "index.html"
    path.write_bytes(path.read_bytes().replace(b"Inspect quiz", b"Forged quiz"))
    for full in (False, True):
        with pytest.raises(EvalsiteError, match="not written by evalsite"):
            _build(project, "site", full=full)
    assert b"Forged quiz" in path.read_bytes()


@pytest.mark.slow  # several seconds: make test runs it, make test-fast does not
@pytest.mark.parametrize(
    "forge",
    [
        lambda text: "{not json",
        lambda text: text.replace('"schema": "evalsite.build-keys.v1"', '"schema": "other"'),
        lambda text: text.replace('"ok": true', '"ok": "yes"').replace('"ok": false', '"ok": 0'),
        lambda text: text.replace('"kind": "comparison"', '"kind": "comparison", "extra": 1', 1),
    ],
    ids=["not-json", "schema", "types", "unknown-field"],
)
def test_a_tampered_key_file_is_not_trusted(project: Path, forge) -> None:
    _build(project, "site")
    path = project / "site" / BUILD_FILE
    path.write_text(forge(path.read_text()))
    _update_manifest(project / "site", BUILD_FILE)
    report = _build(project, "site")
    assert len(report.reused) < len(ALL)
    _same_as_full(project, "site")


def test_a_key_file_edited_behind_the_manifest_refuses_the_build(project: Path) -> None:
    _build(project, "site")
    path = project / "site" / BUILD_FILE
    path.write_text(path.read_text().replace("agent-c alone", "agent-c forged"))
    with pytest.raises(EvalsiteError, match=BUILD_FILE):
        _build(project, "site")


@pytest.mark.slow  # several seconds: make test runs it, make test-fast does not
def test_another_evalsite_version_or_templates_rebuild_everything(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _build(project, "site")
    monkeypatch.setattr(incremental, "__version__", "0.0.0-other")
    assert _build(project, "site").reused == []
    monkeypatch.undo()
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    assert _build(project, "site").reused == []  # the previous site was another version's
    templates = project / "templates"
    shutil.copytree(default_templates_dir(), templates)
    assert _build(project, "site", templates_dir=templates).reused == ALL  # the same bytes: the same key
    css = templates / "assets" / "site.css"
    css.write_text(css.read_text() + "\n/* changed */\n")
    assert _build(project, "site", templates_dir=templates).reused == []
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000600")  # every page says when it was built (the minute)
    assert _build(project, "site", templates_dir=templates).reused == []


def test_the_summary_of_an_entry_round_trips_exactly(project: Path) -> None:
    """What a rebuild reads back (headline, "Built from" rows, history record) is what it computed."""
    config = load_config(project / "site-config.yaml")
    _build(project, "site")
    recorded = json.loads((project / "site" / BUILD_FILE).read_text())
    assert sorted(f"{e['kind']} {e['id']}" for e in recorded["entries"]) == ALL
    for entry in recorded["entries"]:
        summary = incremental.from_plain(entry["summary"], incremental.EntrySummary, incremental._phrase)
        assert incremental.to_plain(summary) == entry["summary"]
    assert config.comparisons[0].id == "quiz"


# --------------------------------------------------------------------------- split builds


def _part(project: Path, name: str, *ids: str):
    return _build(project, name, only=ids)


@pytest.mark.slow  # several seconds: make test runs it, make test-fast does not
def test_parts_merge_into_the_one_machine_site(project: Path) -> None:
    _part(project, "p1", "quiz", "pilot")
    part = _part(project, "p2", "a-vs-b")  # computes its group (the board) to write its own pages
    assert sorted(p.name for p in (project / "p2").iterdir()) == [BUILD_FILE, MARKER, "comparisons"]
    assert part.reused == []
    _part(project, "p3", "records", "board", "agent-c")
    merged = _build(project, "site", parts=[project / "p1", project / "p2", project / "p3"])
    assert merged.reused == ALL
    _same_as_full(project, "site")


@pytest.mark.parametrize(
    ("parts", "message"),
    [
        (["p1", "p2"], "no part holds"),
        (["p1", "p2", "p3", "p4"], "is in two parts"),
    ],
)
def test_a_merge_refuses_missing_or_overlapping_entries(project: Path, parts: list[str], message: str) -> None:
    _part(project, "p1", "quiz", "pilot", "records")
    _part(project, "p2", "a-vs-b", "board")
    _part(project, "p3", "agent-c")
    _part(project, "p4", "quiz")
    with pytest.raises(EvalsiteError, match=message):
        _build(project, "site", parts=[project / p for p in parts])
    assert not (project / "site").exists()


def test_a_merge_refuses_a_part_of_another_config_or_a_tampered_part(project: Path) -> None:
    _part(project, "p1", "quiz", "pilot", "records")
    _part(project, "p2", "a-vs-b", "board", "agent-c")
    config = project / "site-config.yaml"
    original = config.read_text()
    config.write_text(original.replace("title: Incremental", "title: Other"))
    with pytest.raises(EvalsiteError, match="another site config"):
        _build(project, "site", parts=[project / "p1", project / "p2"])
    config.write_text(original)
    page = project / "p2" / "comparisons" / "a-vs-b" / "index.html"
    page.write_bytes(page.read_bytes() + b" ")
    with pytest.raises(EvalsiteError, match="does not match its manifest"):
        _build(project, "site", parts=[project / "p1", project / "p2"])
    page.write_bytes(page.read_bytes()[:-1])
    (project / "ex" / "records" / "baseline.csv").write_text(
        (project / "ex" / "records" / "baseline.csv").read_text() + "\n"
    )
    with pytest.raises(EvalsiteError, match="other inputs or settings"):
        _build(project, "site", parts=[project / "p1", project / "p2"])


def test_the_commands_say_one_line_and_exit_2(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = str(project / "site-config.yaml")
    assert cli.main(["build", "--config", config, "--only", "nope", "--out", str(project / "p")]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "error: --only 'nope': the site config has no entry with this id"
    ]
    assert cli.main(["build", "--config", config, "--only", "quiz", "--out", str(project / "p")]) == 0
    assert cli.main(["merge", str(project / "p"), "--config", config, "--out", str(project / "site")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: no part holds")


@pytest.mark.slow  # several seconds: make test runs it, make test-fast does not
def test_the_example_site_split_and_merged_is_the_one_machine_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bundled example config (a leaderboard group, ledgers, a report, a history): four parts."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    config = load_config(REPO / "site-config.yaml")
    histories = []
    for name in ("one", "merged"):
        history = tmp_path / f"{name}.jsonl"
        shutil.copyfile(REPO / "examples" / "history" / "history.jsonl", history)
        histories.append(replace(config, history=history))
    build_site(histories[0], tmp_path / "one", incremental=True)
    entries = [*config.comparisons, *config.ledgers, *config.leaderboards, *config.reports]
    groups = [[entry.id for entry in entries[number::4]] for number in range(4)]  # every entry, in four parts
    assert len(entries) >= 12 and all(groups)
    for number, ids in enumerate(groups):
        build_site(histories[1], tmp_path / f"part-{number}", incremental=True, only=ids)
    parts = [tmp_path / f"part-{number}" for number in range(len(groups))]
    build_site(histories[1], tmp_path / "merged", incremental=True, parts=parts)
    one, merged = _files(tmp_path / "one"), _files(tmp_path / "merged")
    assert sorted(one) == sorted(merged)
    assert [name for name in one if one[name] != merged[name]] == []
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "merged.jsonl").read_bytes()
