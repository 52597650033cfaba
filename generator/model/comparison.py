"""One comparison of two Comet experiments, as typed data.

:class:`ComparisonInputs` says what to compare; :class:`ComparisonResult` is
everything ``generator.pipelines.compare`` computed from it (read -> align ->
measure), once.  The ``evalsite.comparison.v1`` JSON document, the Markdown
report and the site pages are renderings of a result; none of them computes
anything again.

Also here: the alignment's issues and pairs, the task-macro pass@k values, and
the duration and efficiency tables with the metric definitions they use.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, NamedTuple

from generator.model.common import DEFAULT_KS, Side
from generator.model.formats import DEFAULT_FORMAT, ImportOptions
from generator.model.runs import Artifact, Experiment, Key, RunRecord
from generator.model.scores import DEFAULT_METRIC, ScoreMetric, ScoreSection
from generator.model.stats import ExperimentComparison

__all__ = [
    "ALL_ALIGNED",
    "COMPARISON_SCHEMA",
    "ISSUE_REASONS",
    "METRICS",
    "REPORTED_METRICS",
    "REPORTED_SOURCE_LABEL",
    "STRICT_SUCCESS",
    "Alignment",
    "ComparisonInputs",
    "ComparisonResult",
    "Disagreement",
    "DurationSummary",
    "EfficiencyRow",
    "EfficiencyTable",
    "Issue",
    "MacroMetrics",
    "Metric",
    "Pair",
    "ReportedDuration",
    "normalize_ks",
    "parse_ks",
]

COMPARISON_SCHEMA: Final = "evalsite.comparison.v1"
#: The keys of ``ComparisonResult.efficiency``: pairs where both sides passed, every aligned pair.
STRICT_SUCCESS: Final = "strict_success"
ALL_ALIGNED: Final = "all_aligned"

# --------------------------------------------------------------------------- the inputs


def normalize_ks(values: Sequence[object]) -> tuple[int, ...]:
    """Deduplicated ascending k values; raises ValueError for an empty list, bools or k < 1."""
    if not values:
        raise ValueError("at least one k is required")
    ks: set[int] = set()
    for value in values:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"k must be a positive integer, not {value!r}")
        ks.add(value)
    return tuple(sorted(ks))


def parse_ks(text: str) -> tuple[int, ...]:
    """Parse ``"1,2,3"``; raises ValueError with a readable message."""
    parts = [part.strip() for part in text.split(",")]
    values: list[int] = []
    for part in parts:
        if not part.isascii() or not part.isdigit():
            raise ValueError(f"k values must be positive integers, got {part!r}")
        values.append(int(part))
    return normalize_ks(values)


@dataclass(frozen=True)
class ComparisonInputs:
    candidate_dir: Path
    candidate_treatment: str
    baseline_dir: Path
    baseline_treatment: str
    tasks_dir: Path | None = None
    eval_root: Path | None = None
    ks: tuple[int, ...] = DEFAULT_KS
    rebase_artifacts: bool = False
    # comet | inspect | harbor | swebench (generator.model.formats); the dirs may be log files
    candidate_format: str = DEFAULT_FORMAT
    baseline_format: str = DEFAULT_FORMAT
    import_options: ImportOptions = ImportOptions()
    metric: ScoreMetric = DEFAULT_METRIC  # pass@k (pass / fail at the threshold decides) or mean (issue 29)


# --------------------------------------------------------------------------- alignment

ISSUE_REASONS: Final = (
    "invalid-expected-case-matrix",
    "expected-treatment-missing",
    "expected-matrix-mismatch",
    "unexpected-run",
    "duplicate-run",
    "missing-repetition",
    "invalid-case-manifest",
    "quality-excluded",
    "case-hash-mismatch",
    "case-hash-drift",
)


@dataclass(frozen=True)
class Issue:
    task: str  # "*" for experiment-level issues
    rep: int  # 0 for experiment- and task-level issues
    reason: str
    detail: str

    def to_json(self) -> dict[str, object]:
        return {"task": self.task, "rep": self.rep, "reason": self.reason, "detail": self.detail}


@dataclass(frozen=True, slots=True)
class Pair:
    task: str
    rep: int
    case_hash: str  # the hash both sides agreed on
    candidate: RunRecord
    baseline: RunRecord

    @property
    def key(self) -> Key:
        return (self.task, self.rep)

    def side(self, side: Side) -> RunRecord:
        return self.candidate if side == "candidate" else self.baseline


@dataclass(frozen=True)
class Alignment:
    pairs: tuple[Pair, ...]
    issues: tuple[Issue, ...]
    tasks: tuple[str, ...]
    expected_keys: int


# --------------------------------------------------------------------------- pass@k


@dataclass(frozen=True)
class MacroMetrics:
    k: int
    pass_at_k: float | None
    pass_pow_k: float | None
    pass_pow_k_unbiased: float | None
    eligible_tasks: int
    total_tasks: int

    def to_json(self) -> dict[str, float | int | None]:
        return {
            "pass_at_k": self.pass_at_k,
            "pass_pow_k": self.pass_pow_k,
            "pass_pow_k_unbiased": self.pass_pow_k_unbiased,
            "eligible_tasks": self.eligible_tasks,
            "total_tasks": self.total_tasks,
        }


# --------------------------------------------------------------------------- duration and efficiency


class Metric(NamedTuple):
    """One efficiency row: what it is called, where it comes from, how it is printed."""

    label: str
    key: str  # telemetry field
    kind: str  # count | seconds | tokens | usd | percent


# Report order: effort first, then time, tokens, money and context.
METRICS: Final = (
    Metric(label="Model starts/resumes", key="subject_invocations", kind="count"),
    Metric(label="Agent turns", key="num_turns", kind="count"),
    Metric(label="Tool calls", key="tool_calls", kind="count"),
    Metric(label="Wall duration", key="duration_seconds", kind="seconds"),
    Metric(label="Non-cache input tokens", key="input_tokens", kind="tokens"),
    Metric(label="Output tokens", key="output_tokens", kind="tokens"),
    Metric(label="Cache-read input tokens", key="cache_read_input_tokens", kind="tokens"),
    Metric(label="Total tokens incl. cache", key="total_tokens", kind="tokens"),
    Metric(label="Model cost", key="total_cost_usd", kind="usd"),
    Metric(label="Peak context input", key="peak_context_input_tokens", kind="tokens"),
    Metric(label="P95 context input", key="p95_context_input_tokens", kind="tokens"),
    Metric(label="Peak context occupancy", key="peak_context_occupancy_pct", kind="percent"),
)


# Efficiency rows that only a harness reports (never re-derived from raw stdout).
REPORTED_METRICS: Final = (
    *METRICS,
    Metric(label="Agent duration", key="agent_duration_seconds", kind="seconds"),
    Metric(label="LLM API calls", key="api_calls", kind="count"),
    Metric(label="Tool execution time", key="tool_time_seconds", kind="seconds"),
    Metric(label="Output tokens (agent's own count)", key="output_tokens_reported", kind="tokens"),
    Metric(label="User-simulator cost", key="user_sim_cost_usd", kind="usd"),
)
REPORTED_SOURCE_LABEL: Final = "reported by the harness"


@dataclass(frozen=True)
class Disagreement:
    """A run whose re-derived value and reported value of one field differ (the re-derived one wins)."""

    task: str
    rep: int
    key: str
    derived: float
    reported: float

    def to_json(self) -> dict[str, Any]:
        return {"task": self.task, "rep": self.rep, "key": self.key, "derived": self.derived, "reported": self.reported}


@dataclass(frozen=True)
class ReportedDuration:
    """Durations the harness reported, for the matched runs that have no re-derived duration."""

    covered: int = 0
    total_seconds: float | None = None
    average_seconds: float | None = None
    disagreements: tuple[Disagreement, ...] = ()  # runs with both values, where they differ

    def to_json(self) -> dict[str, Any]:
        return {
            "source": REPORTED_SOURCE_LABEL,
            "covered": self.covered,
            "total_seconds": self.total_seconds,
            "average_seconds": self.average_seconds,
            "disagreements": [item.to_json() for item in self.disagreements],
        }


@dataclass(frozen=True)
class DurationSummary:
    matched: int
    covered: int
    total_seconds: float | None
    average_seconds: float | None
    missing: tuple[Key, ...]  # no re-derived duration (some may have a reported one)
    reported: ReportedDuration = ReportedDuration()

    def to_json(self) -> dict[str, Any]:
        return {
            "matched": self.matched,
            "covered": self.covered,
            "total_seconds": self.total_seconds,
            "average_seconds": self.average_seconds,
            "missing": [{"task": task, "rep": rep} for task, rep in self.missing],
            "reported": self.reported.to_json(),
        }


@dataclass(frozen=True)
class EfficiencyRow:
    key: str
    label: str
    kind: str
    complete: int
    selected: int
    candidate_average: float | None
    baseline_average: float | None
    # re-derived rows: runs of the selected pairs whose reported value differs (the re-derived one wins)
    disagreements: int = 0

    @property
    def delta_pct(self) -> float | None:
        """(baseline - candidate) / baseline * 100: positive means the candidate used less."""
        if self.candidate_average is None or self.baseline_average is None or self.baseline_average == 0:
            return None
        return (self.baseline_average - self.candidate_average) / self.baseline_average * 100

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "label": self.label,
            "kind": self.kind,
            "complete": self.complete,
            "candidate_average": self.candidate_average,
            "baseline_average": self.baseline_average,
            "delta_pct": self.delta_pct,
            "reported_disagreements": self.disagreements,
        }


@dataclass(frozen=True)
class EfficiencyTable:
    """Re-derived rows (raw stdout) and, apart, rows of numbers the harness reported.

    A reported row averages only pairs that the re-derived row of the same metric does not
    cover (both sides reported it, not both re-derived), so no pair is counted twice and no
    reported number is mixed with a re-derived one.
    """

    pairs: int
    rows: tuple[EfficiencyRow, ...]
    reported_rows: tuple[EfficiencyRow, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "pairs": self.pairs,
            "rows": [row.to_json() for row in self.rows],
            "reported_source": REPORTED_SOURCE_LABEL,
            "reported_rows": [row.to_json() for row in self.reported_rows],
        }


# --------------------------------------------------------------------------- the result


@dataclass(frozen=True)
class ComparisonResult:
    """Everything one comparison computed; pure data (renderings live in ``generator.render``)."""

    inputs: ComparisonInputs
    ks: tuple[int, ...]
    experiments: Mapping[Side, Experiment]
    alignment: Alignment
    metrics: Mapping[Side, Mapping[int, MacroMetrics]]
    artifacts: Mapping[Side, Sequence[Artifact]]  # per side, in pair order (a Comet side's: packed)
    duration: Mapping[Side, DurationSummary]
    efficiency: Mapping[str, EfficiencyTable]  # strict_success, all_aligned
    statistics: ExperimentComparison  # intervals, paired tests, power and verdict over the pairs
    formats: Mapping[Side, str] = field(default_factory=lambda: {"candidate": "comet", "baseline": "comet"})
    scores: ScoreSection | None = None  # metric mean, or a log's several scorers (issue 29)

    @property
    def candidate(self) -> Experiment:
        return self.experiments["candidate"]

    @property
    def baseline(self) -> Experiment:
        return self.experiments["baseline"]
