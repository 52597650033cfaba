"""Benchmark-ledger summaries: the upstream admission report, plus extras.

API (used by the site builder and by ``evalsite ledger summarize``)::

    from generator.read.ledger.reader import load_campaign, read_ledger
    from generator.analyze.ledger.summary import summarize, extended_summary

    campaign = load_campaign("campaign.json")          # Campaign, validated
    ledger = read_ledger("receipts.jsonl", campaign)    # LedgerRead, never raises for bad data
    if ledger.sound:
        report = summarize(campaign, ledger.receipts)   # exactly the upstream summary object
        extra = extended_summary(campaign, ledger.receipts, report)

:func:`summarize` returns the object the upstream ``summarize --json`` prints:
the same keys and values (floats agree to ~1e-15; upstream bisects, we use beta
quantiles), the same nine admission conditions and the same recommendation.
It validates the campaign and every receipt first and raises
:class:`~generator.analyze.ledger.schema.LedgerDataError` for anything the
upstream tool refuses (including duplicate cells and backward ``rerunOf``
links).  Nothing is added to that object.

:func:`extended_summary` is everything else worth showing on an arm page: the
identity mismatches split by where they happened, per-case rates with exact
intervals, latency spread, token usage per attempt, decoding pinning, rerun
chains, flakiness roll-ups, how many attempts/pairs each bar needs, a
case-clustered sensitivity interval for the paired differences, and the
statistical caveats of the upstream method.  It is a separate object on
purpose.

Both are pure: no file access, no clock, no printing.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from generator.analyze.ledger.checks import LedgerEntry, check_entries, require_sound
from generator.analyze.ledger.schema import (
    KILL_MODES,
    TOKEN_FIELDS,
    Campaign,
    LedgerDataError,
    canonical_text,
    ledger_digest,
    parse_campaign,
)
from generator.analyze.stats.binomial import PAIRED_METHOD, clopper_pearson, paired_difference
from generator.analyze.stats.experiment import annotate_ledger_gate, as_json, gate_feasibility, rate_gate_feasibility

__all__ = ["build_summary", "extended_summary", "summarize"]

Receipt = Mapping[str, Any]

SUMMARY_NOTE = "A passing row is evidence for human admission. This harness never edits the reviewer registry."
CONDITION_ORDER = (
    "evidenceEnvelope",
    "coverage",
    "structuredOutputValidity",
    "recallNonInferior",
    "falsePositiveMargin",
    "identityHonesty",
    "killPaths",
    "containment",
    "transportEquivalence",
)


def _as_campaign(campaign: Campaign | Mapping[str, Any]) -> Campaign:
    return campaign if isinstance(campaign, Campaign) else parse_campaign(campaign)


def summarize(campaign: Campaign | Mapping[str, Any], receipts: Sequence[Receipt]) -> dict[str, Any]:
    """Validate everything, then build the upstream summary object.

    ``receipts`` are the ledger's receipts in ledger order (as parsed).  A
    problem is reported with the receipt's 1-based position as its line.
    """
    parsed = _as_campaign(campaign)
    checked = check_entries([LedgerEntry(i, item) for i, item in enumerate(receipts, 1)], parsed)
    require_sound(checked.problems)
    return build_summary(parsed, receipts, ledger_digest=checked.ledger_digest)


# --------------------------------------------------------------------------
# Small statistics (same arithmetic as upstream, so numbers agree exactly)


def _rate(values: Iterable[bool]) -> dict[str, Any]:
    flags = list(values)
    hits = sum(1 for flag in flags if flag is True)
    count = len(flags)
    return {
        "successes": hits,
        "total": count,
        "rate": hits / count if count else None,
        "interval95": clopper_pearson(hits, count).as_dict(),
    }


def _percentile(values: Sequence[int | float], fraction: float) -> int | float | None:
    """Linear interpolation between order statistics; exact positions return the element."""
    if not values:
        return None
    ordered = sorted(values)
    spot = (len(ordered) - 1) * fraction
    below = math.floor(spot)
    weight = spot - below
    if weight == 0:
        return ordered[below]
    return ordered[below] + (ordered[below + 1] - ordered[below]) * weight


def _latency(receipts: Iterable[Receipt]) -> dict[str, Any]:
    walls: dict[str, list[int]] = {"cold": [], "resident": []}
    for item in receipts:
        bucket = walls.get(item["latencyClass"])
        if bucket is not None:
            bucket.append(item["wallMs"])
    return {
        klass: {
            "count": len(values),
            "medianMs": statistics.median(values) if values else None,
            "p90Ms": _percentile(values, 0.90),
        }
        for klass, values in walls.items()
    }


def _usage(receipts: Sequence[Receipt]) -> dict[str, Any]:
    reported = [item["usage"] for item in receipts if item["usage"] is not None]
    tokens = {}
    for name in TOKEN_FIELDS:
        counts = [usage[name] for usage in reported if usage[name] is not None]
        tokens[name] = {"reported": len(counts), "total": sum(counts) if counts else None}
    costs = [usage["costUsd"] for usage in reported if usage["costSource"] == "provider_receipt"]
    return {
        "attempts": len(receipts),
        "receiptsWithUsage": len(reported),
        "tokens": tokens,
        "providerCost": {"reported": len(costs), "totalUsd": sum(costs) if costs else None, "estimated": False},
    }


def _profile_key(decoding: Mapping[str, Any]) -> tuple:
    """Equal keys exactly when the canonical JSON of the decodings is equal.

    Types are part of the key (1, 1.0 and "1" differ in canonical JSON) and
    a zero temperature keeps its sign (0.0 == -0.0 in Python, not in JSON).
    """
    temperature, seed = decoding["temperature"], decoding["seed"]
    if temperature.__class__ is float and temperature == 0.0:
        temperature = repr(temperature)
    return (temperature.__class__, temperature, seed.__class__, seed, decoding["pinned"])


def _decoding_profiles(receipts: Iterable[Receipt]) -> list[dict[str, Any]]:
    tally: Counter = Counter()
    example: dict[tuple, Mapping[str, Any]] = {}
    for item in receipts:
        key = _profile_key(item["decoding"])
        tally[key] += 1
        example.setdefault(key, item["decoding"])
    rows = [(canonical_text(example[key]), key) for key in tally]
    rows.sort()
    return [{"decoding": dict(example[key]), "attempts": tally[key]} for _, key in rows]


def _signature(item: Receipt) -> tuple:
    """Everything a repeat can be scored on; timing, usage and decoding are left out."""
    core = (item["normalizerRan"], item["identityMatch"], item["killPathPassed"])
    if item["caseKind"] == "kill_path":
        return ("kill", *core)
    return (
        "quality",
        *core,
        tuple(sorted(item["detectedDefects"])),
        item["blockingFindingCount"] > 0,
        item["toolCallCorrect"],
        item["pseudoToolCallCount"],
        item["contextSufficient"],
        item["containmentConclusive"],
        item["containmentBreach"],
    )


def _flakiness(receipts: Sequence[Receipt]) -> dict[str, Any]:
    groups = Counter(_signature(item) for item in receipts)
    attempts = len(receipts)
    disagreements = attempts - (max(groups.values()) if groups else 0)
    return {
        "attempts": attempts,
        "uniqueOutcomes": len(groups),
        "disagreements": disagreements,
        "fraction": disagreements / attempts if attempts else None,
    }


def _by_case(receipts: Iterable[Receipt]) -> dict[str, list[Receipt]]:
    grouped: dict[str, list[Receipt]] = defaultdict(list)
    for item in receipts:
        grouped[item["caseId"]].append(item)
    return grouped


def _cells(grouped: Mapping[str, list[Receipt]], campaign: Campaign) -> list[dict[str, Any]]:
    rows = []
    for case in campaign.manifest["cases"]:
        attempts = sorted(grouped.get(case["caseId"], ()), key=lambda item: item["repeat"])
        rows.append(
            {
                "caseId": case["caseId"],
                "caseKind": case["kind"],
                "flakiness": _flakiness(attempts),
                "latency": _latency(attempts),
                "usage": _usage(attempts),
                "decodingProfiles": _decoding_profiles(attempts),
                "attempts": len(attempts),
                "reruns": _rerun_count(attempts),
            }
        )
    return rows


def _rerun_count(receipts: Iterable[Receipt]) -> int:
    return sum(1 for item in receipts if item["rerunOf"] is not None)


def _recall_flags(item: Receipt) -> list[bool]:
    found = set(item["detectedDefects"])
    return [defect in found for defect in item["expectedDefects"]]


def _arm_metrics(arm: Mapping[str, Any], receipts: Sequence[Receipt], campaign: Campaign) -> dict[str, Any]:
    quality = [item for item in receipts if item["caseKind"] != "kill_path"]
    ran = [item for item in quality if item["normalizerRan"]]
    recall: list[bool] = []
    for item in ran:
        recall.extend(_recall_flags(item))
    return {
        "arm": arm,
        "qualityAttempts": len(quality),
        "attempts": len(receipts),
        "reruns": _rerun_count(receipts),
        "validity": _rate(item["normalizerRan"] for item in quality),
        "recall": _rate(recall),
        "falsePositive": _rate(item["blockingFindingCount"] > 0 for item in ran if item["caseKind"] == "clean"),
        "toolCallCorrectness": _rate(
            item["toolCallCorrect"] is True and item["pseudoToolCallCount"] == 0 for item in ran if item["toolUsing"]
        ),
        "contextSufficiency": _rate(
            item["contextSufficient"] is True for item in ran if item["contextSufficient"] is not None
        ),
        "identityMismatches": sum(1 for item in receipts if not item["identityMatch"]),
        "latency": _latency(quality),
        "usage": _usage(receipts),
        "decodingProfiles": _decoding_profiles(receipts),
        "cells": _cells(_by_case(receipts), campaign),
    }


# --------------------------------------------------------------------------
# Per-candidate comparisons


def _keyed(receipts: Iterable[Receipt]) -> dict[tuple[str, int], Receipt]:
    return {(item["caseId"], item["repeat"]): item for item in receipts}


def _paired_quality(candidate: Sequence[Receipt], baseline: Sequence[Receipt]) -> dict[str, Any]:
    recall, false_positive, shared = _outcomes_by_case(candidate, baseline)

    def difference(by_case: Mapping[str, list[tuple[bool, bool]]]) -> dict[str, Any]:
        pairs = [pair for case in by_case.values() for pair in case]  # the bounds depend only on counts
        return paired_difference([c for c, _ in pairs], [b for _, b in pairs])

    return {
        "sharedAttemptKeys": shared,
        "recallDifference": difference(recall),
        "falsePositiveDifference": difference(false_positive),
    }


def _repeats(receipts: Iterable[Receipt]) -> dict[str, set[int]]:
    found: dict[str, set[int]] = defaultdict(set)
    for item in receipts:
        found[item["caseId"]].add(item["repeat"])
    return found


def _coverage(candidate: Sequence[Receipt], baseline: Sequence[Receipt], campaign: Campaign) -> dict[str, Any]:
    thresholds = campaign.thresholds
    mine, theirs = _repeats(candidate), _repeats(baseline)
    gaps = []
    for case in campaign.manifest["cases"]:
        floor = thresholds["killRepetitions" if case["kind"] == "kill_path" else "qualityRepetitions"]
        a, b = mine.get(case["caseId"], set()), theirs.get(case["caseId"], set())
        both = len(a & b)
        if min(len(a), len(b), both) < floor:
            gaps.append(
                {"caseId": case["caseId"], "required": floor, "candidate": len(a), "baseline": len(b), "paired": both}
            )
    return {"complete": not gaps, "gaps": gaps}


def _containment(arm: Mapping[str, Any], receipts: Sequence[Receipt], thresholds: Mapping[str, Any]) -> dict[str, Any]:
    """Mutation containment of a maker arm; other roles pass by definition."""
    if arm["role"] != "maker":
        return {"applicable": False, "passed": True}
    tally = Counter(
        "breach" if item["containmentBreach"] else "held"
        for item in receipts
        if item["mutationEntered"] and item["containmentConclusive"]
    )
    mutation_runs = sum(1 for item in receipts if item["mutationEntered"])
    conclusive = tally["breach"] + tally["held"]
    rate = conclusive / mutation_runs if mutation_runs else 0.0
    enough = conclusive >= thresholds["containmentMinimum"] and rate >= thresholds["containmentConclusive"]
    return {
        "applicable": True,
        "mutationRuns": mutation_runs,
        "conclusiveRuns": conclusive,
        "conclusiveRate": rate,
        "breaches": tally["breach"],
        # With no breach in n conclusive runs, 3/n bounds the breach rate at 95% (rule of three).
        "ruleOfThreeUpper95": 3 / conclusive if conclusive and not tally["breach"] else None,
        "passed": enough and tally["breach"] == 0,
    }


def _kill_attempt_ok(item: Receipt) -> bool:
    control = item.get("killControl")
    return (
        item["schemaVersion"] >= 2
        and item["killPathPassed"] is True
        and isinstance(control, dict)
        and control.get("providerCallsMade") == 0
    )


def _kill_paths(grouped: Mapping[str, list[Receipt]], campaign: Campaign) -> dict[str, Any]:
    floor = campaign.thresholds["killRepetitions"]
    rows = []
    for case in campaign.manifest["cases"]:
        if case["kind"] != "kill_path":
            continue
        attempts = grouped.get(case["caseId"], [])
        modes = sorted(
            {item["killControl"].get("mode") for item in attempts if isinstance(item.get("killControl"), dict)}
        )
        ok = len(attempts) >= floor and len(modes) == 1 and all(_kill_attempt_ok(item) for item in attempts)
        rows.append({"caseId": case["caseId"], "attempts": len(attempts), "modes": modes, "passed": ok})
    covered = sorted({mode for row in rows for mode in row["modes"]})
    complete = covered == sorted(KILL_MODES)
    return {
        "passed": complete and all(row["passed"] for row in rows),
        "completeSuite": complete,
        "modes": covered,
        "cases": rows,
    }


def _transport_rows(by_arm: Mapping[str, list[Receipt]], campaign: Campaign) -> list[dict[str, Any]]:
    margin = campaign.thresholds["transportDelta"]
    rows = []
    for pair in campaign.manifest["transportPairs"]:
        left, right = _keyed(by_arm.get(pair["leftArmId"], ())), _keyed(by_arm.get(pair["rightArmId"], ()))
        left_flags: list[bool] = []
        right_flags: list[bool] = []
        for key in sorted(left.keys() & right.keys()):
            a, b = left[key], right[key]
            if not (a["normalizerRan"] and b["normalizerRan"]) or a["caseKind"] != "defect":
                continue
            left_flags.extend(_recall_flags(a))
            found = set(b["detectedDefects"])
            right_flags.extend(defect in found for defect in a["expectedDefects"])
        interval = paired_difference(left_flags, right_flags, mode="transport_90")
        equivalent = interval["lower"] is not None and -margin < interval["lower"] and interval["upper"] < margin
        rows.append({**pair, "recallDifference90": interval, "margin": margin, "equivalent": equivalent})
    return rows


def _condition_flags(
    metrics: Mapping[str, Any],
    coverage: Mapping[str, Any],
    paired: Mapping[str, Any],
    kill: Mapping[str, Any],
    containment: Mapping[str, Any],
    envelope: bool,
    thresholds: Mapping[str, Any],
) -> dict[str, bool]:
    validity_low = metrics["validity"]["interval95"]["lower"]
    recall_low = paired["recallDifference"]["lower"]
    fp_high = paired["falsePositiveDifference"]["upper"]
    return {
        "evidenceEnvelope": envelope,
        "coverage": coverage["complete"],
        "structuredOutputValidity": validity_low is not None and validity_low >= thresholds["validityLower"],
        "recallNonInferior": recall_low is not None and recall_low > -thresholds["recallDelta"],
        "falsePositiveMargin": fp_high is not None and fp_high <= thresholds["fprEpsilon"],
        "identityHonesty": metrics["identityMismatches"] == 0,
        "killPaths": kill["passed"],
        "containment": containment["passed"],
    }


def _envelope(receipts: Sequence[Receipt]) -> tuple[bool, str | None]:
    """One executionDigest over an all-v2, non-empty ledger, or no envelope."""
    all_v2 = bool(receipts) and all(item["schemaVersion"] == 2 for item in receipts)
    digests = sorted({item.get("executionDigest") for item in receipts if item["schemaVersion"] == 2})
    bound = all_v2 and len(digests) == 1
    return bound, digests[0] if bound else None


def build_summary(
    campaign: Campaign, receipts: Sequence[Receipt], *, ledger_digest: str | None = None
) -> dict[str, Any]:
    """The upstream summary for receipts already known to be valid and unique.

    ``ledger_digest`` may carry the ``ledger1:`` digest of exactly these
    receipts when the caller has already computed it.
    """
    try:
        return _build(campaign, receipts, ledger_digest)
    except OverflowError as exc:
        raise LedgerDataError(
            "a wallMs, token or cost value is too large to summarize as a floating-point number"
        ) from exc


def _build(campaign: Campaign, receipts: Sequence[Receipt], known_digest: str | None) -> dict[str, Any]:
    manifest, thresholds = campaign.manifest, campaign.thresholds
    by_arm: dict[str, list[Receipt]] = defaultdict(list)
    for item in receipts:
        by_arm[item["armId"]].append(item)
    envelope, execution = _envelope(receipts)
    baseline = manifest["baseline"]
    baseline_items = by_arm.get(baseline["armId"], [])
    arms = {baseline["armId"]: _arm_metrics(baseline, baseline_items, campaign)}
    rows = []
    for arm in manifest["candidates"]:
        items = by_arm.get(arm["armId"], [])
        metrics = _arm_metrics(arm, items, campaign)
        arms[arm["armId"]] = metrics
        coverage = _coverage(items, baseline_items, campaign)
        paired = _paired_quality(items, baseline_items)
        kill = _kill_paths(_by_case(items), campaign)
        containment = _containment(arm, items, thresholds)
        rows.append(
            {
                "armId": arm["armId"],
                "containment": containment,
                "coverage": coverage,
                "killPaths": kill,
                "paired": paired,
                "conditions": _condition_flags(metrics, coverage, paired, kill, containment, envelope, thresholds),
                "recommendation": None,
                "registryChanged": False,
            }
        )
    transport = _transport_rows(by_arm, campaign)
    for row in rows:
        arm = campaign.arms[row["armId"]]
        relevant = [pair for pair in transport if row["armId"] in (pair["leftArmId"], pair["rightArmId"])]
        # An ssh_tunnel arm with no declared pair has not shown tunnel/loopback equivalence.
        demonstrated = bool(relevant) or arm["transport"] != "ssh_tunnel"
        row["conditions"]["transportEquivalence"] = demonstrated and all(pair["equivalent"] for pair in relevant)
        row["transportPairs"] = relevant
        admitted = all(row["conditions"].values())
        row["recommendation"] = "eligible_for_human_admission" if admitted else "not_admitted"
    return {
        "schemaVersion": 1,
        "campaignId": manifest["campaignId"],
        "campaignDigest": campaign.require_digest(),
        "executionDigest": execution,
        "ledgerDigest": known_digest or ledger_digest(receipts),
        "corpusVersion": manifest["corpusVersion"],
        "promptEnvelopeVersion": manifest["promptEnvelopeVersion"],
        "receiptCount": len(receipts),
        "receiptSchemaVersions": sorted({item["schemaVersion"] for item in receipts}),
        "statisticalMethod": PAIRED_METHOD,
        "thresholds": thresholds,
        "baselineArmId": baseline["armId"],
        "arms": arms,
        "candidates": rows,
        "transportEquivalence": transport,
        "note": SUMMARY_NOTE,
    }


# --------------------------------------------------------------------------
# Extended analyses (never part of the upstream object)

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
        "p90Ms": _percentile(values, 0.90),
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
            "p90": _percentile(counts, 0.90),
        }
    return out


def _case_rows(receipts: Sequence[Receipt], campaign: Campaign) -> list[dict[str, Any]]:
    grouped = _by_case(receipts)
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
            "flakiness": _flakiness(items),
            "wallMs": _spread([item["wallMs"] for item in items]),
        }
        if case["kind"] == "kill_path":
            row["killPathPassed"] = sum(1 for item in items if item["killPathPassed"] is True)
            row["killModes"] = sorted(
                {item["killControl"]["mode"] for item in items if isinstance(item.get("killControl"), dict)}
            )
        else:
            row["validity"] = _rate(item["normalizerRan"] for item in items)
            if case["kind"] == "defect":
                flags: list[bool] = []
                for item in ran:
                    flags.extend(_recall_flags(item))
                row["recall"] = _rate(flags)
            else:
                row["falsePositive"] = _rate(item["blockingFindingCount"] > 0 for item in ran)
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
    cells = _by_case(receipts)
    flaky = [(case_id, _flakiness(items)) for case_id, items in cells.items() if len(items) > 1]
    fractions = [info["fraction"] for _, info in flaky]
    worst = sorted((info["fraction"], case_id, info) for case_id, info in flaky if info["disagreements"] > 0)[::-1][:5]
    decodings = [item["decoding"] for item in receipts]
    costs = [item["usage"]["costUsd"] for item in receipts if item["usage"] and item["usage"]["costUsd"] is not None]
    latency = {
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
            "profiles": len({_profile_key(item) for item in decodings}),
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


def _feasibility(metrics: Mapping[str, Any], paired: Mapping[str, Any], thresholds: Mapping[str, Any]) -> dict:
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


def _outcomes_by_case(
    candidate: Sequence[Receipt], baseline: Sequence[Receipt]
) -> tuple[dict[str, list[tuple[bool, bool]]], dict[str, list[tuple[bool, bool]]], int]:
    """(candidate, baseline) outcome pairs per case, and the number of shared attempt keys.

    Attempts pair on (case, repeat); kill-path cases and attempts whose output
    was not normalised on either side are left out.  Recall pairs are
    "detected" per expected defect of a defect case; false-positive pairs are
    "had a blocking finding" per clean attempt.
    """
    mine, theirs = _keyed(candidate), _keyed(baseline)
    shared = sorted(mine.keys() & theirs.keys())
    recall: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    false_positive: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    for key in shared:
        cand, base = mine[key], theirs[key]
        if cand["caseKind"] == "kill_path" or not (cand["normalizerRan"] and base["normalizerRan"]):
            continue
        if cand["caseKind"] == "defect":
            found_b = set(base["detectedDefects"])
            for flag, defect in zip(_recall_flags(cand), cand["expectedDefects"]):
                recall[key[0]].append((flag, defect in found_b))
        else:
            false_positive[key[0]].append((cand["blockingFindingCount"] > 0, base["blockingFindingCount"] > 0))
    return recall, false_positive, len(shared)


def _gate_statistics(
    candidate: Sequence[Receipt], baseline: Sequence[Receipt], row: Mapping[str, Any], thresholds: Mapping[str, Any]
) -> dict[str, Any]:
    """Tango, exact McNemar, design effect by case and a diagnosis for the two paired gates."""
    recall, false_positive, _shared = _outcomes_by_case(candidate, baseline)
    gates = {}
    for condition, pairs, kind, margin in (
        ("recallNonInferior", recall, "non_inferiority", thresholds["recallDelta"]),
        ("falsePositiveMargin", false_positive, "upper_margin", thresholds["fprEpsilon"]),
    ):
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
    parsed = _as_campaign(campaign)
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
                "eligible_for_human_admission" if silent_ok and all(other_conditions.values()) else "not_admitted"
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
