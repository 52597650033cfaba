"""What every ledger page builder shares: the source, links, page metadata, the admission block."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from generator.model.ledger_result import CandidateRow, LedgerResult
from generator.pages import format as fmt
from generator.pages.ledger.conditions import condition_reasons
from generator.pages.models import (
    CandidateBlock,
    Cell,
    Column,
    InputDigest,
    Link,
    Notice,
    PageMeta,
    Row,
    SiteInfo,
    StatisticsSection,
    Table,
)
from generator.pages.names import phrase
from generator.pages.urls import arm_url, ledger_url, rel

__all__ = ["LedgerContext", "LedgerSource"]


@dataclass(frozen=True, slots=True)
class LedgerSource:
    """One ledger entry as the pages need it: the pipeline's result plus the entry's facts."""

    id: str
    title: str
    result: LedgerResult
    inputs: tuple[InputDigest, ...]
    notices: tuple[Notice, ...] = ()
    statistics: StatisticsSection = StatisticsSection()


class LedgerContext:
    def __init__(self, source: LedgerSource, site: SiteInfo) -> None:
        facts = source.result.facts
        if facts is None:
            raise ValueError("ledger summary is not the reference summary schema (schemaVersion 1)")
        self.result = source.result
        self.facts = facts
        self.source = source
        self.site = site
        self.id = source.id
        self.url = ledger_url(source.id)
        self.thresholds = facts.thresholds
        self.baseline = facts.baseline_arm_id
        self.arm_ids = [arm.arm_id for arm in facts.arms]

    def arm_href(self, arm_id: str, from_url: str) -> str | None:
        return rel(from_url, arm_url(self.id, arm_id)) if self.facts.arm(arm_id) is not None else None

    def meta(self, url: str, title: str, crumbs: Sequence[tuple[str, str]], downloads: Sequence[Link]) -> PageMeta:
        return PageMeta(
            url=url,
            title=title,
            site=self.site,
            crumbs=tuple(Link(text, rel(url, target)) for text, target in crumbs),
            inputs=self.source.inputs,
            downloads=tuple(downloads),
            notices=self.source.notices,
        )

    # ------------------------------------------------------------------ tables

    def candidate_block(self, row: CandidateRow, from_url: str) -> CandidateBlock:
        reasons = condition_reasons(self.result, row)
        rows = tuple(
            Row(
                (Cell(label, None, None, "", key), fmt.bool_cell(passed, "passed", "failed"), Cell(why)),
                "" if passed else "mismatch",
            )
            for key, label, passed, why in reasons
        )
        return CandidateBlock(
            arm_id=row.arm_id,
            href=self.arm_href(row.arm_id, from_url) or "",
            eligible=row.eligible,
            recommendation=row.recommendation,
            conditions_table=Table(
                id=f"conditions-{row.position}",
                caption=phrase("Admission conditions for {}", row.arm_id),
                columns=(Column("Condition"), Column("Result"), Column("Why")),
                rows=rows,
                sortable=False,
            ),
            failed=tuple(label for _key, label, passed, _why in reasons if not passed),
        )
