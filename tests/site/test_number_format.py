"""How the pages write numbers a reviewer reads (issue 28, item 5): no exponent in a p-value, minus signs."""

from __future__ import annotations

from generator.model.stats import Interval
from generator.pages.format import p_value
from generator.pages.leaderboard.common import _diff_interval, _points


def test_a_tiny_p_value_reads_as_a_bound_not_an_exponent() -> None:
    assert p_value(6.937e-08) == "< 0.0001"
    assert p_value(0.0001) == "0.0001" and p_value(0.03125) == "0.03125" and p_value(1.0) == "1"
    assert p_value(None) == "N/A" and p_value(float("nan")) == "N/A"


def test_leaderboard_differences_use_the_minus_sign() -> None:
    assert _points(-0.052) == "−5.2" and _points(0.052) == "+5.2" and _points(0.0001) == "0.0"
    shown = _diff_interval(Interval(-0.1, -0.3, 0.1, 0.95, "t"))
    assert shown == "[−30.0, +10.0]" and "-" not in shown
