"""The Markdown report words an imported side in its format's terms, not Comet's."""

from __future__ import annotations

from pathlib import Path

from harness_fixtures import claude_stream, harbor_job, harbor_trial, swebench_run

from generator.pipelines.compare import ComparisonInputs, compare_experiments, render_comparison

FIXTURES = Path(__file__).parent / "fixtures" / "inspect"
T0 = "2025-06-01T10:0{}:00.000000Z"
# Comet's own words: none may appear when neither side is a Comet experiment without agent stdout.
COMET_WORDS = ("raw stdout", "v1-unbound", "controller-written", "Comet's", "| Treatment |", "`reports/`", "v2)")


def _markdown(inputs: ComparisonInputs) -> str:
    return render_comparison(compare_experiments(inputs)).markdown


def test_an_inspect_report_speaks_of_logs_samples_and_reported_telemetry() -> None:
    text = _markdown(
        ComparisonInputs(
            FIXTURES / "candidate.json",
            "cand",
            FIXTURES / "baseline.eval",
            "base",
            candidate_format="inspect",
            baseline_format="inspect",
        )
    )
    for word in COMET_WORDS:
        assert word not in text, word
    assert "- Both sides: Inspect log (inspect); one run = one sample;" in text
    assert "| Candidate | the log header's sample ids x epochs (Inspect log) |" in text
    assert "## Duration\n\nInspect logs hold no agent stdout" in text
    assert "missing raw duration" not in text  # no per-run list of what the format cannot hold
    assert "## Paired task efficiency (reported by the harness)" in text
    assert "| Side label | Metric |" in text
    assert "come from Inspect logs, which record the case but not the runner" in text
    assert "A run passes when its chosen scorer gives C" in text


def test_a_harbor_against_swebench_report_names_both_formats_and_the_hash_rule(tmp_path: Path) -> None:
    run = swebench_run(tmp_path / "run", "m", {"t": {"resolved": True}, "u": {"resolved": False}})
    trials = [
        harbor_trial("t", "aaaaaaa", started=T0.format(1), reward=0.0),
        harbor_trial("u", "bbbbbbb", started=T0.format(2), reward=1.0),
    ]
    job = harbor_job(tmp_path / "job", trials, stdout={"t__aaaaaaa": claude_stream(100, 20, 50)})
    text = _markdown(
        ComparisonInputs(run, "m", job, "claude-code", candidate_format="swebench", baseline_format="harbor")
    )
    assert "- The candidate: SWE-bench run (swebench); one run = one instance;" in text
    assert "- The baseline: Harbor job (harbor); one run = one trial; case hash = Harbor's task_checksum" in text
    assert "runs pair by task id and repetition only" in text
    assert "observed trials (Harbor jobs record no expected matrix)" in text
    # Harbor can hold the agent's own stdout, so the re-derived duration section stays, reworded
    assert "## Duration from the agent's own stdout" in text and "## Paired task efficiency\n" in text
    assert "on the candidate side when the instance is resolved" in text
    for word in ("v1-unbound", "controller-written", "Comet's", "`reports/`"):
        assert word not in text, word


def test_a_comet_report_keeps_its_own_words() -> None:
    examples = Path(__file__).resolve().parents[2] / "examples"
    text = _markdown(
        ComparisonInputs(
            examples / "experiments" / "native",
            "COMET_NATIVE_PHASE1",
            examples / "experiments" / "beta",
            "COMET_FULL_040_BETA",
            tasks_dir=examples / "tasks",
        )
    )
    assert "## Duration from raw stdout" in text and "| Treatment |" in text
    assert "Side label" not in text and "Inspect" not in text
