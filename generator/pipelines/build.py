"""``evalsite build``: the site, stage by stage.

    load config -> check output location -> run the cores per entry
      -> page models -> render -> write into a temp folder -> swap into place

Errors and exit status:

- A *config* problem (unknown key, missing file, duplicate id, bad k, an
  output folder that would overwrite inputs) raises :class:`EvalsiteError`
  before anything is read or written: ``error: ...``, exit 2.
- A *data* problem in one entry (no reports of a treatment, an invalid
  campaign, an unsound ledger) does not stop the build: that entry's page
  shows the error, the index marks it, and a ``warning: ...`` line goes to
  stderr.  Exit status stays 0 so one bad entry cannot block publishing the
  rest, unless the config sets ``strict: true``; then any data problem fails
  the build (exit 2) and the previous site stays in place.
- Anything else is a bug: the build fails and the previous site stays in place.

The cores (the comparison of ``generator.pipelines.compare``, the ledger reader and
summary) are imported lazily inside :class:`DefaultCore`, and can be replaced
by any object with the same two methods (the tests use fixture cores).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any, Protocol

from generator.model.common import SIDES
from generator.model.comparison_view import ComparisonView
from generator.model.errors import EvalsiteError
from generator.model.history import HEAD_FILE
from generator.model.jsonfmt import json_text
from generator.model.ledger_result import LedgerResult
from generator.model.logs import status_sentences
from generator.model.transcript import TranscriptRef
from generator.model.version import __version__
from generator.pages.comparison.page import ComparisonSource, comparison_page_jobs
from generator.pages.comparison.statistics import comparison_statistics, decided_verdict
from generator.pages.glossary import GLOSSARY_URL, glossary_page
from generator.pages.index import (
    build_index_page,
    comparison_headline,
    entry_error_page,
    error_headline,
    ledger_headline,
    redaction_note,
)
from generator.pages.ledger.page import LedgerSource, build_ledger_pages
from generator.pages.ledger.statistics import ledger_statistics
from generator.pages.models import Headline, InputDigest, Notice, PageBundle, SiteInfo, StatisticsSection
from generator.pages.names import phrase
from generator.pages.trends.page import with_trend_links
from generator.pipelines.history import (
    HistoryOptions,
    HistoryOutcome,
    check_summary_path,
    comparison_record,
    failed_record,
    leaderboard_record,
    run_history,
    write_summary,
)
from generator.pipelines.incremental import Plan, gather_entry, plan_build
from generator.pipelines.inputs import digest as _digest
from generator.pipelines.inputs import tree_input as _tree_input
from generator.pipelines.locations import check_output_location
from generator.pipelines.locations import scrub as _scrub
from generator.pipelines.progress import Progress as _Progress
from generator.pipelines.progress import progress_wanted
from generator.pipelines.site_pool import Item, write_bundles, write_page
from generator.pipelines.task_transcripts import groups_per_task
from generator.pipelines.transcripts import left_out, run_page_states, transcript_refs, write_transcripts
from generator.read.config import (
    ComparisonConfig,
    LeaderboardConfig,
    LedgerConfig,
    ReportConfig,
    SiteConfig,
    load_config,
)
from generator.read.digests import tree_digest
from generator.read.safe_io import recording_digests
from generator.read.theme import read_theme
from generator.render.env import ASSET_FILES, default_templates_dir, render_page
from generator.render.theme import themed_templates
from generator.write.limits import limit_warnings
from generator.write.site import JsonText, SiteWriter, plotly_js, staged_site

__all__ = [
    "BuildReport",
    "ComparisonData",
    "Core",
    "DefaultCore",
    "EntryDataError",
    "LedgerData",
    "build_site",
    "load_config",
    "progress_wanted",
    "tree_digest",
]

_DATA_ERRORS = (EvalsiteError, ValueError, OSError)


# --------------------------------------------------------------------------- core results


@dataclass(frozen=True)
class ComparisonData:
    """One comparison as the pages need it: its typed view, its JSON document (data.json) and report."""

    view: ComparisonView
    document: Mapping[str, Any]
    markdown: str
    instructions: Mapping[str, str | None]
    inputs: tuple[InputDigest, ...]
    transcripts: tuple[TranscriptRef, ...] = ()  # each run's raw stdout, located (docs/transcripts.md)
    document_text: str | None = None  # json_text(document) when the core made it (hashed, then written)
    run_status: tuple[str, ...] = ()  # a side's run that did not finish (model/logs.py), said at the top


@dataclass(frozen=True)
class LedgerData:
    """One ledger entry's core output: the pipeline's typed result and the entry's inputs."""

    result: LedgerResult
    inputs: tuple[InputDigest, ...]
    notices: tuple[Notice, ...] = ()
    statistics: StatisticsSection = StatisticsSection()


