#!/usr/bin/env python3
"""Measure every error rate ``generator.stats`` states, by simulation (``make calibrate``).

Model (realistic for agent evaluations): a task's pass rate p_t ~ Beta(1.2, 1.8) (mean 0.4; many
tasks nearly always or nearly never solved), shared by all systems on a board; each repetition is
Bernoulli(p_t), independent across systems.  A system better by Delta passes task t with
p_t + Delta / (1 - 0.4) * (1 - p_t) (worse: p_t * (1 + Delta / 0.4)), so Delta is the task-population
difference.  Every claim is measured against its nominal value with its Monte Carlo standard error
(s.e.) and judged PASS when the measured value is within the tolerance allowing two s.e.

    python bench/calibrate.py [--quick] [--seed 25] [--only mean_scores|mean_power|...]

Seeded and deterministic: the same seed prints the same table.  Default about 4 minutes on one core;
``--quick`` about 30 seconds (fewer replications, larger s.e.).  Exit status 1 when a claim fails.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from generator import stats  # noqa: E402
from generator.analyze.leaderboard.tiers import greedy_tiers  # noqa: E402
from generator.analyze.stats.experiment import task_macro_from_counts  # noqa: E402
from generator.analyze.stats.rule import (  # noqa: E402
    decide,
    minimum_detectable_difference,
    paired_scores,
    tasks_needed,
)

A, B = 1.2, 1.8
MU = A / (A + B)
Scores = dict[str, list[float]]


def pass_rates(rng: np.random.Generator, tasks: int) -> np.ndarray:
    return rng.beta(A, B, tasks)


def shifted(p: np.ndarray, delta: float) -> np.ndarray:
    return p + delta / (1.0 - MU) * (1.0 - p) if delta >= 0 else p * (1.0 + delta / MU)


def runs(rng: np.random.Generator, p: np.ndarray, reps: int, delta: float = 0.0) -> Scores:
    q = shifted(p, delta)
    passed = rng.random((p.size, reps)) < q[:, None]
    return {f"task-{i:04d}": [float(x) for x in row] for i, row in enumerate(passed)}


class Table:
    def __init__(self) -> None:
        self.rows: list[str] = []
        self.failed = 0

    def add(
        self, claim: str, setting: str, nominal: str, value: float, n: int, ok: Callable[[float, float], bool]
    ) -> None:
        se = math.sqrt(max(value * (1.0 - value), 0.25 / n) / n)
        passed = ok(value, se)
        self.failed += not passed
        self.rows.append(
            f"| {claim} | {setting} | {nominal} | {100 * value:.1f}% | {100 * se:.1f} | {n:,} | "
            f"{'PASS' if passed else 'FAIL'} |"
        )

    def note(self, claim: str, setting: str, text: str, n: int) -> None:
        self.rows.append(f"| {claim} | {setting} | - | {text} | - | {n:,} | info |")


def at_most(limit: float) -> Callable[[float, float], bool]:
    return lambda v, se: v - 2 * se <= limit


def at_least(limit: float) -> Callable[[float, float], bool]:
    return lambda v, se: v + 2 * se >= limit


def within(target: float, tol: float) -> Callable[[float, float], bool]:
    return lambda v, se: abs(v - target) <= tol + 2 * se


def _false_and_coverage(
    table: Table,
    rng: np.random.Generator,
    n: int,
    sizes: tuple[tuple[int, int], ...],
    draw: Callable[[np.random.Generator, int, int, float], tuple[Scores, Scores]],
    names: tuple[str, str, str],
) -> None:
    """False 'better'/'worse' at Delta = 0, and interval coverage at Delta = 0 and +0.05: ``draw`` gives a
    (candidate, baseline) pair of new tasks; ``names``: the two claims and the setting's suffix."""
    for tasks, reps in sizes:
        false, covered = 0, {0.0: 0, 0.05: 0}
        for _ in range(n):
            for delta in covered:
                r = decide(paired_scores(*draw(rng, tasks, reps, delta)))
                if delta == 0.0:
                    false += r.outcome in (stats.BETTER, stats.WORSE)
                if r.interval is not None and r.interval[0] <= delta <= r.interval[1]:
                    covered[delta] += 1
        size = f"{tasks} x {reps}{names[2]}"
        table.add(names[0], size + ", equal", "<= 5%", false / n, n, at_most(0.05))
        for delta, count in covered.items():
            table.add(names[1], f"{size}, Delta {delta:+.2f}", "95% +- 2", count / n, n, within(0.95, 0.02))


