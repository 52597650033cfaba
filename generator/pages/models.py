"""Frozen page models: everything a template shows, already decided and formatted.

The templates only lay these out (HELM's "the backend decides the tables, the
frontend renders them").  Strings in these models are untrusted text: the
templates autoescape every one of them.  Nothing here holds markup.

Building blocks (``Cell``, ``Row``, ``Table``, ``Notice``, chart specs) are
shared by all page kinds; each page kind has one model class whose ``template``
names the Jinja template that renders it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from generator.pages.charts import (
    Band,
    ChartSpec,
    Dot,
    DotChart,
    ForestChart,
    ForestRow,
    HeatmapChart,
    LineChart,
    RefLine,
    ScatterChart,
    ScatterPoint,
    Series,
)
from generator.pages.urls import index_url, rel

__all__ = [
    "ArmPage",
    "CandidateBlock",
    "Band",
    "Cell",
    "ChartSpec",
    "Column",
    "ComparisonPage",
    "EntryErrorPage",
    "Dot",
    "DotChart",
    "ForestChart",
    "ForestRow",
    "GlossaryPage",
    "GlossaryTerm",
    "Headline",
    "HeatmapChart",
    "IndexPage",
    "InputDigest",
    "LeaderboardPage",
    "LedgerPage",
    "LineChart",
    "Link",
    "Notice",
    "NumberRow",
    "Page",
    "PageBundle",
    "PageJob",
    "PageMeta",
    "PairPage",
    "RefLine",
    "ReportPage",
    "Row",
    "ScatterChart",
    "ScatterPoint",
    "Series",
    "SiteInfo",
    "StatisticsSection",
    "SystemPage",
    "Table",
    "TaskPage",
    "Verdict",
]


# --------------------------------------------------------------------------- blocks


@dataclass(frozen=True, slots=True)
class Link:
    text: str
    href: str  # relative to the page that shows it


@dataclass(frozen=True, slots=True)
class Cell:
    """One table cell.

    ``sort`` is the value tables.js sorts by (numbers as decimal strings, so
    ``"10"`` sorts after ``"9"``); ``None`` means "sort by the text".  ``cls``
    is a space-separated subset of a fixed vocabulary styled in site.css:
    ``num pass fail warn na diff same mono``.
    """

    text: str
    sort: str | None = None
    href: str | None = None
    cls: str = ""
    title: str | None = None
    filter: str | None = None  # with href to a table: tables.js shows only that table's rows containing this text
    filter_column: int | None = None  # with filter: match it only in this column (0-based), as one of its "; " items


@dataclass(frozen=True, slots=True)
class Column:
    label: str
    numeric: bool = False
    help: str | None = None


@dataclass(frozen=True, slots=True)
class Row:
    cells: tuple[Cell, ...]
    cls: str = ""  # "mismatch" highlights the whole row; "better"/"worse"/"tie"/"excluded" mark a task's direction
    id: str | None = None  # a stable anchor: opening page.html#<id> highlights the row (and opens its section)


@dataclass(frozen=True, slots=True)
class NumberRow:
    """A row of a wide number table: its first cells, then number cells kept as two strings each, the
    display text and the sort key ``format.num_cell`` gives them (an empty key: an undefined value,
    class ``num na``), not a Cell per value: a 1,000-task site shows hundreds of thousands.

    ``cells`` makes the whole row's Cells (equal to ``num_cell``'s) for readers that want them; the
    renderer writes the numbers without them (the same HTML).
    """

    lead: tuple[Cell, ...]
    texts: tuple[str, ...]
    sorts: tuple[str, ...]
    cls: str = ""
    id: str | None = None

    @property
    def cells(self) -> tuple[Cell, ...]:
        numbers = zip(self.texts, self.sorts, strict=True)
        return self.lead + tuple(Cell(text, sort, None, "num" if sort else "num na") for text, sort in numbers)


@dataclass(frozen=True, slots=True)
class Table:
    id: str  # unique within the page; also the anchor of the table
    caption: str
    columns: tuple[Column, ...]
    rows: tuple[Row | NumberRow, ...]
    empty: str = "None."
    sortable: bool = True
    filterable: bool = False
    # One-click views (tables.js): (label, row classes shown; "" = all rows).  Without JS every row shows.
    views: tuple[tuple[str, str], ...] = ()
    # Shown collapsed (<details>) when set: the summary line; the rows are one click away.
    collapsed: str | None = None


@dataclass(frozen=True, slots=True)
class Notice:
    kind: str  # info | warning | error
    text: str
    short: str = ""  # the notice in a few words: its one line under a verdict (the text is one click away)


# --------------------------------------------------------------------------- statistics slot


@dataclass(frozen=True, slots=True)
class Verdict:
    """The plain-language verdict sentence issue 6 puts above the tables."""

    text: str
    kind: str = "info"  # better | worse | undecided | info
    method: str = ""
    # The decision at a glance: (label, value, glossary term or ""), shown with the verdict.
    facts: tuple[tuple[str, str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class StatisticsSection:
    """Where the statistics work (issue 6) plugs into comparison and ledger pages.

    Empty until ``generator.analyze.stats.experiment`` provides values; the templates then
    render the verdict in the ``verdict`` block and the rest in the
    ``statistics`` block (paired-difference forest plot, interval tables).
    """

    verdict: Verdict | None = None
    notices: tuple[Notice, ...] = ()
    tables: tuple[Table, ...] = ()
    charts: tuple[ChartSpec, ...] = ()

    @property
    def empty(self) -> bool:
        return self.verdict is None and not (self.notices or self.tables or self.charts)


# --------------------------------------------------------------------------- page frame


@dataclass(frozen=True, slots=True)
class InputDigest:
    """One input a page was built from, named without any local path."""

    role: str  # "candidate experiment", "campaign file", ...
    name: str  # folder or file name only
    sha256: str  # "sha256:<64 hex>"
    detail: str = ""


@dataclass(frozen=True, slots=True)
class SiteInfo:
    title: str
    description: str = ""
    noindex: bool = False
    built: str | None = None  # UTC date from SOURCE_DATE_EPOCH, never the wall clock
    generator: str = "evalsite"
    redaction: str = ""  # the "Built from" sentence on secret redaction (pages/index.py: redaction_note)


@dataclass(frozen=True, slots=True)
class PageMeta:
    url: str  # site-relative, e.g. "comparisons/x/index.html"
    title: str
    site: SiteInfo
    crumbs: tuple[Link, ...] = ()
    inputs: tuple[InputDigest, ...] = ()
    downloads: tuple[Link, ...] = ()
    notices: tuple[Notice, ...] = ()
    related: tuple[Link, ...] = ()  # pages of the same evidence elsewhere (a leaderboard <-> a comparison)

    @property
    def root(self) -> str:
        return "../" * self.url.count("/")

    @classmethod
    def of_entry(cls, url: str, title: str, site: SiteInfo, inputs: Sequence[InputDigest] = ()) -> PageMeta:
        """The meta of an entry's own page (a report, an error page): Home above it, its data.json."""
        return cls(
            url=url,
            title=title,
            site=site,
            crumbs=(Link("Home", rel(url, index_url())),),
            inputs=tuple(inputs),
            downloads=(Link("data.json", "data.json"),),
        )


