"""Honest hash audits (issue 10): every hashed part is same, differs, missing or not hashed.

A part whose path was missing on both sides hashed to the same constant; that proves nothing and
must never read "same" -- in the document, the Markdown report or the task page.
"""

from __future__ import annotations

import json
from pathlib import Path

from comet_fixtures import BASE, CAND, write_run
from hypothesis import given
from hypothesis import strategies as st

from generator.model.comparison import ComparisonInputs
from generator.model.formats import NOT_HASHED
from generator.model.runs import FALLBACK_SOURCE, MISSING_PATH_HASH, PART_STATES, CaseManifest, part_state
from generator.pages.comparison.page import ComparisonSource, build_comparison_pages
from generator.pages.models import SiteInfo, TaskPage
from generator.pipelines.compare import run_comparison
from generator.read.comet.manifest import fallback_manifest, tree_hash

TASK_PARTS = ("task_hash", "instruction_hash", "environment_hash", "data_hash")


def _fallback_runs(cand: Path, base: Path, task: str = "task-a") -> None:
    for exp, treatment in ((cand, CAND), (base, BASE)):
        report = write_run(exp, task, treatment, 1, True)
        data = json.loads(report.read_text())
        del data["events_summary"]["case_manifest"]  # no manifest: rebuilt from the tasks tree
        report.write_text(json.dumps(data))


def _task_page(output, tasks_configured: bool = True) -> TaskPage:
    source = ComparisonSource(
        "cmp", "Comparison", output.view, output.document, output.markdown, {}, (), tasks_configured
    )
    bundles = build_comparison_pages(source, SiteInfo("Site"))
    page = bundles[1].page
    assert isinstance(page, TaskPage)
    return page


def _verdicts(page: TaskPage) -> dict[str, str]:
    return {row.cells[0].text: row.cells[3].text for row in page.hashes_table.rows}


def test_missing_path_hash_is_the_tree_hash_of_a_missing_path(tmp_path: Path) -> None:
    assert tree_hash(tmp_path / "nothing-here") == MISSING_PATH_HASH


