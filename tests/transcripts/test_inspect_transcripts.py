"""Inspect AI samples as run transcripts (real logs written by inspect-ai), and the rebase fallback."""

from __future__ import annotations

import copy
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from generator.model.transcript import Transcript, TranscriptRef
from generator.pipelines.build import build_site
from generator.read.config import load_config
from generator.read.safe_io import Refusal
from generator.read.transcripts import TEXT_BUDGET, InspectLogs, read_ref
from generator.read.transcripts.inspect import transcript_of

REPO = Path(__file__).resolve().parents[2]
LOGS = REPO / "tests" / "importers" / "fixtures" / "inspect"


def _read(log: str, member: str) -> Transcript:
    root = str(LOGS)
    got = InspectLogs().read(os.path.join(root, log), root, member)
    assert not isinstance(got, Refusal), got
    return got


def _kinds(transcript: Transcript) -> list[str]:
    return [step.kind for step in transcript.steps]


@pytest.mark.parametrize(
    ("log", "member"), [("candidate.eval", "samples/capital_epoch_3.json"), ("candidate.json", "samples[11]")]
)
def test_the_limit_stopped_sample_from_both_log_formats(log: str, member: str) -> None:
    transcript = _read(log, member)
    assert transcript.format == "inspect sample"
    assert _kinds(transcript) == ["session", "user", "assistant", "user", "assistant", "user", "limit", "result"]
    steps = transcript.steps
    assert steps[0].text == "Answer briefly."
    assert steps[2].text == "Sydney" and steps[2].model == "mockllm/model"
    # the model event of each reply gives its tokens (total_tokens: 44 in + 6 out + 8 cache read) and time
    assert steps[2].tokens == 58 and steps[4].tokens == 63
    assert steps[2].elapsed_s is not None and 0 < steps[2].elapsed_s < 1
    assert steps[6].is_error and steps[6].text == "message limit: Message limit reached. count: 6; limit: 6"
    assert 'match = "I"' in steps[7].text and steps[7].tokens == 121


def test_eval_member_and_json_log_give_the_same_steps() -> None:
    a, b = _read("candidate.eval", "samples/capital_epoch_3.json"), _read("candidate.json", "samples[11]")
    assert [(s.kind, s.text, s.tokens) for s in a.steps] == [(s.kind, s.text, s.tokens) for s in b.steps]
    assert a.source == "Inspect sample samples/capital_epoch_3.json" and a.bytes < b.bytes


def test_the_errored_sample_shows_its_message_never_its_traceback() -> None:
    transcript = _read("candidate.eval", "samples/flaky_epoch_2.json")
    assert _kinds(transcript) == ["user", "error", "result"]
    error = transcript.steps[1]
    assert error.is_error and error.text == "sample error: RuntimeError('scripted failure of sample flaky in epoch 2')"
    assert not any("Traceback" in s.text or "site-packages" in s.text for s in transcript.steps)
    assert transcript.steps[2].is_error  # the result of an errored sample is marked


def test_a_sample_that_is_not_in_the_log_is_a_reason() -> None:
    root = str(LOGS)
    logs = InspectLogs()
    assert isinstance(logs.read(os.path.join(root, "candidate.eval"), root, "samples/nope.json"), Refusal)
    assert isinstance(logs.read(os.path.join(root, "candidate.json"), root, "samples[999]"), Refusal)
    assert isinstance(logs.read(os.path.join(root, "candidate.json"), root, "samples[-1]"), Refusal)


def test_a_linked_log_is_refused(tmp_path: Path) -> None:
    shutil.copy(LOGS / "candidate.eval", tmp_path / "real.eval")
    os.symlink(tmp_path / "real.eval", tmp_path / "link.eval")
    ref = TranscriptRef(
        "candidate", "capital", 3, str(tmp_path / "link.eval"), str(tmp_path), member="samples/capital_epoch_3.json"
    )
    assert isinstance(read_ref(ref, InspectLogs()), Refusal)


# --------------------------------------------------------------------------- tools, reasoning, errors


def _real_sample() -> dict[str, Any]:
    log = json.loads((LOGS / "candidate.json").read_text(encoding="utf-8"))
    return copy.deepcopy(log["samples"][0])


