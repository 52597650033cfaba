"""Analyses beyond the reference summary, for arm and case pages (never part of the upstream object).

:func:`extended_summary` is everything else worth showing: the identity mismatches split by where
they happened, per-case rates with exact intervals, latency spread, token usage per attempt,
decoding pinning, rerun chains, flakiness roll-ups, how many attempts/pairs each bar needs, the
paired gates' Tango interval, exact McNemar test and design effect by case, and the statistical
caveats of the upstream method.  Pure: no file access, no clock, no printing.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from generator.analyze.ledger.arms import Receipt, by_case, flakiness, percentile, profile_key, rate, recall_flags
from generator.analyze.ledger.summary import as_campaign, outcomes_by_case, summarize
from generator.analyze.stats.experiment import annotate_ledger_gate, as_json, gate_feasibility, rate_gate_feasibility
from generator.model.ledger import CONDITION_ORDER, ELIGIBLE, NOT_ADMITTED, TOKEN_FIELDS, Campaign
from generator.model.stats import GateKind

__all__ = ["CAVEATS", "EXTENDED_SCHEMA", "extended_summary"]

EXTENDED_SCHEMA = "evalsite.ledger.extended.v1"

CAVEATS = (
    "The paired interval's one_sided and transport_90 modes use a 2.5% tail per factor, so they give identical "
    "bounds; only the reported confidence differs.",
    "Repeats of one case and several defects of one case are pooled as independent pairs; errors that cluster by "
    "case make the exact intervals too narrow. The case-clustered intervals here are a sensitivity check.",
    "Pairs where either arm's normalizer did not run drop out of the recall and false-positive comparisons.",
    "Transport equivalence compares recall on defect cases only (not false positives or validity).",
    "In falsePositiveDifference, candidateWins counts false positives the candidate made and the baseline did not.",
    "identityHonesty counts every receipt with identityMatch false, kill-path and not-ran receipts included.",
)


def _spread(values: Sequence[int | float]) -> dict[str, Any]:
    return {
        "count": len(values),
        "medianMs": statistics.median(values) if values else None,
        "p90Ms": percentile(values, 0.90),
        "minMs": min(values) if values else None,
        "maxMs": max(values) if values else None,
    }


def _identity_split(receipts: Sequence[Receipt]) -> dict[str, int]:
    split = {"all": 0, "silent": 0, "notRan": 0, "killPath": 0}
    for item in receipts:
        if item["identityMatch"]:
            continue
        split["all"] += 1
        if item["caseKind"] == "kill_path":
            split["killPath"] += 1
        elif item["normalizerRan"]:
            split["silent"] += 1
        else:
            split["notRan"] += 1
    return split


def _token_spread(receipts: Sequence[Receipt]) -> dict[str, Any]:
    out = {}
    for name in TOKEN_FIELDS:
        counts = [item["usage"][name] for item in receipts if item["usage"] and item["usage"][name] is not None]
        out[name] = {
            "reported": len(counts),
            "median": statistics.median(counts) if counts else None,
            "p90": percentile(counts, 0.90),
        }
    return out


def _case_rows(receipts: Sequence[Receipt], campaign: Campaign) -> list[dict[str, Any]]:
    grouped = by_case(receipts)
    rows = []
    for case in campaign.manifest["cases"]:
        items = grouped.get(case["caseId"], [])
        ran = [item for item in items if item["normalizerRan"]]
        row: dict[str, Any] = {
            "caseId": case["caseId"],
            "kind": case["kind"],
            "attempts": len(items),
            "repeats": sorted(item["repeat"] for item in items),
            "ran": len(ran),
            "flakiness": flakiness(items),
            "wallMs": _spread([item["wallMs"] for item in items]),
        }
        if case["kind"] == "kill_path":
            row["killPathPassed"] = sum(1 for item in items if item["killPathPassed"] is True)
            row["killModes"] = sorted(
                {item["killControl"]["mode"] for item in items if isinstance(item.get("killControl"), dict)}
            )
        else:
            row["validity"] = rate(item["normalizerRan"] for item in items)
            if case["kind"] == "defect":
                flags: list[bool] = []
                for item in ran:
                    flags.extend(recall_flags(item))
                row["recall"] = rate(flags)
            else:
                row["falsePositive"] = rate(item["blockingFindingCount"] > 0 for item in ran)
        rows.append(row)
    return rows


def _rerun_rows(receipts: Sequence[Receipt]) -> list[dict[str, Any]]:
    by_id = {item["receiptId"]: item for item in receipts}
    rows = []
    for item in receipts:
        origin = item["rerunOf"]
        if origin is None:
            continue
        first = by_id.get(origin)
        rows.append(
            {
                "receiptId": item["receiptId"],
                "rerunOf": origin,
                "caseId": item["caseId"],
                "repeat": item["repeat"],
                "originalRepeat": first["repeat"] if first else None,
            }
        )
    return rows


def _arm_extras(arm: Mapping[str, Any], receipts: Sequence[Receipt], campaign: Campaign) -> dict[str, Any]:
    quality = [item for item in receipts if item["caseKind"] != "kill_path"]
    ran = [item for item in quality if item["normalizerRan"]]
    cells = by_case(receipts)
    flaky = [(case_id, flakiness(items)) for case_id, items in cells.items() if len(items) > 1]
    fractions = [info["fraction"] for _, info in flaky]
    worst = sorted((info["fraction"], case_id, info) for case_id, info in flaky if info["disagreements"] > 0)[::-1][:5]
    decodings = [item["decoding"] for item in receipts]
    costs = [item["usage"]["costUsd"] for item in receipts if item["usage"] and item["usage"]["costUsd"] is not None]
    latency: dict[str, Any] = {
        klass: _spread([item["wallMs"] for item in quality if item["latencyClass"] == klass])
        for klass in ("cold", "resident")
    }
    latency["naCount"] = sum(1 for item in quality if item["latencyClass"] == "na")
    return {
        "arm": arm,
        "attempts": {
            "all": len(receipts),
            "qualityRan": len(ran),
            "qualityNotRan": len(quality) - len(ran),
            "killPath": len(receipts) - len(quality),
        },
        "identityMismatches": _identity_split(receipts),
        "latency": latency,
        "tokensPerAttempt": _token_spread(receipts),
        "providerCostUsd": {
            "reported": len(costs),
            "median": statistics.median(costs) if costs else None,
            "max": max(costs) if costs else None,
        },
        "decoding": {
            "profiles": len({profile_key(item) for item in decodings}),
            "pinnedAttempts": sum(1 for item in decodings if item["pinned"]),
            "seededAttempts": sum(1 for item in decodings if item["seed"] is not None),
            "temperatureRecorded": sum(1 for item in decodings if item["temperature"] is not None),
        },
        "flakiness": {
            "cellsWithRepeats": len(flaky),
            "flakyCells": sum(1 for info in fractions if info),
            "meanFraction": sum(fractions) / len(fractions) if fractions else None,
            "worstCells": [
                {
                    "caseId": case_id,
                    "fraction": fraction,
                    "uniqueOutcomes": info["uniqueOutcomes"],
                    "attempts": info["attempts"],
                }
                for fraction, case_id, info in worst
            ],
        },
        "reruns": _rerun_rows(receipts),
        "schemaVersions": sorted({item["schemaVersion"] for item in receipts}),
        "executionDigests": sorted({item["executionDigest"] for item in receipts if item["schemaVersion"] == 2}),
        "cases": _case_rows(receipts, campaign),
    }


def _feasibility(
    metrics: Mapping[str, Any], paired: Mapping[str, Any], thresholds: Mapping[str, Any]
) -> dict[str, Any]:
    """How close each statistical bar can get with the evidence collected, even if every outcome were perfect."""
    attempts = metrics["validity"]["total"]
    validity = rate_gate_feasibility(attempts, thresholds["validityLower"]) if attempts else None
    out: dict[str, Any] = {
        "validity": {
            "attempts": attempts,
            "bestPossibleLower": validity.best_lower_bound if validity else None,
            "bar": thresholds["validityLower"],
            "attemptsNeededIfAllValid": (
                validity.min_attempts
                if validity
                else rate_gate_feasibility(1, thresholds["validityLower"]).min_attempts
            ),
        }
    }
    for key, field, kind, margin, bound, bar in (
        (
            "recall",
            "recallDifference",
            "non_inferiority",
            thresholds["recallDelta"],
            "bestPossibleLower",
            -thresholds["recallDelta"],
        ),
        (
            "falsePositive",
            "falsePositiveDifference",
            "upper_margin",
            thresholds["fprEpsilon"],
            "bestPossibleUpper",
            thresholds["fprEpsilon"],
        ),
    ):
        pairs = paired[field]["pairs"]
        usable = margin > 0
        gate = gate_feasibility(max(pairs, 1), kind, margin) if usable else None  # type: ignore[arg-type]
        out[key] = {
            "pairs": pairs,
            bound: (gate.bound_if_arms_agree if gate and pairs else None),
            "bar": bar,
            "pairsNeededIfNoDiscordance": gate.min_pairs_if_arms_agree if gate else None,
        }
    return out


def _gate_statistics(
    candidate: Sequence[Receipt], baseline: Sequence[Receipt], row: Mapping[str, Any], thresholds: Mapping[str, Any]
) -> dict[str, Any]:
    """Tango, exact McNemar, design effect by case and a diagnosis for the two paired gates."""
    recall, false_positive, _shared = outcomes_by_case(candidate, baseline)
    gates = {}
    checks: tuple[tuple[str, Any, GateKind, float], ...] = (
        ("recallNonInferior", recall, "non_inferiority", thresholds["recallDelta"]),
        ("falsePositiveMargin", false_positive, "upper_margin", thresholds["fprEpsilon"]),
    )
    for condition, pairs, kind, margin in checks:
        if margin <= 0:
            continue
        annotation = annotate_ledger_gate(pairs, kind=kind, margin=margin, passed=bool(row["conditions"][condition]))
        gates[condition] = as_json(annotation)
    return gates


def _transport_hygiene(campaign: Campaign) -> dict[str, Any]:
    seen: dict[tuple[str, str], int] = {}
    duplicates, mirrored = [], []
    for index, pair in enumerate(campaign.manifest["transportPairs"]):
        key = (pair["leftArmId"], pair["rightArmId"])
        if key in seen:
            duplicates.append({"index": index, "sameAs": seen[key]})
        elif key[::-1] in seen:
            mirrored.append({"index": index, "mirrors": seen[key[::-1]]})
        seen.setdefault(key, index)
    return {"duplicates": duplicates, "mirrored": mirrored}


def extended_summary(
    campaign: Campaign | Mapping[str, Any],
    receipts: Sequence[Receipt],
    summary: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Analyses beyond the upstream summary, for arm and case pages.

    ``summary`` is the result of :func:`summarize` for the same inputs (it is
    recomputed, validating everything, when not given).
    """
    parsed = as_campaign(campaign)
    report = summary if summary is not None else summarize(parsed, receipts)
    by_arm: dict[str, list[Receipt]] = defaultdict(list)
    for item in receipts:
        by_arm[item["armId"]].append(item)
    baseline = parsed.baseline
    arms = {
        arm["armId"]: _arm_extras(arm, by_arm.get(arm["armId"], []), parsed) for arm in [baseline, *parsed.candidates]
    }
    candidates = {}
    for row in report["candidates"]:
        arm_id = row["armId"]
        items, base = by_arm.get(arm_id, []), by_arm.get(baseline["armId"], [])
        silent_ok = arms[arm_id]["identityMismatches"]["silent"] == 0
        other_conditions = {key: value for key, value in row["conditions"].items() if key != "identityHonesty"}
        fp = row["paired"]["falsePositiveDifference"]
        candidates[arm_id] = {
            "feasibility": _feasibility(report["arms"][arm_id], row["paired"], parsed.thresholds),
            "falsePositivePairs": {
                "candidateOnlyFalsePositives": fp.get("candidateWins"),
                "baselineOnlyFalsePositives": fp.get("candidateLosses"),
                "pairs": fp["pairs"],
            },
            "identityHonestySilentOnly": silent_ok,
            "recommendationIfIdentityCountsSilentOnly": (
                ELIGIBLE if silent_ok and all(other_conditions.values()) else NOT_ADMITTED
            ),
            "failedConditions": [key for key in CONDITION_ORDER if not row["conditions"].get(key, False)],
            "gates": _gate_statistics(items, base, row, parsed.thresholds),
        }
    return {
        "schema": EXTENDED_SCHEMA,
        "campaignId": report["campaignId"],
        "campaignDigest": report["campaignDigest"],
        "ledgerDigest": report["ledgerDigest"],
        "receiptCount": report["receiptCount"],
        "arms": arms,
        "candidates": candidates,
        "transportPairs": _transport_hygiene(parsed),
        "caveats": list(CAVEATS),
    }
