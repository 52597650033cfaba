"""A comparison's scores (issue 29): ``metric: mean`` over the matched pairs, and every scorer's means.

Pure functions over the aligned pairs.  Each run's score is :func:`generator.model.scores.run_score`;
under ``metric: mean`` a matched run without a number, or with one outside [0, 1], stops the
comparison with one line naming it (never coerced, never dropped silently).  A log with several
scorers gets each scorer's task-macro mean per side over the pairs where both sides have its number;
only the chosen scorer decides.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from generator.analyze.stats.scores import score_comparison
from generator.model.comparison import Pair
from generator.model.errors import EvalsiteError
from generator.model.runs import RunRecord
from generator.model.scores import (
    ScoreComparison,
    ScoreMetric,
    ScorerMeans,
    ScoreSection,
    deciding_scorer,
    run_score,
    scorer_values,
)

__all__ = ["checked_score", "mean_scores", "score_section", "scorer_means"]

#: Scorers shown beside the deciding one, at most.
MAX_SCORERS = 20


def _shown(task: str) -> str:
    return repr(task if len(task) <= 60 else task[:57] + "...")


def mean_scores(pairs: Sequence[Pair]) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Per side, task -> the matched runs' scores in repetition order; EvalsiteError for a run without
    a number in [0, 1]."""
    out: tuple[dict[str, list[float]], dict[str, list[float]]] = ({}, {})
    for pair in pairs:
        for held, record in zip(out, (pair.candidate, pair.baseline), strict=True):
            held.setdefault(pair.task, []).append(checked_score(record, f"{record.side} run"))
    return out


def checked_score(record: RunRecord, who: str) -> float:
    """The run's score (:func:`generator.model.scores.run_score`) when it is a number in [0, 1]; else an
    EvalsiteError in one line naming ``who`` (the side or the system), the task and the repetition."""
    score = run_score(record)
    if score is None or not 0.0 <= score <= 1.0:
        what = "no numeric score" if score is None else f"the score {score:g}, outside [0, 1]"
        raise EvalsiteError(
            f"metric mean: {who} {_shown(record.task)} repetition {record.rep} has {what}; "
            "the mean needs every matched run scored between 0 and 1 (use metric pass@k with a pass_threshold)"
        )
    return score


def scorer_means(pairs: Sequence[Pair], deciding: str | None) -> tuple[ScorerMeans, ...]:
    """Each scorer's task-macro mean per side over the pairs where both sides have its number (deciding
    first, then by name); empty when the runs record fewer than two scorers."""
    values = [(pair.task, scorer_values(pair.candidate), scorer_values(pair.baseline)) for pair in pairs]
    names = {name for _task, c, b in values for name in (*c, *b)}
    if len(names) < 2:
        return ()
    order = sorted(names, key=lambda name: (name != deciding, name))[:MAX_SCORERS]
    out = []
    for name in order:
        per_task: dict[str, tuple[list[float], list[float]]] = {}
        missing = 0
        for task, held_c, held_b in values:
            c, b = held_c.get(name), held_b.get(name)
            if c is None or b is None:
                missing += 1
                continue
            held = per_task.setdefault(task, ([], []))
            held[0].append(c)
            held[1].append(b)
        candidate = statistics.fmean(statistics.fmean(c) for c, _b in per_task.values()) if per_task else None
        baseline = statistics.fmean(statistics.fmean(b) for _c, b in per_task.values()) if per_task else None
        pairs_used = sum(len(c) for c, _b in per_task.values())
        out.append(ScorerMeans(name, name == deciding, candidate, baseline, len(per_task), pairs_used, missing))
    return tuple(out)


def score_section(
    pairs: Sequence[Pair], metric: ScoreMetric, scorer: str | None, total_tasks: int
) -> ScoreSection | None:
    """The comparison's scores: None for ``pass@k`` with one scorer (nothing to add)."""
    deciding = scorer if scorer is not None or not pairs else deciding_scorer(pairs[0].candidate)
    means = scorer_means(pairs, deciding)
    comparison: ScoreComparison | None = None
    if metric == "mean":
        candidate, baseline = mean_scores(pairs)
        comparison = score_comparison(candidate, baseline, scorer=deciding, total_tasks=total_tasks)
    if comparison is None and not means:
        return None
    return ScoreSection(metric, deciding, comparison, means)
