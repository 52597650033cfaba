"""verify, the reading API for the site, the extended summary and the CLI surface."""

from __future__ import annotations

import json
import os

import pytest
from ledgerkit import (
    GOLDEN,
    assert_one_line_error,
    golden_ledger_bytes,
    run_cli,
    small_campaign,
    write_campaign,
    write_ledger,
)

from generator.analyze.ledger.extended import extended_summary
from generator.analyze.ledger.schema import canonical_text, parse_campaign
from generator.analyze.ledger.summary import summarize
from generator.cli import main as top_main
from generator.model.errors import EvalsiteError
from generator.pipelines.ledger import load_campaign, read_ledger
from tests.support.ledger_synth import arm, full_grid, make_campaign, make_receipt

RAW = small_campaign()
CAMPAIGN = parse_campaign(RAW)
GRID = full_grid(CAMPAIGN, ["codex-baseline", "candidate"])


@pytest.fixture()
def files(tmp_path):
    campaign = write_campaign(tmp_path / "campaign.json", RAW)
    ledger = write_ledger(tmp_path / "ledger.jsonl", GRID)
    return campaign, ledger


def test_verify_sound_ledger_prints_report_and_digest(files):
    campaign, ledger = files
    run = run_cli("verify", "--campaign", str(campaign), "--ledger", str(ledger))
    assert run.code == 0 and run.err == ""
    summary = run_cli("summarize", "--campaign", str(campaign), "--ledger", str(ledger)).json()
    lines = run.out.splitlines()
    assert lines[0] == f"ledger: 424 receipts on 424 lines ({ledger.stat().st_size} bytes)"
    assert f"ledger digest: {summary['ledgerDigest']}" in lines
    assert f"campaign: {RAW['campaignId']} {summary['campaignDigest']}" in lines
    assert "duplicates: none" in lines and "tail: ends with a newline" in lines
    assert lines[-1] == "verdict: sound"


def test_verify_missing_ledger_is_an_empty_sound_ledger(tmp_path):
    campaign = write_campaign(tmp_path / "campaign.json", RAW)
    run = run_cli("verify", "--campaign", str(campaign), "--ledger", str(tmp_path / "absent.jsonl"))
    assert run.code == 0 and "no such file" in run.out
    assert "ledger digest: ledger1:4f53cda1" in run.out


def test_verify_lists_every_problem(tmp_path):
    campaign = write_campaign(tmp_path / "campaign.json", RAW)
    bad = dict(GRID[1], wallMs=1)  # stale receiptId
    stranger = make_receipt(CAMPAIGN, "candidate", "defect-02", 70, rerunOf="bench1:" + "0" * 64)
    lines = [canonical_text(r) for r in (GRID[0], bad, GRID[2], GRID[0], stranger)] + ["{nope", ""]
    ledger = tmp_path / "ledger.jsonl"
    ledger.write_text("\n".join(lines), encoding="utf-8")
    run = run_cli("verify", "--campaign", str(campaign), "--ledger", str(ledger))
    assert_one_line_error(run, "ledger is not sound (4 problem(s); see the report above)")
    out = run.out
    assert "problem: benchmark ledger line 2: benchmark receiptId does not match its canonical content" in out
    assert "problem: benchmark ledger contains a duplicate receipt or arm/case/repeat (line 4 repeats line 1)" in out
    assert "problem: benchmark ledger line 5: rerunOf must name an earlier receipt for the same arm and case" in out
    assert "problem: benchmark ledger line 6 is not JSON" in out
    assert "receipts: 3 valid, 1 invalid, 1 unreadable line(s)" in out
    assert "verdict: NOT SOUND (4 problems)" in out


def test_verify_flags_a_missing_final_newline(files):
    campaign, ledger = files
    ledger.write_bytes(ledger.read_bytes()[:-1])
    run = run_cli("verify", "--campaign", str(campaign), "--ledger", str(ledger))
    assert run.code == 2
    assert "tail: ledger line 424 has no trailing newline (its JSON is complete)" in run.out
    # ...while summarize still reads it, as upstream does.
    assert run_cli("summarize", "--campaign", str(campaign), "--ledger", str(ledger)).code == 0


