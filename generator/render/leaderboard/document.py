"""The ``evalsite.leaderboard.v1`` document of a leaderboard result (docs/leaderboard.md).

Keys sorted by the JSON writer; undefined numbers are ``null``; experiments are
named by folder name, report files by file name, never by path.  A ``metric: mean`` board (issue 29)
adds keys (``metric``, ``scorer``, a system's ``mean_score``, each task's and run's score, a pair's
per-task means); a pass@k board's document has none of them.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from generator.model.leaderboard import (
    CORRECTION_NAMES,
    GROUPS_RULE,
    LEADERBOARD_SCHEMA,
    TIER_RULE,
    LeaderboardResult,
    PairComparison,
    SystemResult,
)
from generator.model.scores import DEFAULT_METRIC, ScoreMetric
from generator.model.stats import Interval, MetricEstimate

__all__ = ["leaderboard_document", "pair_json", "system_json"]


def _interval(iv: Interval) -> dict[str, Any]:
    return {
        "lower": iv.lower,
        "upper": iv.upper,
        "confidence": iv.confidence,
        "method": iv.method,
        "note": iv.note,
    }


def _metric(m: MetricEstimate) -> dict[str, Any]:
    return {
        "estimate": m.estimate,
        "interval": _interval(m.interval),
        "betting": _interval(m.betting),
        "eligible_tasks": m.eligible_tasks,
        "total_tasks": m.total_tasks,
    }


def system_json(s: SystemResult) -> dict[str, Any]:
    first = s.macro[0].pass_at_k if s.macro else None
    logs = {"logs": s.logs.to_json()} if s.logs is not None and s.logs.notable else {}  # as a comparison side's
    if s.mean is not None:  # metric mean: additive keys
        logs["mean_score"] = _metric(s.mean)
    out: dict[str, Any] = logs | {
        "label": s.label,
        "treatment": s.treatment,
        "experiment": s.experiment,
        "format": s.format,
        "rank": s.rank,
        "tier": s.tier or None,  # None: compared with no other system
        "reports": s.reports,
        "expected_keys": s.expected_keys,
        "aligned_keys": s.aligned_keys,
        "coverage": s.coverage,
        "pass_at_k": {str(m.k): _metric(m.pass_at_k) for m in s.macro},
        "pass_pow_k": {str(m.k): _metric(m.pass_pow_k_unbiased) for m in s.macro},
        "pass_pow_k_observed": {str(m.k): _metric(m.pass_pow_k_observed) for m in s.macro},
        "interval": _interval(first.interval) if first is not None and first.k == 1 else None,
        "run_accuracy_mean": s.run_accuracy.mean,
        "run_accuracy_stderr": s.run_accuracy.stderr,
        "run_accuracy": {
            "runs": s.run_accuracy.runs,
            "accuracies": list(s.run_accuracy.accuracies),
            "note": s.run_accuracy.note,
            "method": s.run_accuracy.method,
        },
        "cost_usd": {
            "mean": s.cost.mean,
            "runs_with_value": s.cost.runs_with_value,
            "aligned_runs": s.cost.aligned_runs,
            "source": s.cost.source,
        },
        "duration_seconds": {
            "mean": s.duration.mean,
            "runs_with_value": s.duration.runs_with_value,
            "aligned_runs": s.duration.aligned_runs,
            "source": s.duration.source,
        },
        "issue_counts": dict(sorted(Counter(i.reason for i in s.issues).items())),
        "issues": [i.to_json() for i in s.issues],
        "skipped_reports": [{"file": f, "reason": r} for f, r in s.skipped],
        "task_outcomes": [
            {"task": t, "reps": list(s.reps[t]), "passes": sum(s.outcomes[t])} for t in sorted(s.outcomes)
        ],
        "runs": [
            {
                "task": r.task,
                "rep": r.rep,
                "file": r.file,
                "passed": r.passed,
                "checks_failed": list(r.checks_failed),
                "aligned": r.aligned,
                "quality": r.quality,
                "manifest": r.manifest,
                "duration_seconds": r.duration_seconds,
                "cost_usd": r.cost_usd,
            }
            for r in s.runs
        ],
    }
    if s.mean is not None:  # each task's mean score and each aligned run's score
        for task in out["task_outcomes"]:
            task["mean_score"] = s.task_means[task["task"]]
        for run, r in zip(out["runs"], s.runs, strict=True):
            run["score"] = r.score
    return out


def pair_json(p: PairComparison, metric: ScoreMetric = DEFAULT_METRIC) -> dict[str, Any]:
    out = {
        "a": p.a,
        "b": p.b,
        "pairs": p.pairs,
        "tasks": p.tasks,
        "difference": p.difference.estimate,
        "interval": _interval(p.difference.interval),
        "design_effect": p.difference.design_effect,
        "p_value": p.sign_flip.p_value,
        "p_method": p.sign_flip.method,
        "p_adjusted": p.p_adjusted,
        "distinguishable": p.distinguishable,
        "issue_counts": dict(p.issue_counts),
        "per_task": [{"task": t, "pairs": n, "a_passes": x, "b_passes": y} for t, n, x, y in p.per_task],
    }
    if metric == "mean":  # the per-task sums are scores: each side's mean score on the task's pairs
        out["metric"] = metric
        out["per_task"] = [{"task": t, "pairs": n, "a_mean": x / n, "b_mean": y / n} for t, n, x, y in p.per_task]
    return out


def leaderboard_document(result: LeaderboardResult) -> dict[str, Any]:
    tier_of = {s.label: s.tier for s in result.systems}
    scored: dict[str, Any] = {}
    if result.metric == "mean":  # additive: what ranks, and the scorer that decides (null: each log's first)
        scored = {"metric": result.metric, "scorer": result.inputs.import_options.scorer}
    return scored | {
        "schema": LEADERBOARD_SCHEMA,
        "ks": list(result.ks),
        "alpha": result.alpha,
        "correction": result.correction,
        "correction_method": CORRECTION_NAMES[result.correction],
        "baseline": result.baseline,
        "tasks": list(result.tasks),
        "expected_keys": result.expected_keys,
        "systems": [system_json(s) for s in result.systems],
        "against_baseline": [
            {
                "label": b.label,
                "baseline": b.pair.b,
                "pairs": b.pair.pairs,
                "tasks": b.pair.tasks,
                "difference": b.pair.difference.estimate,
                "interval": _interval(b.pair.difference.interval),
                "simultaneous_interval": _interval(b.simultaneous),
                "p_value": b.pair.sign_flip.p_value,
                "p_method": b.pair.sign_flip.method,
                "p_adjusted": b.p_adjusted,
                "tier": tier_of[b.label],
                "outcome": b.outcome,
                "sentence": b.sentence,
                "mde": b.power.mde if b.power is not None else None,
            }
            for b in result.against_baseline
        ],
        "pairs": [pair_json(p, result.metric) for p in result.pairs],
        "tiers": [list(t) for t in result.tiers],
        "tier_rule": TIER_RULE,
        "groups": {label: list(result.groups.get(label, ())) for label in (s.label for s in result.systems)},
        "groups_rule": GROUPS_RULE,
        "not_comparable": [list(pair) for pair in result.not_comparable],
        "frontier": {"field": result.frontier_field, "labels": list(result.frontier)},
    }
