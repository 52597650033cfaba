"""What every ledger page builder shares: the source, links, page metadata, the admission block."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from generator.model.ledger import ELIGIBLE
from generator.model.ledger_result import LedgerResult
from generator.pages import format as fmt
from generator.pages.ledger.common import index_of
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

    @property
    def summary(self) -> Mapping[str, Any]:
        return self.result.summary

    @property
    def extended(self) -> Mapping[str, Any] | None:
        return self.result.extended


class LedgerContext:
    def __init__(self, source: LedgerSource, site: SiteInfo) -> None:
        summary = source.summary
        self.result = source.result
        if not isinstance(summary, Mapping) or summary.get("schemaVersion") != 1 or "candidates" not in summary:
            raise ValueError("ledger summary is not the reference summary schema (schemaVersion 1)")
        self.source = source
        self.summary = summary
        self.site = site
        self.id = source.id
        self.url = ledger_url(source.id)
        self.thresholds = summary["thresholds"]
        self.baseline = summary["baselineArmId"]
        self.arm_ids = [self.baseline] + [
            row["armId"] for row in summary["candidates"] if row["armId"] != self.baseline
        ]
        self.arm_ids += sorted(a for a in summary["arms"] if a not in self.arm_ids)
        self.rows = {row["armId"]: row for row in summary["candidates"]}

    def arm_href(self, arm_id: str, from_url: str) -> str | None:
        return rel(from_url, arm_url(self.id, arm_id)) if arm_id in self.summary["arms"] else None

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

    def candidate_block(self, row: Mapping[str, Any], from_url: str) -> CandidateBlock:
        reasons = condition_reasons(self.result, row)
        rows = tuple(
            Row(
                (Cell(label, None, None, "", key), fmt.bool_cell(passed, "passed", "failed"), Cell(why)),
                "" if passed else "mismatch",
            )
            for key, label, passed, why in reasons
        )
        eligible = row["recommendation"] == ELIGIBLE
        return CandidateBlock(
            arm_id=row["armId"],
            href=self.arm_href(row["armId"], from_url) or "",
            eligible=eligible,
            recommendation=str(row["recommendation"]),
            conditions_table=Table(
                id=f"conditions-{index_of(self.summary['candidates'], row)}",
                caption=phrase("Admission conditions for {}", row["armId"]),
                columns=(Column("Condition"), Column("Result"), Column("Why")),
                rows=rows,
                sortable=False,
            ),
            failed=tuple(label for _key, label, passed, _why in reasons if not passed),
        )

    def paired_estimate(self, arm_id: str, key: str) -> float | None:
        facts = self.result.facts(arm_id)
        if facts is None:
            return None
        return facts.recall_estimate if key == "recallDifference" else facts.false_positive_estimate

    def transport_estimate(self, position: int) -> float | None:
        estimates = self.result.transport_estimates
        return estimates[position] if position < len(estimates) else None
