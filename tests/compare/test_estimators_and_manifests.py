"""pass@k estimators (checked against brute-force enumeration) and embedded-manifest verification."""

from __future__ import annotations

import copy
from fractions import Fraction
from itertools import combinations

import pytest
from comet_fixtures import sha, v1_manifest, v2_from_v1
from hypothesis import given
from hypothesis import strategies as st

from generator.analyze.comparison.passk import (
    normalize_ks,
    parse_ks,
    pass_at_k,
    pass_pow_k,
    pass_pow_k_unbiased,
    task_macro,
)
from generator.read.comet.manifest import canonical_hash, verify_embedded

outcomes = st.lists(st.booleans(), min_size=1, max_size=9)


def brute(values: list[bool], k: int) -> tuple[Fraction, Fraction]:
    """Exact P(at least one pass) and P(all pass) over every k-subset of the runs."""
    subsets = list(combinations(values, k))
    any_pass = Fraction(sum(any(s) for s in subsets), len(subsets))
    all_pass = Fraction(sum(all(s) for s in subsets), len(subsets))
    return any_pass, all_pass


@given(outcomes, st.integers(1, 9))
def test_estimators_equal_subset_enumeration(values, k) -> None:
    n, c = len(values), sum(values)
    if k > n:
        return
    any_pass, all_pass = brute(values, k)
    assert pass_at_k(n, c, k) == pytest.approx(float(any_pass), abs=1e-15)
    assert pass_pow_k_unbiased(n, c, k) == pytest.approx(float(all_pass), abs=1e-15)
    assert pass_pow_k(n, c) == (1.0 if all(values) else 0.0)
    assert pass_pow_k_unbiased(n, c, k) <= pass_at_k(n, c, k) + 1e-15


def test_reference_examples() -> None:
    assert pass_at_k(3, 1, 1) == pytest.approx(1 / 3)
    assert pass_at_k(3, 1, 2) == pytest.approx(2 / 3)
    assert pass_at_k(48, 24, 3) == pytest.approx(0.8830, abs=1e-4)


@given(
    st.dictionaries(st.text(min_size=1, max_size=5), outcomes, max_size=8),
    st.lists(st.integers(1, 10), min_size=1, max_size=4),
)
def test_task_macro_coverage_never_lowers_k(results, ks) -> None:
    ks = normalize_ks(ks)
    metrics = task_macro(results, ks, total_tasks=len(results) + 1)
    for k in ks:
        eligible = [v for v in results.values() if len(v) >= k]
        m = metrics[k]
        assert m.eligible_tasks == len(eligible) and m.total_tasks == len(results) + 1
        if not eligible:
            assert (m.pass_at_k, m.pass_pow_k, m.pass_pow_k_unbiased) == (None, None, None)
        else:
            # The estimators are the reference's float formulas (bit for bit), so the order holds up to
            # rounding: 1 of 5 at k=1 gives pass@1 = 1 - 4/5 = 0.19999999999999996 and pass^1 = 0.2.
            assert 0.0 <= m.pass_pow_k_unbiased <= m.pass_at_k + 1e-12 <= 1.0 + 2e-12


@pytest.mark.parametrize("bad", ["", "0", "1,,2", "-1", "x", "1.5", "²"])
def test_parse_ks_rejects(bad) -> None:
    with pytest.raises(ValueError):
        parse_ks(bad)


def test_parse_ks_dedupes_and_sorts() -> None:
    assert parse_ks("3, 1,3,2") == (1, 2, 3)
    with pytest.raises(ValueError):
        normalize_ks([True])


# ----------------------------------------------------------------------- manifests


def test_v1_and_v2_verify_and_share_a_core_hash() -> None:
    v1 = v1_manifest("task-a")
    v2 = v2_from_v1(v1)
    one, two = verify_embedded(v1, "task-a"), verify_embedded(v2, "task-a")
    assert one is not None and two is not None
    assert (one.source, two.source) == ("report-bound-v1", "report-bound-v2")
    assert one.core_hash == two.core_hash and one.case_hash != two.case_hash
    assert two.execution_bound and not one.execution_bound


def tamper(manifest, change):
    out = copy.deepcopy(manifest)
    change(out)
    return out


V2 = v2_from_v1(v1_manifest("task-a"))


@pytest.mark.parametrize(
    "manifest",
    [
        tamper(V2, lambda m: m.update(task="task-b")),
        tamper(V2, lambda m: m.update(case_hash=sha("forged"))),
        tamper(V2, lambda m: m.update(extra=1)),
        tamper(V2, lambda m: m["execution_identity"].update(interaction_max_turns="03")),
        tamper(V2, lambda m: m["execution_identity"].update(interaction_max_turns="1001")),
        tamper(V2, lambda m: m["execution_identity"].update(interaction_max_turns=3)),
        tamper(V2, lambda m: m["execution_identity"].update(model_source="private-model-alias")),
        tamper(V2, lambda m: m["execution_identity"].update(image_id_hash="sha256:ABC")),
        tamper(V2, lambda m: m["execution_identity"].pop("schema")),
        tamper(V2, lambda m: m.update(schema="comet.eval.case-manifest.v3")),
        tamper(v1_manifest("task-a"), lambda m: m.update(data_hash="sha256:" + "g" * 64)),
        "not a dict",
    ],
)
def test_tampered_manifests_do_not_verify(manifest) -> None:
    assert verify_embedded(manifest, "task-a") is None


def test_changed_identity_needs_a_new_execution_hash() -> None:
    changed = tamper(V2, lambda m: m["execution_identity"].update(interaction_mode="none"))
    assert verify_embedded(changed, "task-a") is None
    changed["execution_hash"] = canonical_hash(changed["execution_identity"])
    parts = {k: changed[k] for k in changed if k.endswith("_hash") and k != "case_hash"}
    changed["case_hash"] = canonical_hash({"schema": changed["schema"], "task": "task-a", **parts})
    assert verify_embedded(changed, "task-a") is not None


def test_canonical_json_escapes_non_ascii_like_comet() -> None:
    assert canonical_hash({"task": "é"}) == sha('{"task":"\\u00e9"}')
