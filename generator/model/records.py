"""The field mapping of the generic records format (``format: records``, docs/importers.md).

A records input is JSONL, CSV or a JSON list: one record per run.  Its mapping says where in a
record each of evalsite's fields is (a dotted path such as ``metrics.acc``; several paths are tried
in order, the first present wins), starting from a named preset (``lm-eval``, ``promptfoo``) or
from the plain defaults.  The mapping is per side; it is checked by
:func:`generator.read.records.mapping.parse_mapping`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = ["RECORD_FIELDS", "RECORD_PRESETS", "RecordsMapping"]

#: The fields a mapping may name (docs/importers.md, "Records (JSONL/CSV)").
RECORD_FIELDS: Final = (
    "task",
    "repetition",
    "passed",
    "score",
    "case_hash",
    "status",
    "error",
    "cost",
    "duration",
    "duration_ms",
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "transcript",
    "treatment",
)

#: Named starting points for a mapping.
RECORD_PRESETS: Final = ("lm-eval", "promptfoo")


@dataclass(frozen=True)
class RecordsMapping:
    """One side's mapping: ``fields`` (field -> dotted paths tried in order) over the preset's.

    ``metric``: for ``lm-eval``, the metric that scores a sample, optionally with its filter as
    lm-eval names them in its results (``exact_match,strict-match``).
    """

    fields: tuple[tuple[str, tuple[str, ...]], ...] = ()
    preset: str | None = None
    metric: str | None = None
