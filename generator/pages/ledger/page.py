"""Ledger and arm page models from the pipeline's :class:`~generator.model.ledger_result.LedgerResult`.

The summary decides admission; these modules only explain it.  Every admission condition is shown
passed/failed *with the numbers that decided it*, in words (:mod:`.conditions`), and every interval
is charted against its threshold (:mod:`.ledger`); each arm has its own page (:mod:`.arm`).
"""

from __future__ import annotations

from generator.pages.ledger.arm import ArmPageBuilder
from generator.pages.ledger.conditions import CONDITIONS, condition_reasons
from generator.pages.ledger.context import LedgerSource
from generator.pages.ledger.ledger import LedgerPageBuilder
from generator.pages.models import PageBundle, SiteInfo

__all__ = ["CONDITIONS", "LedgerSource", "build_ledger_pages", "condition_reasons"]


def build_ledger_pages(source: LedgerSource, site: SiteInfo) -> list[PageBundle]:
    """The ledger page followed by one arm page per arm (baseline first)."""
    ledger = LedgerPageBuilder(source, site)
    arms = ArmPageBuilder(source, site)
    return [ledger.ledger_page()] + [arms.arm_page(arm_id) for arm_id in arms.arm_ids]
