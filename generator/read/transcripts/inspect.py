"""Inspect AI samples (``.eval`` members or a ``.json`` log's ``samples[i]``) as run transcripts.

A sample's ``messages`` give the conversation in order: the system prompt (a session step), user
text, assistant content parts (``text``; ``reasoning`` as thinking, a redacted one said so; other
parts named with their size), the assistant's ``tool_calls`` (function and arguments) and the
``tool`` messages that answer them (their ``error`` marks a failed result).  The sample's
``events`` add what the messages lack: each ``model`` event gives the model, tokens
(``total_tokens``) and call time of the assistant message it produced; a model call that failed
(``error``) is an error step placed where the conversation stood; ``sample_limit`` is a limit step.
The sample's ``error`` (its message only: tracebacks are never shown, and folders of absolute
paths are replaced by ``…``) and the scores, totals and times end the transcript.

``attachment://`` references (``.eval`` logs store long texts once, in ``attachments``) are
resolved from the sample's own attachments.  A log is read once through ``read/safe_io.py`` and
kept while consecutive runs of the same log are read (:class:`InspectLogs`).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from generator.model.errors import EvalsiteError
from generator.model.transcript import Step, Transcript
from generator.read.importing import json_object, scrub_paths, unusable_value
from generator.read.inspect.archive import Archive
from generator.read.inspect.jsonlog import parse_json_log
from generator.read.safe_io import Refusal, read_contained
from generator.read.transcripts.claude import RawStep, step
from generator.read.transcripts.text import text_of

__all__ = ["FORMAT", "InspectLogs", "parse_sample"]

FORMAT = "inspect sample"
MAX_LOG_BYTES = 512 * 1024 * 1024  # as the Inspect importer reads a log
_ATTACHMENT = "attachment://"


def _number(value: Any) -> float | None:
    return float(value) if type(value) in (int, float) and value == value and abs(value) < 1e15 else None


def _count(value: Any) -> int | None:
    return value if type(value) is int and 0 <= value < 10**15 else None


def _usage_tokens(usage: Any) -> int | None:
    """Tokens of one model call: ``total_tokens``, else input + output + cache read/write."""
    if not isinstance(usage, dict):
        return None
    total = _count(usage.get("total_tokens"))
    if total is not None:
        return total
    parts = [
        _count(usage.get(k))
        for k in ("input_tokens", "output_tokens", "input_tokens_cache_read", "input_tokens_cache_write")
    ]
    found = [p for p in parts if p is not None]
    return sum(found) if found else None


class _Sample:
    def __init__(self, sample: dict[str, Any]) -> None:
        self.sample = sample
        attachments = sample.get("attachments")
        self.attachments: dict[str, Any] = attachments if isinstance(attachments, dict) else {}
        self.steps: list[RawStep] = []
        self.sessions = 0
        self.tools: dict[str, str] = {}

    def resolve(self, value: Any) -> Any:
        """An ``attachment://<hash>`` string replaced by its attachment (unknown ones kept as written)."""
        if isinstance(value, str) and value.startswith(_ATTACHMENT):
            found = self.attachments.get(value[len(_ATTACHMENT) :])
            return found if isinstance(found, str) else value
        return value

    def text(self, value: Any) -> str:
        value = self.resolve(value)
        if isinstance(value, str):
            return value
        if isinstance(value, dict):
            return text_of({k: self.resolve(v) for k, v in value.items()})
        return text_of(value)

    def parts(self, content: Any) -> list[tuple[str, str]]:
        """(kind, text) of a message's content: a string, or a list of content parts."""
        content = self.resolve(content)
        if isinstance(content, str):
            return [("text", content)] if content else []
        if not isinstance(content, list):
            return []
        out: list[tuple[str, str]] = []
        for part in content:
            if not isinstance(part, dict):
                continue
            ptype = part.get("type")
            if ptype == "text":
                out.append(("text", self.text(part.get("text"))))
            elif ptype == "reasoning":
                if part.get("redacted") is True:
                    summary = self.text(part.get("summary")) if part.get("summary") else ""
                    out.append(("reasoning", summary or "(reasoning redacted by the provider)"))
                else:
                    out.append(("reasoning", self.text(part.get("reasoning"))))
            else:
                kind = str(ptype) if isinstance(ptype, str) and ptype else "content"
                body = self.resolve(part.get(kind))
                size = len(body.encode("utf-8", "replace")) if isinstance(body, str) else len(json.dumps(body))
                out.append(("text", f"[{kind} part, {size:,} bytes, not shown]"))
        return out