def _pass_fail(rng: np.random.Generator, tasks: int, reps: int, delta: float) -> tuple[Scores, Scores]:
    p = pass_rates(rng, tasks)
    return runs(rng, p, reps, delta), runs(rng, p, reps)


def verdicts(table: Table, rng: np.random.Generator, n: int) -> None:
    """False 'better'/'worse' at Delta = 0, and interval coverage at Delta = 0 and +0.05."""
    names = ("verdict false better/worse", "95% interval coverage", "")
    _false_and_coverage(table, rng, n, ((20, 1), (80, 5), (300, 3)), _pass_fail, names)


#: Partial credit (issue 29): a run scores one of these levels (CyBashBench, NL2Bash).
LEVELS = np.asarray([0.0, 0.5, 0.8, 1.0])
#: A task's chances of each level ~ Dirichlet(DIRICHLET): tasks differ in difficulty and spread.
DIRICHLET = np.asarray([0.8, 0.6, 0.6, 0.8])
LEVEL_MU = float(DIRICHLET @ LEVELS / DIRICHLET.sum())  # the population's mean score


def scored_runs(rng: np.random.Generator, w: np.ndarray, reps: int, delta: float = 0.0) -> Scores:
    """Scores in LEVELS: a system better by ``delta`` (task-population mean score) moves a share
    lambda = delta / (1 - mu) of every task's chances to the top level."""
    share = delta / (1.0 - LEVEL_MU)
    chances = (1.0 - share) * w
    chances[:, -1] += share
    cumulative = np.cumsum(chances, axis=1)
    drawn = (rng.random((w.shape[0], reps))[:, :, None] > cumulative[:, None, :]).sum(axis=2)
    levels = LEVELS[np.minimum(drawn, LEVELS.size - 1)]
    return {f"task-{i:04d}": [float(x) for x in row] for i, row in enumerate(levels)}


def _partial_credit(rng: np.random.Generator, tasks: int, reps: int, delta: float) -> tuple[Scores, Scores]:
    w = rng.dirichlet(DIRICHLET, tasks)
    return scored_runs(rng, w, reps, delta), scored_runs(rng, w, reps)


def mean_scores(table: Table, rng: np.random.Generator, n: int) -> None:
    """metric: mean on scores in {0, .5, .8, 1}: false better/worse at Delta = 0, and coverage of the
    task-clustered interval of the mean-score difference at Delta = 0 and +0.05."""
    names = ("mean: false better/worse", "mean: 95% interval coverage", ", scores 0/.5/.8/1")
    _false_and_coverage(table, rng, n, ((20, 3), (80, 5), (300, 3)), _partial_credit, names)


def mean_power(table: Table, rng: np.random.Generator, n: int) -> None:
    """metric: mean: report the MDE (the rule's, as a mean-score page states it) from two equal systems
    with scores in {0, .5, .8, 1}; run a new experiment on new tasks at that true difference."""
    for tasks, reps in ((20, 3), (80, 1), (80, 5), (300, 3), (40, 10)):
        hits, used, mdes = 0, 0, []
        for _ in range(n):
            mde = minimum_detectable_difference(paired_scores(*_partial_credit(rng, tasks, reps, 0.0)))
            if mde is None or mde >= 1.0 - LEVEL_MU:
                continue
            mdes.append(mde)
            hits += decide(paired_scores(*_partial_credit(rng, tasks, reps, mde))).outcome == stats.BETTER
            used += 1
        median = f"{100 * float(np.median(mdes)):.1f}" if mdes else "-"
        setting = f"{tasks} x {reps}, scores 0/.5/.8/1, median MDE {median} pts"
        table.add(
            "mean: power at the reported MDE", setting, "80% +- 5", hits / max(used, 1), max(used, 1), within(0.8, 0.05)
        )


