"""Cutting one step's text to its byte budget, the cut disclosed with the full text's SHA-256."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from generator.model.redaction import safe_cut

__all__ = ["TEXT_BUDGET", "cut", "text_of"]

TEXT_BUDGET = 16 * 1024  # bytes of one step's text shown on a run page


def cut(text: str, budget: int = TEXT_BUDGET) -> tuple[str, int]:
    """(*text* cut to *budget* UTF-8 bytes with a notice, full size in bytes)."""
    data = text.encode("utf-8", errors="replace")
    if len(data) <= budget:
        return text, len(data)
    kept = data[:budget].decode("utf-8", errors="ignore")
    kept = kept[: safe_cut(text, len(kept))]  # never inside a secret (the text is redacted after the cut)
    digest = hashlib.sha256(data).hexdigest()
    notice = f"\n… ({len(data) - len(kept.encode('utf-8')):,} bytes cut, sha256:{digest})"
    return kept + notice, len(data)


def text_of(value: Any) -> str:
    """A tool result's or argument's content as text (strings kept, text blocks joined, rest as JSON)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(item, dict) for item in value):
        parts = [str(item.get("text", "")) if item.get("type") == "text" else json.dumps(item) for item in value]
        return "\n".join(parts)
    if value is None:
        return ""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, indent=1)
