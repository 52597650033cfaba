"""Issue 15: successive builds append a verified history; trends, flags, the summary and the CI gate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from histkit import DIP, IMPROVED, REGRESSED, START, build, built, cli, copy_into, write_build

from generator.model.history import entry_id

GATE = ("--fail-on", "regression", "--fail-on", "verdict-worse")


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    monkeypatch.setenv("GITHUB_SHA", "a" * 40)


def entries(root: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (root / "history.jsonl").read_text().splitlines()]


def candidate_step(root: Path, number: int) -> list[str]:
    html = (root / "out/trends/comparisons/a/index.html").read_text()
    row = html.split(f'<tr id="build-{number}"', 1)[1].split("</tr>", 1)[0]
    return row.split("<td")[-1:]


@pytest.mark.slow  # several seconds: make test runs it, make test-fast does not
def test_five_builds_give_expected_entries_flags_and_exits(tmp_path: Path, env: None) -> None:
    summary = tmp_path / "summary.md"
    codes = []
    for candidate in (START, IMPROVED, DIP, REGRESSED, REGRESSED):
        write_build(tmp_path, candidate)
        code, _, err = build(tmp_path, "--summary", str(summary), *GATE)
        codes.append((code, err))
    assert [c for c, _ in codes] == [0, 0, 0, 1, 1]
    assert codes[3][1].count("regressed") == 1 and "candidate regressed" in codes[3][1]
    # the identical rebuild appended nothing; the chain links every entry to the one before
    found = entries(tmp_path)
    assert len(found) == 4
    assert found[0]["previous"] is None
    for before, entry in zip(found, found[1:], strict=False):
        assert entry["previous"] == before["id"]
        assert entry["id"] == entry_id(entry)
    assert all(e["revision"] == "a" * 40 and e["time"] == 1700000000 for e in found)
    sides = {s["label"]: s["tasks"] for s in found[3]["sides"]}  # type: ignore[union-attr]
    assert [t["passes"] for t in sides["candidate"]] == REGRESSED
    assert {t["runs"] for t in sides["candidate"]} == {3} and {t["excluded"] for t in sides["candidate"]} == {0}
    # the trend page: improvement, a dip inside the noise, a regression
    assert "improvement" in candidate_step(tmp_path, 2)[0]
    assert "−1.1 pp" in candidate_step(tmp_path, 3)[0] and "within noise" in candidate_step(tmp_path, 3)[0]
    assert "regression" in candidate_step(tmp_path, 4)[0]
    text = summary.read_text()
    assert text.startswith("<!-- evalsite summary -->\n")
    assert "(comparisons/a/index.html#verdict)" in text
    assert "(trends/comparisons/a/index.html#build-4)" in text and "**regression**" in text


def test_dip_inside_noise_does_not_fail_the_gate(tmp_path: Path, env: None) -> None:
    for candidate in (IMPROVED, DIP):
        write_build(tmp_path, candidate)
        code, _, err = build(tmp_path, *GATE)
    assert code == 0 and "fail:" not in err


def test_summary_links_are_absolute_with_base_url(tmp_path: Path, env: None) -> None:
    write_build(tmp_path, START, base_url="https://example.org/site")
    summary = tmp_path / "s.md"
    assert build(tmp_path, "--summary", str(summary))[0] == 0
    text = summary.read_text()
    assert "(https://example.org/site/comparisons/a/index.html#verdict)" in text
    assert "(https://example.org/site/trends/comparisons/a/index.html#build-1)" in text


def test_a_summary_with_relative_links_warns_naming_base_url(tmp_path: Path, env: None) -> None:
    """Issue 25: without base_url the summary's links break in a pull-request comment, and nothing said so."""
    write_build(tmp_path, START)
    code, _, err = build(tmp_path, "--summary", str(tmp_path / "s.md"))
    assert code == 0 and "warning: the summary's links are relative" in err and "base_url" in err
    write_build(tmp_path, START, base_url="https://example.org/site")
    assert "relative" not in build(tmp_path, "--summary", str(tmp_path / "s.md"))[2]


def test_summary_refuses_a_foreign_file(tmp_path: Path, env: None) -> None:
    write_build(tmp_path, START)
    foreign = tmp_path / "notes.md"
    foreign.write_text("my notes\n")
    code, _, err = build(tmp_path, "--summary", str(foreign))
    assert code == 2 and "is not an evalsite build summary" in err
    assert foreign.read_text() == "my notes\n" and not (tmp_path / "history.jsonl").exists()


