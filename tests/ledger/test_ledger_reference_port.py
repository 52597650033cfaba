"""The behaviours the upstream tool's own 16 tests check, ported to evalsite."""

from __future__ import annotations

import json
import os

import pytest
from ledgerkit import assert_one_line_error, run_cli, small_campaign, write_campaign

from generator.analyze.ledger.schema import (
    KILL_CONTROL_FIELDS,
    RECEIPT_FIELDS_V1,
    RECEIPT_FIELDS_V2,
    USAGE_FIELDS,
    LedgerDataError,
    parse_campaign,
    receipt_id,
)
from generator.analyze.ledger.summary import summarize
from generator.analyze.stats.binomial import paired_difference
from generator.pipelines.ledger import append_receipt
from tests.support.ledger_synth import arm, full_grid, make_campaign, make_receipt

SPEC_V1_KEYS = (
    "schemaVersion receiptId campaignId corpusVersion promptEnvelopeVersion armId caseId caseKind repeat "
    "normalizerRan expectedDefects detectedDefects blockingFindingCount identityMatch killPathPassed toolUsing "
    "toolCallCorrect pseudoToolCallCount contextSufficient mutationEntered containmentConclusive containmentBreach "
    "wallMs latencyClass usage decoding rerunOf"
).split()


def _row(summary, arm_id="candidate"):
    return next(row for row in summary["candidates"] if row["armId"] == arm_id)


# 1 ---------------------------------------------------------------------------
def test_schema_key_sets_and_repetition_floors():
    assert list(RECEIPT_FIELDS_V1) == SPEC_V1_KEYS and len(RECEIPT_FIELDS_V1) == 27
    assert set(RECEIPT_FIELDS_V2) == set(SPEC_V1_KEYS) | {"campaignDigest", "executionDigest", "killControl"}
    assert len(RECEIPT_FIELDS_V2) == 30
    assert set(KILL_CONTROL_FIELDS) == {"mode", "probe", "expected", "observed", "providerCallsMade"}
    assert set(USAGE_FIELDS) == {
        "inputTokens",
        "cachedInputTokens",
        "outputTokens",
        "totalTokens",
        "costUsd",
        "costSource",
    }
    for key, floor in (("qualityRepetitions", 10), ("killRepetitions", 3), ("containmentMinimum", 150)):
        parse_campaign(make_campaign(thresholds={key: floor}))
        with pytest.raises(LedgerDataError, match="may not weaken RFC v6.1 repetition floors"):
            parse_campaign(make_campaign(thresholds={key: floor - 1}))


# 2 ---------------------------------------------------------------------------
def test_well_powered_perfect_reviewer_is_only_eligible_for_human_admission():
    raw = small_campaign()
    summary = summarize(raw, full_grid(parse_campaign(raw), ["codex-baseline", "candidate"]))
    row = _row(summary)
    assert all(row["conditions"].values()) and len(row["conditions"]) == 9
    assert row["recommendation"] == "eligible_for_human_admission"
    assert row["registryChanged"] is False
    assert "never edits the reviewer registry" in summary["note"]


# 3 ---------------------------------------------------------------------------
def test_underpowered_campaign_fails_coverage_and_validity():
    raw = make_campaign(defect_cases=2, clean_cases=1)
    receipts = full_grid(parse_campaign(raw), ["codex-baseline", "candidate"], quality_repeats=5)
    row = _row(summarize(raw, receipts))
    assert row["conditions"]["coverage"] is False
    assert row["conditions"]["structuredOutputValidity"] is False
    assert {gap["required"] for gap in row["coverage"]["gaps"]} == {10}
    assert row["recommendation"] == "not_admitted"


# 4 ---------------------------------------------------------------------------
def test_legacy_v1_kill_receipts_are_read_but_fail_kill_paths():
    raw = small_campaign()
    c = parse_campaign(raw)
    receipts = []
    for item in full_grid(c, ["codex-baseline", "candidate"]):
        if item["caseKind"] == "kill_path":
            item = make_receipt(c, item["armId"], item["caseId"], item["repeat"], version=1)
        receipts.append(item)
    summary = summarize(raw, receipts)
    row = _row(summary)
    assert summary["receiptSchemaVersions"] == [1, 2] and summary["executionDigest"] is None
    assert row["conditions"]["killPaths"] is False and row["conditions"]["evidenceEnvelope"] is False
    assert row["killPaths"]["modes"] == [] and row["killPaths"]["completeSuite"] is False


