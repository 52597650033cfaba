"""One pair of leaderboard systems over their strictly matched pairs, in the board's metric.

The leaderboard tests every pair with the comparison's rule; what differs between metrics is only
what a matched pair holds: two outcomes (pass@k: task-macro pass@1, the paired counts of
:mod:`generator.analyze.stats.paired`) or two scores in [0, 1] (``metric: mean``, issue 29: the
same task-clustered interval and sign-flip test on real-valued per-task differences,
:func:`generator.analyze.stats.scores.paired_score_tests`).  Both kinds answer the same questions
(the difference at a confidence, the sign-flip test, the MDE, the tasks needed), so
``generator.analyze.leaderboard.board`` applies one rule to either.  On 0/1 scores the two give the
same numbers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from generator.analyze.stats.paired import clustered_difference, pair_outcomes, sign_flip_test
from generator.analyze.stats.power import minimum_detectable_effect, tasks_needed_for
from generator.analyze.stats.scores import PairedScoreTests, paired_score_tests
from generator.model.stats import ClusteredDifference, PairedCounts, PowerAnalysis, SignFlipTest

__all__ = ["PairedEvidence", "PairedPasses", "PairedScoreLists", "PerTask", "paired_evidence"]

#: (task, pairs, a's sum, b's sum) per task, in task-name order: passes (pass@k) or scores (mean).
PerTask = tuple[tuple[str, int, float, float], ...]


@dataclass(frozen=True)
class PairedPasses:
    """pass@k: the paired counts of a's and b's outcomes over the matched pairs."""

    counts: PairedCounts

    @property
    def pairs(self) -> int:
        return self.counts.pairs

    def difference(self, confidence: float) -> ClusteredDifference:
        return clustered_difference(self.counts, confidence)

    def sign_flip(self) -> SignFlipTest:
        return sign_flip_test(self.counts)

    def power(self, alpha: float) -> PowerAnalysis:
        return minimum_detectable_effect(self.counts, alpha=alpha)

    def tasks_needed(self, power: PowerAnalysis, difference: float) -> int | None:
        return tasks_needed_for(power, difference)

    def swapped(self) -> PairedPasses:
        c = self.counts
        return PairedPasses(PairedCounts(c.tasks, c.reps, c.losses, c.wins, c.both_pass))


@dataclass(frozen=True)
class PairedScoreLists:
    """metric mean: per task, a's and b's scores over the matched pairs in repetition order."""

    a: Mapping[str, Sequence[float]]
    b: Mapping[str, Sequence[float]]

    @property
    def pairs(self) -> int:
        return sum(len(values) for values in self.a.values())

    @cached_property
    def _tests(self) -> PairedScoreTests:
        return paired_score_tests(self.a, self.b, 0.95, "difference in mean score (candidate - baseline)")

    def difference(self, confidence: float) -> ClusteredDifference:
        return self._tests.difference_at(confidence)

    def sign_flip(self) -> SignFlipTest:
        return self._tests.sign_flip

    def power(self, alpha: float) -> PowerAnalysis:
        return self._tests.power(alpha=alpha)

    def tasks_needed(self, power: PowerAnalysis, difference: float) -> int | None:
        return tasks_needed_for(power, difference, scores=self._tests.scores)

    def swapped(self) -> PairedScoreLists:
        return PairedScoreLists(self.b, self.a)


PairedEvidence = PairedPasses | PairedScoreLists


def paired_evidence(
    a: Mapping[str, Sequence[float]], b: Mapping[str, Sequence[float]], *, scored: bool
) -> tuple[PairedEvidence, PerTask]:
    """The pair's evidence from per-task values over its matched pairs (outcomes as bools, or scores) and
    its per-task sums; ``scored``: the board ranks by the mean score."""
    per_task = tuple((t, len(a[t]), _sum(a[t]), _sum(b[t])) for t in sorted(a))
    if scored:
        return PairedScoreLists(a, b), per_task
    return PairedPasses(pair_outcomes(_outcomes(a), _outcomes(b))), per_task


def _outcomes(values: Mapping[str, Sequence[float]]) -> dict[str, list[bool]]:
    return {task: [bool(x) for x in v] for task, v in values.items()}


def _sum(values: Sequence[float]) -> float:
    """Passes as an int (outcomes), scores as a float."""
    return sum(values) if all(isinstance(v, bool) for v in values) else float(sum(values))