class EntryDataError(EvalsiteError):
    """One entry's data cannot become a page; ``details`` lists every problem found."""

    def __init__(self, message: str, details: Sequence[str] = (), inputs: Sequence[InputDigest] = ()) -> None:
        super().__init__(message)
        self.details = tuple(details)
        self.inputs = tuple(inputs)


class Core(Protocol):
    def compare(self, entry: ComparisonConfig) -> ComparisonData: ...

    def ledger(self, entry: LedgerConfig) -> LedgerData: ...


# --------------------------------------------------------------------------- the default core


class DefaultCore:
    """Runs the project's comparison and ledger cores for one config entry each.

    ``transcripts`` False (the build sets it from the config's ``transcripts: false``): the runs'
    raw stdout files are not located for run pages that will not be written.
    """

    transcripts: bool = True
    transcript_policy: str = "all"  # which runs get a run page (analyze/transcripts/policy.py)

    def compare(self, entry: ComparisonConfig) -> ComparisonData:
        # "Built from" then reuses the SHA-256 of every input file the comparison read
        with recording_digests():
            return self._compare(entry)

    def _compare(self, entry: ComparisonConfig) -> ComparisonData:
        from generator.pipelines.compare import ComparisonInputs, compare_experiments, render_comparison
        from generator.read.comet.tasks import read_instruction

        result = compare_experiments(
            ComparisonInputs(
                candidate_dir=entry.candidate.experiment,
                candidate_treatment=entry.candidate.treatment,
                baseline_dir=entry.baseline.experiment,
                baseline_treatment=entry.baseline.treatment,
                tasks_dir=entry.tasks,
                eval_root=entry.eval_root,
                ks=entry.ks,
                rebase_artifacts=entry.rebase_artifacts,
                candidate_format=entry.candidate.format,
                baseline_format=entry.baseline.format,
                import_options=entry.import_options(),
                metric=entry.metric,
            )
        )
        trees = [(f"{side} experiment", path) for side in SIDES for path in entry.side(side).paths]
        if entry.tasks is not None:
            trees.append(("tasks", entry.tasks))
        output = render_comparison(result)
        document = output.document
        instructions: dict[str, str | None] = {}
        if entry.tasks is not None:
            for task in output.view.tasks:
                instructions[task] = read_instruction(entry.tasks, task)
        document_text = json_text(document)  # serialised once: hashed here, written as data.json
        inputs = [
            InputDigest("comparison document", "data.json", _digest(document_text), "evalsite.comparison.v1"),
            *(_tree_input(role, path) for role, path in trees),
        ]
        policy = self.transcript_policy
        transcripts = transcript_refs(output.result, entry.rebase_artifacts, policy) if self.transcripts else ()
        status = status_sentences({side: output.result.experiments[side].logs for side in SIDES})
        facts = (instructions, tuple(inputs), transcripts, document_text, status)
        return ComparisonData(output.view, document, output.markdown, *facts)

    def ledger(self, entry: LedgerConfig) -> LedgerData:
        """One ledger entry: its bytes are read once (under the shared lock) for the digest and the summary."""
        from generator.pipelines.ledger import parse_campaign_bytes, site_inputs, site_result

        campaign_data, ledger_data = site_inputs(entry.campaign, entry.ledger)
        inputs: tuple[InputDigest, ...] = (
            InputDigest("campaign file", entry.campaign.name, _digest(campaign_data)),
            InputDigest("ledger file", entry.ledger.name, _digest(ledger_data)),
        )
        result, problems = site_result(parse_campaign_bytes(campaign_data), ledger_data)
        if result is None:
            raise EntryDataError(
                f"the ledger cannot be summarized: {len(problems)} distinct problem(s); first: {problems[0]}",
                problems,
                inputs,
            )
        inputs += (
            InputDigest("ledger summary", "data.json", _digest(json_text(result.summary)), "reference summary schema"),
        )
        return LedgerData(result, inputs)