# --------------------------------------------------------------------------- page kinds


@dataclass(frozen=True, slots=True)
class Headline:
    """One entry on the index page."""

    kind: str  # comparison | ledger
    id: str
    title: str
    href: str
    ok: bool
    error: str | None
    summary: tuple[str, ...]  # short facts ("12 matched pairs", ...)
    table: Table | None
    trend_href: str | None = None  # the entry's trend page across builds (docs/history.md), when it has one


@dataclass(frozen=True, slots=True)
class IndexPage:
    meta: PageMeta
    comparisons: tuple[Headline, ...]
    ledgers: tuple[Headline, ...]
    leaderboards: tuple[Headline, ...] = ()
    reports: tuple[Headline, ...] = ()  # single-system reports
    template: ClassVar[str] = "index.html"


@dataclass(frozen=True, slots=True)
class EntryErrorPage:
    """Shown at an entry's URL when its data could not be turned into a page."""

    meta: PageMeta
    kind: str  # comparison | ledger
    entry_id: str
    message: str
    details: tuple[str, ...] = ()
    template: ClassVar[str] = "entry_error.html"


@dataclass(frozen=True, slots=True)
class ComparisonPage:
    meta: PageMeta
    comparison_id: str
    candidate: tuple[tuple[str, str], ...]  # (label, value) facts about the side
    baseline: tuple[tuple[str, str], ...]
    ks: tuple[int, ...]
    summary_table: Table
    matrix_table: Table
    matrix_notices: tuple[Notice, ...]
    metrics_table: Table
    metrics_chart: LineChart | None  # None: no pass@k / pass^k value is defined
    duration_table: Table
    # (treatment, runs without a raw duration, their links: none when no run has one)
    duration_missing: tuple[tuple[str, int, tuple[Link, ...]], ...]
    efficiency_tables: tuple[Table, ...]
    efficiency_notice: Notice
    manifest_table: Table
    outcomes_table: Table
    issue_counts: tuple[tuple[str, int], ...]
    issues_table: Table
    skipped_table: Table
    statistics: StatisticsSection = field(default_factory=StatisticsSection)
    no_verdict_reason: str | None = None  # one sentence, shown first, when there is no verdict
    failure_table: Table | None = None  # failure reasons counted per side
    glossary_href: str = ""  # relative link to glossary.html from this page
    task_chart: ChartSpec | None = None  # the tasks that drive the difference (None: no task differs)
    efficiency_chart: ChartSpec | None = None  # cost (or duration) per run against pass@1, where reported
    imported: bool = False  # a side is imported (Inspect, Harbor, SWE-bench): no "from raw stdout" headings
    # the price under the verdict (issue 28): (what, candidate, baseline, difference's parts) rows, a note
    price: tuple[tuple[str, str, str, tuple[str, ...]], ...] = ()
    price_note: str = ""
    template: ClassVar[str] = "comparison.html"