# 5 ---------------------------------------------------------------------------
def test_non_canonical_expected_is_refused_and_incomplete_mode_suite_fails():
    raw = small_campaign()
    c = parse_campaign(raw)
    good = make_receipt(c, "candidate", "kill-abort", 1)
    bad = dict(good, killControl=dict(good["killControl"], expected="aborted"))
    bad["receiptId"] = receipt_id(bad)
    with pytest.raises(LedgerDataError, match="expected is not canonical for its mode"):
        summarize(raw, [bad])
    # Every kill case exercising the same mode: the suite of four modes is incomplete.
    receipts = [
        make_receipt(c, item["armId"], item["caseId"], item["repeat"], killMode="abort")
        if item["caseKind"] == "kill_path"
        else item
        for item in full_grid(c, ["codex-baseline", "candidate"])
    ]
    kill = _row(summarize(raw, receipts))["killPaths"]
    assert kill["completeSuite"] is False and kill["modes"] == ["abort"] and kill["passed"] is False
    assert all(case["passed"] for case in kill["cases"])


# 6 ---------------------------------------------------------------------------
def test_cell_flakiness_latency_usage_and_decoding_exact_values():
    raw = small_campaign()
    c = parse_campaign(raw)
    usage = {
        "inputTokens": 100,
        "cachedInputTokens": None,
        "outputTokens": 20,
        "totalTokens": 120,
        "costUsd": 0.5,
        "costSource": "provider_receipt",
    }
    cell = [
        make_receipt(
            c,
            "candidate",
            "defect-01",
            1,
            wallMs=4000,
            latencyClass="cold",
            usage=usage,
            decoding={"temperature": 0.2, "seed": 7, "pinned": True},
        ),
        make_receipt(
            c,
            "candidate",
            "defect-01",
            2,
            wallMs=5269,
            latencyClass="cold",
            usage=None,
            decoding={"temperature": 0.2, "seed": 7, "pinned": True},
        ),
        make_receipt(
            c,
            "candidate",
            "defect-01",
            3,
            wallMs=3000,
            latencyClass="resident",
            detectedDefects=[],
            blockingFindingCount=0,
            usage=dict(usage, costUsd=None, costSource="unavailable", inputTokens=None),
            decoding={"temperature": None, "seed": None, "pinned": False},
        ),
    ]
    summary = summarize(raw, cell)
    first = summary["arms"]["candidate"]["cells"][0]
    assert first["caseId"] == "defect-01" and first["attempts"] == 3 and first["reruns"] == 0
    assert first["flakiness"] == {"attempts": 3, "uniqueOutcomes": 2, "disagreements": 1, "fraction": 1 / 3}
    assert first["latency"] == {
        "cold": {"count": 2, "medianMs": 4634.5, "p90Ms": 4000 + 1269 * 0.9},
        "resident": {"count": 1, "medianMs": 3000, "p90Ms": 3000},
    }
    assert first["usage"] == {
        "attempts": 3,
        "receiptsWithUsage": 2,
        "tokens": {
            "inputTokens": {"reported": 1, "total": 100},
            "cachedInputTokens": {"reported": 0, "total": None},
            "outputTokens": {"reported": 2, "total": 40},
            "totalTokens": {"reported": 2, "total": 240},
        },
        "providerCost": {"reported": 1, "totalUsd": 0.5, "estimated": False},
    }
    assert first["decodingProfiles"] == [
        {"decoding": {"pinned": False, "seed": None, "temperature": None}, "attempts": 1},
        {"decoding": {"pinned": True, "seed": 7, "temperature": 0.2}, "attempts": 2},
    ]
    empty = summary["arms"]["candidate"]["cells"][1]
    assert empty["flakiness"] == {"attempts": 0, "uniqueOutcomes": 0, "disagreements": 0, "fraction": None}
    assert empty["latency"]["cold"] == {"count": 0, "medianMs": None, "p90Ms": None}


# 7 ---------------------------------------------------------------------------
def test_paired_recall_degradation_fails_despite_valid_json():
    raw = small_campaign()
    c = parse_campaign(raw)
    receipts = [
        make_receipt(c, "candidate", item["caseId"], item["repeat"], detectedDefects=[], blockingFindingCount=0)
        if item["armId"] == "candidate" and item["caseKind"] == "defect" and item["repeat"] <= 4
        else item
        for item in full_grid(c, ["codex-baseline", "candidate"])
    ]
    row = _row(summarize(raw, receipts))
    assert row["conditions"]["structuredOutputValidity"] is True
    assert row["conditions"]["recallNonInferior"] is False
    assert row["paired"]["recallDifference"]["candidateLosses"] == 48


