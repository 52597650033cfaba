"""The logs a side was read from: each log's run status and size, and how several were merged.

An Inspect side may be one log or several (shards of one run, and retries): the reader
(``generator.read.inspect``) records each log's own ``status`` (``success``, ``cancelled``,
``error``, ``started``) and how many samples it holds of how many its header planned, and how
the logs were merged by sample id and epoch: identical copies kept once (``duplicates``), errored
attempts superseded by a retry (``retried``), copies that differ otherwise excluded
(``conflicts``).  A comparison's pages, its Markdown report and the build summary say so when any
log did not finish (:meth:`SideLogs.status_sentence`), so a cancelled run never reads as a few
"missing samples".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

__all__ = ["FINISHED", "LogStatus", "SideLogs", "status_sentences"]

#: The one status of a log whose run finished (Inspect's ``success``).
FINISHED: Final = "success"

_WORDS: Final = {
    "cancelled": "was cancelled",
    "error": "stopped with an error",
    "started": "had not finished (status started)",
}


@dataclass(frozen=True)
class LogStatus:
    """One log: its file name, the run's status as the log records it, samples held and planned."""

    name: str
    status: str  # success | cancelled | error | started | another word the log wrote
    samples: int  # sample entries the log holds (read or skipped)
    planned: int | None  # the header's sample ids x epochs; None when the header plans none
    error: str | None = None  # the run's own error message (one line, foreign paths scrubbed)
    path: Path | None = field(default=None, compare=False, repr=False)  # where it was read; never printed

    @property
    def finished(self) -> bool:
        return self.status == FINISHED

    def words(self) -> str:
        """``'a.eval' was cancelled (7 of 15 planned samples)``."""
        did = _WORDS.get(self.status, f"has status {self.status!r}")
        held = f"{self.samples:,} of {self.planned:,} planned samples" if self.planned else f"{self.samples:,} samples"
        why = f": {self.error}" if self.error else ""
        return f"{self.name!r} {did} ({held}){why}"

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "samples": self.samples,
            "planned": self.planned,
            "error": self.error,
        }


@dataclass(frozen=True)
class SideLogs:
    """The logs one side was read from, in the order they were merged, and what merging found."""

    logs: tuple[LogStatus, ...]
    duplicates: int = 0  # sample copies identical to one already read (a retry's copy, an overlap): kept once
    conflicts: int = 0  # (sample, epoch) keys whose copies differ: excluded, never resolved
    retried: int = 0  # errored attempts superseded by a retry's copy in another log (not results)

    @property
    def unfinished(self) -> tuple[LogStatus, ...]:
        return tuple(log for log in self.logs if not log.finished)

    @property
    def notable(self) -> bool:
        """Worth a word in the document: several logs, or one that did not finish."""
        return len(self.logs) > 1 or bool(self.unfinished)

    def status_sentence(self, side: str, *, subject: str | None = None, covers: str = "the comparison") -> str | None:
        """One sentence when a log of the side did not finish; None when every log did.  *subject*
        names the run (default ``The <side>'s run``); *covers* what reads only the samples held."""
        unfinished = self.unfinished
        if not unfinished:
            return None
        logs = "" if len(self.logs) == 1 else f" ({len(unfinished)} of its {len(self.logs)} logs)"
        listed = "; ".join(log.words() for log in unfinished)
        who = subject if subject is not None else f"The {side}'s run"
        return (
            f"{who} did not finish{logs}: {listed}. Samples it never ran are missing, "
            f"not failed: {covers} covers only the samples the logs hold."
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "logs": [log.to_json() for log in self.logs],
            "duplicates": self.duplicates,
            "conflicts": self.conflicts,
            "retried": self.retried,
        }


def status_sentences(sides: dict[str, SideLogs | None]) -> tuple[str, ...]:
    """The sentence of each side (candidate first, as given) whose run did not finish."""
    found = (logs.status_sentence(side) for side, logs in sides.items() if logs is not None)
    return tuple(sentence for sentence in found if sentence is not None)
