"""Issue 26: a history no one can rewrite unnoticed (docs/history.md, "Threat model").

The attacker of these tests can write the history file (the Actions cache) and knows the project's
code: they rewrite results and recompute every id with the project's own canonical bytes, cut
entries off the end, plant links, or point ``--history`` at someone else's file.  The site's
recorded chain head (``history-head.json``) catches rewrites and truncation; the HMAC key catches
rewritten entries without any anchor.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from histkit import (
    BASE,
    BASELINE,
    CAND,
    IMPROVED,
    LATER,
    REPS,
    START,
    TASKS,
    build,
    built,
    cli,
    copy_into,
    write_build,
    write_run,
)

from generator.model.history import entry_id
from generator.model.ledger import canonical_bytes

KEY_ENV = "EVALSITE_TEST_HISTORY_KEY"
KEY = "test-history-key-0123456789abcdef"


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    monkeypatch.setenv("GITHUB_SHA", "a" * 40)
    monkeypatch.setenv(KEY_ENV, KEY)


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def rewrite(path: Path, change: Callable[[dict[str, Any]], None], *, strip_macs: bool = False) -> None:
    """The attack: change every entry, then recompute every id and link with the project's own code."""
    previous = None
    out = []
    for entry in lines(path):
        change(entry)
        if strip_macs:
            entry.pop("mac", None)
        entry["previous"] = previous
        entry["id"] = entry_id(entry)
        previous = entry["id"]
        out.append(canonical_bytes(entry) + b"\n")
    path.write_bytes(b"".join(out))


def all_pass(entry: dict[str, Any]) -> None:
    for side in entry["sides"]:
        for task in side["tasks"]:
            task["passes"] = task["runs"]


def _two_builds(factory: pytest.TempPathFactory, *extra: str) -> Path:
    """START then IMPROVED, built once per module (*extra*: the flags of both builds)."""
    root = factory.mktemp("two-builds")
    env = {"SOURCE_DATE_EPOCH": "1700000000", "GITHUB_SHA": "a" * 40, KEY_ENV: KEY}
    return built(root, [(START, extra), (IMPROVED, extra)], env)


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _two_builds(tmp_path_factory, "--history-key-env", KEY_ENV)


@pytest.fixture(scope="module")
def unkeyed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _two_builds(tmp_path_factory)


def test_rewrite_with_recomputed_ids_fails_verification_with_the_key(tmp_path: Path, env: None, keyed: Path) -> None:
    history = copy_into(keyed, tmp_path)
    assert all(str(e["mac"]).startswith("hmac-sha256:") for e in lines(history))
    before = history.read_bytes()
    code, out, _ = cli("history", "verify", str(history), "--key-env", KEY_ENV)
    assert code == 0 and "2 MAC(s) verified with the key" in out
    rewrite(history, all_pass)
    # without the key the chain alone cannot tell, and says the MACs were not checked
    code, out, _ = cli("history", "verify", str(history))
    assert code == 0 and "chain intact" in out and "2 entries carry a MAC that was not checked" in out
    code, _, err = cli("history", "verify", str(history), "--key-env", KEY_ENV)
    assert code == 2
    assert err.strip() == (
        "error: history entry 1 (line 1) does not match its MAC "
        "(it was rewritten, or the key is not the one the history was written with)"
    )
    # stripping the MACs as well does not help the attacker
    rewrite(history, all_pass, strip_macs=True)
    code, _, err = cli("history", "verify", str(history), "--key-env", KEY_ENV)
    assert code == 2 and "entry 2 (line 2) carries no MAC" in err
    # and a keyed build refuses to extend the rewritten history, even told to ignore the site's head
    history.write_bytes(before)
    rewrite(history, all_pass)
    tampered = history.read_bytes()
    write_build(tmp_path, LATER)
    code, _, err = build(tmp_path, "--history-key-env", KEY_ENV, "--history-reset")
    assert code == 2 and "does not match its MAC" in err and "nothing was appended" in err
    assert history.read_bytes() == tampered != before


