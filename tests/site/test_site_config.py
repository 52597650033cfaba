"""site-config.yaml validation: every mistake is one clear line, before anything is written."""

from __future__ import annotations

from pathlib import Path

import pytest
from sitefixtures import write_config

from generator.model.errors import EvalsiteError
from generator.read.config import DEFAULT_KS, load_config

REPO = Path(__file__).resolve().parents[2]


def _error(path: Path) -> str:
    with pytest.raises(EvalsiteError) as info:
        load_config(path)
    message = str(info.value)
    assert "\n" not in message
    assert str(path.parent) not in message  # never the resolved absolute path
    return message


def test_valid_config_resolves_paths_relative_to_the_file(tmp_path):
    config = load_config(write_config(tmp_path, comparisons=2, ledgers=1))
    assert [c.id for c in config.comparisons] == ["cmp-0", "cmp-1"]
    first = config.comparisons[0]
    assert first.candidate.experiment == (tmp_path / "exp" / "native").resolve()
    assert first.tasks == (tmp_path / "tasks").resolve()
    assert first.ks == (1, 2, 3) and first.rebase_artifacts is False and first.eval_root is None
    assert config.ledgers[0].campaign == (tmp_path / "ledger" / "campaign.json").resolve()
    assert config.output == (tmp_path / "_site").resolve()
    assert config.noindex is False and config.strict is False


def test_defaults_and_optional_keys(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "site-config.yaml").write_text(
        "title: T\nnoindex: true\nstrict: true\ncomparisons:\n"
        "  - {id: x, title: X, candidate: {experiment: a, treatment: A}, baseline: {experiment: b, treatment: B},"
        " eval_root: a, rebase_artifacts: true, ks: [3, 1, 1]}\n"
    )
    config = load_config(tmp_path / "site-config.yaml")
    entry = config.comparisons[0]
    assert entry.ks == (1, 3)  # sorted, deduplicated like the comparison core
    assert entry.tasks is None and entry.eval_root == (tmp_path / "a").resolve() and entry.rebase_artifacts
    assert config.noindex and config.strict and config.ledgers == ()
    assert DEFAULT_KS == (1, 2, 3)


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda s: s + "colour: blue\n", "top level: unknown key(s) colour"),
        (
            lambda s: s.replace("    tasks: tasks\n", "    tasks: tasks\n    task: tasks\n", 1),
            "comparisons[0]: unknown key(s) task",
        ),
        (
            lambda s: s.replace("treatment: COMET_NATIVE_PHASE1}", "treatment: COMET_NATIVE_PHASE1, extra: 1}", 1),
            "comparison 'cmp-0' candidate: unknown key(s) extra",
        ),
        (
            lambda s: s.replace("exp/native", "exp/missing", 1),
            "comparison 'cmp-0' candidate.experiment: 'exp/missing' is not an existing folder",
        ),
        (
            lambda s: s.replace("tasks: tasks", "tasks: nope", 1),
            "comparison 'cmp-0' tasks: 'nope' is not an existing folder",
        ),
        (
            lambda s: s.replace("ledger/receipts.jsonl", "ledger/gone.jsonl", 1),
            "ledger 'ledger-0' ledger: 'ledger/gone.jsonl' is not an existing file",
        ),
        (
            lambda s: s.replace("ledger/campaign.json", "ledger", 1),
            "ledger 'ledger-0' campaign: 'ledger' is not an existing file",
        ),
        (lambda s: s.replace("id: ledger-0", "id: cmp-0", 1), "ledgers[0]: duplicate id 'cmp-0'"),
        (lambda s: s.replace("id: cmp-0", "id: Cmp_0", 1), "comparisons[0]: id 'Cmp_0' is not a slug"),
        (lambda s: s.replace("id: cmp-0", "id: 7", 1), "comparisons[0]: id 7 is not a slug"),
        (lambda s: s.replace("ks: [1, 2, 3]", "ks: [0, 1]", 1), "comparison 'cmp-0' ks: bad k 0"),
        (lambda s: s.replace("ks: [1, 2, 3]", "ks: [true]", 1), "comparison 'cmp-0' ks: bad k True"),
        (lambda s: s.replace("ks: [1, 2, 3]", "ks: ['2']", 1), "comparison 'cmp-0' ks: bad k '2'"),
        (lambda s: s.replace("ks: [1, 2, 3]", "ks: [1.5]", 1), "comparison 'cmp-0' ks: bad k 1.5"),
        (lambda s: s.replace("ks: [1, 2, 3]", "ks: []", 1), "comparison 'cmp-0' ks: must be a non-empty list"),
        (lambda s: s.replace("    ks: [1, 2, 3]\n", "    ks: [1]\n    ks: [2]\n", 1), "duplicate key 'ks'"),
        (
            lambda s: s.replace("treatment: COMET_FULL_040_BETA", "treatment: ''", 1),
            "comparison 'cmp-0' baseline.treatment: must be a non-empty string",
        ),
        (lambda s: s.replace("title: ", "titel: ", 1), "top level: unknown key(s) titel"),
        (lambda s: s + "noindex: yes please\n", "noindex: must be true or false"),
        (lambda s: s + "comparisons: 3\n", "duplicate key 'comparisons'"),
        (lambda s: "- just\n- a list\n", "top level: must be a mapping"),
        (lambda s: s + "  - [unbalanced\n", "site config 'site-config.yaml'"),
    ],
)
def test_config_errors_name_the_entry_and_the_problem(tmp_path, edit, expected):
    path = write_config(tmp_path)
    path.write_text(edit(path.read_text()))
    assert expected in _error(path)


def test_missing_config_file_is_one_line(tmp_path):
    assert "not found" in _error(tmp_path / "site-config.yaml")


def test_config_errors_stop_before_anything_is_written(tmp_path, monkeypatch, capsys):
    from generator.cli import main

    path = write_config(tmp_path)
    path.write_text(path.read_text().replace("ks: [1, 2, 3]", "ks: [0]"))
    assert main(["build", "--config", str(path)]) == 2
    assert capsys.readouterr().err.startswith("error: site config:")  # an EvalsiteError, not a crash
    assert not (tmp_path / "_site").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_repository_site_config_is_valid():
    config = load_config(REPO / "site-config.yaml")
    assert config.comparisons[0].candidate.treatment == "COMET_NATIVE_PHASE1"
    assert config.comparisons[0].baseline.treatment == "COMET_FULL_040_BETA"
    assert config.output == (REPO / "_site").resolve()
