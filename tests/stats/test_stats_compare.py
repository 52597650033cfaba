"""End-to-end: paired_comparison, the verdict, ledger annotations, determinism and scale."""

import re

import numpy as np
import pytest

from generator.analyze.stats.experiment import (
    annotate_ledger_gate,
    diagnose_gate,
    paired_comparison,
    reference_paired_bounds,
    tasks_needed_for,
)

from .helpers import make_pairs


def swap(a, b):
    return b, a


def test_clear_improvement_is_candidate_better_and_swap_is_worse():
    rng = np.random.default_rng(21)
    cand, base = make_pairs(rng, 120, 5, effect=0.15, spread=0.05)
    res = paired_comparison(cand, base, ks=(1, 3))
    assert res.verdict.outcome == "candidate better" and res.verdict.sentence == "candidate better"
    assert res.verdict.lower > 0 and res.verdict.p_value < 0.05
    flipped = paired_comparison(*swap(cand, base), ks=(1, 3))
    assert flipped.verdict.outcome == "candidate worse"
    assert flipped.paired.difference.estimate == pytest.approx(-res.paired.difference.estimate)
    assert flipped.paired.runs.wins == res.paired.runs.losses
    assert flipped.paired.tango.lower == pytest.approx(-res.paired.tango.upper, abs=1e-9)
    # per-side metrics swap too
    assert flipped.candidate[1].pass_at_k.estimate == res.baseline[1].pass_at_k.estimate


def test_small_sample_is_not_distinguishable_with_numbers():
    rng = np.random.default_rng(5)
    cand, base = make_pairs(rng, 6, 3, effect=0.1)
    res = paired_comparison(cand, base)
    v = res.verdict
    assert v.outcome == "not distinguishable"
    m = re.fullmatch(
        r"not distinguishable at this sample size \(would need about ([\d,]+) tasks to detect a difference of "
        r"([\d.]+) percentage points\)",
        v.sentence,
    )
    assert m, v.sentence
    assert int(m.group(1).replace(",", "")) == v.tasks_needed > 6
    assert float(m.group(2)) == pytest.approx(100 * abs(res.paired.difference.estimate), abs=0.05)
    assert any("only 6 task" in w for w in res.warnings)


def test_verdict_difference_of_interest_and_all_ties():
    same = {f"t{i}": [bool((i + r) % 3) for r in range(4)] for i in range(40)}
    res = paired_comparison(same, same)
    assert res.paired.runs.wins == res.paired.runs.losses == 0
    assert res.paired.mcnemar.p_value == 1.0 and res.paired.sign_flip.p_value == 1.0
    assert res.verdict.outcome == "not distinguishable"
    assert res.verdict.difference_of_interest == pytest.approx(res.power.mde)  # no observed difference
    custom = paired_comparison(same, same, difference_of_interest=0.05)
    assert custom.verdict.difference_of_interest == 0.05 and "5.0 percentage points" in custom.verdict.sentence
    assert custom.verdict.tasks_needed == tasks_needed_for(custom.power, 0.05)


def test_one_task_comparison():
    res = paired_comparison({"t": [True, True, False, True]}, {"t": [False, True, False, False]})
    assert res.paired.difference.estimate == 0.5 and not res.paired.difference.interval.defined
    assert res.paired.sign_flip.p_value == 1.0
    # one task cannot be compared: "no verdict", never "not distinguishable" (issue 25)
    assert res.verdict.outcome == "no verdict"
    assert res.verdict.sentence.startswith("no verdict: 1 task(s)") and res.verdict.tasks_needed is None
    assert res.paired.mcnemar.wins == 2 and res.paired.mcnemar.losses == 0


def test_k_larger_than_reps_in_comparison():
    rng = np.random.default_rng(2)
    cand, base = make_pairs(rng, 10, 3)
    res = paired_comparison(cand, base, ks=(1, 5))
    assert res.ks == (1, 5)
    assert res.candidate[1].pass_at_k.estimate is None and res.candidate[1].eligible_tasks == 0


def test_design_effect_warning_when_repetitions_agree():
    # tasks are all-or-nothing: repetitions carry almost no new information
    cand = {f"t{i}": [i % 3 == 0] * 10 for i in range(30)}
    base = {f"t{i}": [i % 3 == 1] * 10 for i in range(30)}
    res = paired_comparison(cand, base)
    assert res.paired.difference.design_effect == pytest.approx((10 * 30 - 1) / (30 - 1))
    assert any("design effect" in w for w in res.warnings)
    # the cluster interval is much wider than the naive run-level one
    cd = res.paired.difference
    assert (cd.interval.upper - cd.interval.lower) > 2.5 * (cd.naive_interval.upper - cd.naive_interval.lower)


def test_deterministic_results():
    rng = np.random.default_rng(99)
    cand, base = make_pairs(rng, 300, 7, effect=0.02, spread=0.1)
    assert paired_comparison(cand, base, ks=(1, 2, 7)) == paired_comparison(cand, base, ks=(1, 2, 7))


