"""The single-system report's typed result on a generated tau-bench look-alike with hand-computed values
(taukit.py): both pass^k (unbiased and Comet's), pass@k, their 95% intervals over tasks, failure
reasons, efficiency and issues."""

from __future__ import annotations

import math
import statistics
from pathlib import Path

import pytest
from scipy import stats as scipy_stats
from taukit import PASS_AT_K, PASS_POW_K, PASSES, TREATMENT, write_tau

from generator.analyze.report import default_ks, report_efficiency
from generator.model.runs import Artifact
from generator.pipelines.report import compute_report
from generator.read.config import ReportConfig, parse_config
from generator.render.report.document import report_document


def _entry(tmp_path: Path, **extra: object) -> ReportConfig:
    data = {
        "title": "t",
        "reports": [{"id": "tau", "title": "tau", "experiment": TREATMENT, "treatment": TREATMENT, **extra}],
    }
    return parse_config(data, tmp_path).reports[0]


def test_published_pass_pow_k_is_the_unbiased_estimate(tmp_path: Path) -> None:
    write_tau(tmp_path)
    result = compute_report(_entry(tmp_path))
    assert result.ks == (1, 2, 3, 4)  # the most repetitions a task has
    assert len(result.tasks) == 50 and result.system.aligned_keys == 200 and result.passes == 84
    for summary in result.system.macro:
        k = summary.k
        assert summary.pass_pow_k_unbiased.estimate == pytest.approx(PASS_POW_K[k], abs=1e-12)
        assert summary.pass_at_k.estimate == pytest.approx(PASS_AT_K[k], abs=1e-12)
        assert summary.pass_pow_k_observed.estimate == pytest.approx(0.2, abs=1e-12)  # Comet's floor: flat in k
    shown = [round(s.pass_pow_k_unbiased.estimate or 0, 3) for s in result.system.macro]
    assert shown == [0.42, 0.273, 0.22, 0.2]  # tau-bench's published pass^1..4


def test_intervals_are_t_intervals_over_tasks(tmp_path: Path) -> None:
    write_tau(tmp_path)
    result = compute_report(_entry(tmp_path))
    for summary in result.system.macro:
        k = summary.k
        values = [math.comb(c, k) / math.comb(4, k) for c in PASSES]
        half = scipy_stats.t.ppf(0.975, len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
        iv = summary.pass_pow_k_unbiased.interval
        assert iv.lower == pytest.approx(max(0.0, statistics.fmean(values) - half), abs=1e-9)
        assert iv.upper == pytest.approx(min(1.0, statistics.fmean(values) + half), abs=1e-9)
        betting = summary.pass_pow_k_unbiased.betting
        assert betting.lower is not None and betting.upper is not None
        assert betting.lower <= PASS_POW_K[k] <= betting.upper


def test_failure_reasons_and_reported_efficiency(tmp_path: Path) -> None:
    write_tau(tmp_path)
    result = compute_report(_entry(tmp_path))
    reasons = {f.reason: (f.runs, f.tasks, f.excluded) for f in result.failures}
    # a task passing 3, 2 or 1 times fails r_actions=0 in its other runs; the 14 that never pass r_outputs=0
    assert reasons == {"r_actions=0": (1 * 4 + 2 * 10 + 3 * 12, 26, False), "r_outputs=0": (4 * 14, 14, False)}
    efficiency = {m.key: m for m in result.efficiency}
    assert efficiency["num_turns"].reported and efficiency["num_turns"].average == pytest.approx(12.5)
    assert efficiency["tool_calls"].average == pytest.approx(2.5) and efficiency["tool_calls"].runs == 200
    document = report_document(result)
    assert document["schema"] == "evalsite.report.v1"
    assert document["system"]["pass_pow_k"]["2"]["estimate"] == pytest.approx(82 / 300)
    assert {"rank", "tier"}.isdisjoint(document["system"])


def test_a_missing_run_is_an_issue_and_k_is_never_lowered(tmp_path: Path) -> None:
    first = PASSES.index(4)
    write_tau(tmp_path, drop=((first, 4),))  # a task that passes 4 times lost its 4th trial
    result = compute_report(_entry(tmp_path, ks=[1, 4, 5]))
    assert result.ks == (1, 4, 5)
    by_k = {s.k: s for s in result.system.macro}
    assert by_k[4].eligible_tasks == 49  # the task with 3 runs leaves k = 4, never counted as 0 or 1
    assert by_k[4].pass_pow_k_unbiased.estimate == pytest.approx(9 / 49)
    assert by_k[5].eligible_tasks == 0 and by_k[5].pass_at_k.estimate is None  # undefined, not 0
    assert result.matrix_status == "historical-fallback"  # no matrix: the missing run cannot be seen...
    assert not result.system.issues  # ...so it is not an issue, and the page says why (a notice)


def test_default_ks() -> None:
    assert default_ks({"a": (1, 2, 3), "b": (1,)}) == (1, 2, 3)
    assert default_ks({}) == (1,)
    assert default_ks({"a": tuple(range(1, 40))}) == tuple(range(1, 11))  # at most 10


def test_efficiency_prefers_re_derived_values_and_labels_reported_ones() -> None:
    artifacts = [
        Artifact("verified", None, {"duration_seconds": 10.0}, {"duration_seconds": 10.0, "api_calls": 3}),
        Artifact("verified", None, {"duration_seconds": 20.0}, {"duration_seconds": 30.0}),  # disagrees: 20 kept
        Artifact("reported", "harness", None, {"duration_seconds": 40.0, "total_cost_usd": 0.5}),
        Artifact("absent", "none", None, None),
    ]
    rows = {(m.key, m.reported): m for m in report_efficiency(artifacts)}
    derived = rows[("duration_seconds", False)]
    assert (derived.runs, derived.aligned_runs, derived.average, derived.disagreements) == (2, 4, 15.0, 1)
    said = rows[("duration_seconds", True)]  # only the run without a re-derived duration
    assert (said.runs, said.average) == (1, 40.0)
    assert rows[("total_cost_usd", True)].average == 0.5 and rows[("api_calls", True)].average == 3.0
    assert ("total_cost_usd", False) not in rows  # no re-derived cost: no row, never a 0