def test_summary_inside_the_site_folder_is_refused(tmp_path: Path, env: None) -> None:
    """The swap would treat it as a file evalsite did not write, and the next build would refuse."""
    write_build(tmp_path, START)
    code, _, err = build(tmp_path, "--summary", str(tmp_path / "out" / "summary.md"))
    assert code == 2 and "inside the output folder" in err
    assert not (tmp_path / "out").exists() and not (tmp_path / "history.jsonl").exists()


def test_issues_gate(tmp_path: Path, env: None) -> None:
    write_build(tmp_path, START)
    sorted((tmp_path / "cand/reports").iterdir())[0].unlink()  # one missing run: an alignment issue
    assert build(tmp_path)[0] == 0  # without the gate the build passes
    code, _, err = build(tmp_path, "--fail-on", "issues")
    assert code == 1 and "alignment issue(s)" in err


def test_first_build_without_history_works_and_verify_counts(tmp_path: Path, env: None) -> None:
    write_build(tmp_path, START)
    assert build(tmp_path)[0] == 0
    code, out, _ = cli("history", "verify", str(tmp_path / "history.jsonl"))
    assert code == 0 and "1 entries" in out


@pytest.fixture(scope="module")
def three_builds(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """START, IMPROVED and DIP built once; each damage test changes a copy."""
    env = {"SOURCE_DATE_EPOCH": "1700000000", "GITHUB_SHA": "a" * 40}
    return built(tmp_path_factory.mktemp("three-builds"), [(START, ()), (IMPROVED, ()), (DIP, ())], env)


@pytest.mark.parametrize("damage", ["edit", "delete", "torn"])
def test_damaged_history_is_found_and_refused(tmp_path: Path, env: None, damage: str, three_builds: Path) -> None:
    path = copy_into(three_builds, tmp_path)
    lines = path.read_text().splitlines(keepends=True)
    if damage == "edit":
        lines[1] = lines[1].replace('"passes":0', '"passes":1', 1)
    elif damage == "delete":
        del lines[1]
    else:
        lines[-1] = lines[-1].rstrip("\n")
    path.write_text("".join(lines))
    before = path.read_bytes()
    code, _, err = cli("history", "verify", str(path))
    assert code == 2
    if damage == "edit":
        assert "history entry 2 (line 2)" in err and "edited" in err
    elif damage == "delete":
        assert "history entry 2 (line 2)" in err and "deleted" in err
    else:
        assert "history entry 3 (line 3)" in err and "torn" in err
    write_build(tmp_path, REGRESSED)
    code, _, err = build(tmp_path)
    assert code == 2 and err.startswith("error: history entry") and "nothing was appended" in err
    assert path.read_bytes() == before
    assert str(tmp_path) not in err


def test_history_inside_the_output_folder_is_refused(tmp_path: Path, env: None) -> None:
    write_build(tmp_path, START)
    code, _, err = build(tmp_path, "--history", str(tmp_path / "out" / "history.jsonl"))
    assert code == 2 and "contains the site config or an input" in err


@pytest.mark.slow  # builds a whole site: runs first (tests/conftest.py)
def test_example_site_records_every_comparison_and_leaderboard(tmp_path: Path, env: None) -> None:
    root = Path(__file__).resolve().parents[2]
    history = tmp_path / "h.jsonl"
    args = ["build", "--config", str(root / "site-config.yaml"), "--out", str(tmp_path / "out")]
    code, _, _ = cli(*args, "--history", str(history))
    assert code == 0
    found = [json.loads(line) for line in history.read_text().splitlines()]
    kinds = {(e["kind"], e["subject"]) for e in found}
    assert ("leaderboard", "example-agents") in kinds and ("comparison", "native-vs-beta") in kinds
    board = next(e for e in found if e["kind"] == "leaderboard")
    assert sorted(s["label"] for s in board["sides"]) == ["agent-a", "agent-b", "agent-c", "agent-d", "agent-e"]
    assert board["tiers"] and (tmp_path / "out/trends/leaderboards/example-agents/index.html").is_file()
    assert cli(*args, "--history", str(history))[0] == 0
    assert len(history.read_text().splitlines()) == len(found)  # identical inputs: nothing appended


def test_every_comparison_page_links_its_trend_page(tmp_path: Path, env: None) -> None:
    """Issue 28, item 6: only the index linked the trend pages."""
    write_build(tmp_path, START)
    assert build(tmp_path)[0] == 0
    page = tmp_path / "out" / "comparisons" / "a" / "index.html"
    assert 'href="../../trends/comparisons/a/index.html"' in page.read_text()
    assert (page.parent / "../../trends/comparisons/a/index.html").resolve().is_file()