def test_read_ledger_is_lenient_and_leaves_no_files(tmp_path):
    ledger = tmp_path / "ledger.jsonl"
    ledger.write_bytes((canonical_text(GRID[0]) + "\n[]\n\n" + canonical_text(GRID[0]) + "\n" + '{"armId":"x').encode())
    read = read_ledger(ledger, CAMPAIGN)
    assert [p.kind for p in read.problems] == ["invalid", "duplicate_id", "torn_tail"]
    assert read.torn_tail is not None and read.torn_tail.line == 5 and not read.torn_tail.complete
    assert len(read.receipts) == 3 and not read.sound and read.line_count == 5
    assert [p.as_dict()["line"] for p in read.problems] == [2, 4, 5]
    assert os.listdir(tmp_path) == ["ledger.jsonl"]
    plain = read_ledger(ledger)  # without a campaign: only line-level problems
    assert [p.kind for p in plain.problems] == ["torn_tail"] and plain.check is None
    empty = read_ledger(tmp_path / "absent.jsonl", CAMPAIGN)
    assert not empty.exists and empty.sound and empty.receipts == []


def test_read_ledger_raises_only_for_unreadable_inputs(tmp_path):
    with pytest.raises(EvalsiteError, match="could not read ledger"):
        read_ledger(tmp_path)
    with pytest.raises(EvalsiteError, match=r"could not read campaign \(FileNotFoundError\)"):
        load_campaign(tmp_path / "absent.json")
    (tmp_path / "bad.json").write_text('{"schemaVersion": 1}')
    with pytest.raises(EvalsiteError, match="campaign fields differ"):
        load_campaign(tmp_path / "bad.json")


def test_summarize_api_accepts_raw_or_parsed_campaigns():
    assert summarize(RAW, GRID) == summarize(CAMPAIGN, GRID)


def test_large_campaign_the_reference_cannot_summarize(tmp_path):
    """118 quality cases x 10 repeats: the reference's binomial sum overflows (n >= 1,030)."""
    raw = make_campaign(defect_cases=100, clean_cases=18, candidates=[arm("candidate")])
    c = parse_campaign(raw)
    receipts = full_grid(c, ["codex-baseline", "candidate"])
    campaign = write_campaign(tmp_path / "campaign.json", raw)
    ledger = write_ledger(tmp_path / "ledger.jsonl", receipts)
    run = run_cli("summarize", "--campaign", str(campaign), "--ledger", str(ledger))
    assert run.code == 0, run.err
    summary = run.json()
    validity = summary["arms"]["candidate"]["validity"]
    assert validity["total"] == 1180
    assert validity["interval95"]["lower"] == pytest.approx(0.025 ** (1 / 1180), rel=1e-14)
    recall = summary["candidates"][0]["paired"]["recallDifference"]
    assert recall["pairs"] == 1000 and recall["discordant"] == 0
    assert summary["candidates"][0]["recommendation"] == "eligible_for_human_admission"


def test_extended_summary_is_separate_and_explains_the_live_shape(tmp_path):
    folder = GOLDEN / "summaries" / "live_shape"
    campaign = load_campaign(folder / "campaign.json")
    receipts = [json.loads(line) for line in golden_ledger_bytes(folder).decode().splitlines()]
    summary = summarize(campaign, receipts)
    before = canonical_text(summary)
    extra = extended_summary(campaign, receipts, summary)
    assert canonical_text(summary) == before  # the upstream object is never touched
    assert extra["schema"] == "evalsite.ledger.extended.v1"
    assert extra["ledgerDigest"] == summary["ledgerDigest"]
    identity = extra["arms"]["candidate"]["identityMismatches"]
    assert identity == {"all": 12, "silent": 0, "notRan": 0, "killPath": 12}
    cand = extra["candidates"]["candidate"]
    assert cand["identityHonestySilentOnly"] is True
    assert sorted(cand["failedConditions"]) == ["falsePositiveMargin", "identityHonesty"]
    feasibility = cand["feasibility"]
    assert feasibility["falsePositive"]["pairs"] == 70
    assert feasibility["falsePositive"]["pairsNeededIfNoDiscordance"] == 72
    assert feasibility["validity"]["attemptsNeededIfAllValid"] == 183
    assert feasibility["recall"]["pairsNeededIfNoDiscordance"] == 36
    assert cand["falsePositivePairs"] == {
        "candidateOnlyFalsePositives": 0,
        "baselineOnlyFalsePositives": 0,
        "pairs": 70,
    }
    cases = extra["arms"]["candidate"]["cases"]
    assert len(cases) == len(campaign.manifest["cases"])
    assert cases[0]["recall"]["interval95"]["method"] == "clopper_pearson"
    gates = extra["candidates"]["candidate"]["gates"]
    assert gates["recallNonInferior"]["cases"] == 14
    fp_gate = gates["falsePositiveMargin"]
    assert (fp_gate["pairs"], fp_gate["cases"], fp_gate["wins"], fp_gate["losses"]) == (70, 7, 0, 0)
    # Seven clean cases x ten repeats, no false positives on either side: the gate still fails,
    # because 70 pairs cannot certify a 5-point margin. The diagnosis says so instead of "worse".
    assert fp_gate["diagnosis"]["reason"] == "cannot pass at this sample size"
    assert fp_gate["diagnosis"]["passed"] is False
    assert fp_gate["mcnemar"]["p_value"] == 1.0
    assert extended_summary(campaign, receipts) == extra


