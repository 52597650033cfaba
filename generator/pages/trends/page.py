"""The trend page of one subject: it selects and formats the numbers of ``analyze.history`` only.

Rows carry stable anchors (``build-<n>``, ``task-<slug>``) so the build summary can link to the
exact row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import ClassVar

from generator.model.history import StepDifference, TierMove, Trend
from generator.pages.format import interval, p_value, pp
from generator.pages.models import Link, PageBundle, PageMeta, SiteInfo
from generator.pages.urls import name_slug, rel

__all__ = [
    "BuildRow",
    "StableGroup",
    "StripRow",
    "TrendPage",
    "build_anchor",
    "build_trend_page",
    "task_anchor",
    "trend_url",
    "with_trend_links",
]

_MARK = {"pass": "✓", "fail": "✗", "mixed": "±", None: "·"}


def trend_url(kind: str, subject: str) -> str:
    return f"trends/{kind}s/{subject}/index.html"


def subject_url(kind: str, subject: str) -> str:
    return f"{kind}s/{subject}/index.html"


def with_trend_links(bundles: Sequence[PageBundle]) -> list[PageBundle]:
    """*bundles* with each comparison and leaderboard page linking its own trend page (issue 28):
    with a history, every recorded entry has one (entry error pages are not recorded)."""
    out = []
    for bundle in bundles:
        meta = bundle.page.meta
        kind, _, subject = meta.url.removesuffix("/index.html").partition("s/")
        if bundle.page.template in ("comparison.html", "leaderboard.html") and kind in ("comparison", "leaderboard"):
            link = Link(f"This {kind} across builds (trend)", rel(meta.url, trend_url(kind, subject)))
            bundle = replace(bundle, page=replace(bundle.page, meta=replace(meta, related=(*meta.related, link))))
        out.append(bundle)
    return out


def build_anchor(number: int) -> str:
    return f"build-{number}"


def task_anchor(label: str, task: str) -> str:
    return f"task-{name_slug(label + chr(0) + task)}"


@dataclass(frozen=True, slots=True)
class BuildRow:
    anchor: str
    number: str
    revision: str
    verdict: str
    issues: str
    sides: tuple[str, ...]  # "0.667 [0.40, 0.93]" per side label
    steps: tuple[str, ...]  # "−40.0 pp vs build 2, p = 0.00049 < 0.0038: regression (30 tasks)" per side label
    cls: str  # "regression" when any step is a regression


@dataclass(frozen=True, slots=True)
class StripRow:
    anchor: str
    label: str
    task: str
    marks: tuple[str, ...]
    flaky: bool


@dataclass(frozen=True, slots=True)
class StableGroup:
    """Tasks of one side whose outcome never changed across builds and read the same: one counted line."""

    label: str
    marks: tuple[str, ...]
    tasks: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TrendPage:
    meta: PageMeta
    kind: str
    subject: str
    subject_href: str
    labels: tuple[str, ...]
    gate: str  # the gate's guarantee, one sentence
    builds: tuple[BuildRow, ...]
    strips: tuple[StripRow, ...]  # the tasks whose outcome changed (flaky), one row each
    stable: tuple[StableGroup, ...]  # every other task, grouped by side and identical history
    flaky: int
    template: ClassVar[str] = "trend.html"


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _step(step: StepDifference | None) -> str:
    if step is None:
        return "—"
    if step.status == "not compared":
        return f"not compared ({step.tasks} shared task(s))"
    return (
        f"{pp(step.estimate)} vs build {step.reference}, p = {p_value(step.p_value)} "
        f"{'<' if step.p_value is not None and step.p_value < step.level else '≥'} {step.level:.2g}: "
        f"{step.status} ({step.tasks} tasks)"
    )


def tier_moves(moves: Sequence[TierMove]) -> str:
    """ "tiers: b 1 → 2 (its results unchanged: tiers are relative to the others)"; empty for none."""
    if not moves:
        return ""
    parts = [
        f"{m.label} {m.before or 'none'} → {m.now or 'none'}"
        + ("" if m.evidence_changed else " (its results unchanged: tiers are relative to the others)")
        for m in moves
    ]
    return "tiers: " + "; ".join(parts)


def _gate_sentence(trend: Trend, sides: int) -> str:
    share = f" ({trend.side_alpha:.3g} for each of the {sides} sides)" if sides > 1 else ""
    return (
        f"Guarantee: if this {trend.kind} does not change, the probability that any build of an unlimited history "
        f"is ever flagged (regression or improvement) is at most 5%{share}."
    )


def build_trend_page(trend: Trend, site: SiteInfo) -> TrendPage:
    url = trend_url(trend.kind, trend.subject)
    root = "../" * url.count("/")
    labels = tuple(sorted({p.label for b in trend.builds for p in b.sides}))
    rows = []
    for build in trend.builds:
        points = {p.label: p for p in build.sides}
        steps = {s.label: s for s in build.steps}
        rows.append(
            BuildRow(
                build_anchor(build.number),
                str(build.number),
                (build.revision or "unknown")[:12],
                build.verdict or tier_moves(build.tier_moves) or "—",
                str(build.issues),
                tuple(
                    f"{_number(points[label].estimate)} {interval(points[label].lower, points[label].upper, 3)}"
                    if label in points
                    else "absent"
                    for label in labels
                ),
                tuple(_step(steps.get(label)) if build.number > 1 else "first build" for label in labels),
                "regression" if build.regressions else "",
            )
        )
    strips = tuple(
        StripRow(task_anchor(s.label, s.task), s.label, s.task, tuple(_MARK[o] for o in s.outcomes), s.flaky)
        for s in trend.strips
    )
    # identical stable rows collapse into one counted line each (issue 28): 730 tasks x 4 systems of
    # "✓" or "✗" rows made a trend page 171,000 px tall; the rows that changed stay one row each
    groups: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for strip in strips:
        if not strip.flaky:
            groups.setdefault((strip.label, strip.marks), []).append(strip.task)
    stable = tuple(StableGroup(label, marks, tuple(tasks)) for (label, marks), tasks in groups.items())
    meta = PageMeta(
        url,
        f"Trend: {trend.title}",
        site,
        crumbs=(Link("Index", f"{root}index.html"),),
    )
    return TrendPage(
        meta,
        trend.kind,
        trend.subject,
        root + subject_url(trend.kind, trend.subject),
        labels,
        _gate_sentence(trend, len(labels)),
        tuple(rows),
        tuple(strip for strip in strips if strip.flaky),
        stable,
        sum(1 for s in strips if s.flaky),
    )
