"""One system's evidence on a page of its own (a single-system report), as typed data.

A report is what a leaderboard knows of one of its systems, without a second system to rank it
against: :class:`ReportResult` holds the system read and aligned as a leaderboard system is
(:class:`~generator.model.leaderboard.SystemResult`: pass@k, pass^k as Comet defines it and its
unbiased form, each with its 95% intervals over tasks, for k = 1..K; the run table, the issues and
the skipped reports), plus the failure reasons counted over its runs, its efficiency averaged over
its aligned runs (re-derived numbers and what the harness reported, apart) and the status of its run.
The ``evalsite.report.v1`` document and the report page are renderings of it (docs/report-json.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from generator.model.leaderboard import SystemResult

__all__ = ["DEFAULT_REPORT_K", "REPORT_SCHEMA", "FailureReason", "ReportMetric", "ReportResult"]

REPORT_SCHEMA: Final = "evalsite.report.v1"
#: Without ``ks:`` a report shows k = 1 .. the most repetitions any task has, up to this.
DEFAULT_REPORT_K: Final = 10


@dataclass(frozen=True, slots=True)
class FailureReason:
    """A failed check (or a quality exclusion) and how many of the system's runs and tasks it touches."""

    reason: str
    runs: int
    tasks: int
    excluded: bool  # True: a quality exclusion (the run is not counted), not a failed check


@dataclass(frozen=True, slots=True)
class ReportMetric:
    """One efficiency field averaged over the system's aligned runs that have it.

    ``reported``: the numbers the harness reported (labelled, never merged), taken only from runs
    without a re-derived value of the field; ``disagreements``: runs whose reported value differs
    from the re-derived one (the re-derived one is used).
    """

    key: str
    label: str
    kind: str  # count | seconds | tokens | usd | percent
    runs: int  # aligned runs with a value
    aligned_runs: int
    average: float | None
    reported: bool = False
    disagreements: int = 0


@dataclass(frozen=True, slots=True)
class ReportResult:
    system: SystemResult  # read, aligned and measured as a leaderboard system (its macro: one per k)
    ks: tuple[int, ...]
    tasks: tuple[str, ...]  # the expected tasks (the matrix's, else the reports')
    matrix_status: str  # report-bound | historical-fallback | invalid
    matrix_error: str | None
    failures: tuple[FailureReason, ...]  # by reason
    efficiency: tuple[ReportMetric, ...]  # re-derived fields with a value, then the reported ones
    run_status: tuple[str, ...] = ()  # an imported run that did not finish (model/logs.py), said at the top

    @property
    def passes(self) -> int:
        """Aligned runs that passed."""
        return sum(sum(outcomes) for outcomes in self.system.outcomes.values())
