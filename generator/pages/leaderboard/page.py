"""Leaderboard page models from a :class:`~generator.model.leaderboard.LeaderboardResult`.

Select and format only: every number was computed by the leaderboard pipeline. Each system's
per-task evidence is one system page (built once); the board and every pair page link to it; pair
pages are light (facts and a per-task table).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import Any

from generator.model.leaderboard import (
    CORRECTION_NAMES,
    GROUPS_RULE,
    TIER_RULE,
    LeaderboardResult,
    PairComparison,
    SystemResult,
    SystemRun,
)
from generator.pages import format as fmt
from generator.pages.leaderboard import links as ev
from generator.pages.leaderboard.common import (
    _diff_interval,
    _pct,
    _points,
    board_headline,
    leaderboard_error,
    leaderboard_url,
    pair_url,
    system_url,
    tier_cell,
)
from generator.pages.leaderboard.family import ComparisonCall, family_notes, with_notices
from generator.pages.leaderboard.frontier import frontier_chart as make_frontier
from generator.pages.leaderboard.frontier import reported_label, telemetry_cell
from generator.pages.leaderboard.links import SideMatch
from generator.pages.leaderboard.matrix import pairwise_matrix
from generator.pages.leaderboard.metric import (
    pair_columns,
    pair_values,
    ranked_cells,
    ranked_columns,
    run_columns,
    system_facts,
    task_cells,
    task_columns,
)
from generator.pages.leaderboard.models import LeaderboardPages
from generator.pages.models import (
    Cell,
    Column,
    InputDigest,
    LeaderboardPage,
    Link,
    Notice,
    PageBundle,
    PageJob,
    PageMeta,
    PairPage,
    Row,
    SiteInfo,
    SystemPage,
    Table,
)
from generator.pages.names import Phrase, phrase
from generator.pages.urls import index_url, rel

__all__ = ["build_leaderboard_pages", "leaderboard_error", "leaderboard_url", "pair_url", "system_url"]


class _Builder:
    def __init__(
        self,
        board_id: str,
        title: str,
        result: LeaderboardResult,
        document: Mapping[str, Any],
        markdown: str,
        inputs: Sequence[InputDigest],
        site: SiteInfo,
    ) -> None:
        self.id, self.title, self.result, self.doc = board_id, title, result, document
        self.markdown, self.inputs, self.site = markdown, tuple(inputs), site
        self.url = leaderboard_url(board_id)
        self.data_url = self.url.rsplit("/", 1)[0] + "/data.json"
        self.evidence: tuple[SideMatch, ...] = ()

    def pair_link(self, a: str, b: str) -> str:
        """The one page of a pair, whichever order it is asked for in."""
        pair = self.result.pair(a, b)
        return pair_url(self.id, pair.a, pair.b)

    def link(self, from_url: str, label: str) -> str:
        return rel(from_url, system_url(self.id, label))

    def meta(
        self,
        url: str,
        title: str,
        crumbs: Sequence[tuple[str, str]],
        downloads: Sequence[Link],
        related: Sequence[Link] = (),
        run_status: Sequence[str] = (),
    ) -> PageMeta:
        return PageMeta(
            url=url,
            title=title,
            site=self.site,
            crumbs=tuple(Link(text, rel(url, target)) for text, target in crumbs),
            inputs=self.inputs,
            downloads=tuple(downloads),
            related=tuple(related),
            notices=tuple(Notice("error", sentence) for sentence in run_status),  # a run that did not finish
        )

    # ------------------------------------------------------------------ the board

    def ranking_table(self) -> Table:
        r = self.result
        treatment = any(s.treatment != s.label for s in r.systems)  # else the column repeats System (issue 28)
        columns = [
            Column("Rank", True),
            Column("Groups", False, "systems that share a letter cannot be told apart (corrected all-pairs test)"),
            Column("Tier", True),
            Column("System"),
            *([Column("Treatment")] if treatment else []),
        ]
        columns += ranked_columns(r)
        columns += [Column(f"pass@{k}", True) for k in r.ks if k != 1]  # pass^1 is pass@1: shown once
        columns += [Column(f"pass^{k}", True, "unbiased: C(c,k)/C(n,k)") for k in r.ks if k != 1]
        columns += [
            Column("Run accuracy", True, "mean of per-run accuracies ± standard error (the benchmark's statistic)"),
            Column("Coverage", True),
            Column("Mean cost", True),
            Column("Mean duration", True),
        ]
        rows = []
        for s in r.systems:
            by_k = {m.k: m for m in s.macro}
            first = by_k.get(1)
            ra = s.run_accuracy
            shown = fmt.NA if ra.mean is None else f"{100 * ra.mean:.1f}%"
            if ra.mean is not None and ra.stderr is not None:
                shown += f" ± {100 * ra.stderr:.1f}"
            cells = [
                fmt.num_cell(s.rank),
                Cell(", ".join(r.groups.get(s.label, ())) or fmt.NA, None, None, "mono"),
                tier_cell(s.tier),
                Cell(s.label, None, self.link(self.url, s.label)),
                *([Cell(s.treatment)] if treatment else []),
                *ranked_cells(r, s, first),
            ]
            cells += [_pct(by_k[k].pass_at_k.estimate) for k in r.ks if k != 1]
            cells += [_pct(by_k[k].pass_pow_k_unbiased.estimate) for k in r.ks if k != 1]
            cells += [
                Cell(shown, fmt.sort_key(ra.mean), None, "num" if ra.mean is not None else "num na", ra.note),
                fmt.num_cell(s.coverage, f"{s.aligned_keys}/{s.expected_keys} ({fmt.pct(s.coverage)})"),
                telemetry_cell(s.cost, "usd"),
                telemetry_cell(s.duration, "seconds"),
            ]
            rows.append(Row(tuple(cells), "muted" if s.label == r.baseline else ""))
        caption = f"Systems by task-macro {r.ranked_by} (aligned runs only; N/A = undefined, never 0)"
        return Table("ranking", caption, tuple(columns), tuple(rows))

    def baseline_table(self) -> tuple[Table | None, tuple[Notice, ...]]:
        r = self.result
        if not r.baseline:
            return None, ()
        rows = []
        verdicts = []
        for b in r.against_baseline:
            kind = {"candidate better": "better", "candidate worse": "worse"}.get(b.outcome, "")
            rows.append(
                Row(
                    (
                        Cell(b.label, None, self.link(self.url, b.label)),
                        fmt.num_cell(b.pair.pairs),
                        fmt.num_cell(b.pair.tasks),
                        fmt.num_cell(b.pair.difference.estimate, _points(b.pair.difference.estimate)),
                        Cell(_diff_interval(b.pair.difference.interval)),
                        Cell(_diff_interval(b.simultaneous), None, None, "", b.simultaneous.method),
                        fmt.num_cell(b.pair.sign_flip.p_value, fmt.p_value(b.pair.sign_flip.p_value)),
                        fmt.num_cell(b.p_adjusted, fmt.p_value(b.p_adjusted)),
                        tier_cell(self.result.system(b.label).tier),
                        Cell(
                            {"better": "better", "worse": "worse"}.get(kind, "not distinguishable"),
                            None,
                            rel(self.url, self.pair_link(b.label, b.pair.b)),
                            {"better": "pass", "worse": "fail"}.get(kind, ""),
                        ),
                    )
                )
            )
            verdicts.append(Notice("info", b.sentence))
        table = Table(
            "against-baseline",
            f"Each system minus the baseline {r.baseline} ({r.ranked_by} points, over the keys both have)",
            (
                Column("System"),
                Column("Pairs (n)", True),
                Column("Tasks", True),
                Column("Difference", True),
                Column(f"{1 - r.alpha:.0%} interval (task-clustered)"),
                Column("Simultaneous interval", help="covers every comparison at once (see the method on hover)"),
                Column(_sign_flip_label(b.pair for b in r.against_baseline), True),
                Column(f"p adjusted ({r.correction})", True),
                Column("Tier", True),
                Column("Verdict"),
            ),
            tuple(rows),
        )
        return table, tuple(verdicts)

    def coverage_table(self) -> Table:
        rows = []
        for s in self.result.systems:
            counts = Counter(i.reason for i in s.issues)
            rows.append(
                Row(
                    (
                        Cell(s.label, None, self.link(self.url, s.label)),
                        Cell(s.experiment),
                        Cell(s.format),
                        fmt.num_cell(s.reports),
                        fmt.num_cell(s.coverage, f"{s.aligned_keys}/{s.expected_keys} ({fmt.pct(s.coverage)})"),
                        Cell(", ".join(f"{k}: {v}" for k, v in sorted(counts.items())) or "none"),
                        fmt.num_cell(len(s.skipped)),
                    ),
                    "mismatch" if s.aligned_keys < s.expected_keys else "",
                )
            )
        return Table(
            "coverage",
            "Coverage: aligned keys / the common expected keys (the union of every system's expected keys)",
            (
                Column("System"),
                Column("Experiment"),
                Column("Format"),
                Column("Reports", True),
                Column("Coverage", True),
                Column("Issues"),
                Column("Skipped reports", True),
            ),
            tuple(rows),
        )

    def issues_table(self, systems: Sequence[SystemResult], anchor: str) -> Table:
        rows = [
            Row((Cell(s.label), Cell(i.task), fmt.num_cell(i.rep), Cell(i.reason, None, None, "mono"), Cell(i.detail)))
            for s in systems
            for i in s.issues
        ]
        return Table(
            anchor,
            "Alignment issues (keys that did not verify; never counted)",
            (Column("System"), Column("Task"), Column("Rep", True), Column("Reason"), Column("Detail")),
            tuple(rows),
            filterable=len(rows) > 10,
        )

    def board(self) -> PageBundle:
        r = self.result
        baseline_table, verdicts = self.baseline_table()
        matrix_table, matrix_chart = pairwise_matrix(self.result, self.id, self.url)
        frontier_chart, frontier_note = make_frontier(self.result)
        facts = (
            ("Systems", str(len(r.systems))),
            ("Tasks", f"{len(r.tasks):,}"),
            ("Expected task/rep keys", f"{r.expected_keys:,}"),
            ("Baseline", r.baseline or "none"),
            ("alpha", f"{r.alpha:g}"),
            ("Correction", CORRECTION_NAMES[r.correction]),
            ("Tiers", str(len(r.tiers))),
            ("Groups", str(len({g for labels in r.groups.values() for g in labels}))),
        ) + (
            (("Pairs not compared (fewer than two shared tasks)", _not_compared(r.not_comparable)),)
            if r.not_comparable
            else ()
        )
        page = LeaderboardPage(
            meta=self.meta(
                self.url,
                self.title,
                (("Home", index_url()),),
                (Link("data.json", "data.json"), Link("report.md", "report.md")),
                run_status=r.run_status,
            ),
            leaderboard_id=self.id,
            facts=facts,
            ranking_table=self.ranking_table(),
            tier_rule=f"{GROUPS_RULE} {TIER_RULE}",
            tiers=tuple((f"Tier {i}", phrase(", ".join(["{}"] * len(t)), *t)) for i, t in enumerate(r.tiers, 1)),
            baseline_table=baseline_table,
            verdicts=verdicts,
            matrix_table=matrix_table,
            matrix_chart=matrix_chart,
            frontier_chart=frontier_chart,
            frontier_note=frontier_note,
            coverage_table=self.coverage_table(),
            issues_table=self.issues_table(r.systems, "issues"),
            ranked_by=r.ranked_by,
        )
        return PageBundle(page, self.doc, (("report.md", self.markdown),))

    # ------------------------------------------------------------------ systems and pairs

    def system(self, s: SystemResult) -> PageBundle:
        url = system_url(self.id, s.label)
        tasks = Table(
            "tasks",
            "Per-task outcomes over aligned runs",
            (Column("Task"), Column("Aligned reps"), Column("Passes", True), Column("pass@1", True), *task_columns(s)),
            tuple(
                Row(
                    (
                        Cell(t),
                        Cell(", ".join(str(x) for x in s.reps[t])),
                        fmt.num_cell(sum(s.outcomes[t])),
                        _pct(sum(s.outcomes[t]) / len(s.outcomes[t])),
                        *task_cells(s, t),
                    )
                )
                for t in sorted(s.outcomes)
            ),
            filterable=len(s.outcomes) > 10,
            collapsed=fmt.collapsed(len(s.outcomes), f"All {len(s.outcomes):,} tasks"),
        )
        runs, constant = self.runs_table(s)
        skipped = Table(
            "skipped",
            "Skipped report files",
            (Column("File"), Column("Reason")),
            tuple(Row((Cell(f, None, None, "mono"), Cell(reason))) for f, reason in s.skipped),
        )
        ra = s.run_accuracy
        facts = (
            ("Treatment", s.treatment),
            ("Experiment", s.experiment),
            ("Format", s.format),
            ("Rank / tier", f"{s.rank} / {s.tier or 'none (compared with no other system)'}"),
            *system_facts(s),
            ("Coverage", f"{s.aligned_keys}/{s.expected_keys} ({fmt.pct(s.coverage)})"),
            (
                "Run accuracy",
                fmt.NA
                if ra.mean is None
                else f"{100 * ra.mean:.1f}%"
                + (f" ± {100 * ra.stderr:.1f}" if ra.stderr is not None else "")
                + f" over {ra.runs} run(s)",
            ),
            ("Reports", f"{s.reports:,}"),
            *constant,
        )
        # The system's numbers and runs are its entry in the leaderboard's data.json: linked, not copied
        # (13 systems x 400 runs would write the board's largest part twice).
        entry = phrase("data.json (the leaderboard's; systems[] entry {})", repr(s.label))
        board_data = Link(entry, rel(url, self.data_url))
        page = SystemPage(
            meta=self.meta(
                url,
                s.label,
                (("Home", index_url()), (self.title, self.url)),
                (board_data,),
                ev.system_links(url, self.evidence, s.label),
                () if s.run_status is None else (s.run_status,),
            ),
            facts=facts,
            tasks_table=tasks,
            runs_table=runs,
            issues_table=self.issues_table((s,), "issues"),
            skipped_table=skipped,
        )
        return PageBundle(page, None)

    def runs_table(self, s: SystemResult) -> tuple[Table, tuple[tuple[str, str], ...]]:
        """Every run; a column whose value is the same for every run is stated once, as a fact."""
        columns: list[tuple[Column, Callable[[SystemRun], Cell]]] = [
            (Column("Task"), lambda run: Cell(run.task)),
            (Column("Rep", True), lambda run: fmt.num_cell(run.rep)),
            (Column("Result"), lambda run: fmt.bool_cell(run.passed)),
            *run_columns(s),
            (Column("Failed checks"), lambda run: Cell(", ".join(run.checks_failed) or "—")),
        ]
        constant: list[tuple[str, str]] = []
        optional: list[tuple[str, Column, Callable[[SystemRun], object], Callable[[SystemRun], Cell]]] = [
            (
                "Aligned",
                Column("Aligned"),
                lambda run: "yes" if run.aligned else "no",
                lambda run: Cell("yes" if run.aligned else "no", None, None, "" if run.aligned else "warn"),
            ),
            ("Quality", Column("Quality"), lambda run: run.quality, lambda run: Cell(run.quality)),
            ("Manifest", Column("Manifest"), lambda run: run.manifest, lambda run: Cell(run.manifest)),
            (
                "Duration",
                Column(reported_label("Duration", s.duration), True),
                lambda run: run.duration_seconds,
                lambda run: fmt.num_cell(run.duration_seconds, fmt.seconds(run.duration_seconds)),
            ),
            (
                "Cost",
                Column(reported_label("Cost", s.cost), True),
                lambda run: run.cost_usd,
                lambda run: fmt.num_cell(run.cost_usd, fmt.by_kind(run.cost_usd, "usd")),
            ),
        ]
        for name, column, value, cell in optional:
            values = {value(run) for run in s.runs}
            if len(values) == 1:
                only = next(iter(values))
                constant.append((f"{name} (every run)", fmt.NA if only is None else str(only)))
            else:
                columns.append((column, cell))
        columns.append((Column("Report file"), lambda run: Cell(run.file, None, None, "mono")))
        table = Table(
            "runs",
            "Every report of the treatment (aligned or not)",
            tuple(column for column, _cell in columns),
            tuple(Row(tuple(cell(run) for _c, cell in columns), "" if run.aligned else "muted") for run in s.runs),
            filterable=len(s.runs) > 10,
            collapsed=fmt.collapsed(len(s.runs), f"All {len(s.runs):,} runs"),
        )
        return table, tuple(constant)

    def pair(self, p: PairComparison) -> PageBundle:
        url = pair_url(self.id, p.a, p.b)
        title = phrase("{} vs {}", p.a, p.b)
        comparisons = ev.pair_comparisons(self.evidence, p.a, p.b)
        rows = tuple(
            Row(
                (
                    Cell(task, None, ev.pair_task_href(url, comparisons, task)),
                    fmt.num_cell(n),
                    *pair_values(self.result, n, x, y),
                    fmt.num_cell((x - y) / n, _points((x - y) / n)),
                ),
                "mismatch" if x != y else "",
            )
            for task, n, x, y in p.per_task
            if x != y
        )
        ties = len(p.per_task) - len(rows)
        tasks = Table(
            "tasks",
            phrase(
                "Tasks where the two differ ({} minus {}, strictly matched pairs); "
                f"{ties:,} task{'s' if ties != 1 else ''} with equal {_SUMS[self.result.metric]} are not listed "
                "(see data.json)",
                p.a,
                p.b,
            ),
            (
                Column("Task"),
                Column("Pairs", True),
                *pair_columns(self.result, p.a, p.b),
                Column("Difference", True),
            ),
            rows,
            filterable=len(rows) > 10,
            collapsed=fmt.collapsed(len(rows), f"All {len(rows):,} tasks where the two differ"),
        )
        issues = Table(
            "pair-issues",
            "Keys this pair could not compare, by reason",
            (Column("Reason"), Column("Keys", True)),
            tuple(Row((Cell(k, None, None, "mono"), fmt.num_cell(v))) for k, v in p.issue_counts.items()),
        )
        d = p.difference
        facts = (
            ("Strictly matched pairs (n)", f"{p.pairs:,}"),
            ("Tasks", f"{p.tasks:,}"),
            (f"Difference in {self.result.ranked_by}", _points(d.estimate) + " points"),
            (f"{d.interval.confidence:.0%} interval (task-clustered)", _diff_interval(d.interval)),
            (_sign_flip_label((p,)), fmt.p_value(p.sign_flip.p_value)),
            (f"p adjusted ({self.result.correction}, all pairs)", fmt.p_value(p.p_adjusted)),
        )
        verdict = (
            phrase(f"{{}} and {{}} are distinguishable at alpha {self.result.alpha:g} after correction.", p.a, p.b)
            if p.distinguishable
            else phrase(
                f"{{}} and {{}} cannot be told apart at alpha {self.result.alpha:g} after correction"
                + (" (no strictly matched pair)." if p.pairs == 0 else "."),
                p.a,
                p.b,
            )
        )
        related = ev.pair_related(url, comparisons, p.a)
        page = PairPage(
            meta=self.meta(
                url, title, (("Home", index_url()), (self.title, self.url)), (Link("data.json", "data.json"),), related
            ),
            facts=facts,
            systems=(Link(p.a, self.link(url, p.a)), Link(p.b, self.link(url, p.b))),
            verdict=verdict,
            tasks_table=tasks,
            issues_table=issues,
        )
        data = next(item for item in self.doc["pairs"] if item["a"] == p.a and item["b"] == p.b)
        return PageBundle(page, {"schema": "evalsite.leaderboard.pair.v1", **data})


_SUMS = {"pass@k": "passes", "mean": "scores"}  # what a pair page's per-task columns hold


def _sign_flip_label(pairs: Iterable[PairComparison]) -> str:
    """The p-value column: "exact" only when every test shown was (real-valued scores can need Monte Carlo)."""
    return "p (sign-flip, exact)" if all(p.sign_flip.exact for p in pairs) else "p (sign-flip, Monte Carlo)"


def build_leaderboard_pages(
    board_id: str,
    title: str,
    result: LeaderboardResult,
    document: Mapping[str, Any],
    markdown: str,
    inputs: Sequence[InputDigest],
    site: SiteInfo,
    evidence: Sequence[SideMatch] = (),
    calls: Mapping[str, ComparisonCall] | None = None,
) -> LeaderboardPages:
    """The board, one page per system, one light page per pair, and the index headline; *evidence*: the
    comparisons that read the same evidence as a system (:mod:`.links`), *calls* their verdicts (:mod:`.family`)."""
    builder = _Builder(board_id, title, result, document, markdown, inputs, site)
    builder.evidence = tuple(m for m in evidence if m.board == board_id)
    # made when written; a system page has no data.json of its own (it links the board's)
    jobs = [PageJob.of(partial(builder.system, s), system_url(board_id, s.label), data=False) for s in result.systems]
    jobs += [PageJob.of(partial(builder.pair, p), pair_url(board_id, p.a, p.b)) for p in result.pairs]
    links = ev.comparison_links(builder.evidence, [(p.a, p.b) for p in result.pairs])
    notes = family_notes(board_id, title, result, builder.evidence, calls or {})
    board = with_notices(builder.board(), notes.board)
    return LeaderboardPages(
        board_headline(board_id, title, builder.url, result), board, tuple(jobs), links, notes.comparisons
    )


def _not_compared(pairs: tuple[tuple[str, str], ...]) -> Phrase:
    """The pairs never compared, named: "a and b; c and d" (at most five, then a count)."""
    shown = pairs[:5]
    template = "; ".join(["{} and {}"] * len(shown)) + (f"; and {len(pairs) - 5} more" if len(pairs) > 5 else "")
    return phrase(template, *(name for pair in shown for name in pair))