# --------------------------------------------------------------------------- build


@dataclass
class BuildReport:
    out_dir: Path
    pages: int = 0
    files: int = 0
    total_bytes: int = 0
    largest_page: tuple[str, int] = ("", 0)
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    records: list[Any] = field(default_factory=list)  # pipelines.history.Record per comparison/leaderboard
    gate: list[str] = field(default_factory=list)  # --fail-on reasons (docs/history.md); exit 1 when any
    history_appended: int = 0
    redacted: dict[str, int] = field(default_factory=dict)  # distinct secrets redacted, by kind
    redaction: bool = True  # False when the config says ``redact: false``
    transcript_jobs: list[Any] = field(default_factory=list)  # (id, title, view, refs, grouped) per comparison
    # a page URL -> the pages written right after it, made only then (task pages; leaderboard system/pair pages)
    task_jobs: dict[str, list[Item]] = field(default_factory=dict)
    largest_run_page: tuple[str, int] = ("", 0)
    transcripts_left_out: int = 0  # runs whose page the ``transcripts:`` policy left out
    limits: list[str] = field(default_factory=list)  # GitHub Pages' limits passed or near (write/limits.py)
    related: dict[str, tuple[Any, ...]] = field(default_factory=dict)  # comparison id -> leaderboard links
    notes: dict[str, tuple[Any, ...]] = field(default_factory=dict)  # comparison id -> leaderboard family sentences
    reused: list[str] = field(default_factory=list)  # "kind id" of the entries copied from a previous site or part


def _site_info(config: SiteConfig) -> SiteInfo:
    epoch = _epoch()
    built = None if epoch is None else datetime.fromtimestamp(epoch, tz=UTC).strftime("%Y-%m-%d %H:%M UTC")
    redaction = redaction_note(config.redactor.enabled, len(config.redactor.extra))
    return SiteInfo(config.title, config.description, config.noindex, built, f"evalsite {__version__}", redaction)


def _epoch() -> int | None:
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    return int(epoch) if epoch.isdigit() else None


def _data_error_message(error: BaseException, config: SiteConfig) -> str:
    if isinstance(error, OSError) and not isinstance(error, EvalsiteError):
        return f"could not read an input ({type(error).__name__}: {error.strerror or 'I/O error'})"
    return _scrub(str(error), config) or type(error).__name__


def _entry_failed(
    kind: str,
    entry: ComparisonConfig | LedgerConfig | ReportConfig,
    error: BaseException,
    site: SiteInfo,
    config: SiteConfig,
    report: BuildReport,
) -> tuple[Headline, list[PageBundle]]:
    """A data error in one entry: an error page at its URL, a warning, a marked headline."""
    message = _data_error_message(error, config)
    report.warnings.append(f"{kind} {entry.id!r}: {message}")
    details = tuple(_scrub(d, config) for d in getattr(error, "details", ()))
    inputs = getattr(error, "inputs", ())
    bundle = entry_error_page(kind, entry.id, entry.title, message, site, inputs, details)
    return error_headline(kind, entry.id, entry.title, message), [bundle]


def _comparison_statistics(entry: ComparisonConfig, data: ComparisonData, report: BuildReport) -> StatisticsSection:
    """The issue-6 statistics, formatted for the page; a failure there degrades to a visible notice."""
    try:
        return comparison_statistics(data.view.statistics, data.view.scores)
    except (ValueError, ArithmeticError, LookupError, TypeError, AttributeError) as error:
        message = f"paired statistics unavailable ({type(error).__name__}: {' '.join(str(error).split())})"
        report.warnings.append(f"comparison {entry.id!r}: {message}")
        return StatisticsSection(notices=(Notice("warning", message),))


