"""The project's JSON text format, written once.

Every JSON file or stream evalsite emits (the comparison document, ``data.json`` files, ledger
summaries) uses sorted keys, UTF-8 text (no ASCII escapes) and a trailing newline, and refuses
NaN and infinities (``allow_nan=False``): a bare ``NaN`` is not JSON.  Ledger *digests* use their
own canonical form (``generator.model.ledger``), which this is not.
"""

from __future__ import annotations

import json

__all__ = ["json_text"]


def json_text(value: object, *, indent: int | None = None) -> str:
    """``value`` as the project's JSON text; ``indent=2`` for files people read (ledger summaries)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, indent=indent, allow_nan=False) + "\n"
