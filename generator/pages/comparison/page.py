"""Comparison and task page models from a typed :class:`~generator.model.comparison_view.ComparisonView`.

One comparison page shows every section of the Markdown report as tables, in
the report's order (:mod:`.sections`), plus the statistics section formatted
from the typed statistics (:mod:`.statistics`); one task page per task
(:mod:`.task`) shows its instruction, its hash components side by side, every
repetition of both sides and its issues.  The view is the single source:
nothing here re-reads evidence files or the JSON document (a rendering of the same view).
"""

from __future__ import annotations

from functools import partial

from generator.pages.comparison.context import ComparisonSource, side_label
from generator.pages.comparison.decision import DecisionSections, anchored
from generator.pages.comparison.price import price_note, price_rows
from generator.pages.comparison.sections import ComparisonSections
from generator.pages.comparison.task import TaskPages
from generator.pages.glossary import GLOSSARY_URL
from generator.pages.models import ComparisonPage, Link, Notice, PageBundle, PageJob, SiteInfo
from generator.pages.urls import index_url, rel, task_url

__all__ = [
    "ComparisonSource",
    "build_comparison_pages",
    "comparison_page_jobs",
    "side_label",
]


class _Builder(DecisionSections, ComparisonSections, TaskPages):
    """Builds the comparison page and the task pages of one document."""

    def comparison_page(self) -> PageBundle:
        duration_table, duration_missing = self.duration_table()
        title = self.source.title
        page = ComparisonPage(
            meta=self.meta(
                self.url,
                title,
                (("Home", index_url()),),
                self.source.inputs,
                (Link("data.json", "data.json"), Link("report.md", "report.md")),
                (*(Notice("error", s) for s in self.source.run_status), *self.audit_notices()),
            ),
            comparison_id=self.id,
            candidate=self.side_facts("candidate"),
            baseline=self.side_facts("baseline"),
            ks=self.view.ks,
            summary_table=self.summary_table(),
            matrix_table=self.matrix_table(),
            matrix_notices=self.matrix_notices(),
            metrics_table=self.metrics_table(),
            metrics_chart=self.metrics_chart(),
            duration_table=duration_table,
            duration_missing=duration_missing,
            efficiency_tables=self.efficiency_tables(),
            efficiency_notice=Notice(
                "info",
                "A pair counts for a metric only when both sides have telemetry and both values are numbers. "
                "Context rows need per-message usage on both sides.",
            ),
            manifest_table=anchored(self.manifest_table(), "manifest", "tasks in the audit"),
            outcomes_table=self.outcomes_table(),
            issue_counts=tuple(sorted(self.view.issue_counts.items())),
            issues_table=self.anchored_issues(
                self.view.issues,
                self.issues_table(self.view.issues, self.url, with_task=True, anchor="issues-table"),
                with_task=True,
            ),
            skipped_table=self.skipped_table(),
            statistics=self.source.statistics,
            no_verdict_reason=self.no_verdict_reason(),
            failure_table=self.failure_table(),
            glossary_href=rel(self.url, GLOSSARY_URL),
            task_chart=self.task_difference_chart(),
            efficiency_chart=self.efficiency_chart(),
            imported=self.view.imported,
            price=price_rows(self.view.price),
            price_note=price_note(self.view.price),
        )
        return PageBundle(page, self.source.data, (("report.md", self.source.markdown),))


def comparison_page_jobs(source: ComparisonSource, site: SiteInfo) -> tuple[PageBundle, list[PageJob]]:
    """The comparison page, and one job per task page (document order) made when written."""
    builder = _Builder(source, site)
    jobs = [
        PageJob.of(partial(builder.task_page, index), task_url(builder.id, task))
        for index, task in enumerate(builder.tasks)
    ]
    return builder.comparison_page(), jobs


def build_comparison_pages(source: ComparisonSource, site: SiteInfo) -> list[PageBundle]:
    """The comparison page followed by one task page per task (document order)."""
    page, jobs = comparison_page_jobs(source, site)
    return [page, *(job.bundle() for job in jobs)]