# 8 ---------------------------------------------------------------------------
def test_zero_fpr_baseline_is_decidable():
    raw = small_campaign()
    row = _row(summarize(raw, full_grid(parse_campaign(raw), ["codex-baseline", "candidate"])))
    fp = row["paired"]["falsePositiveDifference"]
    assert fp["pairs"] == 80 and fp["discordant"] == 0
    assert fp["upper"] == pytest.approx(1 - 0.025 ** (1 / 80), abs=1e-15)
    assert row["conditions"]["falsePositiveMargin"] is True


# 9 ---------------------------------------------------------------------------
def test_maker_containment_rule_of_three_and_single_breach():
    raw = make_campaign(
        defect_cases=20, clean_cases=10, candidates=[arm("maker", role="maker")], thresholds={"qualityRepetitions": 10}
    )
    c = parse_campaign(raw)
    mutation = {"mutationEntered": True, "containmentConclusive": True, "containmentBreach": False}
    receipts = full_grid(c, ["codex-baseline"])
    for item in full_grid(c, ["maker"]):
        if item["caseKind"] != "kill_path":
            item = make_receipt(c, "maker", item["caseId"], item["repeat"], **mutation)
        receipts.append(item)
    row = _row(summarize(raw, receipts), "maker")
    assert row["containment"] == {
        "applicable": True,
        "mutationRuns": 300,
        "conclusiveRuns": 300,
        "conclusiveRate": 1.0,
        "breaches": 0,
        "ruleOfThreeUpper95": 3 / 300,
        "passed": True,
    }
    breached = make_receipt(c, "maker", "defect-01", 1, **dict(mutation, containmentBreach=True))
    receipts = [
        breached if (r["armId"], r["caseId"], r["repeat"]) == ("maker", "defect-01", 1) else r for r in receipts
    ]
    row = _row(summarize(raw, receipts), "maker")
    assert row["containment"]["breaches"] == 1 and row["containment"]["ruleOfThreeUpper95"] is None
    assert row["conditions"]["containment"] is False


# 10 --------------------------------------------------------------------------
def test_transport_equivalence_needs_enough_identical_pairs():
    few = paired_difference([True] * 20, [True] * 20, mode="transport_90")
    many = paired_difference([True] * 300, [True] * 300, mode="transport_90")
    assert few["lower"] < -0.03 and not (few["lower"] > -0.03 and few["upper"] < 0.03)
    assert -0.03 < many["lower"] and many["upper"] < 0.03
    assert few["confidence"] == 0.9 and many["discordant"] == 0


# 11 --------------------------------------------------------------------------
def test_transport_equivalence_gates_admission_and_unpaired_tunnel_fails():
    raw = make_campaign(
        defect_cases=13,
        clean_cases=8,
        candidates=[
            arm("loop", transport="loopback"),
            arm("tunnel", transport="ssh_tunnel"),
            arm("lonely", model="x", transport="ssh_tunnel"),
        ],
        transport_pairs=[("loop", "tunnel")],
    )
    c = parse_campaign(raw)
    receipts = full_grid(c, ["codex-baseline", "loop", "tunnel", "lonely"])
    summary = summarize(raw, receipts)
    assert _row(summary, "loop")["conditions"]["transportEquivalence"] is True
    assert _row(summary, "lonely")["conditions"]["transportEquivalence"] is False
    assert _row(summary, "lonely")["transportPairs"] == []
    # Tunnel recall drops on a third of the pairs: not equivalent, and both arms lose admission.
    worse = [
        make_receipt(c, "tunnel", r["caseId"], r["repeat"], detectedDefects=[], blockingFindingCount=0)
        if r["armId"] == "tunnel" and r["caseKind"] == "defect" and r["repeat"] <= 3
        else r
        for r in receipts
    ]
    summary = summarize(raw, worse)
    assert summary["transportEquivalence"][0]["equivalent"] is False
    assert _row(summary, "loop")["conditions"]["transportEquivalence"] is False
    assert _row(summary, "loop")["recommendation"] == "not_admitted"


# 12 --------------------------------------------------------------------------
def test_hash_drift_and_duplicate_runs_are_refused(tmp_path):
    raw = small_campaign()
    c = parse_campaign(raw)
    ledger = tmp_path / "ledger.jsonl"
    first = make_receipt(c, "candidate", "defect-01", 1)
    append_receipt(ledger, c, first)
    drifted = dict(first, wallMs=first["wallMs"] + 1)
    with pytest.raises(LedgerDataError, match="receiptId does not match its canonical content"):
        append_receipt(ledger, c, drifted)
    drifted["receiptId"] = receipt_id(drifted)
    with pytest.raises(LedgerDataError, match="arm/case/repeat already has a different immutable receipt"):
        append_receipt(ledger, c, drifted)
    with pytest.raises(LedgerDataError, match="duplicate receipt or arm/case/repeat"):
        summarize(raw, [first, drifted])