def betting(table: Table, rng: np.random.Generator, n: int) -> None:
    """Coverage of the betting interval of one system's task-macro pass@1 for the task population's
    (MU): tasks named in draw order, and named in order of difficulty (easiest first), where the
    interval takes the tasks by a keyed hash of their names; the old name order on the same draws."""
    for tasks, reps, by_difficulty in ((20, 1, False), (80, 5, False), (80, 5, True)):
        covered, old = 0, 0
        for _ in range(n):
            p = pass_rates(rng, tasks)
            if by_difficulty:
                p = np.sort(p)[::-1]
            passes = (rng.random((tasks, reps)) < p[:, None]).sum(axis=1).tolist()
            names = [f"task-{i:04d}" for i in range(tasks)]
            iv = task_macro_from_counts([reps] * tasks, passes, 1, names=names).pass_at_k.betting
            covered += iv.lower is not None and iv.upper is not None and iv.lower <= MU <= iv.upper
            if by_difficulty:
                given = task_macro_from_counts([reps] * tasks, passes, 1).pass_at_k.betting  # name order
                old += given.lower is not None and given.upper is not None and given.lower <= MU <= given.upper
        setting = f"{tasks} x {reps}" + (", names sorted by difficulty" if by_difficulty else "")
        table.add("betting 95% interval coverage", setting, ">= 95%", covered / n, n, at_least(0.95))
        if by_difficulty:
            table.note("old order (task names): coverage", setting, f"{100 * old / n:.1f}%", n)


def power(table: Table, rng: np.random.Generator, n: int) -> None:
    """Report the MDE from two equal systems; run a new experiment at that true difference."""
    for tasks, reps in ((20, 1), (80, 1), (80, 5), (300, 3), (40, 10), (730, 1)):
        hits, used, mdes = 0, 0, []
        for _ in range(n):
            p = pass_rates(rng, tasks)
            mde = stats.compare(runs(rng, p, reps), runs(rng, p, reps)).mde
            if mde is None or mde >= 1.0 - MU:
                continue
            mdes.append(mde)
            p = pass_rates(rng, tasks)
            hits += stats.compare(runs(rng, p, reps, mde), runs(rng, p, reps)).outcome == stats.BETTER
            used += 1
        setting = f"{tasks} x {reps}, median MDE {100 * float(np.median(mdes)):.1f} pts"
        table.add(
            "power at the reported MDE", setting, "80% +- 5", hits / max(used, 1), max(used, 1), within(0.8, 0.05)
        )


def planning(table: Table, rng: np.random.Generator, n: int) -> None:
    """'Would need about N tasks to detect X': N from a pilot at true Delta = X; a new experiment of N tasks."""
    for tasks, reps, delta in ((20, 1, 0.15), (30, 3, 0.08), (80, 5, 0.05)):
        hits, used, needs = 0, 0, []
        for _ in range(n):
            p = pass_rates(rng, tasks)
            need = tasks_needed(paired_scores(runs(rng, p, reps, delta), runs(rng, p, reps)), delta)
            if need is None or need > 20_000:
                continue
            needs.append(need)
            p = pass_rates(rng, need)
            hits += decide(paired_scores(runs(rng, p, reps, delta), runs(rng, p, reps))).outcome == stats.BETTER
            used += 1
        setting = f"pilot {tasks} x {reps}, Delta {delta:.2f}, median N {int(np.median(needs)) if needs else 0:,}"
        table.add(
            "power at 'would need about N tasks'",
            setting,
            "80% +- 5",
            hits / max(used, 1),
            max(used, 1),
            within(0.8, 0.05),
        )


