"""Input formats a comparison side can be read from, and the options of the importers.

``comet`` is evalsite's own experiment layout; ``inspect``, ``harbor`` and ``swebench`` are
imported onto the same runs (``generator.model.runs``), so alignment, statistics and pages are
the same for every format.  How each format maps: ``docs/importers.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

__all__ = [
    "DEFAULT_FORMAT",
    "FORMATS",
    "FORMAT_NOTES",
    "NOT_HASHED",
    "REPORTED",
    "Format",
    "ImportOptions",
]

Format = Literal["comet", "inspect", "harbor", "swebench"]
FORMATS: Final[tuple[Format, ...]] = ("comet", "inspect", "harbor", "swebench")
DEFAULT_FORMAT: Final[Format] = "comet"

#: The case hash of a run whose format gives nothing to hash, or whose two sides hash different
#: things (different formats): such runs pair by task and repetition only, and the audit says so.
NOT_HASHED: Final = "not hashed"

#: Artifact status of telemetry that the harness reported (not re-derived from agent stdout).
REPORTED: Final = "reported"

#: What each imported format cannot record, stated wherever its runs are shown.
FORMAT_NOTES: Final[dict[str, tuple[str, ...]]] = {
    "comet": (),
    "inspect": (
        "Repetition = the sample's epoch; case hash = SHA-256 of the sample's input, target, choices and "
        "metadata (message ids removed).",
        "Telemetry is as reported by Inspect (model_usage, total_time); Inspect logs hold no agent stdout.",
    ),
    "harbor": (
        "Harbor trials record no repetition index: repetitions are the trials of a task ordered by start time, "
        "then trial name.",
        "Case hash = Harbor's task_checksum; telemetry is as reported by Harbor unless the agent's own stdout "
        "is in the trial folder.",
    ),
    "swebench": (
        "One repetition per instance; case hash = SHA-256 of the instance id with the dataset and split when known.",
        "SWE-bench reports no token or time telemetry.",
    ),
}


@dataclass(frozen=True)
class ImportOptions:
    """How imported formats decide pass and exclusion (the same for both sides).

    ``pass_threshold``: a numeric (or Inspect ``P`` = 0.5) score passes when it is at least this;
    Harbor rewards likewise.  ``scorer``: which Inspect scorer decides (None = the log's first).
    ``errors_as_failures``: count errored or limit-stopped runs as failures instead of
    excluding them.
    """

    pass_threshold: float = 1.0
    scorer: str | None = None
    errors_as_failures: bool = False