def _model_calls(sample: dict[str, Any]) -> tuple[dict[str, dict[str, Any]], list[tuple[int, str]]]:
    """Per assistant message id, its model call (model, tokens, time, cost); failed calls by position."""
    calls: dict[str, dict[str, Any]] = {}
    failed: list[tuple[int, str]] = []
    events = sample.get("events")
    for event in events if isinstance(events, list) else ():
        if not isinstance(event, dict) or event.get("event") != "model":
            continue
        raw_output = event.get("output")
        output: dict[str, Any] = raw_output if isinstance(raw_output, dict) else {}
        usage = output.get("usage")
        info = {
            "model": event.get("model") if isinstance(event.get("model"), str) else None,
            "tokens": _usage_tokens(usage),
            "cost": _number(usage.get("total_cost")) if isinstance(usage, dict) else None,
            "time": _number(output.get("time")),
        }
        error = event.get("error")
        if error:
            inputs = event.get("input")
            at = len(inputs) if isinstance(inputs, list) else 1 << 30
            retries = _count(event.get("retries"))
            note = f" (after {retries} retries)" if retries else ""
            failed.append((at, f"model call failed{note}: {scrub_paths(text_of(error))}"))
        choices = output.get("choices")
        for choice in choices if isinstance(choices, list) else ():
            message = choice.get("message") if isinstance(choice, dict) else None
            if isinstance(message, dict) and isinstance(message.get("id"), str):
                calls.setdefault(message["id"], info)
    return calls, failed


def parse_sample(sample: dict[str, Any]) -> tuple[list[RawStep], int]:
    """The steps of one sample and its session count."""
    state = _Sample(sample)
    calls, failed = _model_calls(sample)
    messages = sample.get("messages")
    messages = messages if isinstance(messages, list) else []
    failed.sort(key=lambda item: item[0])
    pending = iter(failed)
    next_failed = next(pending, None)
    for position, message in enumerate(messages):
        while next_failed is not None and next_failed[0] <= position:
            state.steps.append(step("error", next_failed[1], is_error=True))
            next_failed = next(pending, None)
        if isinstance(message, dict):
            _message(state, message, calls)
    while next_failed is not None:
        state.steps.append(step("error", next_failed[1], is_error=True))
        next_failed = next(pending, None)
    _ending(state, sample)
    return state.steps, state.sessions


def _message(state: _Sample, message: dict[str, Any], calls: dict[str, dict[str, Any]]) -> None:
    role = message.get("role")
    if role == "system":
        state.sessions += 1
        text = "\n".join(t for _, t in state.parts(message.get("content")))
        state.steps.append(step("session", text or "system prompt"))
    elif role == "user":
        for _, text in state.parts(message.get("content")):
            state.steps.append(step("user", text))
    elif role == "assistant":
        call = calls.get(message["id"]) if isinstance(message.get("id"), str) else None
        model = call["model"] if call else (message.get("model") if isinstance(message.get("model"), str) else None)
        facts: dict[str, Any] = (
            {"tokens": call["tokens"], "cost_usd": call["cost"], "elapsed_s": call["time"]} if call else {}
        )
        for kind, text in state.parts(message.get("content")):
            state.steps.append(step("thinking" if kind == "reasoning" else "assistant", text, model=model, **facts))
            facts = {}  # a call's usage is shown once, on its first step
        for tool_call in message.get("tool_calls") or ():
            if not isinstance(tool_call, dict):
                continue
            tool = str(tool_call.get("function") or "tool")
            call_id = str(tool_call.get("id") or "") or None
            if call_id:
                state.tools[call_id] = tool
            state.steps.append(
                step(
                    "tool_use", state.text(tool_call.get("arguments")), name=tool, model=model, call_id=call_id, **facts
                )
            )
            facts = {}
        if facts:  # a call that produced no content (an empty reply)
            state.steps.append(step("assistant", "", model=model, **facts))
    elif role == "tool":
        call_id = str(message.get("tool_call_id") or "") or None
        function = message.get("function")
        name = function if isinstance(function, str) else None
        text = "\n".join(t for _, t in state.parts(message.get("content")))
        error = message.get("error")
        if isinstance(error, dict):
            kind = str(error.get("type") or "error")
            # the error first, so the cut of a long result never hides it
            text = f"{kind}: {scrub_paths(text_of(error.get('message')))}" + ("\n" + text if text else "")
        state.steps.append(
            step(
                "tool_result",
                text,
                name=name or state.tools.get(call_id or ""),
                is_error=bool(error),
                call_id=call_id,
            )
        )


