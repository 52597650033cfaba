"""The leaderboard from its systems: pairwise paired tests, corrections, baseline verdicts, tiers.

Every pair of systems is aligned with the comparison's strict aligner on the keys
both have; its paired statistics are the comparison's (task-clustered difference
in pass@1, exact sign-flip test over tasks, ``generator.analyze.stats.paired``).
Two families are corrected separately with the leaderboard's correction: the
systems against the baseline (m - 1 tests), and all m (m - 1) / 2 pairs (the
tiers).  A difference is called only when the adjusted sign-flip p-value is below
alpha *and* the task-clustered (1 - alpha) interval excludes zero: the comparison
pages' two-condition rule, so the leaderboard never calls a difference the
comparison page of the same pair would not.

With ``metric: mean`` (issue 29) the board ranks by the task-macro mean score and every pair is
tested on its per-task mean score differences with the same rule (:mod:`.evidence`); on 0/1 scores
the numbers are pass@1's.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Mapping, Sequence

from generator.analyze.comparison.alignment import align
from generator.analyze.comparison.scores import checked_score
from generator.analyze.leaderboard.evidence import PairedEvidence, PerTask, paired_evidence
from generator.analyze.leaderboard.multiplicity import CORRECTION_NAMES, adjust
from generator.analyze.leaderboard.systems import expected_keys
from generator.analyze.leaderboard.tiers import greedy_tiers, pareto_frontier
from generator.model.leaderboard import (
    BaselineComparison,
    Correction,
    LeaderboardInputs,
    LeaderboardResult,
    PairComparison,
    SystemResult,
)
from generator.model.runs import Experiment, Key
from generator.model.stats import BETTER, NOT_DISTINGUISHABLE, WORSE, Interval, PowerAnalysis

__all__ = ["assemble", "rank", "simultaneous_confidence"]

_Counted = tuple[PairedEvidence, Counter[str], PerTask]


def rank(systems: Sequence[SystemResult]) -> list[SystemResult]:
    """Best task-macro pass@1 (metric mean: mean score) first; undefined last; ties by label."""
    return sorted(systems, key=lambda s: (s.ranked_value is None, -(s.ranked_value or 0.0), s.label))


def _as_baseline(experiment: Experiment) -> Experiment:
    records = tuple(dataclasses.replace(record, side="baseline") for record in experiment.records)
    return dataclasses.replace(experiment, side="baseline", records=records)


def _counts(a: Experiment, b: Experiment, common: frozenset[Key], scored: bool) -> _Counted:
    """The pair (a, b) over the common keys both have strictly aligned: its evidence in the board's
    metric (outcomes, or scores when ``scored``), the alignment's issues by reason and the per-task sums."""
    alignment = align(
        a.records,
        b.records,
        candidate_expected=expected_keys(a),
        baseline_expected=expected_keys(b),
    )
    results: dict[str, tuple[list[float], list[float]]] = {}
    for pair in alignment.pairs:
        if pair.key in common:
            left, right = results.setdefault(pair.task, ([], []))
            if scored:
                left.append(checked_score(pair.candidate, "a system's run"))
                right.append(checked_score(pair.baseline, "a system's run"))
            else:
                left.append(pair.candidate.passed)
                right.append(pair.baseline.passed)
    evidence, per_task = paired_evidence(
        {t: v[0] for t, v in results.items()}, {t: v[1] for t, v in results.items()}, scored=scored
    )
    return evidence, Counter(issue.reason for issue in alignment.issues), per_task


def simultaneous_confidence(alpha: float, family: int, correction: Correction, rejections: int) -> float:
    """Confidence of each interval so the family has the stated coverage.

    holm: Bonferroni, 1 - alpha / m (simultaneous coverage >= 1 - alpha); bh: the
    Benjamini-Yekutieli false-coverage-rate interval, 1 - R alpha / m for R
    rejections (1 - alpha / m when R = 0); none: 1 - alpha (no adjustment).
    """
    m = max(1, family)
    if correction == "holm":
        return 1.0 - alpha / m
    if correction == "bh":
        return 1.0 - max(1, rejections) * alpha / m
    return 1.0 - alpha


def _called(p_adjusted: float, interval: Interval, alpha: float) -> str:
    if p_adjusted < alpha and interval.lower is not None and interval.lower > 0:
        return BETTER
    if p_adjusted < alpha and interval.upper is not None and interval.upper < 0:
        return WORSE
    return NOT_DISTINGUISHABLE


