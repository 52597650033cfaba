"""The ledger pipeline's one result: the documents it renders and the typed facts its pages show.

:class:`LedgerResult` is what ``generator.pipelines.ledger.summarize_ledger`` returns.  ``summary``
(the reference summary object, ``data.json``) and ``extended`` (``extended.json``) are renderings:
the CLI prints and writes them and the site writes them, but no page reads them.  ``facts``
(:class:`LedgerFacts`) carries every number and decision the ledger and arm pages put into words,
each computed once by ``generator.analyze.ledger.result``; pages only select and format it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "RATE_KEYS",
    "ArmMetrics",
    "CandidateRow",
    "CaseCell",
    "Condition",
    "Containment",
    "CoverageGap",
    "DecodingProfile",
    "ExtendedArm",
    "ExtendedCandidate",
    "ExtendedCase",
    "ExtendedFacts",
    "FeasibilityRow",
    "GateStatistics",
    "IdentitySplit",
    "KillCase",
    "KillPaths",
    "LatencySpread",
    "LedgerFacts",
    "LedgerResult",
    "PairedDifference",
    "Rate",
    "Rerun",
    "Thresholds",
    "TokenTotal",
    "TransportPair",
    "Usage",
]

#: The rates of an arm, in the reference summary's order.
RATE_KEYS = ("validity", "recall", "falsePositive", "toolCallCorrectness", "contextSufficiency")


@dataclass(frozen=True, slots=True)
class Rate:
    """A rate with its exact two-sided 95% interval; every field ``None`` when it was not reported."""

    key: str = ""
    successes: int | None = None
    total: int | None = None
    rate: float | None = None
    lower: float | None = None
    upper: float | None = None


@dataclass(frozen=True, slots=True)
class LatencySpread:
    """Latency of one class (cold, resident) of receipts, in milliseconds."""

    name: str = ""
    count: int | None = None
    median_ms: float | None = None
    p90_ms: float | None = None


@dataclass(frozen=True, slots=True)
class TokenTotal:
    field: str
    reported: int | None
    total: int | None


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens (one row per field, by name) and provider cost over an arm's receipts; never estimated."""

    attempts: int | None = None
    receipts_with_usage: int | None = None
    tokens: tuple[TokenTotal, ...] = ()
    cost_reported: int | None = None
    cost_total_usd: float | None = None


@dataclass(frozen=True, slots=True)
class DecodingProfile:
    """One decoding profile (the values as the receipts state them) and its attempts."""

    temperature: object
    seed: object
    pinned: object
    attempts: int | None


@dataclass(frozen=True, slots=True)
class CaseCell:
    """One case of an arm: flakiness, latency by class, tokens and cost."""

    case_id: str
    case_kind: str
    attempts: int | None
    reruns: int | None
    unique_outcomes: int | None
    disagreements: int | None
    flaky_fraction: float | None
    cold: LatencySpread
    resident: LatencySpread
    total_tokens: int | None
    cost_usd: float | None
    decoding_profiles: int


@dataclass(frozen=True, slots=True)
class ArmMetrics:
    """One arm of the summary.  ``document`` is its JSON object (rendered into the arm's data.json)."""

    arm_id: str
    definition: tuple[tuple[str, object], ...]  # the campaign's arm fields, sorted by name
    role: object
    backend: object
    model: object
    transport: object
    attempts: int | None
    quality_attempts: int | None
    reruns: int | None
    identity_mismatches: int | None
    rates: tuple[Rate, ...]  # in RATE_KEYS order
    latency: tuple[LatencySpread, ...]  # by class name
    usage: Usage
    decoding_profiles: tuple[DecodingProfile, ...]
    cells: tuple[CaseCell, ...]
    document: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def validity(self) -> Rate:
        return self.rates[0]


@dataclass(frozen=True, slots=True)
class Condition:
    """One admission condition of a candidate row: ``passed`` is ``None`` when it is not a boolean."""

    key: str
    label: str
    passed: bool | None


@dataclass(frozen=True, slots=True)
class CoverageGap:
    case_id: str
    required: int
    candidate: int
    baseline: int
    paired: int


