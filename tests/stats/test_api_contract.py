"""The contract of the public statistics API ``generator.stats`` (issue 25).

Calibration (error rates measured by simulation) belongs to ``make calibrate``, not here: these tests
check the API's promises -- the site's rule, determinism, order invariance, groups that agree with
``distinguishable`` on every pair, not-comparable pairs kept apart, and the history gate.
"""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator import stats
from generator.analyze.stats.experiment import paired_comparison
from generator.analyze.stats.groups import maximal_cliques
from generator.analyze.stats.sequential import level
from generator.model.stats import BETTER as SITE_BETTER
from generator.model.stats import WORSE as SITE_WORSE
from tests.support.hypo import examples


def _system(rng: random.Random, tasks: list[str], rate: float, reps: int) -> dict[str, list[float]]:
    return {t: [1.0 if rng.random() < rate else 0.0 for _ in range(reps)] for t in tasks}


TASKS = [f"task-{i:02d}" for i in range(40)]


def test_compare_is_the_site_rule_on_pass_fail_scores() -> None:
    rng = random.Random(1)
    seen = set()
    for rate in (0.3, 0.45, 0.5, 0.55, 0.8):
        cand, base = _system(rng, TASKS, rate, 3), _system(rng, TASKS, 0.5, 3)
        d = stats.compare(cand, base)
        site = paired_comparison(
            {t: [bool(x) for x in v] for t, v in cand.items()}, {t: [bool(x) for x in v] for t, v in base.items()}
        )
        expected = {SITE_BETTER: stats.BETTER, SITE_WORSE: stats.WORSE}.get(
            site.verdict.outcome, stats.NOT_DISTINGUISHABLE
        )
        assert d.outcome == expected
        assert d.difference == pytest.approx(site.verdict.difference)
        assert d.interval == pytest.approx((site.verdict.lower, site.verdict.upper))
        assert d.p_value == pytest.approx(site.verdict.p_value)
        seen.add(d.outcome)
    assert {stats.BETTER, stats.WORSE} <= seen


def test_outcomes_and_no_verdict_below_two_shared_tasks() -> None:
    good = {t: [1.0, 1.0] for t in TASKS}
    bad = {t: [0.0, 0.0] for t in TASKS}
    assert stats.compare(good, bad).outcome == "better"
    assert stats.compare(bad, good).outcome == "worse"
    assert stats.compare(good, good).outcome == "not distinguishable"
    disjoint = stats.compare({"a": [1.0], "b": [1.0]}, {"c": [0.0], "d": [0.0]})
    assert (disjoint.outcome, disjoint.tasks, disjoint.interval, disjoint.mde) == ("no verdict", 0, None, None)
    one = stats.compare({"a": [1.0, 1.0], "b": [1.0]}, {"a": [0.0, 0.0], "c": [0.0]})
    assert (one.outcome, one.tasks, one.pairs, one.difference) == ("no verdict", 1, 2, 1.0)
    # repetitions are paired by index: the third candidate repetition has no partner
    assert stats.compare({"a": [1.0, 0.0, 1.0], "b": [0.0]}, {"a": [0.0, 0.0], "b": [0.0]}).pairs == 3


def test_partial_credit_is_accepted() -> None:
    cand = {t: [0.5, 0.75, 1.0] for t in TASKS}
    base = {t: [0.25, 0.5, 0.5] for t in TASKS[:-1]} | {TASKS[-1]: [0.5, 0.75, 1.0]}
    d = stats.compare(cand, base)
    assert d.outcome == "better"
    assert d.difference == pytest.approx(39 * (1 / 3) / 40)
    real = stats.compare(
        {t: [0.123456789, 0.9] for t in TASKS}, {t: [0.1, 0.2 + i / 1000] for i, t in enumerate(TASKS)}
    )
    assert real.outcome == "better" and real.difference is not None and real.difference > 0


@pytest.mark.parametrize(
    "candidate",
    [{"a": [1.5]}, {"a": [float("nan")]}, {"a": ["x"]}, {"a": "1"}, [("a", [1.0])], {1: [1.0]}],
)
def test_bad_scores_are_a_one_line_value_error(candidate: object) -> None:
    with pytest.raises(ValueError) as caught:
        stats.compare(candidate, {"a": [1.0]})  # type: ignore[arg-type]
    assert "\n" not in str(caught.value)


def test_compare_is_deterministic_and_order_invariant() -> None:
    rng = random.Random(2)
    cand, base = _system(rng, TASKS, 0.6, 4), _system(rng, TASKS, 0.5, 4)
    first = stats.compare(cand, base)
    again = stats.compare(dict(reversed(list(cand.items()))), dict(reversed(list(base.items()))))
    assert first == again
    assert first.mde is not None and 0.0 < first.mde < 1.0 and first.mde_power == 0.8


def test_mde_shrinks_with_tasks_and_is_none_when_the_rule_cannot_decide() -> None:
    rng = random.Random(3)
    small = stats.compare(_system(rng, TASKS[:20], 0.5, 1), _system(rng, TASKS[:20], 0.5, 1)).mde
    big_tasks = [f"t{i}" for i in range(300)]
    big = stats.compare(_system(rng, big_tasks, 0.5, 1), _system(rng, big_tasks, 0.5, 1)).mde
    assert small is not None and big is not None and big < small
    # five tasks: the sign-flip test's smallest p-value is 2^-4 > 0.05, nothing is detectable
    five = {t: [1.0, 0.0] for t in TASKS[:5]}
    assert stats.compare(five, {t: [0.0, 1.0] for t in TASKS[:5]}).mde is None


