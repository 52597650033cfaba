"""Transcript parsing (Claude Code stream-json, Codex JSON events) and the run pages of a built site."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from generator.pipelines.build import build_site
from generator.read.config import load_config
from generator.read.safe_io import Refusal
from generator.read.transcripts import MAX_TRANSCRIPT_BYTES, TEXT_BUDGET, parse_transcript, read_transcript
from tests.support.hypo import THOROUGH

REPO = Path(__file__).resolve().parents[2]


def _jsonl(*events: object) -> bytes:
    return "".join((e if isinstance(e, str) else json.dumps(e)) + "\n" for e in events).encode()


def _assistant(message_id: str, *blocks: dict[str, object], model: str = "claude-sonnet-4-5") -> dict[str, object]:
    usage = {"input_tokens": 10, "output_tokens": 5}
    return {"type": "assistant", "message": {"id": message_id, "model": model, "content": list(blocks), "usage": usage}}


def _tool_result(call_id: str, content: object, is_error: bool = False) -> dict[str, object]:
    block = {"type": "tool_result", "tool_use_id": call_id, "content": content, "is_error": is_error}
    return {"type": "user", "message": {"role": "user", "content": [block]}}


HUGE = "x" * (TEXT_BUDGET * 4)
CLAUDE = _jsonl(
    {"type": "system", "subtype": "init", "session_id": "s1", "model": "claude-sonnet-4-5"},
    {"type": "user", "message": {"role": "user", "content": "Fix the **failing** test <script>alert(1)</script>"}},
    _assistant("m1", {"type": "thinking", "thinking": "The median is wrong."}),
    _assistant("m1", {"type": "thinking", "thinking": "The median is wrong."}),  # streamed again: dropped
    _assistant("m1", {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "pytest -q"}}),
    _tool_result("t1", "1 failed", is_error=True),
    "not json at all",
    _assistant("m2", {"type": "tool_use", "id": "t2", "name": "Read", "input": {"file_path": "big.log"}}),
    _tool_result("t2", [{"type": "text", "text": HUGE}]),
    {"type": "system", "subtype": "api_retry", "error": "overloaded", "attempt": 1},
    {"type": "result", "subtype": "error_max_turns", "is_error": True, "duration_ms": 1500, "total_cost_usd": 0.01},
    {"type": "system", "subtype": "init", "session_id": "s1", "model": "claude-sonnet-4-5"},
    _assistant("m3", {"type": "text", "text": "Done: fixed `median`."}),
    {"type": "result", "subtype": "success", "result": "fixed", "duration_ms": 900, "total_cost_usd": 0.02},
)


def test_claude_stream_json_with_resume_duplicates_and_huge_output() -> None:
    transcript = parse_transcript(CLAUDE)
    assert transcript.format == "claude-code stream-json"
    kinds = [step.kind for step in transcript.steps]
    assert kinds == [
        "session", "user", "thinking", "tool_use", "tool_result", "tool_use", "tool_result",
        "error", "result", "session", "assistant", "result",
    ]  # fmt: skip
    assert transcript.sessions == 2 and transcript.duplicates == 1 and transcript.non_json_lines == 1
    bash_result = transcript.steps[4]
    assert bash_result.name == "Bash" and bash_result.is_error
    huge = transcript.steps[6]
    assert huge.size == len(HUGE)
    digest = hashlib.sha256(HUGE.encode()).hexdigest()
    assert f"{len(HUGE) - TEXT_BUDGET:,} bytes cut, sha256:{digest}" in huge.text
    assert len(huge.text.encode()) < TEXT_BUDGET + 200
    assert transcript.steps[8].is_error and transcript.steps[8].elapsed_s == 1.5
    assert transcript.steps[11].cost_usd == 0.02
    assert [s.index for s in transcript.steps] == list(range(1, 13))


CODEX = _jsonl(
    {"type": "thread.started", "thread_id": "th1"},
    {"type": "turn.started"},
    {"type": "item.completed", "item": {"id": "i1", "type": "reasoning", "text": "Look at config."}},
    {"type": "item.completed", "item": {"id": "i2", "type": "command_execution", "command": "cat a.toml",
                                        "aggregated_output": "x = 1", "exit_code": 0, "status": "completed"}},
    {"type": "item.completed", "item": {"id": "i2", "type": "command_execution", "command": "cat a.toml",
                                        "aggregated_output": "x = 1", "exit_code": 0, "status": "completed"}},
    {"type": "item.completed", "item": {"id": "i3", "type": "command_execution", "command": "make test",
                                        "aggregated_output": "boom", "exit_code": 2, "status": "failed"}},
    "{broken",
    {"type": "error", "message": "stream disconnected; retrying"},
    {"type": "item.completed", "item": {"id": "i4", "type": "agent_message", "text": "Migrated."}},
    {"type": "turn.completed", "usage": {"input_tokens": 100, "output_tokens": 20}},
)  # fmt: skip


def test_codex_events() -> None:
    transcript = parse_transcript(CODEX)
    assert transcript.format == "codex json"
    assert [s.kind for s in transcript.steps] == [
        "session", "thinking", "tool_use", "tool_result", "tool_use", "tool_result", "error", "assistant", "result",
    ]  # fmt: skip
    assert transcript.duplicates == 1 and transcript.non_json_lines == 1
    assert transcript.steps[5].is_error and "exit 2" in transcript.steps[5].text
    assert transcript.steps[8].tokens == 120


def test_a_link_is_refused(tmp_path: Path) -> None:
    (tmp_path / "real.json").write_bytes(CLAUDE)
    os.symlink(tmp_path / "real.json", tmp_path / "link.json")
    assert isinstance(read_transcript(str(tmp_path / "link.json"), str(tmp_path)), Refusal)
    assert not isinstance(read_transcript(str(tmp_path / "real.json"), str(tmp_path)), Refusal)


# --------------------------------------------------------------------------- a built site


def _example_copy(tmp_path: Path) -> Path:
    """The bundled native-vs-beta comparison, copied so its raw stdout files can be changed."""
    root = tmp_path / "inputs"
    for name in ("native", "beta"):
        shutil.copytree(REPO / "examples" / "experiments" / name, root / "experiments" / name)
    config = root / "site-config.yaml"
    config.write_text(
        "title: t\noutput: _site\ncomparisons:\n  - id: nb\n    title: nb\n"
        "    candidate: {experiment: experiments/native, treatment: COMET_NATIVE_PHASE1}\n"
        "    baseline: {experiment: experiments/beta, treatment: COMET_FULL_040_BETA}\n",
        encoding="utf-8",
    )
    return config


def _run_files(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*") if p.is_file() and "/runs/" in p.as_posix())


def test_run_pages_are_linked_deterministic_and_free_of_paths(tmp_path: Path) -> None:
    config = load_config(_example_copy(tmp_path))
    first = tmp_path / "a"
    second = tmp_path / "b"
    build_site(config, first)
    build_site(config, second)
    runs = _run_files(first)
    assert runs
    for path in runs:
        twin = second / path.relative_to(first)
        assert path.read_bytes() == twin.read_bytes()
        text = path.read_text(encoding="utf-8")
        assert str(tmp_path) not in text and "/work/" not in text
    task_pages = list((first / "comparisons" / "nb" / "tasks").glob("*/index.html"))
    assert any('href="runs/candidate-1/index.html"' in p.read_text(encoding="utf-8") for p in task_pages)


def test_transcripts_false_writes_no_run_pages(tmp_path: Path) -> None:
    path = _example_copy(tmp_path)
    path.write_text(path.read_text(encoding="utf-8") + "transcripts: false\n", encoding="utf-8")
    out = tmp_path / "site"
    build_site(load_config(path), out)
    assert _run_files(out) == []


def _big_transcript(size: int) -> bytes:
    """A stream-json transcript of about *size* bytes: many tool calls with large outputs."""
    lines = [json.dumps({"type": "system", "subtype": "init", "session_id": "big", "model": "m"})]
    block = "line of build output " * 2400  # ~50 KB per tool result: each is cut on the page
    n = 0
    total = 0
    while total < size:
        n += 1
        call = _assistant(
            f"m{n}", {"type": "tool_use", "id": f"t{n}", "name": "Bash", "input": {"command": f"make {n}"}}
        )
        result = _tool_result(f"t{n}", block + str(n))
        for event in (call, result):
            line = json.dumps(event)
            lines.append(line)
            total += len(line) + 1
    lines.append(json.dumps({"type": "result", "subtype": "success", "result": "ok", "duration_ms": 1}))
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.slow  # several seconds: make test runs it, make test-fast does not
@pytest.mark.slow
def test_a_64_mib_transcript_builds_within_the_byte_budget(tmp_path: Path) -> None:
    """At the 64 MiB cap in CI; every day a quarter of it, already cut and paginated the same way."""
    config_path = _example_copy(tmp_path)
    raw = tmp_path / "inputs" / "experiments" / "native" / "raw"
    target = sorted(raw.glob("*_stdout.json"))[0]
    target.write_bytes(_big_transcript((MAX_TRANSCRIPT_BYTES if THOROUGH else MAX_TRANSCRIPT_BYTES // 4) - 200_000))
    assert target.stat().st_size <= MAX_TRANSCRIPT_BYTES == 64 * 1024 * 1024
    out = tmp_path / "site"
    build_site(load_config(config_path), out)
    sizes = [p.stat().st_size for p in out.rglob("*") if p.is_file()]
    assert max(sizes) <= 2 * 1024 * 1024
    pages = [p for p in _run_files(out) if p.name == "index.html" and "/page-" in p.as_posix()]
    assert len(pages) >= 3  # paginated
    first = next(
        p for p in _run_files(out) if p.read_text(encoding="utf-8").count('rel="next"') and "page-" not in p.as_posix()
    )
    assert "bytes cut, sha256:" in first.read_text(encoding="utf-8")


def test_harbor_agent_stdout_gets_run_and_pair_pages(tmp_path: Path) -> None:
    """An imported Harbor job's agent stdout stream (``agent/claude-code.txt``) is shown like raw stdout."""
    import sys

    sys.path.insert(0, str(REPO / "tests" / "importers"))
    from harness_fixtures import claude_stream, harbor_job, harbor_trial

    started = "2025-06-01T10:01:00.000000"
    for name in ("cand", "base"):
        trial = harbor_trial("hello-world", "aaaaaaa", started=started, reward=1.0)
        harbor_job(tmp_path / name, [trial], stdout={trial["trial_name"]: claude_stream(500, 40, 100)})
    config = tmp_path / "site-config.yaml"
    config.write_text(
        "title: t\ncomparisons:\n  - id: hb\n    title: hb\n"
        "    candidate: {experiment: cand, treatment: claude-code, format: harbor}\n"
        "    baseline: {experiment: base, treatment: claude-code, format: harbor}\n",
        encoding="utf-8",
    )
    out = tmp_path / "site"
    build_site(load_config(config), out)
    task = next((out / "comparisons" / "hb" / "tasks").iterdir())
    assert (task / "runs" / "candidate-1" / "index.html").is_file()
    pair = (task / "pairs" / "1" / "index.html").read_text(encoding="utf-8")
    assert "no divergence" in pair
    assert 'href="pairs/1/index.html"' in (task / "index.html").read_text(encoding="utf-8")


