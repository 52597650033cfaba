"""Harbor job folders and SWE-bench runs (fixtures from the published schemas, harness_fixtures.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from harness_fixtures import (
    atif_steps,
    claude_stream,
    harbor_job,
    harbor_trial,
    swebench_run,
    swebench_submission,
    swebench_trajectory,
)

from generator.model.errors import EvalsiteError
from generator.model.formats import NOT_HASHED, ImportOptions
from generator.pipelines.compare import ComparisonInputs, compare_experiments, render_comparison
from generator.read.formats import detect_format
from generator.read.harbor.job import load_harbor
from generator.read.swebench.run import load_swebench

T0 = "2025-06-01T10:0{}:00.000000"


def _job(root: Path, *, candidate: bool = True) -> Path:
    trials = [
        # names sort z, a, m; start times order them a (10:01), m (10:02), z (10:03)
        harbor_trial("hello-world", "zzzzzzz", started=T0.format(3), reward=1.0 if candidate else 0.0),
        harbor_trial("hello-world", "aaaaaaa", started=T0.format(1), reward=1.0),
        harbor_trial("hello-world", "mmmmmmm", started=T0.format(2), reward=0.0),
        harbor_trial("fix-git", "bbbbbbb", started=T0.format(1), reward=0.0, exception="AgentTimeoutError"),
        harbor_trial("fix-git", "ccccccc", started=T0.format(2), reward=None, exception="DockerBuildError"),
    ]
    stream = {"hello-world__aaaaaaa": claude_stream(500, 40, 100)}
    return harbor_job(root, trials, stdout=stream)


def test_harbor_trials_are_ordered_by_start_time_and_judged_as_scored(tmp_path: Path) -> None:
    experiment = load_harbor("candidate", _job(tmp_path / "job"), "claude-code", ImportOptions())
    by_key = {r.key: r for r in experiment.records}
    assert [by_key[("hello-world", n)].report["trial_name"] for n in (1, 2, 3)] == [
        "hello-world__aaaaaaa",
        "hello-world__mmmmmmm",
        "hello-world__zzzzzzz",
    ]
    timeout = by_key[("fix-git", 1)]  # scored despite the agent timeout: a failure, as scored
    assert timeout.quality.include_in_analysis and not timeout.passed
    crashed = by_key[("fix-git", 2)]  # the exception left no reward: excluded with its type
    assert not crashed.quality.include_in_analysis and "DockerBuildError" in crashed.quality.reason
    assert timeout.manifest.case_hash == "3f1c9e"
    reported = timeout.report["reported_telemetry"]
    # n_input_tokens includes the cache: the non-cache input is 1200 - 300
    assert (reported["input_tokens"], reported["cache_read_input_tokens"], reported["total_tokens"]) == (900, 300, 2000)
    assert reported["duration_seconds"] == 20.0


def test_harbor_telemetry_is_re_derived_from_agent_stdout_where_present(tmp_path: Path) -> None:
    job = _job(tmp_path / "cand")
    base = _job(tmp_path / "base", candidate=False)
    result = compare_experiments(
        ComparisonInputs(job, "claude-code", base, "claude-code", candidate_format="harbor", baseline_format="harbor")
    )
    artifacts = dict(zip([p.key for p in result.alignment.pairs], result.artifacts["candidate"], strict=True))
    derived = artifacts[("hello-world", 1)]
    assert derived.status == "verified" and derived.telemetry is not None
    assert (
        derived.telemetry["input_tokens"] == 500
        and derived.reported is not None
        and derived.reported["input_tokens"] == 900
    )
    assert artifacts[("hello-world", 2)].status == "reported"
    assert [i.reason for i in result.alignment.issues] == ["quality-excluded"]


def test_harbor_job_with_several_agents_needs_the_treatment(tmp_path: Path) -> None:
    trials = [
        harbor_trial("t", "aaaaaaa", started=T0.format(1), reward=1.0, agent="claude-code"),
        harbor_trial("t", "bbbbbbb", started=T0.format(2), reward=1.0, agent="codex", model="openai/gpt-5"),
    ]
    job = harbor_job(tmp_path / "job", trials)
    with pytest.raises(EvalsiteError, match="ran several agents"):
        load_harbor("candidate", job, "label", ImportOptions())
    assert [r.rep for r in load_harbor("candidate", job, "codex", ImportOptions()).records] == [1]


def test_harbor_trial_without_checksum_is_not_hashed_and_a_linked_result_is_skipped(tmp_path: Path) -> None:
    trials = [harbor_trial("t", "aaaaaaa", started=T0.format(1), reward=1.0, checksum=None)]
    job = harbor_job(tmp_path / "job", trials)
    outside = tmp_path / "outside.json"
    outside.write_text("{}")
    (job / "evil__1234567").mkdir()
    os.symlink(outside, job / "evil__1234567" / "result.json")
    experiment = load_harbor("candidate", job, "x", ImportOptions())
    assert experiment.records[0].manifest.case_hash == NOT_HASHED
    assert [(s.file, s.reason) for s in experiment.skipped] == [
        ("evil__1234567/result.json", "trial result is a symbolic link")
    ]


def test_swebench_harness_run_with_its_run_report(tmp_path: Path) -> None:
    run = swebench_run(
        tmp_path / "run-1",
        "my-model",
        {
            "django__django-1": {"resolved": True},
            "django__django-2": {"resolved": False, "patch_successfully_applied": False},
        },
        run_report={
            "resolved_ids": ["django__django-1"],
            "unresolved_ids": ["django__django-2"],
            "error_ids": ["django__django-3"],
            "empty_patch_ids": ["django__django-4"],
            "incomplete_ids": ["django__django-5"],
        },
    )
    assert detect_format(run) == "swebench"
    records = {r.task: r for r in load_swebench("candidate", run, "my-model", ImportOptions()).records}
    assert records["django__django-1"].passed
    assert records["django__django-2"].checks_failed == ("patch did not apply",)
    assert not records["django__django-3"].quality.include_in_analysis  # error: excluded
    assert records["django__django-4"].quality.include_in_analysis and not records["django__django-4"].passed
    assert records["django__django-5"].quality.reason_code == "incomplete"
    assert {r.rep for r in records.values()} == {1}


def test_swebench_submission_knows_its_split(tmp_path: Path) -> None:
    folder = tmp_path / "evaluation" / "lite" / "20250101_agent"
    swebench_submission(
        folder,
        {"resolved": ["a__a-1"], "no_generation": ["a__a-2"], "no_logs": ["a__a-3"]},
        ["a__a-1", "a__a-2", "a__a-3", "a__a-4"],
    )
    records = {r.task: r for r in load_swebench("baseline", folder, "agent", ImportOptions()).records}
    assert records["a__a-1"].passed and records["a__a-2"].checks_failed == ("no_generation",)
    assert not records["a__a-3"].quality.include_in_analysis
    assert records["a__a-4"].checks_failed == ("unresolved",)
    assert records["a__a-1"].report["split"] == "lite"


def test_different_formats_pair_by_task_id_and_claim_no_hash_agreement(tmp_path: Path) -> None:
    run = swebench_run(tmp_path / "run", "m", {"t": {"resolved": True}})
    job = harbor_job(tmp_path / "job", [harbor_trial("t", "aaaaaaa", started=T0.format(1), reward=0.0)])
    result = compare_experiments(
        ComparisonInputs(run, "m", job, "claude-code", candidate_format="swebench", baseline_format="harbor")
    )
    (pair,) = result.alignment.pairs
    assert pair.case_hash == NOT_HASHED and pair.candidate.passed and not pair.baseline.passed
    assert pair.candidate.manifest.source.startswith("not hashed across formats")


def _trajectory_submission(root: Path, costs: dict[str, float], *, bad: str | None = None) -> Path:
    """A submission of four instances; each in ``costs`` has a SWE-agent trajectory with that cost."""
    names = ["a__a-1", "a__a-2", "a__a-3", "a__a-4"]
    trajs: dict[str, object] = {}
    for i, (instance, cost) in enumerate(sorted(costs.items())):
        name = f"{instance}.traj" if i % 2 == 0 else f"{instance}/{instance}.traj.json"  # both layouts
        trajs[name] = swebench_trajectory(instance, cost, sent=1000 * (i + 1), received=100 * (i + 1), calls=3 + i)
    if bad is not None:
        trajs[f"{bad}.traj"] = "{not json"
    return swebench_submission(root, {"resolved": names[:2], "no_generation": [names[3]]}, names, trajs)


def test_swebench_trajectory_cost_is_reported_telemetry_and_a_bad_file_is_skipped(tmp_path: Path) -> None:
    folder = _trajectory_submission(
        tmp_path / "evaluation" / "lite" / "20250101_agent", {"a__a-1": 0.5, "a__a-2": 1.25}, bad="a__a-3"
    )
    experiment = load_swebench("baseline", folder, "agent", ImportOptions())
    records = {r.task: r for r in experiment.records}
    first = records["a__a-1"].report["reported_telemetry"]
    assert first["total_cost_usd"] == 0.5 and first["output_tokens"] == 100 and first["total_tokens"] == 1100
    assert first["input_tokens"] is None  # tokens_sent includes the cache, not told apart: never "non-cache"
    assert first["api_calls"] == 3 and first["source"] == "reported by the agent (trajs/a__a-1.traj: info.model_stats)"
    nested = records["a__a-2"].report["reported_telemetry"]
    assert nested["total_cost_usd"] == 1.25 and "a__a-2/a__a-2.traj.json" in nested["source"]
    assert records["a__a-3"].report["reported_telemetry"] is None  # bad file: no numbers, run still counts
    assert records["a__a-4"].report["reported_telemetry"] is None  # no trajectory at all
    assert [(s.file, s.reason) for s in experiment.skipped] == [("trajs/a__a-3.traj", "is not valid JSON")]


def test_swebench_trajectory_cost_reaches_the_efficiency_tables(tmp_path: Path) -> None:
    cand = _trajectory_submission(tmp_path / "c", {"a__a-1": 0.5, "a__a-2": 1.5, "a__a-4": 1.0})
    base = _trajectory_submission(tmp_path / "b", {"a__a-1": 1.0, "a__a-2": 2.5, "a__a-4": 3.0})
    result = compare_experiments(
        ComparisonInputs(cand, "x", base, "y", candidate_format="swebench", baseline_format="swebench")
    )
    document = render_comparison(result).document
    strict = document["efficiency"]["strict_success"]
    cost = {r["label"]: r for r in strict["reported_rows"]}["Model cost"]
    assert cost["complete"] == 2 and cost["candidate_average"] == 1.0 and cost["baseline_average"] == 1.75
    everything = {r["label"]: r for r in document["efficiency"]["all_aligned"]["reported_rows"]}["Model cost"]
    assert everything["complete"] == 3  # a__a-3 has no trajectory on either side
    run = next(r for r in document["runs"] if r["side"] == "candidate" and r["task"] == "a__a-1")
    assert run["artifact"] == "reported" and "info.model_stats" in run["artifact_reason"]


def test_harbor_turns_and_tool_calls_are_counted_from_the_atif_trajectory(tmp_path: Path) -> None:
    trials = [
        harbor_trial("t", "aaaaaaa", started=T0.format(1), reward=1.0),
        harbor_trial("t", "bbbbbbb", started=T0.format(2), reward=0.0),
    ]
    job = harbor_job(tmp_path / "job", trials, steps={"t__aaaaaaa": atif_steps([2, 1, 0])})
    (with_steps, without) = load_harbor("candidate", job, "claude-code", ImportOptions()).records
    counted = with_steps.report["reported_telemetry"]
    assert (counted["num_turns"], counted["tool_calls"]) == (3, 3)  # agent steps only; system and user left out
    assert counted["source"].endswith("; turns and tool calls from agent/trajectory.json)")
    assert counted["input_tokens"] == 900  # the token figures stay Harbor's agent_result
    plain = without.report["reported_telemetry"]  # an empty trajectory gives no counts
    assert plain["num_turns"] is None and plain["tool_calls"] is None and "trajectory" not in plain["source"]
    # a trajectory that is not ATIF is not counted
    (job / "t__aaaaaaa" / "agent" / "trajectory.json").write_text('{"steps": [{"source": "agent"}]}')
    again = load_harbor("candidate", job, "claude-code", ImportOptions()).records[0]
    assert again.report["reported_telemetry"]["num_turns"] is None