def _comparison_bundles(
    entry: ComparisonConfig, core: Core, site: SiteInfo, config: SiteConfig, report: BuildReport
) -> tuple[Headline, list[PageBundle]]:
    try:
        data = core.compare(entry)
        statistics = _comparison_statistics(entry, data, report)
        view = data.view
        source = ComparisonSource(
            entry.id,
            entry.title,
            view,
            data.document if data.document_text is None else JsonText(data.document, data.document_text),
            data.markdown,
            data.instructions,
            data.inputs,
            entry.tasks is not None,
            statistics,
            run_page_states(data.transcripts) if config.transcripts else {},
            data.run_status,
            grouped := config.transcripts and groups_per_task(config.run_pages, data.transcripts),
        )
        page, task_jobs = comparison_page_jobs(source, site)
        bundles = [page]
        if config.transcripts:
            report.transcript_jobs.append((entry.id, entry.title, view, data.transcripts, grouped))
            report.transcripts_left_out += left_out(data.transcripts)
        verdict = decided_verdict(view.statistics, view.scores) if statistics.verdict is not None else None
        headline = comparison_headline(entry.id, entry.title, view, verdict)
        record = comparison_record(
            entry.id, entry.title, data.document, data.inputs, view.statistics, data.run_status, view.price, view.scores
        )
        report.records.append(record)
        report.task_jobs[page.page.meta.url] = list(task_jobs)  # written after the page, built by the writer
        return headline, bundles
    except _DATA_ERRORS as error:
        failed = _entry_failed("comparison", entry, error, site, config, report)
        report.records.append(failed_record("comparison", entry.id, entry.title, report.warnings[-1]))
        return failed


def _ledger_bundles(
    entry: LedgerConfig, core: Core, site: SiteInfo, config: SiteConfig, report: BuildReport
) -> tuple[Headline, list[PageBundle]]:
    try:
        data = core.ledger(entry)
        statistics = data.statistics
        if statistics.empty and data.result.extended:
            statistics = ledger_statistics(data.result)
        source = LedgerSource(entry.id, entry.title, data.result, data.inputs, data.notices, statistics)
        bundles = build_ledger_pages(source, site)
        return ledger_headline(entry.id, entry.title, data.result), bundles
    except _DATA_ERRORS as error:
        return _entry_failed("ledger", entry, error, site, config, report)


def _leaderboard_bundles(
    entry: LeaderboardConfig, site: SiteInfo, config: SiteConfig, report: BuildReport
) -> tuple[Headline, list[PageBundle]]:
    """One leaderboard: its board, system and pair pages; a data error becomes its error page."""
    from generator.model.leaderboard import LEADERBOARD_SCHEMA
    from generator.pages.leaderboard.family import ComparisonCall
    from generator.pages.leaderboard.page import build_leaderboard_pages, leaderboard_error
    from generator.pipelines.leaderboard import evidence_matches, run_leaderboard

    try:
        with recording_digests():  # "Built from" reuses the SHA-256 of every file the leaderboard read
            output = run_leaderboard(entry.inputs())
            inputs = [
                InputDigest(
                    "leaderboard document", "data.json", _digest(json_text(output.document)), LEADERBOARD_SCHEMA
                ),
                *(_tree_input(phrase("system {}", s.label), s.experiment) for s in entry.systems),
            ]
            if entry.tasks is not None:
                inputs.append(_tree_input("tasks", entry.tasks))
        built = {r.subject for r in report.records if r.kind == "comparison" and r.body is not None}
        pages = build_leaderboard_pages(
            entry.id,
            entry.title,
            output.result,
            output.document,
            output.markdown,
            inputs,
            site,
            evidence_matches(config, built),  # links to comparisons of the same evidence (docs/leaderboard.md)
            {r.subject: ComparisonCall(r.verdict, r.p_value, r.alpha) for r in report.records if r.verdict is not None},
        )
        for key, links in pages.comparison_links.items():
            report.related[key] = report.related.get(key, ()) + links
        for key, notes in pages.comparison_notices.items():
            report.notes[key] = report.notes.get(key, ()) + notes
        status = output.result.run_status
        report.records.append(leaderboard_record(entry.id, entry.title, output.document, inputs, status))
        report.task_jobs[pages.board.page.meta.url] = list(pages.jobs)  # system and pair pages, made when written
        return pages.headline, [pages.board]
    except _DATA_ERRORS as error:
        message = _data_error_message(error, config)
        report.warnings.append(f"leaderboard {entry.id!r}: {message}")
        report.records.append(failed_record("leaderboard", entry.id, entry.title, message))
        headline, bundle = leaderboard_error(entry.id, entry.title, message, site)
        return headline, [bundle]