@dataclass(frozen=True, slots=True)
class TaskPage:
    meta: PageMeta
    comparison_id: str
    task: str
    instruction: str | None  # Markdown source; rendered by the template filter
    instruction_note: str | None
    facts: tuple[tuple[str, str], ...]
    hashes_table: Table
    hashes_differ: tuple[str, ...]  # components that differ between the sides
    pairs_table: Table
    runs_table: Table
    telemetry_table: Table
    issues_table: Table
    previous: Link | None
    next: Link | None
    template: ClassVar[str] = "task.html"


@dataclass(frozen=True, slots=True)
class CandidateBlock:
    arm_id: str
    href: str
    eligible: bool
    recommendation: str
    conditions_table: Table
    failed: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class LedgerPage:
    meta: PageMeta
    ledger_id: str
    facts: tuple[tuple[str, str], ...]
    digests_table: Table
    thresholds_table: Table
    candidates: tuple[CandidateBlock, ...]
    paired_table: Table
    arms_table: Table
    coverage_table: Table
    kill_table: Table
    containment_table: Table
    transport_table: Table
    charts: tuple[ChartSpec, ...]
    note: str
    caveats: tuple[str, ...] = ()  # statistical caveats of the reference gate (extended summary)
    statistics: StatisticsSection = field(default_factory=StatisticsSection)
    template: ClassVar[str] = "ledger.html"


@dataclass(frozen=True, slots=True)
class ArmPage:
    meta: PageMeta
    ledger_id: str
    arm_id: str
    facts: tuple[tuple[str, str], ...]
    definition_table: Table
    rates_table: Table
    latency_table: Table
    usage_table: Table
    decoding_table: Table
    cells_table: Table
    candidate: CandidateBlock | None
    extended_tables: tuple[Table, ...] = ()  # from the extended summary, when available
    side: str = "candidate"  # "baseline" | "candidate": the arm's standing when it has no admission row
    template: ClassVar[str] = "arm.html"


