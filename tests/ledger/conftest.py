"""Fixtures for the benchmark-ledger tests."""

from __future__ import annotations

import pytest
from ledgerkit import GOLDEN


@pytest.fixture(scope="session")
def golden_dir():
    assert GOLDEN.is_dir(), "run scripts/make_ledger_golden.py to create tests/ledger/golden"
    return GOLDEN
