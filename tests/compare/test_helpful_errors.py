"""Errors that help a newcomer (issue 28, item 7): a wrong treatment or folder says what is there.

The command runs in this process (``generator.cli.main``): what is tested is the wording of its
one line; the hostile suite runs the real command line in child processes.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.cli import Result, evalsite

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def _evalsite(*args: str, cwd: Path = EXAMPLES) -> Result:
    return evalsite(*args, cwd=cwd)


def _compare(candidate: str, treatment: str) -> Result:
    return _evalsite(
        "compare", "--candidate", candidate, "--candidate-treatment", treatment,
        "--baseline", "experiments/beta", "--baseline-treatment", "COMET_FULL_040_BETA",
    )  # fmt: skip


def test_a_wrong_treatment_lists_the_treatments_found_and_the_closest() -> None:
    result = _compare("experiments/native", "COMET_NATIVE_PHASE")
    assert result.returncode == 2
    assert result.stderr == (
        "error: no COMET_NATIVE_PHASE reports found in candidate experiment 'native'; "
        "treatments found: COMET_NATIVE_PHASE1, DYNAMIC_SKILL (did you mean 'COMET_NATIVE_PHASE1'?)\n"
    )


def test_the_parent_folder_given_as_the_experiment_names_the_experiments_inside() -> None:
    result = _compare("experiments", "COMET_NATIVE_PHASE1")
    assert result.returncode == 2
    assert result.stderr.endswith(
        "it has no reports/ folder, but these folders inside it do: beta, legacy, native, tampered\n"
    )


def test_a_leaderboard_system_with_a_wrong_treatment_gets_the_same_hint() -> None:
    result = _evalsite(
        "leaderboard", "--system", "a=leaderboard/agent-a:LB_AGENT", "--system", "b=leaderboard/agent-b:LB_AGENT_B"
    )
    assert result.returncode == 2
    assert "treatments found: LB_AGENT_A (did you mean 'LB_AGENT_A'?)" in result.stderr


def test_fail_on_takes_several_conditions_after_one_option(tmp_path: Path) -> None:
    (tmp_path / "site.yaml").write_text("title: empty\n")
    result = _evalsite(
        "build", "--config", "site.yaml", "--out", "out", "--fail-on", "regression", "verdict-worse", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert "CONDITION [CONDITION ...]" in _evalsite("build", "--help").stdout


def test_a_secret_in_an_error_line_is_redacted() -> None:
    """Issue 26: a CI log is published too; stderr lines were cut and made visible but not redacted."""
    token = "ghp_" + "Zq8" * 12
    result = _compare("experiments/native", token)
    assert result.returncode == 2
    assert token not in result.stderr and "[redacted:github-token sha256:" in result.stderr


def test_a_log_file_given_where_a_folder_format_is_named_says_which_format_to_set() -> None:
    """Issue 28, item 7: an Inspect .json with no format read "is not a folder"; harbor on a file "does not exist"."""
    for extra in ((), ("--candidate-format", "harbor")):
        result = _evalsite(
            "compare", "--candidate", "inspect/candidate.json", "--candidate-treatment", "candidate-solver",
            "--baseline", "inspect/baseline.json", "--baseline-treatment", "baseline-solver",
            "--baseline-format", "inspect", *extra,
        )  # fmt: skip
        assert result.returncode == 2
        assert result.stderr.startswith("error: candidate input 'candidate.json' is a file, but a ")
        assert result.stderr.endswith(
            "it looks like an Inspect log: set --candidate-format inspect (format: inspect in the site config)\n"
        )


def test_auto_takes_a_folder_holding_exactly_one_inspect_log(tmp_path: Path) -> None:
    """Issue 29, item 5: `auto` on a folder with one log said "fits no known format" while `inspect` read it."""
    import shutil

    shutil.copy(EXAMPLES / "inspect" / "candidate.eval", tmp_path / "candidate.eval")
    result = _evalsite(
        "compare", "--candidate", str(tmp_path), "--candidate-treatment", "candidate-solver",
        "--candidate-format", "auto", "--baseline", "inspect/baseline.json",
        "--baseline-treatment", "baseline-solver", "--baseline-format", "auto", "--format", "json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    # two logs of two runs: an Inspect folder still, whose logs are refused as one side (issue 29, item 3)
    shutil.copy(EXAMPLES / "inspect" / "baseline.eval", tmp_path / "baseline.eval")
    result = _evalsite(
        "compare", "--candidate", str(tmp_path), "--candidate-treatment", "candidate-solver",
        "--candidate-format", "auto", "--baseline", "inspect/baseline.json",
        "--baseline-treatment", "baseline-solver", "--baseline-format", "auto",
    )  # fmt: skip
    assert result.returncode == 2 and result.stderr.startswith(
        "error: candidate Inspect logs 'baseline.eval' and 'candidate.eval' are not one run: their "
    )