@dataclass(frozen=True, slots=True)
class GlossaryTerm:
    id: str  # the anchor: glossary.html#<id>
    term: str
    definition: str


@dataclass(frozen=True, slots=True)
class GlossaryPage:
    meta: PageMeta
    terms: tuple[GlossaryTerm, ...]
    template: ClassVar[str] = "glossary.html"


@dataclass(frozen=True, slots=True)
class LeaderboardPage:
    meta: PageMeta
    leaderboard_id: str
    facts: tuple[tuple[str, str], ...]
    ranking_table: Table
    tier_rule: str
    tiers: tuple[tuple[str, str], ...]  # ("Tier 1", "a, b")
    baseline_table: Table | None
    verdicts: tuple[Notice, ...]
    matrix_table: Table
    matrix_chart: HeatmapChart
    frontier_chart: ScatterChart | None
    frontier_note: str
    coverage_table: Table
    issues_table: Table
    ranked_by: str = "pass@1"  # what ranks: "pass@1", or "mean score" (metric mean, issue 29)
    template: ClassVar[str] = "leaderboard.html"


@dataclass(frozen=True, slots=True)
class SystemPage:
    """One leaderboard system's per-task evidence (its data lives in the leaderboard's data.json)."""

    meta: PageMeta
    facts: tuple[tuple[str, str], ...]
    tasks_table: Table
    runs_table: Table
    issues_table: Table
    skipped_table: Table
    template: ClassVar[str] = "leaderboard_system.html"


@dataclass(frozen=True, slots=True)
class PairPage:
    """A light page per pair of leaderboard systems, linking to each system's evidence."""

    meta: PageMeta
    facts: tuple[tuple[str, str], ...]
    systems: tuple[Link, Link]
    verdict: str
    tasks_table: Table
    issues_table: Table
    template: ClassVar[str] = "leaderboard_pair.html"


@dataclass(frozen=True, slots=True)
class ReportPage:
    """A single-system report (``reports:``; pages/report/): one system's pass@k and pass^k with their
    intervals, failure reasons, efficiency, issues and runs; no second system to compare it with."""

    meta: PageMeta
    report_id: str
    facts: tuple[tuple[str, str], ...]
    notices: tuple[Notice, ...]  # the run status and the matrix's limits, said at the top
    metrics_table: Table  # pass@k, pass^k (Comet's) and pass^k (unbiased) per k, with 95% intervals
    intervals_table: Table  # each metric and k with its t and betting intervals
    metrics_chart: LineChart | None
    failure_table: Table
    efficiency_table: Table
    tasks_table: Table
    runs_table: Table
    issues_table: Table
    skipped_table: Table
    glossary_href: str = ""
    template: ClassVar[str] = "report.html"


Page = (
    IndexPage
    | EntryErrorPage
    | ComparisonPage
    | TaskPage
    | LedgerPage
    | ArmPage
    | GlossaryPage
    | LeaderboardPage
    | SystemPage
    | PairPage
    | ReportPage
)


@dataclass(frozen=True, slots=True)
class PageBundle:
    """A page plus what is written next to it (every page kind, the leaderboard's included).

    ``data`` is written as ``data.json`` in the page's folder (``None``: the page has none and
    links another page's, as a leaderboard system page does); each ``extras``
    item is ``(file name, content)`` written there too: text as it is (a
    comparison's ``report.md``), anything else as JSON.
    """

    page: Page
    data: object
    extras: tuple[tuple[str, object], ...] = ()


@dataclass(frozen=True, slots=True)
class PageJob:
    """A page whose model is made only when it is written (by a forked writer on a large site): a
    comparison's task page, a leaderboard's system or pair page.  Its URL and the paths it writes
    (the page, and its ``data.json`` when it has one) are known before it is made."""

    make: Callable[[], PageBundle]
    url: str
    paths: tuple[str, ...]

    @classmethod
    def of(cls, make: Callable[[], PageBundle], url: str, *, data: bool = True) -> PageJob:
        return cls(make, url, (url, url.removesuffix("index.html") + "data.json") if data else (url,))

    def bundle(self) -> PageBundle:
        return self.make()
