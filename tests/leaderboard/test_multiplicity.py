"""Holm and Benjamini-Hochberg against statsmodels' multipletests on random p-value vectors."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.analyze.leaderboard.multiplicity import adjust, holm
from tests.support.hypo import examples

multitest = pytest.importorskip("statsmodels.stats.multitest")


@pytest.fixture(autouse=True, scope="module")
def _no_full_collections() -> Iterator[None]:
    """statsmodels' Holm runs ``gc.collect()`` on every call: a full collection of the whole test
    process (0.1-0.2 s each, most of this module's time).  The adjusted values never depend on it."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(gc, "collect", lambda *_args: 0)
        yield


p_vectors = st.lists(st.floats(min_value=0.0, max_value=1.0, allow_nan=False), min_size=1, max_size=40)


@settings(max_examples=examples(300), deadline=None)
@given(p_vectors)
def test_holm_matches_statsmodels(ps: list[float]) -> None:
    _reject, expected, _s, _b = multitest.multipletests(ps, alpha=0.05, method="holm")
    np.testing.assert_allclose(adjust(ps, "holm"), expected, rtol=1e-12, atol=1e-15)


@settings(max_examples=examples(300), deadline=None)
@given(p_vectors)
def test_bh_matches_statsmodels(ps: list[float]) -> None:
    _reject, expected, _s, _b = multitest.multipletests(ps, alpha=0.05, method="fdr_bh")
    np.testing.assert_allclose(adjust(ps, "bh"), expected, rtol=1e-12, atol=1e-15)


@settings(max_examples=examples(100), deadline=None)
@given(p_vectors, st.sampled_from([0.01, 0.05, 0.1]))
def test_rejections_match_statsmodels(ps: list[float], alpha: float) -> None:
    for ours, theirs in (("holm", "holm"), ("bh", "fdr_bh")):
        reject, _adj, _s, _b = multitest.multipletests(ps, alpha=alpha, method=theirs)
        assert [p <= alpha for p in adjust(ps, ours)] == list(reject)


def test_hand_checked_holm_and_none() -> None:
    assert holm([0.01, 0.04, 0.03]) == pytest.approx((0.03, 0.06, 0.06))
    assert adjust([0.2, 0.01], "none") == (0.2, 0.01)
    assert adjust([], "holm") == ()
    with pytest.raises(ValueError):
        adjust([1.5], "holm")
