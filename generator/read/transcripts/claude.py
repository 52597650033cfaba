"""Claude Code ``stream-json``: system/init, assistant and user messages, result events.

Streamed assistant events repeat a message once per content block; a block already seen for the
same message id is dropped (counted as a duplicate).  A resumed run has a second ``system/init``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from generator.read.transcripts.text import cut, text_of

__all__ = ["ClaudeParser", "RawStep", "step", "usage_tokens"]


@dataclass
class RawStep:
    kind: str
    text: str
    name: str | None = None
    size: int = 0
    is_error: bool = False
    model: str | None = None
    tokens: int | None = None
    cost_usd: float | None = None
    elapsed_s: float | None = None
    call_id: str | None = None


def _number(value: Any) -> float | None:
    return float(value) if type(value) in (int, float) and value == value and abs(value) < 1e15 else None


def _tokens(usage: Any) -> int:
    """Input + output (+ cache) tokens of one usage object; 0 when it says nothing."""
    if not isinstance(usage, dict):
        return 0
    return sum(int(v) for k, v in usage.items() if "tokens" in str(k) and type(v) is int and 0 <= v < 10**15)


def step(kind: str, text: str, **extra: Any) -> RawStep:
    shown, size = cut(text)
    return RawStep(kind, shown, size=size, **extra)


class ClaudeParser:
    format = "claude-code stream-json"

    def __init__(self) -> None:
        self.steps: list[RawStep] = []
        self.sessions = 0
        self.duplicates = 0
        self._seen: set[tuple[str, str]] = set()
        self._tools: dict[str, str] = {}

    def feed(self, event: dict[str, Any]) -> None:
        kind = event["type"]
        if kind == "system":
            subtype = str(event.get("subtype", ""))
            if subtype == "init":
                self.sessions += 1
                model = event.get("model") if isinstance(event.get("model"), str) else None
                label = "session started" if self.sessions == 1 else f"session resumed ({self.sessions})"
                self.steps.append(step("session", label, model=model))
            elif "retry" in subtype or "error" in subtype:
                self.steps.append(
                    step("error", f"{subtype}: {text_of(event.get('error') or event.get('message'))}", is_error=True)
                )
        elif kind == "assistant":
            self._assistant(event.get("message"))
        elif kind == "user":
            self._user(event.get("message"))
        elif kind == "result":
            subtype = str(event.get("subtype", ""))
            is_error = event.get("is_error") is True or subtype.startswith("error")
            usage = event.get("usage") if isinstance(event.get("usage"), dict) else {}
            tokens = _tokens(usage)
            duration = _number(event.get("duration_ms"))
            self.steps.append(
                step(
                    "result",
                    f"{subtype or 'result'}: {text_of(event.get('result'))}",
                    is_error=is_error,
                    tokens=tokens or None,
                    cost_usd=_number(event.get("total_cost_usd")),
                    elapsed_s=duration / 1000 if duration is not None else None,
                )
            )
        elif kind == "error":
            self.steps.append(step("error", text_of(event.get("error") or event.get("message")), is_error=True))

    def _assistant(self, message: Any) -> None:
        if type(message) is not dict or type(message.get("content")) is not list:
            return
        message_id = str(message.get("id", ""))
        model = message.get("model") if isinstance(message.get("model"), str) else None
        usage = message.get("usage") if isinstance(message.get("usage"), dict) else {}
        tokens = _tokens(usage) or None
        for block in message["content"]:
            if type(block) is not dict:
                continue
            if message_id:
                key = (message_id, json.dumps(block, sort_keys=True))
                if key in self._seen:
                    self.duplicates += 1
                    continue
                self._seen.add(key)
            btype = block.get("type")
            if btype == "text":
                self.steps.append(step("assistant", str(block.get("text", "")), model=model, tokens=tokens))
            elif btype in ("thinking", "redacted_thinking"):
                self.steps.append(step("thinking", str(block.get("thinking", "")), model=model))
            elif btype == "tool_use":
                name = str(block.get("name", "tool"))
                call_id = str(block.get("id", "")) or None
                if call_id:
                    self._tools[call_id] = name
                self.steps.append(
                    step("tool_use", text_of(block.get("input")), name=name, model=model, call_id=call_id)
                )
            tokens = None  # a message's usage is shown once, on its first block

    def _user(self, message: Any) -> None:
        if type(message) is not dict:
            return
        content = message.get("content")
        if isinstance(content, str):
            self.steps.append(step("user", content))
            return
        if type(content) is not list:
            return
        for block in content:
            if type(block) is not dict:
                continue
            if block.get("type") == "tool_result":
                call_id = str(block.get("tool_use_id", "")) or None
                self.steps.append(
                    step(
                        "tool_result",
                        text_of(block.get("content")),
                        name=self._tools.get(call_id or ""),
                        is_error=block.get("is_error") is True,
                        call_id=call_id,
                    )
                )
            elif block.get("type") == "text":
                self.steps.append(step("user", str(block.get("text", ""))))


usage_tokens = _tokens
