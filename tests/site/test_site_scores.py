"""The comparison page under metric: mean and with several scorers (issue 29): page models only."""

from __future__ import annotations

from pathlib import Path

from generator.model.comparison import ComparisonInputs
from generator.model.formats import ImportOptions
from generator.model.scores import ScoreMetric
from generator.pages.comparison.statistics import comparison_statistics, decided_verdict
from generator.pages.index import comparison_headline
from generator.pipelines.compare import run_comparison

LOGS = Path(__file__).resolve().parents[2] / "tests" / "importers" / "fixtures" / "scores"


def _output(metric: ScoreMetric, scorer: str | None = None):  # type: ignore[no-untyped-def]
    return run_comparison(
        ComparisonInputs(
            candidate_dir=LOGS / "candidate.eval",
            candidate_treatment="new",
            baseline_dir=LOGS / "baseline.eval",
            baseline_treatment="old",
            ks=(1,),
            candidate_format="inspect",
            baseline_format="inspect",
            import_options=ImportOptions(scorer=scorer),
            metric=metric,
        )
    )


def test_metric_mean_puts_the_mean_verdict_in_the_box_in_points() -> None:
    output = _output("mean")
    view = output.view
    assert view.scores is not None and view.scores.comparison is not None
    mean = view.scores.comparison
    section = comparison_statistics(view.statistics, view.scores)
    assert section.verdict is not None
    assert section.verdict.text == mean.verdict.sentence[:1].upper() + mean.verdict.sentence[1:]
    assert section.verdict.method.startswith("metric mean")
    facts = {label: value for label, value, _term in section.verdict.facts}
    shown = facts["Difference in mean score of partial (candidate − baseline)"]
    assert shown.startswith(f"{mean.candidate.estimate:.3f} vs {mean.baseline.estimate:.3f}: ")
    assert f"{100 * (mean.verdict.difference or 0):+.1f} points".replace("-", "−") in shown and " pp" not in shown
    assert facts["Tasks / strictly matched pairs"] == f"{mean.difference.tasks} tasks / {mean.pairs} pairs"
    ids = [table.id for table in section.tables]
    assert ids[:3] == ["stats-mean-table", "stats-mean-paired-table", "stats-scorers-table"]
    assert ids[3:] == ["stats-intervals-table", "stats-paired-table"]  # pass@k stays, after
    assert decided_verdict(view.statistics, view.scores) is mean.verdict
    headline = comparison_headline("c", "c", view, decided_verdict(view.statistics, view.scores))
    assert any(line.startswith("Difference in mean score (candidate − baseline): ") for line in headline.summary)


def test_pass_at_k_with_two_scorers_keeps_its_verdict_and_adds_the_scorers_table() -> None:
    output = _output("pass@k", scorer="exact")
    view = output.view
    section = comparison_statistics(view.statistics, view.scores)
    assert view.statistics is not None and section.verdict is not None
    assert section.verdict.text.lower().startswith(view.statistics.verdict.sentence[:10].lower())
    assert [t.id for t in section.tables] == ["stats-scorers-table", "stats-intervals-table", "stats-paired-table"]
    scorers = section.tables[0]
    roles = [(row.cells[0].text, row.cells[1].text) for row in scorers.rows]
    assert roles == [("exact", "decides"), ("partial", "not deciding")]
