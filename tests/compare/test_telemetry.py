"""Telemetry from raw stdout: the worked example of the spec and Comet's logging tests."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from generator.read.comet.telemetry import extract_telemetry


def stream(*events: object) -> str:
    return "".join((e if isinstance(e, str) else json.dumps(e)) + "\n" for e in events)


def assistant(msg_id: str, usage: dict, content: list | None = None, model: str = "claude-sonnet-4-5") -> dict:
    return {"type": "assistant", "message": {"id": msg_id, "model": model, "usage": usage, "content": content or []}}


def result(**fields: object) -> dict:
    return {"type": "result", **fields}


def test_worked_example_with_one_resume() -> None:
    def mu(i: int, o: int, r: int, c: int, cost: float) -> dict[str, dict[str, object]]:
        return {
            "claude-sonnet-4-5": {
                "inputTokens": i,
                "outputTokens": o,
                "cacheReadInputTokens": r,
                "cacheCreationInputTokens": c,
                "costUSD": cost,
                "contextWindow": 200000,
            }
        }

    text = stream(
        {"type": "system", "subtype": "init", "session_id": "s-1", "model": "claude-sonnet-4-5"},
        assistant(
            "msg_01",
            {
                "input_tokens": 12,
                "cache_creation_input_tokens": 4000,
                "cache_read_input_tokens": 8000,
                "output_tokens": 30,
            },
            [{"type": "text", "text": "Reading"}],
        ),
        assistant(
            "msg_01",
            {
                "input_tokens": 12,
                "cache_creation_input_tokens": 4000,
                "cache_read_input_tokens": 8000,
                "output_tokens": 85,
            },
            [{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}],
        ),
        {
            "type": "user",
            "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "x"}]},
        },
        assistant(
            "msg_02",
            {
                "input_tokens": 20,
                "cache_creation_input_tokens": 600,
                "cache_read_input_tokens": 12000,
                "output_tokens": 15,
            },
        ),
        result(
            duration_ms=41000,
            num_turns=3,
            total_cost_usd=0.0412,
            usage={
                "input_tokens": 32,
                "cache_creation_input_tokens": 4600,
                "cache_read_input_tokens": 20000,
                "output_tokens": 100,
            },
            modelUsage=mu(32, 100, 20000, 4600, 0.0412),
        ),
        assistant(
            "msg_03",
            {
                "input_tokens": 5,
                "cache_creation_input_tokens": 300,
                "cache_read_input_tokens": 12600,
                "output_tokens": 40,
            },
            [{"type": "tool_use", "id": "toolu_2", "name": "Bash", "input": {"command": "pytest"}}],
        ),
        result(
            duration_ms=19000,
            num_turns=2,
            total_cost_usd=0.0158,
            usage={
                "input_tokens": 9,
                "cache_creation_input_tokens": 300,
                "cache_read_input_tokens": 25200,
                "output_tokens": 60,
            },
            modelUsage=mu(9, 60, 25200, 300, 0.0158),
        ),
    )
    t = extract_telemetry(text)
    assert t["subject_invocations"] == 2
    assert t["duration_seconds"] == 60.0
    assert t["num_turns"] == 5
    assert (t["input_tokens"], t["output_tokens"]) == (41, 160)
    assert (t["cache_read_input_tokens"], t["cache_creation_input_tokens"]) == (45200, 4900)
    assert t["total_tokens"] == 50301
    assert t["total_cost_usd"] == pytest.approx(0.057)
    assert t["peak_context_input_tokens"] == 12905
    assert t["p95_context_input_tokens"] == 12905
    assert t["average_context_input_tokens"] == 12512.33
    assert t["peak_context_window_tokens"] == 200000
    assert t["peak_context_occupancy_pct"] == pytest.approx(6.4525)
    assert t["tool_calls"] == 2
    assert t["model_usage"]["claude-sonnet-4-5"]["inputTokens"] == 41
    assert t["model_usage"]["claude-sonnet-4-5"]["contextWindow"] == 200000


def test_one_result_with_full_usage() -> None:
    t = extract_telemetry(
        stream(
            result(
                duration_ms=1200,
                num_turns=3,
                total_cost_usd=0.123456,
                usage={
                    "input_tokens": 100,
                    "output_tokens": 25,
                    "cache_read_input_tokens": 300,
                    "cache_creation_input_tokens": 50,
                },
                modelUsage={"m": {"costUSD": 0.123456}},
            )
        )
    )
    assert (t["total_tokens"], t["duration_seconds"], t["num_turns"]) == (475, 1.2, 3)
    assert t["model_usage"]["m"]["costUSD"] == 0.123456


def test_two_results_add_up() -> None:
    t = extract_telemetry(
        stream(
            result(duration_ms=1200, num_turns=2, total_cost_usd=0.1, usage={"input_tokens": 100, "output_tokens": 20}),
            result(duration_ms=800, num_turns=4, total_cost_usd=0.2, usage={"input_tokens": 200, "output_tokens": 40}),
        )
    )
    assert (t["duration_seconds"], t["subject_invocations"], t["num_turns"]) == (2.0, 2, 6)
    assert (t["input_tokens"], t["output_tokens"], t["total_tokens"]) == (300, 60, 360)
    assert t["total_cost_usd"] == pytest.approx(0.3)
    assert t["cache_read_input_tokens"] is None


def test_context_is_deduplicated_by_message_id() -> None:
    t = extract_telemetry(
        stream(
            assistant(
                "message-1", {"input_tokens": 2000, "cache_read_input_tokens": 8000, "cache_creation_input_tokens": 0}
            ),
            assistant(
                "message-1", {"input_tokens": 2000, "cache_read_input_tokens": 8000, "cache_creation_input_tokens": 0}
            ),
            assistant("message-2", {"input_tokens": 1000, "cache_read_input_tokens": 4000}),
            result(modelUsage={"claude-sonnet-4-5": {"contextWindow": 200000}}),
        )
    )
    assert (t["peak_context_input_tokens"], t["p95_context_input_tokens"], t["average_context_input_tokens"]) == (
        10000,
        10000,
        7500,
    )
    assert (t["peak_context_window_tokens"], t["peak_context_occupancy_pct"]) == (200000, 5.0)


def test_occupancy_needs_the_same_model_name() -> None:
    t = extract_telemetry(
        stream(
            assistant("m1", {"input_tokens": 10}, model="alias"), result(modelUsage={"real": {"contextWindow": 100}})
        )
    )
    assert t["peak_context_input_tokens"] == 10 and t["peak_context_occupancy_pct"] is None


@pytest.mark.parametrize(
    "events,expected",
    [
        ([result(duration_ms=1200), result()], 1.2),
        ([result()], None),
        ([result(duration_ms=True)], None),
    ],
)
def test_missing_durations_add_nothing(events, expected) -> None:
    assert extract_telemetry(stream(*events))["duration_seconds"] == expected


def test_codex_stream() -> None:
    t = extract_telemetry(
        stream(
            {"type": "thread.started", "thread_id": "thread-1"},
            {"type": "item.completed", "item": {"type": "command_execution", "command": "ls"}},
            {"type": "item.completed", "item": {"type": "file_change", "changes": [{"kind": "add", "path": "a"}]}},
            {"type": "turn.completed", "usage": {"input_tokens": 80, "output_tokens": 20}, "duration_ms": 900},
        )
    )
    assert (t["subject_invocations"], t["num_turns"]) == (1, 1)
    assert (t["input_tokens"], t["output_tokens"], t["total_tokens"], t["duration_seconds"]) == (80, 20, 100, 0.9)
    assert t["tool_calls"] == 1


def test_bad_lines_and_wrapper_events_are_tolerated() -> None:
    t = extract_telemetry(
        stream(
            "not json",
            "[1, 2]",
            "42",
            '{"type": ["list"]}',
            '{"type":"result","duration_ms":5,"usage":"nope","modelUsage":[1]}',
            {"type": "comet.eval.invocation.started", "_comet_eval": {"schema": "comet.eval.stream-event.v1"}},
            {"type": "result", "duration_ms": 5, "_comet_eval": {"sequence": 2}},
        )
    )
    assert (t["subject_invocations"], t["duration_seconds"]) == (2, 0.01)


def test_empty_stream_has_no_invocations() -> None:
    t = extract_telemetry("")
    assert t["subject_invocations"] == 0 and t["total_tokens"] is None


@given(st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 10**5), st.integers(0, 10**5)), max_size=30))
def test_result_sums_are_additive_and_order_free(values) -> None:
    events = [result(duration_ms=d, usage={"input_tokens": i, "output_tokens": o}) for d, i, o in values]
    forward = extract_telemetry(stream(*events))
    backward = extract_telemetry(stream(*reversed(events)))
    assert forward["subject_invocations"] == len(values)
    if values:
        assert forward["input_tokens"] == sum(i for _, i, _ in values)
        assert forward["total_tokens"] == sum(i + o for _, i, o in values)
        assert forward["total_tokens"] == backward["total_tokens"]
    else:
        assert forward["total_tokens"] is None


@given(st.lists(st.integers(1, 10**6), min_size=1, max_size=60))
def test_p95_is_nearest_rank(samples) -> None:
    events = [assistant(f"m{i}", {"input_tokens": value}) for i, value in enumerate(samples)]
    t = extract_telemetry(stream(*events))
    ordered = sorted(samples)
    rank = -(-len(ordered) * 95 // 100)  # ceil(0.95 n) with integers
    assert t["p95_context_input_tokens"] == ordered[max(rank, 1) - 1]
    assert t["peak_context_input_tokens"] == ordered[-1]
