"""The index page: one headline per comparison and per ledger, and error pages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from generator.model.common import SIDES
from generator.model.comparison_view import ComparisonView
from generator.model.ledger_result import LedgerResult
from generator.model.stats import Verdict as StatisticsVerdict
from generator.pages import format as fmt
from generator.pages.comparison.scores import decision_effect
from generator.pages.comparison.statistics import verdict_sentence
from generator.pages.models import (
    Cell,
    Column,
    EntryErrorPage,
    Headline,
    IndexPage,
    InputDigest,
    Link,
    PageBundle,
    PageMeta,
    Row,
    SiteInfo,
    Table,
)
from generator.pages.urls import comparison_url, index_url, ledger_url, rel, report_url

__all__ = [
    "build_index_page",
    "comparison_headline",
    "entry_error_page",
    "error_headline",
    "ledger_headline",
    "redaction_note",
]


def comparison_headline(
    entry_id: str, title: str, view: ComparisonView, verdict: StatisticsVerdict | None = None
) -> Headline:
    """A comparison's pass@k per side and its facts; ``verdict`` (typed, from the statistics) when it has one."""
    ks = view.ks
    rows = []
    for side in SIDES:
        metrics = view.metrics[side]
        cells = [Cell("Candidate" if side == "candidate" else "Baseline"), Cell(str(view.sides[side].treatment))]
        for k in ks:
            m = metrics.get(k)
            value = m.pass_at_k if m else None
            shown = f"{fmt.fixed(value)} ({m.eligible_tasks if m else 0}/{m.total_tasks if m else 0} tasks)"
            cells.append(fmt.num_cell(value, shown))
        matched = view.matched[side]
        cells.append(Cell(f"{matched.passes}/{matched.runs}", fmt.sort_key(matched.passes), None, "num"))
        rows.append(Row(tuple(cells)))
    table = Table(
        id=f"headline-{entry_id}",
        caption="pass@k per side (task macro; tasks with a defined value / all tasks)",
        columns=(Column("Side"), Column("Treatment"))
        + tuple(Column(f"pass@{k}", True) for k in ks)
        + (Column("Matched passes", True),),
        rows=tuple(rows),
        sortable=False,
    )
    issues = len(view.issues)
    summary = (
        f"{len(view.pairs):,} strictly matched pairs of {view.expected_keys:,} expected task/rep keys",
        f"{len(view.tasks):,} tasks",
        f"{issues:,} alignment issue{'s' if issues != 1 else ''}",
    ) + (
        (
            f"Verdict: {verdict_sentence(verdict)}",
            ": ".join(decision_effect(view.scores, verdict)),
        )
        if verdict is not None
        else ()
    )
    return Headline("comparison", entry_id, title, comparison_url(entry_id), True, None, summary, table)


def ledger_headline(entry_id: str, title: str, result: LedgerResult) -> Headline:
    from generator.pages.ledger.conditions import condition_reasons  # the words live with the ledger page

    ledger = result.facts
    if ledger is None:
        raise ValueError("ledger summary is not the reference summary schema (schemaVersion 1)")
    rows = []
    for row in ledger.candidates:
        failed = [label for _key, label, passed, _why in condition_reasons(result, row) if not passed]
        rows.append(
            Row(
                (
                    Cell(row.arm_id),
                    Cell(row.recommendation, None, None, "pass" if row.eligible else "fail"),
                    Cell(", ".join(failed) if failed else "none"),
                )
            )
        )
    table = Table(
        id=f"headline-{entry_id}",
        caption="Recommendation per candidate",
        columns=(Column("Candidate"), Column("Recommendation"), Column("Failed conditions")),
        rows=tuple(rows),
        sortable=False,
    )
    facts = (
        f"Campaign {ledger.campaign_id}",
        f"{ledger.receipt_count:,} receipts",
        f"baseline arm {ledger.baseline_arm_id}",
    )
    return Headline("ledger", entry_id, title, ledger_url(entry_id), True, None, facts, table)


_ENTRY_URLS = {"comparison": comparison_url, "ledger": ledger_url, "report": report_url}


def error_headline(kind: str, entry_id: str, title: str, message: str) -> Headline:
    return Headline(kind, entry_id, title, _ENTRY_URLS[kind](entry_id), False, message, (), None)


def entry_error_page(
    kind: str,
    entry_id: str,
    title: str,
    message: str,
    site: SiteInfo,
    inputs: Sequence[InputDigest] = (),
    details: Sequence[str] = (),
) -> PageBundle:
    url = _ENTRY_URLS[kind](entry_id)
    meta = PageMeta.of_entry(url, title, site, inputs)
    data = {
        "schema": "evalsite.site.error.v1",
        "kind": kind,
        "id": entry_id,
        "error": message,
        "details": list(details),
    }
    return PageBundle(EntryErrorPage(meta, kind, entry_id, message, tuple(details)), data)


def redaction_note(enabled: bool, extra_patterns: int) -> str:
    """The sentence every page's "Built from" section carries about secret redaction."""
    if not enabled:
        return "Secret redaction was turned off for this site (redact: false in its config)."
    extra = f" or one of the config's {extra_patterns} pattern(s)" if extra_patterns else ""
    return (
        "Secret redaction was applied before publishing: every value that matched a built-in rule (API keys and "
        f"tokens, AWS keys, private keys, passwords in URLs, secret-named assignments){extra} is shown as "
        "[redacted:<kind> sha256:<first 12 hex digits of its SHA-256>]."
    )


def build_index_page(
    site: SiteInfo,
    comparisons: Sequence[Headline],
    ledgers: Sequence[Headline],
    inputs: Sequence[InputDigest],
    leaderboards: Sequence[Headline] = (),
    trends: Mapping[tuple[str, str], str] | None = None,
    reports: Sequence[Headline] = (),
) -> PageBundle:
    """The index; *trends* maps (kind, id) to the site-relative URL of that entry's trend page."""
    if trends:
        comparisons = [_with_trend(h, trends) for h in comparisons]
        leaderboards = [_with_trend(h, trends) for h in leaderboards]
    meta = PageMeta(
        url=index_url(),
        title=site.title,
        site=site,
        inputs=tuple(inputs),
        downloads=(Link("data.json", "data.json"),),
    )
    page = IndexPage(meta, tuple(comparisons), tuple(ledgers), tuple(leaderboards), tuple(reports))
    data = {
        "schema": "evalsite.site.index.v1",
        "title": site.title,
        "comparisons": [_headline_data(h) for h in comparisons],
        "ledgers": [_headline_data(h) for h in ledgers],
        "inputs": [{"role": i.role, "name": i.name, "sha256": i.sha256, "detail": i.detail} for i in inputs],
        # a site without leaderboards keeps its index unchanged
        **({"leaderboards": [_headline_data(h) for h in leaderboards]} if leaderboards else {}),
        **({"reports": [_headline_data(h) for h in reports]} if reports else {}),  # likewise without reports
    }
    return PageBundle(page, data)


def _with_trend(h: Headline, trends: Mapping[tuple[str, str], str]) -> Headline:
    url = trends.get((h.kind, h.id))
    return h if url is None else replace(h, trend_href=rel(index_url(), url))


def _headline_data(h: Headline) -> dict[str, Any]:
    # only a site with a build history has trend pages
    trend = {"trend_url": h.trend_href} if h.trend_href is not None else {}
    return {
        "id": h.id,
        "title": h.title,
        "url": h.href,
        "ok": h.ok,
        "error": h.error,
        "summary": list(h.summary),
        **trend,
    }