def assemble(
    inputs: LeaderboardInputs,
    systems: Sequence[SystemResult],
    experiments: Mapping[str, Experiment],
    common: frozenset[Key],
) -> LeaderboardResult:
    """Rank the systems, test every pair, correct, call the baseline comparisons, tier and frontier."""
    alpha, correction = inputs.alpha, inputs.correction
    confidence = 1.0 - alpha
    ranked = rank(systems)
    labels = [s.label for s in ranked]
    baselines = {label: _as_baseline(experiments[label]) for label in labels}
    scored = inputs.metric == "mean"
    raw: list[tuple[str, str, PairedEvidence, Counter[str], PerTask]] = []
    for i, a in enumerate(labels):
        for b in labels[i + 1 :]:
            raw.append((a, b, *_counts(experiments[a], baselines[b], common, scored)))
    tests = [(c.difference(confidence), c.sign_flip()) for _a, _b, c, _i, _t in raw]
    # the corrected family is the pairs actually compared (>= 2 shared tasks), as generator.stats.leaderboard's
    compared = [i for i, (difference, _f) in enumerate(tests) if difference.tasks >= 2]
    adjusted = [1.0] * len(tests)
    for i, p_adj in zip(compared, adjust([tests[i][1].p_value for i in compared], correction), strict=True):
        adjusted[i] = p_adj
    pairs = tuple(
        PairComparison(
            a=a,
            b=b,
            pairs=counts.pairs,
            tasks=difference.tasks,
            issue_counts=dict(sorted(issues.items())),
            per_task=per_task,
            difference=difference,
            sign_flip=flip,
            p_adjusted=p_adj,
            distinguishable=_called(p_adj, difference.interval, alpha) != NOT_DISTINGUISHABLE,
        )
        for (a, b, counts, issues, per_task), (difference, flip), p_adj in zip(raw, tests, adjusted, strict=True)
    )
    by_pair = {(p.a, p.b): p for p in pairs}
    # a system compared with no other one (fewer than two shared tasks with each) is neither tiered nor
    # ranked among them: tier 0, listed after the others; a system that shares fewer than two tasks with
    # a tier's leader was never compared with it: it leads a tier of its own rather than join one (issue 25)
    isolated = {label for label in labels if not any(_comparable(p) for p in pairs if label in (p.a, p.b))}
    if len(isolated) == len(labels):
        isolated = set()  # nothing compared at all: the ranking is all there is
    tiers = greedy_tiers(
        [label for label in labels if label not in isolated],
        lambda leader, other: by_pair[(leader, other)].distinguishable or not _comparable(by_pair[(leader, other)]),
    )
    groups, not_comparable = _groups(labels, pairs)
    tier_of = {label: index + 1 for index, tier in enumerate(tiers) for label in tier}
    ranked = sorted(ranked, key=lambda s: s.label in isolated)  # stable: the others keep their order
    ranked = [dataclasses.replace(s, rank=i + 1, tier=tier_of.get(s.label, 0)) for i, s in enumerate(ranked)]
    cache = {(a, b): (counts, issues, per_task) for a, b, counts, issues, per_task in raw}
    against = _against_baseline(inputs, labels, cache) if inputs.baseline else ()
    field, frontier = _frontier(ranked)
    return LeaderboardResult(
        inputs=inputs,
        ks=inputs.ks,
        alpha=alpha,
        correction=correction,
        tasks=tuple(sorted({task for task, _rep in common})),
        expected_keys=len(common),
        systems=tuple(ranked),
        baseline=inputs.baseline,
        against_baseline=against,
        pairs=pairs,
        tiers=tiers,
        frontier_field=field,
        frontier=frontier,
        groups=groups,
        not_comparable=not_comparable,
        metric=inputs.metric,
    )


def _comparable(pair: PairComparison) -> bool:
    """Two systems are compared only over at least two shared tasks (the interval over tasks needs two)."""
    return pair.tasks >= 2


def _groups(
    ranked: Sequence[str], pairs: Sequence[PairComparison]
) -> tuple[dict[str, tuple[str, ...]], tuple[tuple[str, str], ...]]:
    """Each system's group labels: the maximal cliques of the "compared and not distinguishable" graph
    (``analyze/stats/groups.py``), labelled a, b, ... from the clique holding the best-ranked system;
    and the pairs that were not compared."""
    from generator.analyze.stats.groups import group_labels, maximal_cliques

    adjacent: dict[str, set[str]] = {label: set() for label in ranked}
    for pair in pairs:
        if _comparable(pair) and not pair.distinguishable:
            adjacent[pair.a].add(pair.b)
            adjacent[pair.b].add(pair.a)
    cliques = maximal_cliques(ranked, {label: frozenset(others) for label, others in adjacent.items()})
    position = {label: index for index, label in enumerate(ranked)}
    cliques.sort(key=lambda clique: sorted(position[m] for m in clique))
    labelled = dict(zip(group_labels(), cliques, strict=False))
    groups = {label: tuple(name for name, clique in labelled.items() if label in clique) for label in ranked}
    return groups, tuple((p.a, p.b) for p in pairs if not _comparable(p))


