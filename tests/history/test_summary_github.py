"""Issue 26: the build summary is safe to post on GitHub, and stderr lines carrying names are cut.

Hostile names are planted in a real build (leaderboard system labels and titles from the config):
in the summary every one of them sits inside a code span, where GitHub makes no mention, issue
reference, commit or URL autolink; the only live links are the summary's own, to the site.  The
summary stays below GitHub's 65,536-character comment limit, cut at a line by evalsite itself.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from histkit import cli
from markdown_it import MarkdownIt

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "leaderboard"))

from lbkit import write_system  # noqa: E402

BASE_URL = "https://site.example.org/evals/"
SHA = "0123456789abcdef0123456789abcdef01234567"
HOSTILE = [
    "@octocat",
    "@org/team",
    "#1",
    "owner/repo#1",
    "https://evil.example/x",
    SHA,
    "www.evil.example",
    "GH-12 owner/repo@0123456 <b>bold</b> `tick` | pipe",
]
# What GitHub would make live in plain text (mentions, references, SHAs, URLs, HTML).
LIVE = re.compile(
    r"@[A-Za-z0-9]|#\d|GH-\d|://|www\.|\b[0-9a-f]{7,40}\b|<[a-z/]",
)
TASKS = [f"t{i:02d}" for i in range(12)]


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    monkeypatch.setenv("GITHUB_SHA", "b" * 40)


def _hostile_site(root: Path, *, all_pass: bool = False) -> Path:
    systems = []
    for n, label in enumerate(HOSTILE):
        write_system(root / f"s{n}", f"S{n}", {t: [all_pass or n % 2 == 0, True, True] for t in TASKS})
        systems.append(f"      - {{label: {json.dumps(label)}, experiment: s{n}, treatment: S{n}}}\n")
    config = root / "site.yaml"
    config.write_text(
        f"title: t\nhistory: history.jsonl\nbase_url: {BASE_URL}\nredact: false\nleaderboards:\n"
        '  - id: lb\n    title: "Board @octocat #2 https://evil.example/t <img src=x> [x](javascript:1)"\n'
        f"    baseline: {json.dumps(HOSTILE[0])}\n    systems:\n" + "".join(systems),
        encoding="utf-8",
    )
    return config


def _parser() -> MarkdownIt:
    return MarkdownIt("gfm-like", {"linkify": False, "html": True})


def _inline_tokens(text: str) -> list[Any]:
    return [child for token in _parser().parse(text) if token.children for child in token.children]


def test_hostile_names_stay_inert_in_the_summary(tmp_path: Path, env: None) -> None:
    # a first recorded build where no system is worse: verdict-worse fires on what got worse since
    config = _hostile_site(tmp_path, all_pass=True)
    assert cli("build", "--config", str(config), "--out", str(tmp_path / "out"))[0] == 0
    config = _hostile_site(tmp_path)
    summary = tmp_path / "summary.md"
    code, _, err = cli(
        "build", "--config", str(config), "--out", str(tmp_path / "out"), "--summary", str(summary),
        "--fail-on", "verdict-worse",
    )  # fmt: skip
    assert code == 1, err  # the gate's reasons (which name systems) are in the summary too
    text = summary.read_text(encoding="utf-8")
    assert "**The CI gate failed:**" in text
    tokens = _inline_tokens(text)
    plain = " ".join(t.content for t in tokens if t.type == "text")
    assert not LIVE.search(plain), LIVE.findall(plain)
    assert not [t for t in tokens if t.type in ("html_inline", "image")]
    hrefs = [str(t.attrGet("href")) for t in tokens if t.type == "link_open"]
    assert hrefs and all(h.startswith(BASE_URL) for h in hrefs), hrefs  # only the summary's own links
    shown = " ".join(t.content for t in tokens if t.type == "code_inline")
    for label in HOSTILE:
        assert " ".join(label.split()).replace("|", "\\|") in shown or label in shown, label
    assert "Board @octocat #2 https://evil.example/t <img src=x> [x](javascript:1)" in shown
    # every table row keeps its columns: a `|` in a name does not split a cell
    rows = [line for line in text.splitlines() if line.startswith("| [")]
    md = _parser()
    for row in rows:
        header = "| a | b | c | d |\n| --- | --- | --- | --- |\n"
        cells = [t for t in md.parse(header + row) if t.type == "td_open"]
        assert len(cells) == 4, row


def test_summary_is_capped_below_the_comment_limit(tmp_path: Path, env: None) -> None:
    """100 entries that cannot be built, each with a 500-character title: the rows alone are over 65,536."""
    title = ("@octocat #1 é " * 40)[:500]
    entries = "".join(
        f"  - id: c{n:02d}\n    title: {json.dumps(title)}\n"
        "    candidate: {experiment: empty, treatment: A}\n    baseline: {experiment: empty, treatment: B}\n"
        for n in range(100)
    )
    (tmp_path / "empty").mkdir()  # no reports/: each entry fails with a warning and a row
    config = tmp_path / "site.yaml"
    config.write_text(f"title: t\nbase_url: {BASE_URL}\ncomparisons:\n{entries}", encoding="utf-8")
    summary = tmp_path / "summary.md"
    code, _, err = cli("build", "--config", str(config), "--out", str(tmp_path / "out"), "--summary", str(summary))
    assert code == 0, err
    data = summary.read_bytes()
    text = data.decode("utf-8")  # valid UTF-8
    assert len(text) < 65_536 and len(data) <= 60_000
    lines = text.split("\n")
    assert lines[0] == "<!-- evalsite summary -->"
    assert lines[-3] == "" and lines[-1] == ""  # the notice is a paragraph of its own
    notice = lines[-2]
    assert "left out" in notice and f"]({BASE_URL}index.html)" in notice
    kept = [line for line in lines[:-3] if line.startswith("| [")]
    assert 10 < len(kept) < 100 and all(line.endswith(" |") for line in kept)  # whole rows only


def test_cap_cuts_at_a_line_and_counts_what_it_left_out() -> None:
    from generator.render.summary import cap_summary

    text = "\n".join(["<!-- evalsite summary -->", *(f"| `{'é' * 50}` | {n} |" for n in range(40))])
    assert cap_summary(text, None, limit=len(text.encode())) == text
    cut = cap_summary(text, None, limit=2_000)
    assert len(cut.encode()) <= 2_000
    head, _, notice = cut.rstrip("\n").rpartition("\n\n")
    assert text.startswith(head + "\n")
    left = text[len(head) + 1 :]
    assert f"{len(left.split(chr(10))):,} more line(s) ({len(left):,} characters) left out" in notice
    assert "the built site's index page" in notice


def test_stderr_lines_are_cut_and_made_visible(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, env: None) -> None:
    """A 70,000-character name in a build warning, a gate reason and an error: one short line each."""
    import generator.pipelines.build as build_module

    real = build_module.build_site
    name = "@octo\n::error::forged\x1b[31m" + "x" * 70_000

    def hostile_build(*args: Any, **kwargs: Any) -> Any:
        report = real(*args, **kwargs)
        report.warnings.append(f"comparison 'a': treatment {name!r} not found")
        report.gate = [f"leaderboard 'lb': system {name} is worse than the baseline"]
        return report

    monkeypatch.setattr(build_module, "build_site", hostile_build)
    config = tmp_path / "site.yaml"
    config.write_text("title: t\n", encoding="utf-8")
    code, _, err = cli("build", "--config", str(config), "--out", str(tmp_path / "out"))
    assert code == 1
    monkeypatch.undo()
    code2, _, err2 = cli("leaderboard", "--system", name, "--system", "b=x:y")
    assert code2 == 2
    lines = (err + err2).splitlines()
    for prefix in (
        "warning: comparison 'a': treatment '@octo",
        "fail: leaderboard 'lb': system @octo",
        "error: --system",
    ):
        line = next(line for line in lines if line.startswith(prefix))
        assert len(line) < 1_200 and "characters cut" in line
    assert not [line for line in lines if line.startswith("::")]
    assert "\x1b" not in err + err2
    assert "system @octo[U+000A]::error::forged[U+001B][31mxxx" in err
