"""The comparison page's scores (issue 29): the ``metric: mean`` verdict box and tables, and every
scorer's means beside the deciding one.

Formats the typed :class:`~generator.model.scores.ScoreSection` the comparison computed; nothing
here computes.  Effects of the mean score are in *points* (the difference of mean scores x 100).
This is a block of its own beside the pass@1 verdict box (:mod:`.statistics`).
"""

from __future__ import annotations

from generator.model.scores import ScoreComparison, ScorerMeans, ScoreSection
from generator.model.stats import BETTER, WORSE
from generator.model.stats import Verdict as StatisticsVerdict
from generator.pages import format as fmt
from generator.pages.comparison.stat_tables import facts_table, metric_row, metric_table, p_text
from generator.pages.models import Cell, Column, Row, Table, Verdict

__all__ = ["decision_effect", "effect_text", "points", "points_interval", "score_tables", "score_verdict"]

_KIND = {BETTER: "better", WORSE: "worse"}
_METHOD = (
    "metric mean: the task-macro mean score decides, by the same rule as pass@1: the 95% task-clustered interval "
    "over per-task mean differences excludes zero and the sign-flip test over tasks agrees (p < 0.05)"
)


def points(value: float | None) -> str:
    """A difference of mean scores in signed points, x 100 ("+5.2 points"); N/A when undefined."""
    return fmt.NA if value is None else fmt.pp(value)[:-3] + " points"


def points_interval(lower: float | None, upper: float | None) -> str:
    """An interval of a difference of mean scores in points ("[−1.0, +11.4] points")."""
    if lower is None or upper is None:
        return fmt.NA
    return f"[{points(lower)[:-7]}, {points(upper)[:-7]}] points"


def _score(value: float | None) -> str:
    return fmt.NA if value is None else fmt.fixed(value, 3)


def effect_text(verdict: StatisticsVerdict, *, in_points: bool = False) -> str:
    """The effect size of a verdict with its interval: pass@1's in pp, or (``in_points``) a mean score's."""
    text = points(verdict.difference) if in_points else fmt.pp(verdict.difference)
    if verdict.lower is not None and verdict.upper is not None:
        shown = points_interval if in_points else fmt.pp_interval
        text += f", {verdict.confidence:.0%} interval {shown(verdict.lower, verdict.upper)}"
    return text


def decision_effect(scores: ScoreSection | None, verdict: StatisticsVerdict) -> tuple[str, str]:
    """(label, text) of the deciding effect: the mean score's in points, else pass@1's in pp."""
    if scores is not None and scores.comparison is not None:
        return "Difference in mean score (candidate − baseline)", effect_text(verdict, in_points=True)
    return "Difference in pass@1 (candidate − baseline)", effect_text(verdict)


def score_verdict(scores: ScoreSection) -> Verdict | None:
    """The verdict box of ``metric: mean``; None for a pass@k comparison."""
    result = scores.comparison
    if result is None:
        return None
    verdict = result.verdict
    levels = f"{_score(result.candidate.estimate)} vs {_score(result.baseline.estimate)}"
    scorer = f" of {scores.scorer}" if scores.scorer else ""
    facts = [
        (
            f"Difference in mean score{scorer} (candidate − baseline)",
            f"{levels}: " + decision_effect(scores, verdict)[1],
            "mean-score",
        ),
        (
            "Tasks / strictly matched pairs",
            f"{result.difference.tasks:,} tasks / {result.difference.pairs:,} pairs",
            "strictly-matched-pair",
        ),
        (
            "Tasks won / lost / tied by the candidate",
            f"{result.tasks.wins:,} / {result.tasks.losses:,} / {result.tasks.ties:,}",
            "wins-losses-ties",
        ),
        ("Sign-flip test over tasks", p_text(result.sign_flip.p_value), "sign-flip-test"),
    ]
    power = result.power
    facts.append(
        (
            "Minimum detectable difference",
            f"{power.mde * 100:.1f} points at {power.power:.0%} power" if power.mde is not None else "not stated",
            "mde",
        )
    )
    sentence = verdict.sentence[:1].upper() + verdict.sentence[1:]
    return Verdict(sentence, _KIND.get(verdict.outcome, "undecided"), _METHOD, tuple(facts))