def _report_bundles(
    entry: ReportConfig, site: SiteInfo, config: SiteConfig, report: BuildReport
) -> tuple[Headline, list[PageBundle]]:
    """One single-system report (pipelines/report.py); a data error becomes its error page."""
    from generator.pipelines.report import report_pages

    try:
        headline, page = report_pages(entry, site)
        return headline, [page]
    except _DATA_ERRORS as error:
        return _entry_failed("report", entry, error, site, config, report)


def _note_page(report: BuildReport, url: str, size: int) -> None:
    if size > report.largest_page[1]:
        report.largest_page = (url, size)


def _write_page(writer: SiteWriter, url: str, html: str, data: object, report: BuildReport) -> None:
    _note_page(report, url, write_page(writer, url, html, data))


def _write_assets(writer: SiteWriter, templates: Path, noindex: bool) -> None:
    for name in ASSET_FILES:
        writer.write_bytes(f"assets/{name}", (templates / "assets" / name).read_bytes())
    writer.write_bytes("assets/plotly.min.js", plotly_js(templates))
    if noindex:
        writer.write_text("robots.txt", "User-agent: *\nDisallow: /\n")


def build_site(
    config: SiteConfig,
    out_dir: Path | None = None,
    *,
    core: Core | None = None,
    progress: bool = False,
    templates_dir: Path | None = None,
    summary: Path | None = None,
    fail_on: Sequence[str] = (),
    history_options: HistoryOptions | None = None,
    incremental: bool = False,
    full: bool = False,
    only: Sequence[str] = (),
    parts: Sequence[Path] = (),
) -> BuildReport:
    """Build the whole site into *out_dir* (default: the config's output) atomically: gather every
    entry's pages, record the history (trend pages; *summary*; *fail_on* reasons in ``report.gate``,
    ``docs/history.md``), then write.

    *incremental* (``evalsite build``): record each entry's key and reuse the previous site's files
    of unchanged entries unless *full*; *only*: a part of a split build; *parts*: merge those parts
    (``pipelines/incremental.py``, ``docs/performance.md``)."""
    started = time.perf_counter()
    out = Path(out_dir or config.output).resolve()
    check_output_location(out, config)
    if summary is not None:
        check_summary_path(summary, config, out)
    if incremental and core is not None:
        raise ValueError("an incremental build keys entries by their inputs: it runs the default core")
    if core is None:
        core = DefaultCore()
        core.transcripts, core.transcript_policy = config.transcripts, config.transcript_policy
    theme = read_theme(config.theme_dir) if config.theme_dir is not None else None  # read before anything is written
    site = _site_info(config)
    report = BuildReport(out)

    with _Progress(progress) as bar, themed_templates(templates_dir or default_templates_dir(), theme) as templates:
        tick = bar.stage("reading entries", len(config.comparisons) + len(config.ledgers))
        plan = plan_build(config, out, site, templates, full=full, only=only, parts=parts) if incremental else None
        bundles, headlines, index_inputs = _gather(config, core, site, report, tick, plan)
        report.reused = sorted(f"{kind} {entry_id}" for kind, entry_id in (plan.reuse if plan else ()))
        if config.strict and report.warnings:
            raise EvalsiteError(f"strict build: {report.warnings[0]} ({len(report.warnings)} data problem(s))")
        history = (
            HistoryOutcome()  # a part of a split build: the merge records the history
            if plan is not None and plan.only is not None
            else run_history(
                report.records, config.history, fail_on, site, templates, config.redactor, history_options, out
            )
        )
        report.history_appended, report.gate = history.appended, history.reasons
        h = headlines
        index = build_index_page(
            site, h["comparison"], h["ledger"], index_inputs, h["leaderboard"], history.links, h["report"]
        )
        bundles.insert(0, index)

        # each comparison page is followed by its task pages and each board by its system and pair
        # pages, whose models the writing workers make
        items: list[Item] = [
            item for bundle in bundles for item in (bundle, *report.task_jobs.pop(bundle.page.meta.url, ()))
        ]
        report.task_jobs.clear()
        tick = bar.stage("writing pages", len(items))
        with staged_site(out, _epoch(), config.redactor, plan.vouched if plan else None) as writer:
            _write_everything(writer, items, history, site, templates, config, report, tick, plan)
        if writer.kept:
            shown = ", ".join(repr(path) for path in writer.kept[:3])
            more = f" and {len(writer.kept) - 3} more" if len(writer.kept) > 3 else ""
            report.warnings.append(
                f"the previous site held files evalsite did not write ({shown}{more}); "
                f"they were kept in {writer.kept_in!r}, not deleted"
            )
    if summary is not None:
        write_summary(summary, report.records, history, config.base_url, config.redactor)
    report.seconds = time.perf_counter() - started
    return report