def test_thousand_tasks_by_ten_reps():
    """The exact sign-flip test at 1,000 tasks x 10 runs (its speed is bench/bench_compare.py's, not a test's)."""
    rng = np.random.default_rng(1000)
    cand, base = make_pairs(rng, 1000, 10, effect=0.01, spread=0.1)
    res = paired_comparison(cand, base, ks=(1, 5, 10))
    assert res.paired.sign_flip.exact and res.paired.difference.tasks == 1000


def test_ten_to_the_five_pairs():
    cand = {"t": [i % 10 < 6 for i in range(10**5)]}
    base = {"t": [i % 10 < 5 for i in range(10**5)]}
    res = paired_comparison(cand, base, ks=(1, 100))
    assert res.paired.runs.wins == 10**4 and res.paired.runs.losses == 0
    assert res.candidate[0].pass_at_k.estimate == pytest.approx(0.6)
    assert res.candidate[1].pass_at_k.estimate == pytest.approx(1.0)
    assert res.paired.tango.lower == pytest.approx(0.1, abs=0.01) and res.paired.mcnemar.p_value == 0.0


# --------------------------------------------------------------------------- ledgers


def test_ledger_seven_clean_cases_ten_repeats_fpr_margin():
    pairs = {f"clean-{i}": [(False, False)] * 10 for i in range(7)}
    a = annotate_ledger_gate(pairs, kind="upper_margin", margin=0.05)
    assert (a.cases, a.pairs, a.wins, a.losses, a.ties) == (7, 70, 0, 0, 70)
    assert a.reference.upper == pytest.approx(0.0513, abs=1e-4)
    d = a.diagnosis
    assert not d.passed and d.reason == "cannot pass at this sample size"
    assert "can never pass" in d.sentence and "72 pairs" in d.sentence
    assert d.pairs_needed == 72
    assert a.mcnemar.p_value == 1.0
    assert "identical" in a.reference_label and "independent" in a.reference_label
    assert a.tango.confidence == 0.90 and a.tango.lower < 0 < a.tango.upper


def test_ledger_underpowered_versus_worse():
    # equally good arms, many discordant pairs: the conservative rule fails for lack of pairs
    pairs = {f"c{i}": [(True, True)] * 6 + [(True, False)] * 2 + [(False, True)] * 2 for i in range(10)}
    a = annotate_ledger_gate(pairs, kind="non_inferiority", margin=0.10)
    assert a.reference.lower <= -0.10
    assert a.diagnosis.reason == "underpowered"
    assert a.diagnosis.pass_probability_if_equal < 0.8 and a.diagnosis.pairs_needed > 100
    assert "underpowered" in a.diagnosis.sentence
    # a clearly worse candidate
    bad = {f"c{i}": [(True, True)] * 5 + [(False, True)] * 5 for i in range(20)}
    b = annotate_ledger_gate(bad, kind="non_inferiority", margin=0.10)
    assert b.diagnosis.reason == "candidate worse" and b.mcnemar.p_candidate_worse < 1e-20


def test_ledger_passed_override_and_clustering():
    pairs = {"a": [(True, True)] * 50, "b": [(True, False)] * 3 + [(True, True)] * 47}
    a = annotate_ledger_gate(pairs, kind="non_inferiority", margin=0.10)
    assert a.diagnosis.passed and a.diagnosis.reason == "passed"
    forced = diagnose_gate(reference_paired_bounds(3, 0, 100), "non_inferiority", 0.10, passed=False)
    assert not forced.passed
    # repeats of one case perfectly correlated -> design effect far above 1
    clustered = {f"c{i}": [(i % 2 == 0, i % 2 == 1)] * 10 for i in range(8)}
    c = annotate_ledger_gate(clustered, kind="equivalence", margin=0.03)
    assert c.clustering.design_effect == pytest.approx((80 - 1) / (8 - 1))


def test_ledger_empty():
    a = annotate_ledger_gate({}, kind="upper_margin", margin=0.05)
    assert a.pairs == 0 and a.reference.lower is None and a.tango.lower is None
    assert not a.diagnosis.passed


def test_results_serialise_to_plain_json():
    import dataclasses
    import json

    rng = np.random.default_rng(17)
    cand, base = make_pairs(rng, 25, 4, effect=0.1)
    res = paired_comparison(cand, base, ks=(1, 2, 8))
    text = json.dumps(dataclasses.asdict(res), allow_nan=False)
    assert '"method"' in text and "Waudby-Smith" in text and "Tango" in text
    led = annotate_ledger_gate({"c": [(True, False), (False, False)] * 20}, kind="upper_margin", margin=0.05)
    json.dumps(dataclasses.asdict(led), allow_nan=False)


def test_no_pairs_at_all():
    res = paired_comparison({}, {}, ks=(1, 2))
    assert res.verdict.sentence == (
        "no verdict: 0 task(s) with matched pairs; the interval over tasks needs at least two"
    )
    assert res.candidate[0].pass_at_k.estimate is None and res.paired.tango.lower is None
    assert res.paired.mcnemar.p_value == 1.0 and res.power.mde is None
