"""The Markdown report of a leaderboard result (``evalsite leaderboard --format markdown``).

Labels, treatments, experiment names and the sentences that quote them are untrusted: written as
inert Markdown text by the comparison report's :func:`untrusted` (no link, image, emphasis or HTML
from a name)."""

from __future__ import annotations

from collections import Counter

from generator.model.leaderboard import CORRECTION_NAMES, GROUPS_RULE, TIER_RULE, LeaderboardResult, SystemResult
from generator.pages import format as fmt
from generator.pages.leaderboard.frontier import telemetry_cell
from generator.render.comparison.report import untrusted

__all__ = ["leaderboard_markdown"]


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return [_row(header), "| " + " | ".join("---" for _ in header) + " |", *(_row(r) for r in rows)]


def _pct_interval(lower: float | None, upper: float | None) -> str:
    if lower is None or upper is None:
        return fmt.NA
    return f"[{100 * lower:.1f}, {100 * upper:.1f}]"


def _points(value: float | None) -> str:
    return fmt.NA if value is None else f"{100 * value:+.1f}"


def _run_accuracy(s: SystemResult) -> str:
    ra = s.run_accuracy
    if ra.mean is None:
        return fmt.NA
    return f"{100 * ra.mean:.1f}%" + (f" ± {100 * ra.stderr:.1f}" if ra.stderr is not None else "")


_MEAN_NOTE = (
    " Metric mean: the task-macro mean score in [0, 1] ranks and decides every test (differences in points, x 100);"
    " pass@1 at the pass threshold is shown beside it, not deciding."
)


def _score_interval(lower: float | None, upper: float | None) -> str:
    return fmt.NA if lower is None or upper is None else f"[{lower:.3f}, {upper:.3f}]"


def leaderboard_markdown(result: LeaderboardResult) -> str:
    lines = [
        "# Leaderboard",
        "",
        f"{len(result.systems)} systems on {len(result.tasks):,} tasks "
        f"({result.expected_keys:,} expected task/rep keys); "
        f"alpha {result.alpha:g}, correction: {CORRECTION_NAMES[result.correction]}"
        + (f"; baseline: {untrusted(result.baseline)}." if result.baseline else "; no baseline."),
        "",
        *(line for sentence in result.run_status for line in (f"> **Run status:** {untrusted(sentence)}", "")),
        "## Ranking",
        "",
        f"Sorted by task-macro {result.ranked_by} with its 95% t interval over tasks. Run accuracy is the benchmark's "
        "own statistic (mean of per-run accuracies ± standard error), shown only when every task has the same runs."
        + (_MEAN_NOTE if result.metric == "mean" else ""),
        "",
    ]
    lines += _ranking(result)
    lines += ["", "## Groups", "", GROUPS_RULE, ""]
    lines += [f"- {untrusted(s.label)}: {', '.join(result.groups.get(s.label, ()))}" for s in result.systems]
    lines += [f"- not comparable: {untrusted(a)} and {untrusted(b)}" for a, b in result.not_comparable]
    lines += ["", "## Tiers", "", TIER_RULE, ""]
    lines += [f"- Tier {index}: {', '.join(map(untrusted, tier))}" for index, tier in enumerate(result.tiers, 1)]
    lines.append("")
    lines += _against_baseline(result)
    lines += _pairwise(result)
    lines += ["", "## Coverage and issues", ""]
    lines += _coverage(result)
    return "\n".join(lines) + "\n"