def _mean_table(result: ScoreComparison, scorer: str | None) -> Table:
    rows = [
        metric_row(side, metric) for side, metric in (("Candidate", result.candidate), ("Baseline", result.baseline))
    ]
    return metric_table(
        "stats-mean-table",
        "Mean score" + (f" of {scorer}" if scorer else "") + ": the task-macro mean over strictly matched pairs "
        "with 95% intervals over tasks (t interval clipped to [0, 1]; betting interval valid at any task count)",
        rows,
    )


def _paired_mean_table(result: ScoreComparison) -> Table:
    diff, power = result.difference, result.power
    facts = [
        (
            "Wins / losses / ties over runs",
            f"{result.runs.wins:,} / {result.runs.losses:,} / {result.runs.ties:,}",
            result.runs.method,
            "wins-losses-ties",
        ),
        (
            "Wins / losses / ties over tasks",
            f"{result.tasks.wins:,} / {result.tasks.losses:,} / {result.tasks.ties:,}",
            result.tasks.method,
            "wins-losses-ties",
        ),
        (
            "Difference in mean score (candidate − baseline)",
            f"{points(diff.estimate)} {points_interval(diff.interval.lower, diff.interval.upper)}",
            diff.interval.method,
            "task-clustered-interval",
        ),
        (
            "Naive run-level interval",
            points_interval(diff.naive_interval.lower, diff.naive_interval.upper),
            diff.naive_interval.method,
            "naive-interval",
        ),
        (
            "Design effect",
            fmt.fixed(diff.design_effect, 2),
            "variance of the task-clustered estimate / variance assuming independent runs",
            "design-effect",
        ),
        ("Sign-flip test over tasks", p_text(result.sign_flip.p_value), result.sign_flip.method, "sign-flip-test"),
        (
            "Minimum detectable difference",
            f"{power.mde * 100:.1f} points at {power.power:.0%} power with {power.tasks:,} tasks"
            if power.mde is not None
            else "not stated (too few tasks for the rule to reach its level, or no difference up to 100 points)",
            power.method,
            "mde",
        ),
    ]
    caption = "Paired statistics of the mean score over strictly matched pairs (the metric that decides)"
    return facts_table("stats-mean-paired-table", caption, facts)


def _scorer_row(item: ScorerMeans) -> Row:
    role = "decides" if item.deciding else "not deciding"
    return Row(
        (
            Cell(item.scorer),
            Cell(role),
            fmt.num_cell(item.candidate, _score(item.candidate)),
            fmt.num_cell(item.baseline, _score(item.baseline)),
            fmt.num_cell(item.difference, points(item.difference)),
            fmt.num_cell(
                item.pairs, f"{item.pairs:,}" + (f" ({item.missing:,} without a value)" if item.missing else "")
            ),
        )
    )


def _scorers_table(scores: ScoreSection) -> Table:
    return Table(
        id="stats-scorers-table",
        caption=(
            "Every scorer of the logs: each side's task-macro mean of the scorer's values as numbers (C = 1, P = 0.5, "
            "I = 0: the pass rate of a pass/fail scorer) over the matched pairs both sides scored; only the scorer "
            "that decides makes the verdict"
        ),
        columns=(
            Column("Scorer"),
            Column("Role"),
            Column("Candidate mean", True),
            Column("Baseline mean", True),
            Column("Difference", True),
            Column("Pairs", True),
        ),
        rows=tuple(_scorer_row(item) for item in scores.scorers),
    )


def score_tables(scores: ScoreSection) -> tuple[Table, ...]:
    """The mean score's tables (``metric: mean``) and the scorers table (several scorers)."""
    tables: list[Table] = []
    if scores.comparison is not None:
        tables += [_mean_table(scores.comparison, scores.scorer), _paired_mean_table(scores.comparison)]
    if scores.scorers:
        tables.append(_scorers_table(scores))
    return tuple(tables)
