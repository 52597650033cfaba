"""metric: mean and several scorers on logs written by the real inspect-ai (issue 29).

The fixtures (``fixtures/scores``) are ``scripts/make_score_logs.py``'s: inspect-ai's ``mockllm/model``
answering shell commands scored 0 / 0.5 / 0.8 / 1 by ``partial`` (first scorer) and C / I by
``exact``, both with inspect-ai's own ``mean`` metric published in each log's header.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from generator.model.comparison import ComparisonInputs, ComparisonResult
from generator.model.errors import EvalsiteError
from generator.model.formats import ImportOptions
from generator.model.scores import ScoreMetric
from generator.pipelines.compare import compare_experiments, run_comparison
from generator.read.config import parse_config
from generator.read.inspect.archive import Archive
from tests.support.cli import evalsite

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / "tests" / "importers" / "fixtures" / "scores"


def _published(side: str) -> dict[str, float]:
    """Each scorer's ``mean`` as inspect-ai published it in the log's header."""
    data = (LOGS / f"{side}.eval").read_bytes()
    header = json.loads(Archive(data, f"{side}.eval").read("header.json") or b"{}")
    return {item["name"]: item["metrics"]["mean"]["value"] for item in header["results"]["scores"]}


def _inputs(metric: ScoreMetric = "mean", scorer: str | None = None) -> ComparisonInputs:
    return ComparisonInputs(
        candidate_dir=LOGS / "candidate.eval",
        candidate_treatment="shell",
        baseline_dir=LOGS / "baseline.eval",
        baseline_treatment="shell",
        ks=(1,),
        candidate_format="inspect",
        baseline_format="inspect",
        import_options=ImportOptions(scorer=scorer),
        metric=metric,
    )


def _compare(metric: ScoreMetric = "mean", scorer: str | None = None) -> ComparisonResult:
    return compare_experiments(_inputs(metric, scorer))


def test_the_mean_reproduces_inspects_published_mean_of_a_numeric_scorer() -> None:
    result = _compare()
    assert result.scores is not None and result.scores.comparison is not None
    mean = result.scores.comparison
    candidate, baseline = _published("candidate"), _published("baseline")
    assert result.scores.scorer == "partial"  # the log's first scorer decides by default
    assert math.isclose(mean.candidate.estimate or 0, candidate["partial"], rel_tol=1e-12)
    assert math.isclose(mean.baseline.estimate or 0, baseline["partial"], rel_tol=1e-12)
    assert {0.0, 0.5, 0.8, 1.0} >= {
        float(r.report["score_number"]) for r in result.experiments["candidate"].records
    }  # partial credit, not binarised
    assert candidate["partial"] != candidate["exact"]  # the threshold would not have reproduced it


def test_every_scorer_is_shown_and_only_the_chosen_one_decides() -> None:
    for scorer, other in (("partial", "exact"), ("exact", "partial")):
        result = _compare(scorer=scorer)
        assert result.scores is not None
        rows = {item.scorer: item for item in result.scores.scorers}
        assert [item.scorer for item in result.scores.scorers] == [scorer, other]
        assert rows[scorer].deciding and not rows[other].deciding
        for side, held in (("candidate", rows[other].candidate), ("baseline", rows[other].baseline)):
            assert math.isclose(held or 0, _published(side)[other], rel_tol=1e-12)
        assert result.scores.comparison is not None and result.scores.comparison.scorer == scorer


def test_a_pass_at_k_comparison_shows_the_other_scorers_in_its_document() -> None:
    output = run_comparison(_inputs("pass@k"))
    scores = output.document["scores"]
    assert scores["metric"] == "pass@k" and scores["mean"] is None
    assert [(s["scorer"], s["deciding"]) for s in scores["scorers"]] == [("partial", True), ("exact", False)]
    assert output.view.decision is output.result.statistics.verdict  # pass@1 decides
    assert "| `exact` | not deciding |" in output.markdown


def test_the_mean_decides_the_view_the_document_and_the_report() -> None:
    output = run_comparison(_inputs("mean"))
    assert output.result.scores is not None and output.result.scores.comparison is not None
    assert output.view.decision is output.result.scores.comparison.verdict
    mean = output.document["scores"]["mean"]
    assert mean["verdict"]["sentence"] == output.view.decision.sentence
    assert "## Verdict (metric mean)" in output.markdown
    assert "## pass@1 (not deciding: metric mean decides)" in output.markdown


def test_cli_metric_mean_and_a_bad_metric(tmp_path: Path) -> None:
    common = ["--candidate-format", "inspect", "--baseline-format", "inspect", "--k", "1"]
    common += ["--candidate-treatment", "shell", "--baseline-treatment", "shell"]
    args = ["compare", "--candidate", str(LOGS / "candidate.eval"), "--baseline", str(LOGS / "baseline.eval")]
    done = evalsite(*args, *common, "--metric", "mean", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["scores"]["metric"] == "mean"
    bad = evalsite(*args, *common, "--metric", "median")
    assert bad.returncode == 2 and "median" in bad.stderr and "Traceback" not in bad.stderr


def test_a_score_outside_0_1_under_metric_mean_is_one_line_error(tmp_path: Path) -> None:
    for side, rows in (("new", [("a", 0.5), ("b", 3.5)]), ("old", [("a", 0.5), ("b", 0.5)])):
        (tmp_path / f"{side}.jsonl").write_text("".join(json.dumps({"task": t, "score": s}) + "\n" for t, s in rows))
    inputs = ComparisonInputs(
        candidate_dir=tmp_path / "new.jsonl",
        candidate_treatment="x",
        baseline_dir=tmp_path / "old.jsonl",
        baseline_treatment="x",
        candidate_format="records",
        baseline_format="records",
        metric="mean",
    )
    with pytest.raises(EvalsiteError, match=r"candidate run 'b' repetition 1 has the score 3.5, outside \[0, 1\]"):
        compare_experiments(inputs)
    # the same inputs compare under pass@k (the threshold decides)
    assert compare_experiments(ComparisonInputs(**{**inputs.__dict__, "metric": "pass@k"})).scores is None


def test_config_takes_metric_and_refuses_others(tmp_path: Path) -> None:
    def config(entry: dict[str, object], key: str = "comparisons") -> dict[str, object]:
        return {"title": "t", key: [entry]}

    side = {"experiment": str(LOGS / "candidate.eval"), "treatment": "shell", "format": "inspect"}
    entry = {"id": "c", "title": "c", "candidate": side, "baseline": side, "metric": "mean"}
    parsed = parse_config(config(entry), tmp_path)
    assert parsed.comparisons[0].metric == "mean"
    with pytest.raises(EvalsiteError, match=r"comparison 'c' metric: metric must be one of pass@k, mean, not 'median'"):
        parse_config(config({**entry, "metric": "median"}), tmp_path)
    board = {"id": "b", "title": "b", "systems": [{**side, "label": "x"}, {**side, "label": "y"}], "metric": "mean"}
    assert parse_config(config(board, "leaderboards"), tmp_path).leaderboards[0].inputs().metric == "mean"
    with pytest.raises(EvalsiteError, match=r"leaderboard 'b' metric: metric must be one of pass@k, mean, not 'media"):
        parse_config(config({**board, "metric": "median"}, "leaderboards"), tmp_path)