def _ending(state: _Sample, sample: dict[str, Any]) -> None:
    """Limit, error and the scored result, as the sample records them."""
    limit = sample.get("limit")
    if limit:
        kind = limit.get("type") if isinstance(limit, dict) else None
        reason = limit.get("reason") if isinstance(limit, dict) else limit
        label = f"{kind} limit" if isinstance(kind, str) and kind else "limit"
        state.steps.append(step("limit", f"{label}: {text_of(reason)}", name=label, is_error=True))
    error = sample.get("error")
    if error:
        message = error.get("message") if isinstance(error, dict) else error
        retries = sample.get("error_retries")
        note = f" ({len(retries)} earlier attempt(s) also failed)" if isinstance(retries, list) and retries else ""
        state.steps.append(step("error", f"sample error{note}: {scrub_paths(text_of(message))}", is_error=True))
    scores = sample.get("scores")
    shown = []
    for scorer, score in scores.items() if isinstance(scores, dict) else ():
        value = score.get("value") if isinstance(score, dict) else None
        line = f"{scorer} = {json.dumps(value, ensure_ascii=False)}"
        answer = score.get("answer") if isinstance(score, dict) else None
        if isinstance(answer, str) and answer:
            line += f" (answer: {answer})"
        explanation = score.get("explanation") if isinstance(score, dict) else None
        if isinstance(explanation, str) and explanation:
            line += f"\n  {explanation}"
        shown.append(line)
    tokens, cost = 0, None
    usage = sample.get("model_usage")
    for model_usage in usage.values() if isinstance(usage, dict) else ():
        tokens += _usage_tokens(model_usage) or 0
        spent = _number(model_usage.get("total_cost")) if isinstance(model_usage, dict) else None
        if spent is not None:
            cost = (cost or 0.0) + spent
    if shown or tokens or sample.get("total_time") is not None:
        state.steps.append(
            step(
                "result",
                "scores: " + ("\n".join(shown) if shown else "none"),
                is_error=bool(error),
                tokens=tokens or None,
                cost_usd=cost,
                elapsed_s=_number(sample.get("total_time")),
            )
        )


def transcript_of(sample: dict[str, Any], data: bytes, source: str) -> Transcript:
    """The transcript of one sample; *data* is the bytes it was read from (its member, or the log)."""
    raw, sessions = parse_sample(sample)
    steps = tuple(
        Step(i + 1, s.kind, s.text, s.name, s.size, s.is_error, s.model, s.tokens, s.cost_usd, s.elapsed_s, s.call_id)
        for i, s in enumerate(raw)
    )
    return Transcript(FORMAT, steps, len(data), hashlib.sha256(data).hexdigest(), 0, 0, sessions, source)


class InspectLogs:
    """Reads samples of Inspect logs, keeping the last log read (runs of one log come together)."""

    def __init__(self) -> None:
        self._path: str | None = None
        self._log: Archive | tuple[bytes, list[Any]] | Refusal | None = None

    def _open(self, path: str, root: str) -> Archive | tuple[bytes, list[Any]] | Refusal:
        if self._path == path and self._log is not None:
            return self._log
        self._path, self._log = path, None
        data = read_contained(path, root, max_bytes=MAX_LOG_BYTES)
        log: Archive | tuple[bytes, list[Any]] | Refusal
        if isinstance(data, Refusal):
            log = data
        elif data[:4] == b"PK\x03\x04":
            try:
                log = Archive(data, "log")
            except EvalsiteError:  # not a readable zip: shown as a reason, never raised here
                log = Refusal("is not a readable zip archive")
        else:
            parsed = parse_json_log(data)
            log = (data, parsed[1]) if not isinstance(parsed, str) else Refusal("is not an Inspect log with samples")
        self._log = log
        return log

    def read(self, path: str, root: str, member: str) -> Transcript | Refusal:
        """The sample *member* (``samples/<id>_epoch_<n>.json``, or ``samples[<i>]`` of a JSON log)."""
        log = self._open(path, root)
        if isinstance(log, Refusal):
            return log
        if isinstance(log, Archive):
            try:
                data = log.read(member)
            except EvalsiteError:  # the zstd extra is missing
                return Refusal("cannot be decompressed (install evalsite[inspect])")
            if data is None:
                return Refusal(next((s.reason for s in log.skipped if s.name == member), "sample not in the log"))
            sample = json_object(data)
            if isinstance(sample, str):
                return Refusal(f"sample is {sample}")
            problem = unusable_value(sample)
            return Refusal(f"sample {problem}") if problem else transcript_of(sample, data, f"Inspect sample {member}")
        data, samples = log
        if not (member.startswith("samples[") and member.endswith("]") and member[8:-1].isdigit()):
            return Refusal("sample not in the log")
        index = int(member[8:-1])
        if index >= len(samples) or not isinstance(samples[index], dict):  # an Unreadable is not a dict
            return Refusal("sample not in the log")
        problem = unusable_value(samples[index])
        if problem:
            return Refusal(f"sample {problem}")
        return transcript_of(samples[index], data, f"Inspect log (whole file), {member}")