@dataclass(frozen=True, slots=True)
class PairedDifference:
    """A paired difference against the baseline with the gate's bounds.

    ``candidate_wins`` / ``candidate_losses`` count the discordant pairs the candidate alone got
    (recall: found; false positives: flagged) and the baseline alone got; ``estimate`` is the
    observed difference (``None`` without pairs).
    """

    pairs: int | None = None
    candidate_wins: int | None = None
    candidate_losses: int | None = None
    discordant: int = 0
    lower: float | None = None
    upper: float | None = None
    method: str = ""
    estimate: float | None = None


@dataclass(frozen=True, slots=True)
class KillCase:
    case_id: str
    attempts: int
    modes: tuple[str, ...]
    passed: bool


@dataclass(frozen=True, slots=True)
class KillPaths:
    passed: bool
    complete_suite: bool
    modes: tuple[str, ...]
    cases: tuple[KillCase, ...]
    missing_modes: tuple[str, ...]  # kill-control modes no case covers, sorted


@dataclass(frozen=True, slots=True)
class Containment:
    """A candidate's containment; ``runs_short`` / ``rate_short`` name the floor a maker arm missed."""

    applicable: bool
    passed: bool | None
    mutation_runs: int | None
    conclusive_runs: int | None
    conclusive_rate: float | None
    breaches: int | None
    rule_of_three_upper95: float | None
    runs_short: bool
    rate_short: bool


@dataclass(frozen=True, slots=True)
class TransportPair:
    """A declared transport pair: the 90% recall-difference interval (left − right) against ±margin."""

    left_arm_id: str
    right_arm_id: str
    pairs: int | None
    lower: float | None
    upper: float | None
    margin: float
    equivalent: bool
    estimate: float | None


@dataclass(frozen=True, slots=True)
class CandidateRow:
    """One candidate row of the summary with the facts its admission words need.

    ``*_needed`` are the fewest attempts (pairs) with which the bar can be reached when nothing
    fails (no discordant pair); ``None`` when no sample size can reach it.  ``position`` is the
    row's place in the summary; ``document`` its JSON object (rendered into the arm's data.json).
    """

    arm_id: str
    position: int
    recommendation: str
    eligible: bool
    conditions: tuple[Condition, ...]  # the reference's order, then unknown keys sorted
    coverage_gaps: tuple[CoverageGap, ...]
    recall: PairedDifference
    false_positive: PairedDifference
    kill: KillPaths
    containment: Containment
    transport_pairs: tuple[TransportPair, ...]
    validity_attempts_needed: int | None
    false_positive_pairs_needed: int | None
    document: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def passed(self, key: str) -> bool | None:
        """The result of condition ``key`` (``None`` when absent or not a boolean)."""
        return next((condition.passed for condition in self.conditions if condition.key == key), None)


@dataclass(frozen=True, slots=True)
class Thresholds:
    """The campaign's thresholds (``None`` when absent); ``present`` lists the given ones by key."""

    validity_lower: float
    recall_delta: float
    fpr_epsilon: float
    transport_delta: float | None
    containment_conclusive: float | None
    containment_minimum: int | None
    quality_repetitions: int | None
    kill_repetitions: int | None
    present: tuple[tuple[str, float], ...] = ()

    def value(self, key: str) -> float | None:
        return next((value for name, value in self.present if name == key), None)


# --------------------------------------------------------------------------- the extended analyses


@dataclass(frozen=True, slots=True)
class IdentitySplit:
    """Identity mismatches by where they happened (``None``: not reported)."""

    all: int | None
    silent: int | None
    not_ran: int | None
    kill_path: int | None


@dataclass(frozen=True, slots=True)
class ExtendedCase:
    """One case of an arm in the extended analyses.

    ``outcome`` is the case's recall (``"recall"``) or false-positive (``"falsePositive"``) rate, or
    ``None`` for a kill-path case, whose passing attempts are ``kill_path_passed``.
    """

    case_id: str | None
    kind: object
    attempts: int | None
    ran: int | None
    validity: Rate
    outcome: str | None
    outcome_rate: Rate
    kill_path_passed: int | None
    wall_min_ms: float | None
    wall_median_ms: float | None
    wall_max_ms: float | None


