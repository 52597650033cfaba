"""Codex ``--json`` events: thread.started, item.completed (messages, reasoning, commands, tool
calls, file changes), turn.completed (usage), turn.failed and error events."""

from __future__ import annotations

from typing import Any

from generator.read.transcripts.claude import RawStep, step
from generator.read.transcripts.claude import usage_tokens as _tokens
from generator.read.transcripts.text import text_of

__all__ = ["CodexParser"]


class CodexParser:
    format = "codex json"

    def __init__(self) -> None:
        self.steps: list[RawStep] = []
        self.sessions = 0
        self.duplicates = 0
        self._seen: set[str] = set()

    def feed(self, event: dict[str, Any]) -> None:
        kind = event["type"]
        if kind == "thread.started":
            self.sessions += 1
            self.steps.append(step("session", "session started" if self.sessions == 1 else "session resumed"))
        elif kind == "item.completed" and isinstance(event.get("item"), dict):
            self._item(event["item"])
        elif kind == "turn.completed":
            usage = event.get("usage") if isinstance(event.get("usage"), dict) else {}
            tokens = _tokens(usage) or None
            self.steps.append(step("result", "turn completed", tokens=tokens))
        elif kind in ("turn.failed", "error"):
            error = event.get("error") if kind == "turn.failed" else event
            message = error.get("message") if isinstance(error, dict) else error
            self.steps.append(step("error", f"{kind}: {text_of(message)}", is_error=True))

    def _item(self, item: dict[str, Any]) -> None:
        item_id = str(item.get("id", ""))
        if item_id:
            if item_id in self._seen:
                self.duplicates += 1
                return
            self._seen.add(item_id)
        itype = item.get("type") or item.get("item_type")
        if itype in ("agent_message", "assistant_message"):
            self.steps.append(step("assistant", str(item.get("text", ""))))
        elif itype == "reasoning":
            self.steps.append(step("thinking", str(item.get("text", ""))))
        elif itype == "command_execution":
            self.steps.append(step("tool_use", str(item.get("command", "")), name="shell", call_id=item_id or None))
            exit_code = item.get("exit_code")
            output = text_of(item.get("aggregated_output"))
            failed = (type(exit_code) is int and exit_code != 0) or item.get("status") == "failed"
            self.steps.append(
                step(
                    "tool_result", f"exit {exit_code}\n{output}", name="shell", is_error=failed, call_id=item_id or None
                )
            )
        elif itype in ("mcp_tool_call", "tool_call"):
            name = str(item.get("tool") or item.get("name") or "tool")
            self.steps.append(step("tool_use", text_of(item.get("arguments")), name=name, call_id=item_id or None))
            result = item.get("result") if "result" in item else item.get("error")
            self.steps.append(
                step(
                    "tool_result",
                    text_of(result),
                    name=name,
                    is_error=item.get("status") == "failed",
                    call_id=item_id or None,
                )
            )
        elif itype == "file_change":
            self.steps.append(
                step("tool_use", text_of(item.get("changes")), name="file_change", call_id=item_id or None)
            )
        elif itype == "error":
            self.steps.append(step("error", str(item.get("message", "")), is_error=True))
