"""The ledger page models, on generated look-alike ledgers and on every golden summary.

A campaign with a perfect candidate and a flawed one (missed defects, false positives, one identity
mismatch, a failing kill attempt, a missing repeat) goes through ``summarize_ledger``; the pages
must show what was put into the receipts, counted here from the receipts themselves.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ledgerkit import GOLDEN, golden_json, small_campaign, write_campaign, write_ledger

from generator.analyze.ledger.result import ledger_result
from generator.analyze.ledger.schema import parse_campaign
from generator.model.ledger import CONDITIONS, ELIGIBLE
from generator.model.ledger_result import RATE_KEYS
from generator.pages.ledger.page import LedgerSource, build_ledger_pages, condition_reasons
from generator.pages.ledger.statistics import ledger_statistics
from generator.pages.models import ArmPage, LedgerPage, SiteInfo, Table
from generator.pipelines.ledger import parse_campaign_bytes, site_result, summarize_ledger
from tests.support.ledger_synth import arm, full_grid, make_receipt

SITE = SiteInfo("Site")
#: (case, repeat) where the weak arm finds nothing: 14 of 120 defect attempts, below the recall margin
MISSED = {(f"defect-{case:02d}", repeat) for case in range(1, 8) for repeat in (1, 2)}
FLAGGED_REPEAT = 1  # the weak arm flags a defect on this repeat of every clean case
DROPPED = ("clean-08", 10)  # the weak arm never ran this repeat: a coverage gap


def _receipts(raw):
    campaign = parse_campaign(raw)
    receipts = full_grid(campaign, ("codex-baseline", "good"))
    for case in raw["cases"]:
        count = 3 if case["kind"] == "kill_path" else 10
        for repeat in range(1, count + 1):
            key = (case["caseId"], repeat)
            if key == DROPPED:
                continue
            fields = {}
            if key in MISSED:
                fields["detectedDefects"] = []
            if case["kind"] == "clean" and repeat == FLAGGED_REPEAT:
                fields["blockingFindingCount"] = 1  # a blocking finding where there is no defect
            if key == ("defect-05", 5):
                fields["identityMatch"] = False
            if key == ("kill-abort", 2):  # the control's observed output is not the expected one
                control = make_receipt(campaign, "weak", "kill-abort", repeat)["killControl"]
                fields["killControl"] = {**control, "observed": "kept going"}
            receipts.append(make_receipt(campaign, "weak", case["caseId"], repeat, **fields))
    return receipts


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ledger")
    raw = small_campaign(candidates=[arm("good"), arm("weak", model="open-model-2")])
    receipts = _receipts(raw)
    campaign_path = write_campaign(folder / "campaign.json", raw)
    ledger_path = write_ledger(folder / "receipts.jsonl", receipts)
    result = summarize_ledger(campaign_path, ledger_path)
    source = LedgerSource("lg", "Generated ledger", result, (), statistics=ledger_statistics(result))
    return raw, receipts, result, build_ledger_pages(source, SITE), (campaign_path, ledger_path)


def _column(table: Table, name: str) -> int:
    return [column.label for column in table.columns].index(name)


def _rows_by_first_cell(table: Table) -> dict[str, list[str]]:
    return {row.cells[0].text: [cell.text for cell in row.cells] for row in table.rows}


def test_one_ledger_page_then_one_arm_page_per_arm_baseline_first(generated):
    _raw, _receipts_, result, bundles, _paths = generated
    assert isinstance(bundles[0].page, LedgerPage)
    assert [bundle.page.arm_id for bundle in bundles[1:]] == ["codex-baseline", "good", "weak"]
    assert all(isinstance(bundle.page, ArmPage) for bundle in bundles[1:])
    assert bundles[0].data is result.summary  # data.json: the summary document, as rendered
    assert [name for name, _value in bundles[0].extras] == ["extended.json"]


def test_admission_blocks_name_exactly_the_failed_conditions(generated):
    _raw, _receipts_, result, bundles, _paths = generated
    blocks = {block.arm_id: block for block in bundles[0].page.candidates}
    labels = dict(CONDITIONS)
    for row in result.summary["candidates"]:
        block = blocks[row["armId"]]
        failed = [labels[key] for key, _label in CONDITIONS if row["conditions"][key] is False]
        assert list(block.failed) == failed
        assert block.eligible is (row["recommendation"] == ELIGIBLE)
        assert [r.cells[1].text for r in block.conditions_table.rows] == [
            "passed" if row["conditions"][key] else "failed" for key, _label in CONDITIONS
        ]
    assert blocks["good"].eligible and not blocks["good"].failed
    assert {"Coverage", "Recall non-inferior", "False-positive margin", "Identity honesty", "Kill paths"} <= set(
        blocks["weak"].failed
    )


def test_arms_table_counts_what_the_receipts_hold(generated):
    _raw, receipts, _result, bundles, _paths = generated
    table = bundles[0].page.arms_table
    rows = _rows_by_first_cell(table)
    for arm_id in ("codex-baseline", "good", "weak"):
        attempts = sum(1 for receipt in receipts if receipt["armId"] == arm_id)
        assert rows[arm_id][_column(table, "Attempts")] == f"{attempts:,}"
    defects = [r for r in receipts if r["armId"] == "weak" and r["caseKind"] == "defect"]
    found = sum(1 for r in defects if r["detectedDefects"])
    assert rows["weak"][_column(table, "Recall")].endswith(f"({found}/{len(defects)})")
    clean = [r for r in receipts if r["armId"] == "weak" and r["caseKind"] == "clean"]
    flagged = sum(1 for r in clean if r["blockingFindingCount"])
    assert rows["weak"][_column(table, "False positives")].endswith(f"({flagged}/{len(clean)})")
    assert rows["weak"][_column(table, "Identity mismatches")] == "1"
    assert table.rows[2].cells[_column(table, "Identity mismatches")].cls.endswith("fail")


def test_paired_table_and_charts_show_the_discordant_pairs(generated):
    _raw, _receipts_, result, bundles, _paths = generated
    page = bundles[0].page
    weak = [row for row in page.paired_table.rows if row.cells[0].text == "weak"]
    assert [row.cells[1].text for row in weak] == [
        "Recall (candidate − baseline)",
        "False positives (candidate − baseline)",
    ]
    recall, fpr = weak
    # the baseline finds every defect, so every weak miss is a pair the candidate is worse on
    assert recall.cells[_column(page.paired_table, "Candidate worse")].text == str(len(MISSED))
    assert recall.cells[_column(page.paired_table, "Candidate better")].text == "0"
    assert fpr.cells[_column(page.paired_table, "Candidate worse")].text == "8"  # one flag per clean case
    chart = next(chart for chart in page.charts if chart.id == "chart-recall-difference")
    pairs = result.summary["candidates"][1]["paired"]["recallDifference"]["pairs"]
    weak_row = next(row for row in chart.rows if row.group == "weak")
    assert weak_row.estimate == pytest.approx(-len(MISSED) / pairs)
    assert weak_row.lower == result.summary["candidates"][1]["paired"]["recallDifference"]["lower"]
    assert chart.lines[0].x == -result.summary["thresholds"]["recallDelta"]
    assert not any(chart.id == "chart-transport" for chart in page.charts)  # no transport pairs declared


def test_coverage_and_kill_tables_mark_the_shortfalls(generated):
    _raw, _receipts_, _result, bundles, _paths = generated
    page = bundles[0].page
    (gap,) = page.coverage_table.rows
    assert [cell.text for cell in gap.cells[:6]] == ["weak", DROPPED[0], "10", "9", "10", "9"]
    assert gap.cells[3].cls.endswith("fail") and not gap.cells[4].cls.endswith("fail")
    failing = [row for row in page.kill_table.rows if row.cls == "mismatch"]
    assert [(row.cells[0].text, row.cells[1].text, row.cells[4].text) for row in failing] == [
        ("weak", "kill-abort", "failed")
    ]


def test_reasons_quote_the_generated_numbers(generated):
    _raw, _receipts_, result, _bundles, _paths = generated
    facts = result.facts
    assert facts is not None
    weak = facts.candidate("weak")
    assert weak is not None
    why = {key: text for key, _label, _passed, text in condition_reasons(result, weak)}
    assert why["coverage"].startswith("1 case(s) below the repetition floor: clean-08 has 9 candidate")
    assert f"missed {len(MISSED)} the baseline found" in why["recallNonInferior"]
    assert "8 false positive(s) only on the candidate, 0 only on the baseline" in why["falsePositiveMargin"]
    assert why["identityHonesty"].startswith("1 receipt(s) of this arm report identityMatch false")
    assert "Of these, 1 on ran quality receipts" in why["identityHonesty"]  # from the extended analyses
    assert "kill-abort (3 attempt(s), 3 required, modes abort, 2 attempt(s) passed)" in why["killPaths"]


def test_arm_page_tables_and_data(generated):
    raw, receipts, result, bundles, _paths = generated
    weak = next(bundle for bundle in bundles[1:] if bundle.page.arm_id == "weak")
    page = weak.page
    assert weak.data["metrics"] == result.summary["arms"]["weak"]
    assert weak.data["candidate"] == result.summary["candidates"][1]
    assert [row.cells[0].text for row in page.rates_table.rows] == [
        "Validity",
        "Recall",
        "False positives",
        "Tool-call correctness",
        "Context sufficiency",
    ]
    assert [row.cells[0].title for row in page.rates_table.rows] == list(RATE_KEYS)
    cases = {row.cells[0].text: row for row in page.cells_table.rows}
    assert set(cases) == {case["caseId"] for case in raw["cases"]}
    attempts = _column(page.cells_table, "Attempts")
    assert cases["clean-08"].cells[attempts].text == "9"
    assert cases["defect-01"].cls == "mismatch"  # two of ten repeats disagree with the rest
    assert dict((row.cells[0].text, row.cells[1].text) for row in page.definition_table.rows)["model"] == "open-model-2"
    ids = [table.id for table in page.extended_tables]
    assert ids == ["identity-split-table", "case-rates-table", "reruns-table", "feasibility-table"]
    split = {row.cells[0].text: row.cells[1].text for row in page.extended_tables[0].rows}
    assert split["Silent: ran quality receipts"] == "1"
    kill_rate = next(row for row in page.extended_tables[1].rows if row.cells[0].text == "kill-abort")
    assert kill_rate.cells[5].text == "kill passes 2/3"
    baseline = bundles[1]
    assert baseline.page.candidate is None and baseline.data["candidate"] is None
    assert baseline.page.extended_tables[-1].id == "reruns-table"  # the baseline has no feasibility
    assert sum(1 for r in receipts if r["armId"] == "weak") == result.summary["arms"]["weak"]["attempts"]


def test_statistics_slot_has_one_row_per_candidate_gate(generated):
    _raw, _receipts_, result, bundles, _paths = generated
    (table,) = bundles[0].page.statistics.tables
    assert [(row.cells[0].text, row.cells[1].text) for row in table.rows] == [
        ("good", "False-positive margin"),
        ("good", "Recall non-inferiority"),
        ("weak", "False-positive margin"),
        ("weak", "Recall non-inferiority"),
    ]
    gates = result.summary["candidates"][1]["conditions"]
    assert table.rows[2].cells[2].text == ("passed" if gates["falsePositiveMargin"] else "failed")
    assert table.rows[3].cells[2].text == ("passed" if gates["recallNonInferior"] else "failed")


def test_the_site_and_the_cli_reach_the_same_result(generated):
    _raw, _receipts_, result, _bundles, (campaign_path, ledger_path) = generated
    campaign = parse_campaign_bytes(Path(campaign_path).read_bytes())
    from_bytes, problems = site_result(campaign, Path(ledger_path).read_bytes())
    from_path, _ = site_result(campaign, ledger_path)
    assert not problems and from_bytes is not None and from_path is not None
    for other in (from_bytes, from_path):
        assert other.summary == result.summary and other.extended == result.extended
        assert other.facts == result.facts


def test_a_bad_ledger_lists_its_problems_instead(generated):
    _raw, receipts, _result, _bundles, (campaign_path, _ledger_path) = generated
    campaign = parse_campaign_bytes(Path(campaign_path).read_bytes())
    data = Path(_ledger_path).read_bytes()
    first = data.split(b"\n", 1)[0] + b"\n"
    result, problems = site_result(campaign, data + first)
    assert result is None and len(problems) == 1 and "duplicate" in problems[0]
    result, problems = site_result(campaign, b"{not json\n" + data)
    assert result is None and problems == ["benchmark ledger line 1 is not JSON"]


def test_the_cli_leaves_out_the_page_facts(generated):
    _raw, _receipts_, result, _bundles, (campaign_path, ledger_path) = generated
    lean = summarize_ledger(campaign_path, ledger_path, extended=False, facts=False)
    assert lean.facts is None and lean.extended is None and lean.summary == result.summary


@pytest.mark.parametrize("name", sorted(path.name for path in (GOLDEN / "summaries").iterdir()))
def test_every_golden_summary_builds_pages_that_agree_with_it(name):
    reference = golden_json("summaries", name, "reference.json")
    assert reference["returncode"] == 0
    summary = json.loads(reference["stdout"])
    result = ledger_result(summary)
    facts = result.facts
    assert facts is not None
    assert [arm.arm_id for arm in facts.arms][0] == summary["baselineArmId"]
    assert {arm.arm_id for arm in facts.arms} == set(summary["arms"])
    for arm_facts in facts.arms:
        metrics = summary["arms"][arm_facts.arm_id]
        for rate in arm_facts.rates:
            assert (rate.successes, rate.total, rate.rate) == (
                metrics[rate.key]["successes"],
                metrics[rate.key]["total"],
                metrics[rate.key]["rate"],
            )
    for row, typed in zip(summary["candidates"], facts.candidates, strict=True):
        assert {c.key: c.passed for c in typed.conditions} == row["conditions"]
        assert typed.eligible is (row["recommendation"] == ELIGIBLE)
    bundles = build_ledger_pages(LedgerSource(name, name, result, ()), SITE)
    page = bundles[0].page
    assert len(bundles) == 1 + len(summary["arms"])
    assert len(page.paired_table.rows) == 2 * len(summary["candidates"])
    assert len(page.transport_table.rows) == len(summary["transportEquivalence"])
    assert any(chart.id == "chart-transport" for chart in page.charts) is bool(summary["transportEquivalence"])
    assert [block.arm_id for block in page.candidates] == [row["armId"] for row in summary["candidates"]]
