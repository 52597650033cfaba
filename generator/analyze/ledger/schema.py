"""The ledger's validation rules in one import: campaigns, receipts, and the formats they rely on.

The formats (canonical JSON, digests, field sets, :class:`Campaign`) are defined once in
``generator.model.ledger``; the campaign rules in :mod:`generator.analyze.ledger.campaign`; the
receipt rules in :mod:`generator.analyze.ledger.receipt`.  This module only gathers them for callers
that want "everything about the ledger schema" (scripts, benchmarks, tests).
"""

from __future__ import annotations

from generator.analyze.ledger.campaign import campaign_digest, execution_digest, normalize_manifest, parse_campaign
from generator.analyze.ledger.receipt import check_receipt, seal_receipt
from generator.model.ledger import (
    ARM_FIELDS,
    CASE_FIELDS,
    EXECUTION_STATE_FIELDS,
    KILL_CANON,
    KILL_CONTROL_FIELDS,
    KILL_MODES,
    RECEIPT_FIELDS_V1,
    RECEIPT_FIELDS_V2,
    THRESHOLD_FIELDS,
    TOKEN_FIELDS,
    USAGE_FIELDS,
    Campaign,
    LedgerDataError,
    canonical_bytes,
    canonical_text,
    ledger_digest,
    receipt_id,
    run_key,
)

__all__ = [
    "ARM_FIELDS",
    "CASE_FIELDS",
    "Campaign",
    "EXECUTION_STATE_FIELDS",
    "KILL_CANON",
    "KILL_CONTROL_FIELDS",
    "KILL_MODES",
    "LedgerDataError",
    "RECEIPT_FIELDS_V1",
    "RECEIPT_FIELDS_V2",
    "THRESHOLD_FIELDS",
    "TOKEN_FIELDS",
    "USAGE_FIELDS",
    "campaign_digest",
    "canonical_bytes",
    "canonical_text",
    "check_receipt",
    "execution_digest",
    "ledger_digest",
    "normalize_manifest",
    "parse_campaign",
    "receipt_id",
    "run_key",
    "seal_receipt",
]