def test_fallback_records_missing_parts_while_hashing(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    (tasks / "t").mkdir(parents=True)
    (tasks / "t" / "task.toml").write_text("x = 1\n")
    (tasks / "t" / "instruction.md").write_text("Do it.\n")
    manifest = fallback_manifest("t", tasks, None)
    assert manifest.task_files is True
    assert {"environment_hash", "data_hash"} <= manifest.missing
    assert "task_hash" not in manifest.missing and "instruction_hash" not in manifest.missing
    assert "prompt_hash" not in manifest.missing  # its instruction input exists
    bare = fallback_manifest("t", None, None)
    assert bare.task_files is False
    assert set(TASK_PARTS) | {"validator_hash", "prompt_hash"} == set(bare.missing)


def test_no_tasks_folder_is_never_same_anywhere(dirs) -> None:
    cand, base, _tasks = dirs
    _fallback_runs(cand, base)
    output = run_comparison(ComparisonInputs(cand, CAND, base, BASE, ks=(1,)))
    doc = output.document
    entry = doc["manifest_audit"][0]
    for part in TASK_PARTS:
        assert entry["states"][part] == "missing-both"
        assert part in entry["candidate"]["missing_parts"]
    assert entry["candidate"]["task_files_available"] is False
    assert doc["limitations"]["fallback_without_task_files"] == 2
    assert doc["manifest_audit_summary"]["data_hash"] == {"missing-both": 1}
    # the Markdown report says so, and never shows the missing constant as agreement
    assert "not hashed (missing on both sides)" in output.markdown
    assert "Task files not available" in output.markdown
    assert MISSING_PATH_HASH[7:19] not in output.markdown.split("## Case manifest audit")[1]
    verdicts = _verdicts(_task_page(output, tasks_configured=False))
    for label in ("Task", "Instruction", "Environment", "Data", "Validator", "Prompt"):
        assert verdicts[label] == "not hashed (missing on both sides)"
    assert verdicts["Runner"] == "not recorded (v1 manifest)"
    assert "same" not in {verdicts[label] for label in ("Task", "Data", "Runner")}
    comparison = build_comparison_pages(
        ComparisonSource("cmp", "Comparison", output.view, doc, output.markdown, {}, (), False), SiteInfo("Site")
    )[0].page
    assert any("task files were not available" in notice.text for notice in comparison.meta.notices)


def test_report_bound_part_equal_to_the_missing_hash_is_missing(dirs) -> None:
    cand, base, _tasks = dirs
    for exp, treatment in ((cand, CAND), (base, BASE)):
        write_run(exp, "task-a", treatment, 1, True)
    output = run_comparison(ComparisonInputs(cand, CAND, base, BASE, ks=(1,)))
    entry = output.document["manifest_audit"][0]
    manifest = entry["candidate"]
    missing = {part for part in TASK_PARTS if manifest[part] == MISSING_PATH_HASH}
    assert set(manifest["missing_parts"]) == missing
    for part in TASK_PARTS:
        assert entry["states"][part] == ("missing-both" if part in missing else "same")


def _manifest(parts: dict[str, str], *, source: str = "report-bound-v1", missing: frozenset[str] = frozenset()):
    return CaseManifest("t", source, "comet.eval.case-manifest.v1", parts, "sha256:c", "sha256:k", missing)


def test_states_one_side_missing_differs_same_and_not_hashed() -> None:
    present = {"data_hash": "sha256:" + "1" * 64}
    gone = {"data_hash": MISSING_PATH_HASH}
    assert part_state("data_hash", _manifest(gone), _manifest(present)) == "missing-candidate"
    assert part_state("data_hash", _manifest(present), _manifest(gone)) == "missing-baseline"
    assert part_state("data_hash", _manifest(present), _manifest(present)) == "same"
    assert part_state("data_hash", _manifest(present), _manifest({"data_hash": "sha256:" + "2" * 64})) == "differs"
    assert part_state("data_hash", _manifest(present), None) == "no-record"
    imported = CaseManifest("t", "inspect-not-hashed", "inspect", {}, NOT_HASHED, NOT_HASHED)
    assert part_state("data_hash", imported, imported) == "not-hashed"
    assert part_state("case_hash", imported, imported) == "not-hashed"
    # a fallback's missing record wins even when the hash is not the constant (recorded at hashing time)
    recorded = _manifest({"data_hash": "sha256:" + "3" * 64}, source=FALLBACK_SOURCE, missing=frozenset({"data_hash"}))
    assert part_state("data_hash", recorded, recorded) == "missing-both"


HASHES = st.sampled_from(["sha256:" + "1" * 64, "sha256:" + "2" * 64, MISSING_PATH_HASH, NOT_HASHED])


@given(HASHES, HASHES, st.booleans(), st.booleans())
def test_same_only_when_both_were_hashed_and_agree(c_value: str, b_value: str, c_fb: bool, b_fb: bool) -> None:
    def manifest(value: str, fallback: bool) -> CaseManifest:
        source = FALLBACK_SOURCE if fallback else "report-bound-v1"
        missing = frozenset({"data_hash"}) if fallback and value == MISSING_PATH_HASH else frozenset()
        return _manifest({"data_hash": value}, source=source, missing=missing)

    state = part_state("data_hash", manifest(c_value, c_fb), manifest(b_value, b_fb))
    assert state in PART_STATES
    if state == "same":
        assert c_value == b_value and c_value not in (MISSING_PATH_HASH, NOT_HASHED)
    if MISSING_PATH_HASH in (c_value, b_value) and NOT_HASHED not in (c_value, b_value):
        assert state.startswith("missing")


def test_imported_task_page_reads_not_hashed() -> None:
    examples = Path(__file__).parents[2] / "examples" / "inspect"
    inputs = ComparisonInputs(
        examples / "candidate.json",
        "candidate-solver",
        examples / "baseline.json",
        "baseline-solver",
        candidate_format="inspect",
        baseline_format="inspect",
        ks=(1,),
    )
    verdicts = _verdicts(_task_page(run_comparison(inputs)))
    assert verdicts["Data"] == "not hashed" and verdicts["Runner"] == "not hashed"
    assert "same" not in {verdicts[label] for label in ("Task", "Instruction", "Data", "Runner")}