def test_harbor_atif_trajectory_is_a_transcript(tmp_path: Path) -> None:
    """Without an agent stdout stream, a Harbor trial's ATIF ``agent/trajectory.json`` is shown."""
    import sys

    sys.path.insert(0, str(REPO / "tests" / "importers"))
    from harness_fixtures import atif_steps, harbor_job, harbor_trial

    started = "2025-06-01T10:01:00.000000"
    for name, calls in (("cand", [2, 1]), ("base", [2])):
        trial = harbor_trial("hello-world", "aaaaaaa", started=started, reward=1.0)
        steps = atif_steps(calls)
        steps[-1]["observation"] = {
            "results": [{"source_call_id": steps[-1]["tool_calls"][0]["tool_call_id"], "content": "a.txt"}]
        }
        harbor_job(tmp_path / name, [trial], steps={trial["trial_name"]: steps})
    config = tmp_path / "site-config.yaml"
    config.write_text(
        "title: t\ncomparisons:\n  - id: hb\n    title: hb\n"
        "    candidate: {experiment: cand, treatment: claude-code, format: harbor}\n"
        "    baseline: {experiment: base, treatment: claude-code, format: harbor}\n",
        encoding="utf-8",
    )
    out = tmp_path / "site"
    build_site(load_config(config), out)
    task = next((out / "comparisons" / "hb" / "tasks").iterdir())
    run = (task / "runs" / "candidate-1" / "index.html").read_text(encoding="utf-8")
    assert "harbor ATIF trajectory" in run and "Tool call: bash" in run and "Tool result: bash" in run
    pair = (task / "pairs" / "1" / "index.html").read_text(encoding="utf-8")
    assert "first divergence: step 3 (tool bash vs no tool call)" in pair