def test_extended_output_file_leaves_stdout_unchanged(files, tmp_path):
    campaign, ledger = files
    plain = run_cli("summarize", "--campaign", str(campaign), "--ledger", str(ledger), "--json")
    target = tmp_path / "extended.json"
    run = run_cli(
        "summarize", "--campaign", str(campaign), "--ledger", str(ledger), "--json", "--extended", str(target)
    )
    assert run.out == plain.out
    data = json.loads(target.read_text())
    assert data["schema"] == "evalsite.ledger.extended.v1"
    assert data["candidates"]["candidate"]["recommendationIfIdentityCountsSilentOnly"] == "eligible_for_human_admission"
    reruns = extended_summary(
        RAW, GRID[:1] + [make_receipt(CAMPAIGN, "codex-baseline", "defect-01", 12, rerunOf=GRID[0]["receiptId"])]
    )
    assert reruns["arms"]["codex-baseline"]["reruns"][0]["originalRepeat"] == 1


def test_cli_surface(tmp_path, capsys):
    assert_one_line_error(run_cli(), None)
    assert_one_line_error(run_cli("append", "--ledger", "x"), None)
    assert run_cli("--help").code == 0
    campaign = write_campaign(tmp_path / "campaign.json", RAW)
    ledger = write_ledger(tmp_path / "ledger.jsonl", GRID[:3])
    assert top_main(["ledger", "verify", "--campaign", str(campaign), "--ledger", str(ledger)]) == 0
    assert "verdict: sound" in capsys.readouterr().out
    receipt = tmp_path / "r.json"
    receipt.write_text(json.dumps(GRID[3]))
    assert (
        top_main(["ledger", "append", "--campaign", str(campaign), "--ledger", str(ledger), "--receipt", str(receipt)])
        == 0
    )
    assert json.loads(capsys.readouterr().out)["count"] == 4
    assert top_main(["ledger", "summarize", "--campaign", str(tmp_path / "nope.json"), "--ledger", str(ledger)]) == 2
    err = capsys.readouterr().err
    assert err == "error: could not read campaign (FileNotFoundError)\n"
    assert str(tmp_path) not in err


def test_numbers_too_large_for_floats_are_clean_errors(tmp_path):
    """Upstream crashes (OverflowError) on these; evalsite refuses them in one line."""
    campaign = write_campaign(tmp_path / "campaign.json", RAW)
    huge = [
        make_receipt(CAMPAIGN, "candidate", "defect-01", r, wallMs=10**400 * r, latencyClass="cold") for r in (1, 2)
    ]
    ledger = write_ledger(tmp_path / "huge.jsonl", huge)
    run = run_cli("summarize", "--campaign", str(campaign), "--ledger", str(ledger))
    assert_one_line_error(run, "a wallMs, token or cost value is too large to summarize as a floating-point number")
    usage = {
        "inputTokens": None,
        "cachedInputTokens": None,
        "outputTokens": None,
        "totalTokens": None,
        "costUsd": 1e308,
        "costSource": "provider_receipt",
    }
    costly = [make_receipt(CAMPAIGN, "candidate", "defect-01", r, usage=usage) for r in (1, 2)]
    ledger = write_ledger(tmp_path / "costly.jsonl", costly)
    run = run_cli("summarize", "--campaign", str(campaign), "--ledger", str(ledger))
    assert_one_line_error(run, "benchmark data is not finite canonical JSON")  # the sum overflows to inf, as upstream


def test_the_same_problem_on_many_lines_is_one_line_with_its_count(tmp_path):
    """Issue 28, item 7: a ledger against the wrong campaign listed one message 698 times."""
    campaign = write_campaign(tmp_path / "campaign.json", RAW)
    stale = [canonical_text(dict(r, wallMs=1)) for r in GRID[:8]]  # eight stale receiptIds
    ledger = tmp_path / "ledger.jsonl"
    ledger.write_text("\n".join([*stale, "{nope", ""]), encoding="utf-8")
    run = run_cli("verify", "--campaign", str(campaign), "--ledger", str(ledger))
    assert_one_line_error(run, "ledger is not sound (9 problem(s); see the report above)")
    problems = [line for line in run.out.splitlines() if line.startswith("problem: ")]
    assert problems == [
        "problem: benchmark ledger lines 1, 2, 3, 4, 5, … (8 lines): "
        "benchmark receiptId does not match its canonical content",
        "problem: benchmark ledger line 9 is not JSON",
    ]