def _ranking(result: LeaderboardResult) -> list[str]:
    """The ranking table: each system's pass@k, pass^k, run accuracy, coverage, cost and duration."""
    ks = result.ks
    mean = result.metric == "mean"
    header = ["Rank", "Tier", "System", "Treatment", *(("Mean score", "95% interval (mean)") if mean else ())]
    header += ["pass@1", "95% interval"]
    header += [f"pass@{k}" for k in ks if k != 1] + [f"pass^{k}" for k in ks]
    header += ["Run accuracy", "Coverage", "Mean cost", "Mean duration"]
    rows = []
    for s in result.systems:
        by_k = {m.k: m for m in s.macro}
        first = by_k.get(1)
        row = [str(s.rank), str(s.tier), untrusted(s.label), untrusted(s.treatment)]
        if s.mean is not None:
            row += [fmt.fixed(s.mean.estimate, 3), _score_interval(s.mean.interval.lower, s.mean.interval.upper)]
        row.append(fmt.pct(s.pass_at_1))
        row.append(_pct_interval(first.pass_at_k.interval.lower, first.pass_at_k.interval.upper) if first else fmt.NA)
        row += [fmt.pct(by_k[k].pass_at_k.estimate) for k in ks if k != 1]
        row += [fmt.pct(by_k[k].pass_pow_k_unbiased.estimate) for k in ks]
        row += [
            _run_accuracy(s),
            f"{s.aligned_keys}/{s.expected_keys} ({fmt.pct(s.coverage)})",
            telemetry_cell(s.cost, "usd").text,  # "(reported)" after a mean the harness reported
            telemetry_cell(s.duration, "seconds").text,
        ]
        rows.append(row)
    return _table(header, rows)


def _against_baseline(result: LeaderboardResult) -> list[str]:
    """Each system minus the baseline, with plain and simultaneous intervals and corrected p (none without one)."""
    if not result.baseline:
        return []
    against = f"Each system minus {untrusted(result.baseline)}, over the keys both have."
    lines = ["## Against the baseline", "", against, ""]
    rows = [
        [
            untrusted(b.label),
            str(b.pair.pairs),
            _points(b.pair.difference.estimate),
            _pct_interval(b.pair.difference.interval.lower, b.pair.difference.interval.upper),
            _pct_interval(b.simultaneous.lower, b.simultaneous.upper),
            fmt.p_value_report(b.pair.sign_flip.p_value),
            fmt.p_value_report(b.p_adjusted),
            untrusted(b.sentence),
        ]
        for b in result.against_baseline
    ]
    lines += _table(
        [
            "System",
            "Pairs",
            "Difference (points)",
            "Interval",
            "Simultaneous interval",
            "p",
            "p adjusted",
            "Verdict",
        ],
        rows,
    )
    lines.append("")
    return lines


def _pairwise(result: LeaderboardResult) -> list[str]:
    """Row minus column in the ranked metric's points, with the pairs and distinguishability after correction."""
    lines = [
        "## Pairwise differences",
        "",
        f"Row minus column in {result.ranked_by} points (n pairs); * = distinguishable after correction.",
        "",
    ]
    labels = [s.label for s in result.systems]
    rows = []
    for a in labels:
        row = [untrusted(a)]
        for b in labels:
            if a == b:
                row.append("—")
                continue
            p = result.pair(a, b)
            sign = 1 if p.a == a else -1
            d = p.difference.estimate
            shown = fmt.NA if d is None else f"{100 * sign * d:+.1f}"
            row.append(f"{shown}{'*' if p.distinguishable else ''} ({p.pairs})")
        rows.append(row)
    return lines + _table(["System", *map(untrusted, labels)], rows)


def _coverage(result: LeaderboardResult) -> list[str]:
    """Each system's reports, aligned keys, issues by reason and skipped reports; the Pareto frontier."""
    lines: list[str] = []
    rows = [
        [
            untrusted(s.label),
            untrusted(s.experiment),
            str(s.reports),
            f"{s.aligned_keys}/{s.expected_keys}",
            ", ".join(f"{r}: {n}" for r, n in sorted(Counter(i.reason for i in s.issues).items())) or "none",
            str(len(s.skipped)),
        ]
        for s in result.systems
    ]
    lines += _table(["System", "Experiment", "Reports", "Aligned keys", "Issues", "Skipped reports"], rows)
    if result.frontier_field:
        what = "mean cost" if result.frontier_field == "total_cost_usd" else "mean duration"
        lines += ["", f"Pareto frontier ({what} vs {result.ranked_by}): {', '.join(map(untrusted, result.frontier))}"]
    return lines
