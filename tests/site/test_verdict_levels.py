"""The verdict box states both levels beside their difference (issue 28, item 1)."""

from __future__ import annotations

from generator.analyze.stats.experiment import paired_comparison
from generator.pages.comparison.statistics import comparison_statistics


def test_the_difference_fact_names_both_levels() -> None:
    candidate = {f"t{i}": [True, True, i % 2 == 0] for i in range(8)}  # 5/6 a task on average
    baseline = {f"t{i}": [True, False, False] for i in range(8)}  # 1/3
    section = comparison_statistics(paired_comparison(candidate, baseline))
    assert section.verdict is not None
    (label, value, _term) = section.verdict.facts[0]
    assert label == "Difference in pass@1 (candidate − baseline)"
    assert value.startswith("83.3% vs 33.3%: +50.0 pp, 95% interval ["), value
