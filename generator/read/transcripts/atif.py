"""Harbor's ATIF trajectories (``agent/trajectory.json``): one JSON object whose ``steps`` carry the
system prompt, the task, and agent steps with their message, reasoning, tool calls, observations
(tool results) and metrics."""

from __future__ import annotations

import json
from typing import Any

from generator.read.transcripts.claude import RawStep, step, usage_tokens
from generator.read.transcripts.text import text_of

__all__ = ["AtifParser"]


class AtifParser:
    format = "harbor ATIF trajectory"

    def __init__(self) -> None:
        self.steps: list[RawStep] = []
        self.sessions = 0
        self.duplicates = 0

    def feed_document(self, document: Any) -> bool:
        """Parse a whole trajectory; False when it is not one (no ``steps`` list)."""
        if not isinstance(document, dict) or not isinstance(document.get("steps"), list):
            return False
        self.sessions = 1
        names: dict[str, str] = {}
        for item in document["steps"]:
            if isinstance(item, dict):
                self._step(item, names)
        return True

    def _step(self, item: dict[str, Any], names: dict[str, str]) -> None:
        source = item.get("source")
        model = item.get("model_name") if isinstance(item.get("model_name"), str) else None
        message = text_of(item.get("message"))
        if source == "system":
            self.steps.append(step("session", message or "system prompt", model=model))
            return
        if source == "user":
            self.steps.append(step("user", message))
            return
        metrics = item.get("metrics")
        tokens = usage_tokens(metrics) or None  # prompt/completion/cached tokens of this step
        if isinstance(item.get("reasoning_content"), str) and item["reasoning_content"]:
            self.steps.append(step("thinking", item["reasoning_content"], model=model))
        if message:
            self.steps.append(step("assistant", message, model=model, tokens=tokens))
            tokens = None
        for call in item.get("tool_calls") or ():
            if not isinstance(call, dict):
                continue
            name = str(call.get("function_name") or "tool")
            call_id = str(call.get("tool_call_id") or "") or None
            if call_id:
                names[call_id] = name
            self.steps.append(step("tool_use", text_of(call.get("arguments")), name=name, model=model, call_id=call_id))
        observation = item.get("observation")
        results = observation.get("results") if isinstance(observation, dict) else None
        for result in results or ():
            if isinstance(result, dict):
                call_id = str(result.get("source_call_id") or "") or None
                content = result.get("content")
                self.steps.append(step("tool_result", text_of(content), name=names.get(call_id or ""), call_id=call_id))


def parse_atif(data: bytes) -> AtifParser | None:
    try:
        document = json.loads(data.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        return None
    parser = AtifParser()
    return parser if parser.feed_document(document) else None