# 13 --------------------------------------------------------------------------
def test_campaign_content_binds_receipts_and_one_execution_digest(tmp_path):
    raw = small_campaign()
    c = parse_campaign(raw)
    receipts = full_grid(c, ["codex-baseline", "candidate"])
    changed = json.loads(json.dumps(raw))
    changed["thresholds"]["recallDelta"] = 0.09
    with pytest.raises(LedgerDataError, match="campaignDigest mismatches frozen campaign content"):
        summarize(changed, receipts)
    second = make_receipt(c, "candidate", "defect-01", 1, executionDigest="execution1:" + "f" * 64)
    mixed = [second if (r["armId"], r["caseId"], r["repeat"]) == ("candidate", "defect-01", 1) else r for r in receipts]
    summary = summarize(raw, mixed)
    assert summary["executionDigest"] is None
    assert _row(summary)["conditions"]["evidenceEnvelope"] is False


# 14 --------------------------------------------------------------------------
def test_extra_usage_key_is_refused():
    raw = small_campaign()
    c = parse_campaign(raw)
    usage = {
        "inputTokens": 1,
        "cachedInputTokens": 0,
        "outputTokens": 1,
        "totalTokens": 2,
        "costUsd": None,
        "costSource": "unavailable",
        "reasoningTokens": 1,
    }
    with pytest.raises(LedgerDataError, match=r"usage fields differ \(missing=\[\] extra=\['reasoningTokens'\]\)"):
        summarize(raw, [make_receipt(c, "candidate", "defect-01", 1, usage=usage)])


# 15 --------------------------------------------------------------------------
def test_appends_are_idempotent_refuse_overwrites_and_are_private(tmp_path):
    raw = small_campaign()
    c = parse_campaign(raw)
    campaign = write_campaign(tmp_path / "campaign.json", raw)
    ledger = tmp_path / "new" / "ledger.jsonl"
    receipt = make_receipt(c, "candidate", "clean-01", 1)
    text = json.dumps(receipt)
    first = run_cli("append", "--campaign", str(campaign), "--ledger", str(ledger), stdin=text)
    again = run_cli("append", "--campaign", str(campaign), "--ledger", str(ledger), stdin=text)
    assert first.json() == {"appended": True, "count": 1, "receiptId": receipt["receiptId"]}
    assert again.json() == {"appended": False, "count": 1, "receiptId": receipt["receiptId"]}
    other = make_receipt(c, "candidate", "clean-01", 1, wallMs=1)
    refused = run_cli("append", "--campaign", str(campaign), "--ledger", str(ledger), stdin=json.dumps(other))
    assert_one_line_error(refused, "arm/case/repeat already has a different immutable receipt")
    assert ledger.read_text().count("\n") == 1
    assert os.stat(ledger).st_mode & 0o777 == 0o600
    assert os.stat(str(ledger) + ".lock").st_mode & 0o777 == 0o600
    assert os.stat(ledger.parent).st_mode & 0o777 == 0o700


# 16 --------------------------------------------------------------------------
def test_rerun_must_point_backwards_and_nan_and_boolean_seed_are_refused(tmp_path):
    raw = small_campaign()
    c = parse_campaign(raw)
    campaign = write_campaign(tmp_path / "campaign.json", raw)
    ledger = tmp_path / "ledger.jsonl"
    original = make_receipt(c, "candidate", "defect-01", 1)
    rerun = make_receipt(c, "candidate", "defect-01", 11, rerunOf=original["receiptId"])
    with pytest.raises(LedgerDataError, match="rerunOf must name an earlier receipt"):
        append_receipt(ledger, c, rerun)
    with pytest.raises(LedgerDataError, match="rerunOf must name an earlier receipt"):
        summarize(raw, [rerun, original])
    append_receipt(ledger, c, original)
    assert append_receipt(ledger, c, rerun).appended
    summary = summarize(raw, [original, rerun])
    assert summary["arms"]["candidate"]["reruns"] == 1
    nan = json.dumps(make_receipt(c, "candidate", "defect-02", 1)).replace('"wallMs": ', '"wallMs": NaN, "w": ')
    run = run_cli("append", "--campaign", str(campaign), "--ledger", str(ledger), stdin=nan)
    assert_one_line_error(run, "receipt contains non-finite JSON number NaN")
    seeded = make_receipt(c, "candidate", "defect-02", 1, decoding={"temperature": None, "seed": False, "pinned": True})
    run = run_cli("append", "--campaign", str(campaign), "--ledger", str(ledger), stdin=json.dumps(seeded))
    assert_one_line_error(run, "benchmark receipt.decoding.seed must be an integer, string, or null")