def test_maximal_cliques_express_non_transitive_indistinguishability() -> None:
    adjacent = {"a": frozenset("b"), "b": frozenset("ac"), "c": frozenset("b"), "d": frozenset()}
    cliques = maximal_cliques(["a", "b", "c", "d"], adjacent)
    assert sorted(sorted(q) for q in cliques) == [["a", "b"], ["b", "c"], ["d"]]


def _boards() -> st.SearchStrategy[dict[str, dict[str, list[float]]]]:
    @st.composite
    def build(draw: st.DrawFn) -> dict[str, dict[str, list[float]]]:
        seed = draw(st.integers(0, 2**32 - 1))
        count = draw(st.integers(2, 6))
        rng = random.Random(seed)
        tasks = [f"t{i}" for i in range(draw(st.integers(6, 14)))]
        out = {}
        for k in range(count):
            mine = tasks if rng.random() < 0.8 else rng.sample(tasks, rng.randint(1, 4))
            out[f"s{k}"] = _system(rng, mine, rng.choice([0.1, 0.5, 0.55, 0.9]), rng.randint(1, 3))
        return out

    return build()


@settings(max_examples=examples(40), deadline=None)
@given(_boards())
def test_groups_agree_with_distinguishable_on_every_pair(systems: dict[str, dict[str, list[float]]]) -> None:
    b = stats.leaderboard(systems)
    names = sorted(systems)
    for i, a in enumerate(names):
        for c in names[i + 1 :]:
            called = b.distinguishable(a, c)
            shares = bool(b.groups[a] & b.groups[c])
            assert shares == (called is False), (a, c, called, b.groups)
            assert (called is None) == ((a, c) in b.not_comparable)
    assert all(b.groups[name] for name in names)
    shuffled = dict(reversed(list(systems.items())))
    other = stats.leaderboard(shuffled)
    assert other.groups == b.groups and other.not_comparable == b.not_comparable


def test_not_comparable_systems_never_share_a_group() -> None:
    rng = random.Random(4)
    systems = {
        "left": _system(rng, TASKS[:20], 0.5, 2),
        "right": _system(rng, TASKS[20:], 0.5, 2),
        "both": _system(rng, TASKS, 0.5, 2),
    }
    b = stats.leaderboard(systems)
    assert b.distinguishable("left", "right") is None
    assert b.not_comparable == (("left", "right"),)
    assert not b.groups["left"] & b.groups["right"]
    assert b.distinguishable("both", "left") is False and b.groups["both"] >= b.groups["left"] | b.groups["right"]
    with pytest.raises(KeyError):
        b.distinguishable("left", "nobody")


def test_groups_are_labelled_by_their_best_mean() -> None:
    rng = random.Random(5)
    systems = {
        "weak": _system(rng, TASKS, 0.1, 3),
        "strong": _system(rng, TASKS, 0.9, 3),
        "strong-too": _system(rng, TASKS, 0.9, 3),
    }
    b = stats.leaderboard(systems, correction="holm")
    assert b.groups["strong"] == b.groups["strong-too"] == frozenset("a")
    assert b.groups["weak"] == frozenset("b")
    assert b.distinguishable("weak", "strong") is True
    with pytest.raises(ValueError):
        stats.leaderboard(systems, correction="bonferroni")  # type: ignore[arg-type]


def test_history_flags_a_planted_drop_and_not_a_constant_series() -> None:
    rng = random.Random(6)
    tasks = [f"t{i}" for i in range(80)]
    rates = {t: rng.random() for t in tasks}

    def build(shift: float) -> dict[str, list[float]]:
        return {
            t: [1.0 if rng.random() < min(1.0, max(0.0, rates[t] + shift)) else 0.0 for _ in range(5)] for t in tasks
        }

    constant = build(0.0)
    steps = stats.history([constant] * 30)
    assert [s.flag for s in steps] == [None] * 30
    planted = stats.history([build(0.0), build(0.0), build(-0.4), build(-0.4)])
    assert [s.flag for s in planted][:2] == [None, None]
    assert planted[2].flag == planted[3].flag == "regression"
    assert stats.history([build(0.0), build(0.4)])[1].flag == "improvement"
    assert planted[2].alpha_spent == pytest.approx(0.05 * 6 / (math.pi**2 * 4))
    assert sum(level(i, 0.05) for i in range(1, 100_000)) < 0.05
    assert stats.history([]) == ()
    with pytest.raises(ValueError):
        stats.history({"a": [1.0]})  # type: ignore[arg-type]


def test_history_moves_its_reference_on_an_improvement_never_on_a_regression() -> None:
    rng = random.Random(8)
    tasks = [f"t{i}" for i in range(80)]
    rates = {t: rng.uniform(0.2, 0.5) for t in tasks}

    def build(shift: float) -> dict[str, list[float]]:
        return {t: [1.0 if rng.random() < min(1.0, rates[t] + shift) else 0.0 for _ in range(5)] for t in tasks}

    steps = stats.history([build(0.0), build(0.45), build(0.45), build(0.0), build(0.0)])
    assert [s.flag for s in steps] == [None, "improvement", None, "regression", "regression"]
    assert [s.reference for s in steps] == [0, 0, 1, 1, 1]  # a rerun of a regressed build stays flagged
    assert steps[2].alpha_spent == pytest.approx(level(1, 0.05)) and steps[4].alpha_spent == pytest.approx(
        level(3, 0.05)
    )