@dataclass(frozen=True, slots=True)
class Rerun:
    case_id: object
    repeat: int | None
    original_repeat: int | None
    receipt_id: str | None
    rerun_of: str | None


@dataclass(frozen=True, slots=True)
class ExtendedArm:
    identity: IdentitySplit | None
    cases: tuple[ExtendedCase, ...]
    reruns: tuple[Rerun, ...]

    def case(self, case_id: str) -> ExtendedCase | None:
        """The case ``case_id`` (the last one listed, should an id repeat)."""
        return next((case for case in reversed(self.cases) if case.case_id == case_id), None)


@dataclass(frozen=True, slots=True)
class FeasibilityRow:
    """The best bound a gate's sample size allows if every outcome were perfect.

    ``gate`` is ``validity`` (attempts, lower bound), ``recall`` (pairs, lower bound) or
    ``falsePositive`` (pairs, upper bound).
    """

    gate: str
    observed: int | None
    best_bound: float | None
    bar: float | None
    needed: int | None


@dataclass(frozen=True, slots=True)
class GateStatistics:
    """One paired gate beside its Tango interval, exact McNemar test and design effect by case."""

    condition: str
    pairs: int
    cases: int
    wins: int
    losses: int
    reference_lower: float | None
    reference_upper: float | None
    tango_lower: float | None
    tango_upper: float | None
    tango_method: str
    mcnemar_p: float | None
    mcnemar_method: str
    design_effect: float | None
    clustering_method: str
    passed: bool
    sentence: str


@dataclass(frozen=True, slots=True)
class ExtendedCandidate:
    arm_id: str
    feasibility: tuple[FeasibilityRow, ...]  # empty when not computed
    gates: tuple[GateStatistics, ...]  # by condition key


@dataclass(frozen=True, slots=True)
class ExtendedFacts:
    """The extended analyses the pages show; ``candidates`` sorted by arm id."""

    arms: Mapping[str, ExtendedArm] = field(default_factory=dict)
    candidates: tuple[ExtendedCandidate, ...] = ()
    caveats: tuple[str, ...] = ()
    duplicate_pairs: tuple[tuple[object, object], ...] = ()  # (index, the pair it repeats)
    mirrored_pairs: tuple[tuple[object, object], ...] = ()  # (index, the pair it mirrors)

    def arm(self, arm_id: str) -> ExtendedArm:
        """The extended analyses of arm ``arm_id`` (empty when it has none)."""
        return self.arms.get(arm_id) or ExtendedArm(None, (), ())


@dataclass(frozen=True, slots=True)
class LedgerFacts:
    """Everything the ledger and arm pages show, typed.

    ``arms`` are in page order: the baseline, the candidates in the summary's order, then any
    other arm by id.
    """

    campaign_id: str
    corpus_version: str
    prompt_envelope_version: str
    statistical_method: str
    note: str
    campaign_digest: str | None
    execution_digest: str | None
    ledger_digest: str | None
    receipt_count: int
    receipt_schema_versions: tuple[object, ...]
    baseline_arm_id: str
    thresholds: Thresholds
    arms: tuple[ArmMetrics, ...]
    candidates: tuple[CandidateRow, ...]
    transport: tuple[TransportPair, ...]
    extended: ExtendedFacts | None = None

    def arm(self, arm_id: str) -> ArmMetrics | None:
        return next((arm for arm in self.arms if arm.arm_id == arm_id), None)

    def candidate(self, arm_id: str) -> CandidateRow | None:
        return next((row for row in self.candidates if row.arm_id == arm_id), None)


@dataclass(frozen=True)
class LedgerResult:
    """One summarized ledger.

    ``summary`` is exactly the upstream summary object (``data.json``); ``extended`` the separate
    extended analyses (``extended.json``), ``None`` when not computed; ``facts`` the typed view the
    pages format, ``None`` when left out (the CLI) or when the summary is of another schema.
    Treat the mappings as read-only.
    """

    summary: Mapping[str, Any]
    extended: Mapping[str, Any] | None = None
    facts: LedgerFacts | None = None
