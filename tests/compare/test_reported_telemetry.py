"""Telemetry a report carries (``events_summary``), kept apart and labelled (issue 10).

Reported numbers get their own rows, cover only what raw stdout does not, never change a
re-derived number, and a disagreement between the two is disclosed.
"""

from __future__ import annotations

from pathlib import Path

from comet_fixtures import BASE, CAND, write_reported_run, write_run
from hypothesis import given
from hypothesis import strategies as st

from generator.model.comparison import ComparisonInputs
from generator.pages.comparison.page import ComparisonSource, build_comparison_pages
from generator.pages.models import ComparisonPage, SiteInfo, TaskPage
from generator.pipelines.compare import run_comparison
from generator.read.comet.telemetry import MAX_TELEMETRY_VALUE, reported_telemetry


def _no_stdout_pair(cand: Path, base: Path):
    for exp, treatment, scale in ((cand, CAND, 1.0), (base, BASE, 2.0)):
        for rep in (1, 2):
            events = {"duration_s": 10.0 * scale * rep, "agent_duration_s": 8.0 * scale, "cost_usd": 0.5 * scale}
            events |= {"turns": int(4 * scale), "tool_calls": 3, "input_tokens": 100, "output_tokens": 10}
            write_reported_run(exp, "task-a", treatment, rep, True, events)
    return run_comparison(ComparisonInputs(cand, CAND, base, BASE, ks=(1,)))


def test_reported_numbers_are_mapped_and_validated() -> None:
    got = reported_telemetry({"duration_s": 3.5, "cost_usd": 0.25, "turns": 7, "tool_time_s": 1.5, "api_calls": 6})
    assert got is not None
    assert (got["duration_seconds"], got["total_cost_usd"], got["num_turns"]) == (3.5, 0.25, 7)
    assert (got["tool_time_seconds"], got["api_calls"]) == (1.5, 6)
    assert "reported by the harness" in got["source"]
    assert reported_telemetry({"artifact_references": {}, "profile": "x"}) is None
    assert reported_telemetry("not a dict") is None
    bad = reported_telemetry({"duration_s": True, "turns": -1, "cost_usd": 10**16, "tool_calls": 2})
    assert bad is not None and bad["duration_seconds"] is None and bad["num_turns"] is None
    assert bad["total_cost_usd"] is None and bad["tool_calls"] == 2


@given(st.dictionaries(st.sampled_from(["duration_s", "turns", "cost_usd", "tokens"]), st.from_type(object)))
def test_reported_reader_never_fails_and_keeps_only_plausible_numbers(events: dict) -> None:
    got = reported_telemetry(events)
    if got is None:
        return
    for key, value in got.items():
        if key != "source" and value is not None:
            assert not isinstance(value, bool) and 0 <= value <= MAX_TELEMETRY_VALUE


def test_reports_without_raw_stdout_use_reported_numbers_labelled(dirs) -> None:
    cand, base, _ = dirs
    output = _no_stdout_pair(cand, base)
    doc = output.document
    d = doc["duration"]["candidate"]
    assert (d["covered"], d["total_seconds"]) == (0, None)  # nothing re-derived
    assert d["reported"]["covered"] == 2 and d["reported"]["total_seconds"] == 30.0
    eff = doc["efficiency"]["all_aligned"]
    assert all(row["complete"] == 0 for row in eff["rows"])
    reported = {row["key"]: row for row in eff["reported_rows"]}
    assert reported["total_cost_usd"]["complete"] == 2
    assert (reported["total_cost_usd"]["candidate_average"], reported["total_cost_usd"]["baseline_average"]) == (
        0.5,
        1.0,
    )
    assert reported["agent_duration_seconds"]["complete"] == 2
    assert reported["num_turns"]["baseline_average"] == 8
    run = doc["runs"][0]
    assert run["telemetry"] is None and run["reported_telemetry"]["duration_seconds"] == 10.0
    assert run["provenance"] == {
        "run": f"{CAND}_run_1",
        "trial_name": "task-a.1-of-2",
        "failure_mode": "unset",
        "model": "model-x",
    }
    md = output.markdown
    assert "### Duration reported by the harness" in md
    assert "Reported by the harness (not re-derived" in md
    source = ComparisonSource("cmp", "Comparison", output.view, doc, md, {}, (), False)
    bundles = build_comparison_pages(source, SiteInfo("Site"))
    page, task = bundles[0].page, bundles[1].page
    assert isinstance(page, ComparisonPage) and isinstance(task, TaskPage)
    labels = [row.cells[0].text for row in page.efficiency_tables[1].rows]
    assert "Model cost — reported by the harness" in labels
    assert any(row.cells[-1].text.startswith("reported by the harness") for row in page.duration_table.rows)
    sources = [row.cells[2].text for row in task.telemetry_table.rows]
    # without raw stdout every re-derived row is all N/A: not shown, counted in the caption (issue 28)
    assert sources.count("reported by the harness") == 4 and sources.count("raw stdout") == 0
    assert "4 rows with no value (every column N/A) not shown" in task.telemetry_table.caption
    upstream = [row.cells[-1].text for row in task.runs_table.rows]
    assert f"run: {CAND}_run_1 · trial: task-a.1-of-2 · failure mode: unset · model: model-x" in upstream


def test_raw_stdout_wins_and_a_disagreement_is_disclosed(dirs) -> None:
    cand, base, _ = dirs
    for exp, treatment in ((cand, CAND), (base, BASE)):
        write_run(exp, "task-a", treatment, 1, True, durations=(2000,))  # raw 2 s; the report says 9999
    doc = run_comparison(ComparisonInputs(cand, CAND, base, BASE, ks=(1,))).document
    d = doc["duration"]["candidate"]
    assert (d["covered"], d["total_seconds"]) == (1, 2.0)
    assert d["reported"]["covered"] == 0  # the re-derived value covers the run
    assert [item["reported"] for item in d["reported"]["disagreements"]] == [9999]
    rows = {row["key"]: row for row in doc["efficiency"]["all_aligned"]["rows"]}
    assert rows["duration_seconds"]["candidate_average"] == 2.0
    assert rows["duration_seconds"]["reported_disagreements"] == 2
    reported = {row["key"]: row for row in doc["efficiency"]["all_aligned"]["reported_rows"]}
    assert reported["duration_seconds"]["complete"] == 0  # the pair is covered by raw stdout


def test_realscale_generator_reports_flow_through(tmp_path: Path) -> None:
    from tests.support.realscale import make_realscale_site

    config = make_realscale_site(tmp_path / "rs")
    deep = config.parent / "experiments" / "deep"
    cand, base = sorted(p for p in deep.iterdir())
    doc = run_comparison(ComparisonInputs(cand, cand.name, base, base.name, ks=(1,))).document
    assert doc["duration"]["candidate"]["reported"]["covered"] == doc["duration"]["candidate"]["matched"] == 400
    assert doc["limitations"]["fallback_without_task_files"] == 800
    assert doc["manifest_audit_summary"]["data_hash"] == {"missing-both": 80}
    assert all(run["provenance"].get("trial_name") for run in doc["runs"])