def boards(table: Table, rng: np.random.Generator, n: int) -> None:
    """12 equal systems (family-wise error); 12 equal + one 10 points better (split equal systems)."""
    tasks, reps = 80, 5
    for better in (False, True):
        any_false, split, tier_split = 0, 0, 0
        for _ in range(n):
            p = pass_rates(rng, tasks)
            systems = {f"sys-{k:02d}": runs(rng, p, reps) for k in range(12)}
            if better:
                systems["top"] = runs(rng, p, reps, 0.10)
            b = stats.leaderboard(systems)
            equal = [s for s in systems if s != "top"]
            any_false += any(b.distinguishable(x, y) for i, x in enumerate(equal) for y in equal[i + 1 :])
            split += not frozenset.intersection(*(b.groups[s] for s in equal))
            ranked = sorted(b.systems, key=lambda s: (-(b.means[s] or 0.0), s))
            tiers = greedy_tiers(ranked, lambda x, y, board=b: bool(board.distinguishable(x, y)))
            tier_split += len({i for i, tier in enumerate(tiers) for s in tier if s != "top"}) > 1
        scenario = "12 equal + 1 better by 10 pts" if better else "12 equal"
        setting = f"{scenario}, {tasks} x {reps}, Holm"
        table.add("groups: any equal pair distinguishable", setting, "<= 5%", any_false / n, n, at_most(0.05))
        table.add("groups: equal systems share no group", setting, "<= 5%", split / n, n, at_most(0.05))
        table.note("old greedy tiers: equal systems split", setting, f"{100 * tier_split / n:.1f}%", n)


def histories(table: Table, rng: np.random.Generator, n: int) -> None:
    """Unchanged builds (any false flag by 20 and 50 builds); a 15-point drop from build 10."""
    tasks, reps = 80, 5
    by20 = by50 = 0
    for _ in range(n):
        p = pass_rates(rng, tasks)
        flags = [s.flag for s in stats.history([runs(rng, p, reps) for _ in range(50)])]
        by20 += any(flags[:20])
        by50 += any(flags)
    setting = f"{tasks} x {reps}, unchanged"
    table.add("history: any false flag, 20 builds", setting, "<= 5%", by20 / n, n, at_most(0.05))
    table.add("history: any false flag, 50 builds", setting, "<= 5%", by50 / n, n, at_most(0.05))
    delays = []
    for _ in range(n):
        p = pass_rates(rng, tasks)
        builds = [runs(rng, p, reps, -0.15 if i >= 10 else 0.0) for i in range(20)]
        flagged = [s.index for s in stats.history(builds) if s.flag == stats.REGRESSION and s.index >= 10]
        delays.append(flagged[0] - 9 if flagged else 99)
    caught = sum(d <= 3 for d in delays) / n
    setting = f"{tasks} x {reps}, 15-pt drop at build 10, median delay {int(np.median(delays))} build(s)"
    table.add("history: drop flagged within 3 builds", setting, ">= 90%", caught, n, at_least(0.9))


STEPS: dict[str, tuple[Callable[[Table, np.random.Generator, int], None], int]] = {
    "verdicts": (verdicts, 1000),
    "power": (power, 500),
    "planning": (planning, 300),
    "boards": (boards, 150),
    "histories": (histories, 300),
    "mean_scores": (mean_scores, 1000),
    "mean_power": (mean_power, 500),
    "betting": (betting, 1000),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="about 30 seconds: fewer replications")
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument(
        "--only", choices=STEPS, help="run one case only (e.g. mean_scores, mean_power: partial-credit scores)"
    )
    args = parser.parse_args(argv)
    scale = 8 if args.quick else 1
    table = Table()
    started = time.perf_counter()
    for index, (name, (step, n)) in enumerate(STEPS.items()):
        if args.only is None or args.only == name:
            step(table, np.random.default_rng([args.seed, index]), max(25, n // scale))
    print("| claim | setting | nominal | measured | MC s.e. (pts) | replications | result |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    print("\n".join(table.rows))
    print(
        f"\nmodel: p_t ~ Beta({A}, {B}), Bernoulli repetitions; mean scores: a task's chances of 0/.5/.8/1 ~ "
        f"Dirichlet({', '.join(f'{x:g}' for x in DIRICHLET)}), better by Delta = a share Delta / (1 - mu) moved to 1; "
        f"seed {args.seed}; "
        f"{'quick' if args.quick else 'default'} run; PASS = within tolerance allowing 2 s.e.; "
        f"{time.perf_counter() - started:.0f} s"
    )
    if table.failed:
        print(f"calibrate: {table.failed} claim(s) FAIL", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