def _oriented(cache: Mapping[tuple[str, str], _Counted], a: str, b: str) -> _Counted:
    """The pair (a, b) from the all-pairs alignment, swapped when it was aligned as (b, a)."""
    if (a, b) in cache:
        return cache[(a, b)]
    evidence, issues, per_task = cache[(b, a)]
    return evidence.swapped(), issues, tuple((t, n, y, x) for t, n, x, y in per_task)


def _against_baseline(
    inputs: LeaderboardInputs, labels: Sequence[str], cache: Mapping[tuple[str, str], _Counted]
) -> tuple[BaselineComparison, ...]:
    alpha, correction, base = inputs.alpha, inputs.correction, inputs.baseline
    assert base is not None
    others = [label for label in labels if label != base]
    counted = [_oriented(cache, label, base) for label in others]
    differences = [c.difference(1.0 - alpha) for c, _i, _t in counted]
    flips = [c.sign_flip() for c, _i, _t in counted]
    adjusted = adjust([f.p_value for f in flips], correction)
    rejections = sum(1 for p in adjusted if p < alpha)
    level = simultaneous_confidence(alpha, len(others), correction, rejections)
    name = CORRECTION_NAMES[correction]
    out = []
    for label, (counts, issues, per_task), difference, flip, p_adj in zip(
        others, counted, differences, flips, adjusted, strict=True
    ):
        simultaneous = counts.difference(level).interval
        simultaneous = dataclasses.replace(
            simultaneous,
            method=f"task-clustered t interval at {level:.4g} per comparison "
            + {
                "holm": f"(Bonferroni over {len(others)}: simultaneous coverage >= {1 - alpha:.0%})",
                "bh": f"(Benjamini-Yekutieli false-coverage-rate interval, {rejections} of {len(others)} selected)",
                "none": "(no multiplicity adjustment: not simultaneous)",
            }[correction],
        )
        # planned at alpha / m: a p-value below it is rejected by Bonferroni, hence by Holm and BH too
        planning_alpha = alpha if correction == "none" else alpha / len(others)
        power = counts.power(planning_alpha) if counts.pairs else None
        outcome = _called(p_adj, difference.interval, alpha)
        needed = _needed(counts, power, difference.estimate) if outcome == NOT_DISTINGUISHABLE else None
        sentence = _sentence(outcome, label, base, difference.estimate, (p_adj, name, alpha), power, needed)
        pair = PairComparison(
            label,
            base,
            counts.pairs,
            difference.tasks,
            dict(sorted(issues.items())),
            per_task,
            difference,
            flip,
            p_adj,
            outcome != NOT_DISTINGUISHABLE,
        )
        out.append(BaselineComparison(label, pair, p_adj, simultaneous, power, outcome, sentence))
    return tuple(out)


def _needed(evidence: PairedEvidence, power: PowerAnalysis | None, estimate: float | None) -> int | None:
    """About how many tasks the rule would need to detect the observed difference (None: not said)."""
    if power is None or estimate is None or abs(estimate) < 0.005:
        return None
    return evidence.tasks_needed(power, abs(estimate))


def _sentence(
    outcome: str,
    label: str,
    base: str,
    estimate: float | None,
    test: tuple[float, str, float],
    power: PowerAnalysis | None,
    needed: int | None,
) -> str:
    p_adj, correction, alpha = test
    if estimate is None:
        return f"{label} was not compared with {base}: no strictly matched pair"
    shown = f"{100 * estimate:+.1f} points, adjusted p = {p_adj:.3g} ({correction})"
    if outcome == BETTER:
        return f"{label} is better than {base} ({shown})"
    if outcome == WORSE:
        return f"{label} is worse than {base} ({shown})"
    sentence = f"{label} is not distinguishable from {base} at alpha {alpha:g} after correction ({shown})"
    if power is not None and needed is not None:
        sentence += f"; about {needed:,} tasks would be needed to detect {100 * abs(estimate):.1f} points" + (
            f" at alpha {power.alpha:.2g} (the corrected level)" if power.alpha < alpha else ""
        )
    return sentence


def _frontier(ranked: Sequence[SystemResult]) -> tuple[str | None, tuple[str, ...]]:
    """Cost when two or more systems have it, else duration; the Pareto frontier against the ranked metric."""
    getters: tuple[tuple[str, Callable[[SystemResult], float | None]], ...] = (
        ("total_cost_usd", lambda s: s.cost.mean),
        ("duration_seconds", lambda s: s.duration.mean),
    )
    for field, get in getters:
        points: dict[str, tuple[float, float]] = {}
        for s in ranked:
            value, score = get(s), s.ranked_value
            if value is not None and score is not None:
                points[s.label] = (value, score)
        if len(points) >= 2:
            return field, pareto_frontier(points)
    return None, ()