def _gather(
    config: SiteConfig, core: Core, site: SiteInfo, report: BuildReport, tick: Callable[[], None], plan: Plan | None
) -> tuple[list[PageBundle], dict[str, list[Headline]], list[InputDigest]]:
    """Every entry's pages, index headline and "Built from" rows: comparisons, ledgers, leaderboards, then
    reports; an entry the *plan* reuses brings its headline and rows from the previous build, no pages."""
    steps: list[tuple[str, Sequence[Any], Callable[[Any], tuple[Headline, list[PageBundle]]]]] = [
        ("comparison", config.comparisons, lambda entry: _comparison_bundles(entry, core, site, config, report)),
        ("ledger", config.ledgers, lambda entry: _ledger_bundles(entry, core, site, config, report)),
        ("leaderboard", config.leaderboards, lambda entry: _leaderboard_bundles(entry, site, config, report)),
        ("report", config.reports, lambda entry: _report_bundles(entry, site, config, report)),
    ]
    headlines: dict[str, list[Headline]] = {}
    bundles: list[PageBundle] = []
    rows: list[InputDigest] = []
    for kind, entries, step in steps:
        headlines[kind] = []
        for entry in entries:
            headline, pages, entry_rows = gather_entry(plan, kind, entry.id, partial(step, entry), report)
            headlines[kind] += [headline] if headline is not None else []
            bundles.extend(pages)
            rows.extend(entry_rows)
            if kind in ("comparison", "ledger"):
                tick()
    if report.related:  # comparison pages link the leaderboard pages of the same evidence
        from generator.pages.leaderboard.links import with_related

        bundles = with_related(bundles, report.related, report.notes)
    if config.history is not None:  # each comparison and leaderboard page links its trend page
        bundles = with_trend_links(bundles)
    return bundles, headlines, rows


def _write_everything(
    writer: SiteWriter,
    items: list[Item],
    history: Any,
    site: SiteInfo,
    templates: Path,
    config: SiteConfig,
    report: BuildReport,
    tick: Callable[[], None],
    plan: Plan | None = None,
) -> None:
    """Write the assets, the pages, the glossary, the trend pages, the history head and the run pages;
    copy the entries the *plan* reuses, record the keys."""
    _write_assets(writer, templates, config.noindex)
    copied, largest = plan.copy_into(writer) if plan is not None else (0, ("", 0))
    _note_page(report, *largest)
    write_bundles(writer, items, templates, lambda url, size: _note_page(report, url, size), tick)
    writer.write_text(GLOSSARY_URL, render_page(glossary_page(site), templates))
    if config.leaderboards:
        writer.write_bytes("assets/leaderboard.js", (templates / "assets" / "leaderboard.js").read_bytes())
    for url, html, data in history.pages:
        _write_page(writer, url, html, data, report)
    if history.head is not None:  # a count and an id computed here, unredacted (an id looks like a secret)
        writer.write_bytes(HEAD_FILE, json_text(history.head.document()).encode("utf-8"))
    run_pages_written = write_transcripts(
        report.transcript_jobs, writer, lambda url, size: _note_page(report, url, size), site, templates
    )
    report.transcript_jobs.clear()
    report.pages = len(items) + len(history.pages) + run_pages_written + copied
    if plan is not None:
        plan.finish(writer, config.redactor)
        report.pages = report.pages if plan.only is None else sum(path.endswith(".html") for path in writer.written)
    report.files = len(writer.written)
    report.total_bytes = writer.total_bytes
    report.limits = limit_warnings(report.files, report.total_bytes, config.transcript_policy)
    report.redacted = {kind: len(digests) for kind, digests in sorted(writer.redacted.items())}
    report.redaction = writer.redactor.enabled
