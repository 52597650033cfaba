"""Input formats a comparison side can be read from, and the options of the importers.

``comet`` is evalsite's own experiment layout; ``inspect``, ``harbor``, ``swebench`` and ``records`` are
imported onto the same runs (``generator.model.runs``), so alignment, statistics and pages are
the same for every format.  How each format maps: ``docs/importers.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from generator.model.records import RecordsMapping

__all__ = [
    "DEFAULT_FORMAT",
    "FORMATS",
    "FORMAT_NOTES",
    "FORMAT_WORDS",
    "NOT_HASHED",
    "REPORTED",
    "Format",
    "FormatWords",
    "ImportOptions",
]

Format = Literal["comet", "inspect", "harbor", "swebench", "records"]
FORMATS: Final[tuple[Format, ...]] = ("comet", "inspect", "harbor", "swebench", "records")
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
        "The SWE-bench harness reports no telemetry; a submission's trajectory files (trajs/) give cost and tokens as "
        "reported by the agent.",
    ),
    "records": (
        "One record per run, read through the configured field mapping; repetition = the mapped field, else the "
        "record's order among the records of its task.",
        "Case hash = the mapped case-hash field, else not hashed; telemetry is as the records report it.",
    ),
}


@dataclass(frozen=True)
class FormatWords:
    """How a report words one format's evidence (the Markdown report; the pages say the notes above).

    ``name``: the input ("Inspect log"); ``run``: one run ("sample"); ``identity``: what the case
    hash covers; ``matrix``: where the expected keys come from (None: the format has no matrix, so
    the observed runs stand); ``passes``: the pass rule; ``stdout``: whether the input can hold the
    agent's own stdout, from which durations and telemetry are re-derived.
    """

    name: str
    run: str
    identity: str
    matrix: str | None
    passes: str
    stdout: bool


#: The words of each imported format (Comet's wording is the report's own).
FORMAT_WORDS: Final[dict[str, FormatWords]] = {
    "inspect": FormatWords(
        name="Inspect log",
        run="sample",
        identity="the SHA-256 of the sample's input, target, choices and metadata",
        matrix="the log header's sample ids x epochs",
        passes="its chosen scorer gives C, or a number at or above the threshold (I and N fail)",
        stdout=False,
    ),
    "harbor": FormatWords(
        name="Harbor job",
        run="trial",
        identity="Harbor's task_checksum",
        matrix=None,
        passes="its verifier reward is at or above the threshold",
        stdout=True,
    ),
    "swebench": FormatWords(
        name="SWE-bench run",
        run="instance",
        identity="the SHA-256 of the instance id with the dataset and split when known",
        matrix=None,
        passes="the instance is resolved",
        stdout=False,
    ),
    "records": FormatWords(
        name="records file",
        run="record",
        identity="the record's mapped case-hash field",
        matrix=None,
        passes="its mapped passed field is true, or its score is at or above the threshold",
        stdout=True,
    ),
}


@dataclass(frozen=True)
class ImportOptions:
    """How imported formats decide pass and exclusion (the same for both sides).

    ``pass_threshold``: a numeric (or Inspect ``P`` = 0.5) score passes when it is at least this;
    Harbor rewards likewise.  ``scorer``: which Inspect scorer decides (None = the log's first).
    ``errors_as_failures``: count errored or limit-stopped runs as failures instead of
    excluding them.  ``candidate_records``/``baseline_records``: each side's records mapping
    (``format: records``; None = the plain defaults).  ``candidate_logs``/``baseline_logs``: an
    Inspect side given as a list of log files (shards and retries of one run, merged); empty = the
    side's one path (a log, or a folder of logs).
    """

    pass_threshold: float = 1.0
    scorer: str | None = None
    errors_as_failures: bool = False
    candidate_records: RecordsMapping | None = None
    baseline_records: RecordsMapping | None = None
    candidate_logs: tuple[Path, ...] = ()
    baseline_logs: tuple[Path, ...] = ()

    def logs_of(self, side: str) -> tuple[Path, ...]:
        return self.candidate_logs if side == "candidate" else self.baseline_logs