def _with_tools(sample: dict[str, Any], calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """*sample* with an agent turn of inspect-ai's schema: reasoning, tool calls, tool results."""
    messages = [m for m in sample["messages"] if m["role"] == "user"][:1]
    tool_calls = [
        {"id": f"call_{i}", "function": name, "arguments": args, "type": "function"}
        for i, (name, args) in enumerate(calls)
    ]
    messages.append(
        {
            "id": "m-agent",
            "role": "assistant",
            "source": "generate",
            "model": "mockllm/model",
            "content": [
                {"type": "reasoning", "reasoning": "I should list the files first."},
                {"type": "reasoning", "reasoning": "", "redacted": True},
                {"type": "text", "text": "Let me **look**."},
                {"type": "image", "image": "data:image/png;base64," + "A" * 4000},
            ],
            "tool_calls": tool_calls,
        }
    )
    for i, (name, _) in enumerate(calls):
        result: dict[str, Any] = {
            "id": f"t{i}",
            "role": "tool",
            "tool_call_id": f"call_{i}",
            "function": name,
            "content": "attachment://abc",
        }
        if i == 1:
            result["error"] = {"type": "timeout", "message": "Command timed out in /home/someone/proj/run.sh"}
        messages.append(result)
    sample["messages"] = messages
    sample["attachments"] = {"abc": "a.txt\nb.txt\n" + "y" * (TEXT_BUDGET * 2)}
    sample["events"].append(
        {
            "event": "model",
            "model": "mockllm/model",
            "input": messages[:1],
            "error": "RateLimitError: slow down",
            "retries": 2,
            "output": {"choices": [], "usage": None},
        }
    )
    sample["events"].append(
        {
            "event": "model",
            "model": "mockllm/model",
            "input": messages[:1],
            "output": {
                "choices": [{"message": {"id": "m-agent"}}],
                "usage": {"input_tokens": 100, "output_tokens": 20, "total_tokens": 120, "total_cost": 0.002},
                "time": 1.5,
            },
        }
    )
    return sample


def test_reasoning_tool_calls_tool_errors_attachments_and_failed_model_calls() -> None:
    sample = _with_tools(_real_sample(), [("bash", {"cmd": "ls"}), ("bash", {"cmd": "./run.sh"})])
    transcript = transcript_of(sample, b"{}", "test")
    kinds = _kinds(transcript)
    assert kinds == [
        "user", "error", "thinking", "thinking", "assistant", "assistant", "tool_use", "tool_use",
        "tool_result", "tool_result", "result",
    ]  # fmt: skip
    steps = transcript.steps
    assert "after 2 retries" in steps[1].text and "RateLimitError" in steps[1].text  # where the conversation stood
    assert steps[2].text == "I should list the files first." and steps[2].tokens == 120  # the call's usage, once
    assert steps[2].cost_usd == 0.002 and steps[2].elapsed_s == 1.5 and steps[3].tokens is None
    assert steps[3].text == "(reasoning redacted by the provider)"
    assert steps[5].text.startswith("[image part, ") and "AAAA" not in steps[5].text
    assert steps[6].name == "bash" and json.loads(steps[6].text) == {"cmd": "ls"} and steps[6].call_id == "call_0"
    assert steps[8].text.startswith("a.txt\nb.txt") and "bytes cut, sha256:" in steps[8].text  # attachment, cut
    assert not steps[8].is_error and steps[9].is_error and steps[9].name == "bash"
    assert steps[9].text.startswith("timeout: Command timed out in …/run.sh\na.txt")  # no foreign machine path


def _site_from_logs(tmp_path: Path, candidate: dict[str, Any], baseline: dict[str, Any]) -> Path:
    for name, log in (("cand", candidate), ("base", baseline)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "log.json").write_text(json.dumps(log), encoding="utf-8")
    config = tmp_path / "site-config.yaml"
    config.write_text(
        "title: t\ncomparisons:\n  - id: iq\n    title: iq\n"
        "    candidate: {experiment: cand/log.json, treatment: new, format: inspect}\n"
        "    baseline: {experiment: base/log.json, treatment: old, format: inspect}\n",
        encoding="utf-8",
    )
    out = tmp_path / "site"
    build_site(load_config(config), out)
    return out


def test_the_real_logs_build_run_and_pair_pages(tmp_path: Path) -> None:
    candidate = json.loads((LOGS / "candidate.json").read_text(encoding="utf-8"))
    baseline = json.loads((LOGS / "baseline.json").read_text(encoding="utf-8"))
    first = candidate["samples"][0]
    assert first["id"] == "add" and first["epoch"] == 1
    _with_tools(first, [("bash", {"cmd": "ls"}), ("python", {"code": "1+1"})])
    second = next(s for s in baseline["samples"] if s["id"] == "add" and s["epoch"] == 1)
    _with_tools(second, [("bash", {"cmd": "ls"}), ("bash", {"cmd": "cat a.txt"})])
    out = _site_from_logs(tmp_path, candidate, baseline)
    tasks = out / "comparisons" / "iq" / "tasks"
    add = next(p for p in tasks.iterdir() if p.name.startswith("add-"))
    run = (add / "runs" / "candidate-1" / "index.html").read_text(encoding="utf-8")
    assert "inspect sample" in run and "Tool call: bash" in run and "Tool result: python (error)" in run
    assert "Let me <strong>look</strong>." in run  # assistant text as Markdown
    pair = (add / "pairs" / "1" / "index.html").read_text(encoding="utf-8")
    assert "first divergence: step 2 (tool python vs tool bash)" in pair
    capital = next(p for p in tasks.iterdir() if p.name.startswith("capital-"))
    limited = (capital / "runs" / "candidate-3" / "index.html").read_text(encoding="utf-8")
    assert "Message limit reached. count: 6; limit: 6" in limited
    flaky = next(p for p in tasks.iterdir() if p.name.startswith("flaky-"))
    errored = (flaky / "runs" / "candidate-2" / "index.html").read_text(encoding="utf-8")
    assert "scripted failure of sample flaky in epoch 2" in errored and "Traceback" not in errored
    task_page = (capital / "index.html").read_text(encoding="utf-8")
    assert 'href="runs/candidate-3/index.html"' in task_page and 'href="pairs/3/index.html"' in task_page
    for path in out.rglob("*"):
        if path.is_file():
            assert path.stat().st_size < 2_000_000
            assert str(tmp_path) not in path.read_text(encoding="utf-8", errors="replace")


# --------------------------------------------------------------------------- rebase_artifacts


@pytest.mark.parametrize("rebase", [False, True])
def test_rebase_artifacts_locates_transcripts_as_it_locates_telemetry(tmp_path: Path, rebase: bool) -> None:
    """A reference naming another machine's folder: with ``rebase_artifacts`` both telemetry and the run
    page use the exact expected name in ``raw/`` (one rule: ``ArtifactBinder.locations``)."""
    root = tmp_path / "inputs"
    for name in ("native", "beta"):
        shutil.copytree(REPO / "examples" / "experiments" / name, root / name)
    report_path = root / "native" / "reports" / "api_retry_backoff_COMET_NATIVE_PHASE1_r1_rep1_report.json"
    report = json.loads(report_path.read_text(encoding="utf-8"))
    stdout = report["events_summary"]["artifact_references"]["raw_stdout"]
    report["events_summary"]["artifact_references"]["raw_stdout"] = "/elsewhere/run/" + stdout
    report_path.write_text(json.dumps(report), encoding="utf-8")
    config = root / "site-config.yaml"
    config.write_text(
        "title: t\ncomparisons:\n  - id: nb\n    title: nb\n"
        f"    rebase_artifacts: {str(rebase).lower()}\n"
        "    candidate: {experiment: native, treatment: COMET_NATIVE_PHASE1}\n"
        "    baseline: {experiment: beta, treatment: COMET_FULL_040_BETA}\n",
        encoding="utf-8",
    )
    out = tmp_path / "site"
    build_site(load_config(config), out)
    task = next(p for p in (out / "comparisons" / "nb" / "tasks").iterdir() if p.name.startswith("api-retry-backoff-"))
    page = (task / "index.html").read_text(encoding="utf-8")
    run = task / "runs" / "candidate-1" / "index.html"
    if rebase:
        assert "rebased" in page and 'href="runs/candidate-1/index.html"' in page
        assert "found by its exact name in raw/: rebase_artifacts" in run.read_text(encoding="utf-8")
    else:
        assert "transcript not shown: outside its experiment" in page and not run.exists()