def test_wrong_key_and_missing_key_variable(
    tmp_path: Path, env: None, keyed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    history = copy_into(keyed, tmp_path)
    monkeypatch.setenv("OTHER_KEY", "not-the-key")
    code, _, err = cli("history", "verify", str(history), "--key-env", "OTHER_KEY")
    assert code == 2 and "does not match its MAC" in err
    code, _, err = cli("history", "verify", str(history), "--key-env", "UNSET_VARIABLE_FOR_TEST")
    assert code == 2 and "UNSET_VARIABLE_FOR_TEST is not set or is empty" in err
    assert "not-the-key" not in err and KEY not in err


def test_unkeyed_prefix_is_vouched_for_by_the_first_mac(tmp_path: Path, env: None) -> None:
    write_build(tmp_path, START)
    assert build(tmp_path)[0] == 0  # a history seeded without a key (the example history in CI)
    write_build(tmp_path, IMPROVED)
    assert build(tmp_path, "--history-key-env", KEY_ENV)[0] == 0
    history = tmp_path / "history.jsonl"
    assert ["mac" in e for e in lines(history)] == [False, True]
    code, out, _ = cli("history", "verify", str(history), "--key-env", KEY_ENV)
    assert code == 0 and "the first 1 entries carry none" in out
    # rewriting only the unkeyed entry changes the id the keyed one chains to: its MAC no longer matches
    first = lines(history)[0]
    rewrite(history, lambda e: all_pass(e) if e["id"] == first["id"] else None)
    code, _, err = cli("history", "verify", str(history), "--key-env", KEY_ENV)
    assert code == 2 and "history entry 2 (line 2) does not match its MAC" in err


def test_an_unkeyed_entry_after_keyed_ones_is_flagged(tmp_path: Path, env: None, keyed: Path) -> None:
    history = copy_into(keyed, tmp_path)
    write_build(tmp_path, LATER)
    assert build(tmp_path)[0] == 0  # a build without the key (a pull request's copy, say)
    code, _, err = cli("history", "verify", str(history), "--key-env", KEY_ENV)
    assert code == 2
    assert "history entry 3 (line 3) carries no MAC although the entries before it do" in err


def test_rewrite_is_refused_against_the_replaced_sites_head(tmp_path: Path, env: None, unkeyed: Path) -> None:
    history = copy_into(unkeyed, tmp_path)
    head = json.loads((tmp_path / "out/history-head.json").read_text())
    assert head == {"schema": "evalsite.history-head.v1", "entries": 2, "head": lines(history)[-1]["id"]}
    rewrite(history, all_pass)
    code, out, _ = cli("history", "verify", str(history))
    assert code == 0 and "chain intact" in out  # the chain alone cannot tell
    code, _, err = cli("history", "verify", str(history), "--site", str(tmp_path / "out"))
    assert code == 2
    assert err.strip() == (
        "error: history entry 2 is not the head the site 'out' recorded: "
        "the history was rewritten or forked at or before it"
    )
    tampered = history.read_bytes()
    site_before = (tmp_path / "out/index.html").read_bytes(), (tmp_path / "out/history-head.json").read_bytes()
    write_build(tmp_path, LATER)
    code, out, err = build(tmp_path)
    assert code == 2 and out == ""
    assert "history entry 2 is not the head the site it replaces recorded" in err
    assert "nothing was written" in err and "--history-reset" in err and err.count("\n") == 1
    assert history.read_bytes() == tampered
    assert ((tmp_path / "out/index.html").read_bytes(), (tmp_path / "out/history-head.json").read_bytes()) == (
        site_before
    )
    # the explicit override starts from the history as it is
    code, _, err = build(tmp_path, "--history-reset")
    assert code == 0, err
    assert json.loads((tmp_path / "out/history-head.json").read_text())["entries"] == 3


def test_truncation_is_detected_against_the_anchor(tmp_path: Path, env: None, unkeyed: Path) -> None:
    history = copy_into(unkeyed, tmp_path)
    anchor = tmp_path / "published-head.json"
    anchor.write_bytes((tmp_path / "out/history-head.json").read_bytes())
    history.write_text(history.read_text().splitlines(keepends=True)[0])  # the newest entry cut off
    code, out, _ = cli("history", "verify", str(history))
    assert code == 0 and "chain intact" in out
    for flag, where in (("--site", "the site 'out'"), ("--anchor", "the anchor 'published-head.json'")):
        target = tmp_path / "out" if flag == "--site" else anchor
        code, _, err = cli("history", "verify", str(history), flag, str(target))
        assert code == 2
        assert err.strip() == (
            f"error: the history has 1 entries but {where} recorded 2: entries were cut off its end, or it was replaced"
        )
    # a build into a fresh folder (as in CI) checks the published head it is given
    truncated = history.read_bytes()
    write_build(tmp_path, LATER)
    code, _, err = build(tmp_path, "--out", str(tmp_path / "fresh"), "--history-anchor", str(anchor))
    assert code == 2 and "recorded 2: entries were cut off" in err
    assert history.read_bytes() == truncated and not (tmp_path / "fresh").exists()


def test_a_history_that_extends_the_head_builds(tmp_path: Path, env: None, unkeyed: Path) -> None:
    history = copy_into(unkeyed, tmp_path)
    write_build(tmp_path, LATER)
    code, _, err = build(tmp_path, "--history-anchor", str(tmp_path / "out/history-head.json"))
    assert code == 0, err
    code, out, _ = cli("history", "verify", str(history), "--site", str(tmp_path / "out"))
    assert code == 0 and "extends the head the site 'out' recorded (3 entries)" in out


def test_secret_in_a_task_name_never_reaches_the_history(tmp_path: Path, env: None) -> None:
    secret = "ghp_" + "Z9" * 18
    tasks = [f"leak-{secret}", *TASKS[1:]]
    write_build(tmp_path, START)
    for folder, treatment, passes in ((tmp_path / "cand", CAND, START), (tmp_path / "base", BASE, BASELINE)):
        for path in (folder / "reports", folder / "raw"):
            for item in path.iterdir():
                item.unlink()
        for task, count in zip(tasks, passes, strict=True):
            for rep in range(1, REPS + 1):
                write_run(folder, task, treatment, rep, rep <= count)
    code, _, err = build(tmp_path)
    assert code == 0, err
    data = (tmp_path / "history.jsonl").read_text()
    assert secret not in data and "leak-" in data
    assert secret not in (tmp_path / "out/trends/comparisons/a/data.json").read_text()
    assert cli("history", "verify", str(tmp_path / "history.jsonl"))[0] == 0


def test_a_dangling_symlink_history_is_refused(tmp_path: Path, env: None) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = elsewhere / "planted.jsonl"
    write_build(tmp_path, START)
    (tmp_path / "history.jsonl").symlink_to(target)  # the config's history: a link to nothing
    for extra in ((), ("--history", str(tmp_path / "history.jsonl"))):
        code, out, err = build(tmp_path, *extra)
        assert code == 2 and out == ""
        assert err.strip() == (
            "error: history 'history.jsonl' is a symbolic link to nothing (refused: name the history file itself)"
        )
        assert os.listdir(elsewhere) == [] and not (tmp_path / "out").exists()
    code, _, err = cli("history", "verify", str(tmp_path / "history.jsonl"))
    assert code == 2 and "symbolic link" in err


def test_no_lock_beside_a_foreign_target(tmp_path: Path, env: None) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    foreign = elsewhere / "notes.txt"
    foreign.write_text("someone else's file\n")
    write_build(tmp_path, START)
    # through a link to the foreign file: refused, no lock beside the target
    (tmp_path / "history.jsonl").symlink_to(foreign)
    code, _, err = build(tmp_path)
    assert code == 2 and "is a symbolic link" in err and "to nothing" not in err
    # named directly: refused as not a history before any lock is made
    code, _, err = build(tmp_path, "--history", str(foreign))
    assert code == 2
    assert err.strip() == (
        "error: history 'notes.txt' is not an evalsite history "
        "(its first line is not an evalsite.history.v1 entry); nothing was written"
    )
    assert sorted(os.listdir(elsewhere)) == ["notes.txt"]
    assert foreign.read_text() == "someone else's file\n"
