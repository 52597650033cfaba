"""Test oracle: the reference summary as it was written before it was counted in one pass.

This is ``generator/analyze/ledger/summary.py`` at commit 6422032, unchanged but for this docstring:
one straightforward pass per definition (about 25 over the receipts), each interval computed where
it is counted.  ``tests/ledger/test_ledger_summary_fused.py`` checks that the fused summary
(``analyze/ledger/arms.py``, ``summary.py``, ``bounds.py``) gives byte for byte the same object.
Not used by the product.
"""

from __future__ import annotations

import math
import operator
import statistics
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, cast

from generator.analyze.ledger.campaign import parse_campaign
from generator.analyze.ledger.checks import check_entries, require_sound
from generator.analyze.stats.binomial import clopper_pearson, paired_difference
from generator.model.ledger import (
    ELIGIBLE,
    KILL_MODES,
    NOT_ADMITTED,
    PAIRED_METHOD,
    TOKEN_FIELDS,
    Campaign,
    LedgerDataError,
    LedgerEntry,
    canonical_text,
    ledger_digest,
)

__all__ = ["SUMMARY_NOTE", "as_campaign", "build_summary", "outcomes_by_case", "summarize"]

Receipt = Mapping[str, Any]

SUMMARY_NOTE = "A passing row is evidence for human admission. This harness never edits the reviewer registry."


def as_campaign(campaign: Campaign | Mapping[str, Any]) -> Campaign:
    return campaign if isinstance(campaign, Campaign) else parse_campaign(campaign)


def summarize(campaign: Campaign | Mapping[str, Any], receipts: Sequence[Receipt]) -> dict[str, Any]:
    """Validate everything, then build the upstream summary object.

    ``receipts`` are the ledger's receipts in ledger order (as parsed).  A
    problem is reported with the receipt's 1-based position as its line.
    """
    parsed = as_campaign(campaign)
    checked = check_entries([LedgerEntry(i, item) for i, item in enumerate(receipts, 1)], parsed)
    require_sound(checked.problems)
    return build_summary(parsed, receipts, ledger_digest=checked.ledger_digest)


# --------------------------------------------------------------------------
# Small statistics (same arithmetic as upstream, so numbers agree exactly)


def rate(values: Iterable[bool]) -> dict[str, Any]:
    flags = list(values)
    return _rate(sum(1 for flag in flags if flag is True), len(flags))


def _rate(hits: int, count: int) -> dict[str, Any]:
    """:func:`rate` of ``count`` flags of which ``hits`` are true."""
    return {
        "successes": hits,
        "total": count,
        "rate": hits / count if count else None,
        "interval95": clopper_pearson(hits, count).as_dict(),
    }


def percentile(values: Sequence[int | float], fraction: float) -> int | float | None:
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
            "p90Ms": percentile(values, 0.90),
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


def profile_key(decoding: Mapping[str, Any]) -> tuple[Any, ...]:
    """Equal keys exactly when the canonical JSON of the decodings is equal.

    Types are part of the key (1, 1.0 and "1" differ in canonical JSON) and
    a zero temperature keeps its sign (0.0 == -0.0 in Python, not in JSON).
    """
    temperature, seed = decoding["temperature"], decoding["seed"]
    if temperature.__class__ is float and temperature == 0.0:
        temperature = repr(temperature)
    return (temperature.__class__, temperature, seed.__class__, seed, decoding["pinned"])


def _decoding_profiles(receipts: Iterable[Receipt]) -> list[dict[str, Any]]:
    # Receipts often share one decoding object (slim receipts do): count the objects first, then
    # key each distinct object once.  Objects come in order of first use, so each key's example
    # is still the decoding of the first receipt that has it.
    decodings = [item["decoding"] for item in receipts]
    uses = Counter(map(id, decodings))  # counted in C
    objects = {id(decoding): decoding for decoding in decodings}  # first use decides the order
    tally: Counter[tuple[Any, ...]] = Counter()
    example: dict[tuple[Any, ...], Mapping[str, Any]] = {}
    for ident, decoding in objects.items():
        key = profile_key(decoding)
        tally[key] += uses[ident]
        example.setdefault(key, decoding)
    rows = [(canonical_text(example[key]), key) for key in tally]
    rows.sort()
    return [{"decoding": dict(example[key]), "attempts": tally[key]} for _, key in rows]


def _signature(item: Receipt) -> tuple[Any, ...]:
    """Everything a repeat can be scored on; timing, usage and decoding are left out."""
    if item["caseKind"] == "kill_path":
        return ("kill", item["normalizerRan"], item["identityMatch"], item["killPathPassed"])
    return (
        "quality",
        item["normalizerRan"],
        item["identityMatch"],
        item["killPathPassed"],
        tuple(sorted(item["detectedDefects"])),
        item["blockingFindingCount"] > 0,
        item["toolCallCorrect"],
        item["pseudoToolCallCount"],
        item["contextSufficient"],
        item["containmentConclusive"],
        item["containmentBreach"],
    )


def flakiness(receipts: Sequence[Receipt]) -> dict[str, Any]:
    groups = Counter(map(_signature, receipts))
    attempts = len(receipts)
    disagreements = attempts - (max(groups.values()) if groups else 0)
    return {
        "attempts": attempts,
        "uniqueOutcomes": len(groups),
        "disagreements": disagreements,
        "fraction": disagreements / attempts if attempts else None,
    }


def by_case(receipts: Iterable[Receipt]) -> dict[str, list[Receipt]]:
    grouped: dict[str, list[Receipt]] = defaultdict(list)
    for item in receipts:
        grouped[item["caseId"]].append(item)
    return grouped


def _cells(grouped: Mapping[str, list[Receipt]], campaign: Campaign) -> list[dict[str, Any]]:
    rows = []
    by_repeat = operator.itemgetter("repeat")
    for case in campaign.manifest["cases"]:
        attempts = sorted(grouped.get(case["caseId"], ()), key=by_repeat)
        rows.append(
            {
                "caseId": case["caseId"],
                "caseKind": case["kind"],
                "flakiness": flakiness(attempts),
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


def recall_flags(item: Receipt) -> list[bool]:
    detected, expected = item["detectedDefects"], item["expectedDefects"]
    if detected is expected or detected == expected:  # found exactly the expected defects
        return [True] * len(expected)
    found = set(detected)
    return [defect in found for defect in expected]


def _recall_counts(ran: Iterable[Receipt]) -> tuple[int, int]:
    """(true flags, flags) of all the ``recall_flags`` of ``ran``, counted without the lists."""
    hits = total = 0
    for item in ran:
        detected, expected = item["detectedDefects"], item["expectedDefects"]
        total += len(expected)
        if detected is expected or detected == expected:
            hits += len(expected)
        else:
            found = set(detected)
            hits += sum(1 for defect in expected if defect in found)
    return hits, total


def _arm_metrics(arm: Mapping[str, Any], receipts: Sequence[Receipt], campaign: Campaign) -> dict[str, Any]:
    quality = [item for item in receipts if item["caseKind"] != "kill_path"]
    ran = [item for item in quality if item["normalizerRan"]]
    return {
        "arm": arm,
        "qualityAttempts": len(quality),
        "attempts": len(receipts),
        "reruns": _rerun_count(receipts),
        "validity": rate(item["normalizerRan"] for item in quality),
        "recall": _rate(*_recall_counts(ran)),
        "falsePositive": rate(item["blockingFindingCount"] > 0 for item in ran if item["caseKind"] == "clean"),
        "toolCallCorrectness": rate(
            item["toolCallCorrect"] is True and item["pseudoToolCallCount"] == 0 for item in ran if item["toolUsing"]
        ),
        "contextSufficiency": rate(
            item["contextSufficient"] is True for item in ran if item["contextSufficient"] is not None
        ),
        "identityMismatches": sum(1 for item in receipts if not item["identityMatch"]),
        "latency": _latency(quality),
        "usage": _usage(receipts),
        "decodingProfiles": _decoding_profiles(receipts),
        "cells": _cells(by_case(receipts), campaign),
    }


# --------------------------------------------------------------------------
# Per-candidate comparisons


def _keyed(receipts: Iterable[Receipt]) -> dict[tuple[str, int], Receipt]:
    return {(item["caseId"], item["repeat"]): item for item in receipts}


def _paired_quality(candidate: Sequence[Receipt], baseline: Sequence[Receipt]) -> dict[str, Any]:
    """The paired differences over :func:`outcomes_by_case`'s pairs, counted as they are found.

    ``paired_difference`` depends only on the number of pairs and of candidate-only and
    baseline-only successes (its ``pairs``, ``candidateWins``, ``candidateLosses``), so the pairs
    are counted (in any order) and given to it as flags with the same three counts.
    """
    theirs = _keyed(baseline)
    shared = 0
    recall = [0, 0, 0]  # pairs, candidate only, baseline only
    false_positive = [0, 0, 0]
    for key, cand in _keyed(candidate).items():
        base = theirs.get(key)
        if base is None:
            continue
        shared += 1
        kind = cand["caseKind"]
        if kind == "kill_path" or not (cand["normalizerRan"] and base["normalizerRan"]):
            continue
        if kind == "defect":
            expected = cand["expectedDefects"]
            mine_found, theirs_found = cand["detectedDefects"], base["detectedDefects"]
            recall[0] += len(expected)
            mine_all = mine_found is expected or mine_found == expected
            theirs_all = theirs_found is expected or theirs_found == expected
            if mine_all and theirs_all:
                continue
            a = set(mine_found)
            b = set(theirs_found)
            for defect in expected:
                if (defect in a) != (defect in b):
                    recall[1 if defect in a else 2] += 1
        else:
            c, b_flag = cand["blockingFindingCount"] > 0, base["blockingFindingCount"] > 0
            false_positive[0] += 1
            if c != b_flag:
                false_positive[1 if c else 2] += 1
    return {
        "sharedAttemptKeys": shared,
        "recallDifference": _counted_difference(*recall),
        "falsePositiveDifference": _counted_difference(*false_positive),
    }


def _counted_difference(pairs: int, wins: int, losses: int) -> dict[str, Any]:
    """``paired_difference`` of ``pairs`` pairs with ``wins`` candidate-only, ``losses`` baseline-only."""
    ties = pairs - wins - losses
    candidate = [True] * wins + [False] * losses + [False] * ties
    baseline = [False] * wins + [True] * losses + [False] * ties
    return paired_difference(candidate, baseline)


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
    covered = sorted(set().union(*(row["modes"] for row in rows)))
    complete = covered == sorted(KILL_MODES)  # every kill mode has a case of its own
    every_case_held = all(row["passed"] for row in rows)
    return dict(passed=complete and every_case_held, completeSuite=complete, modes=covered, cases=rows)


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
            left_flags.extend(recall_flags(a))
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
    digests = sorted(cast("set[str]", {item.get("executionDigest") for item in receipts if item["schemaVersion"] == 2}))
    bound = all_v2 and len(digests) == 1
    return bound, digests[0] if bound else None


#: ``aside(compute)`` starts ``compute()`` -- here, or in another process -- and returns a function
#: that gives its result (see :func:`build_summary`).
Aside = Callable[[Callable[[], Any]], Callable[[], Any]]


def _here(compute: Callable[[], Any]) -> Callable[[], Any]:
    value = compute()
    return lambda: value


def build_summary(
    campaign: Campaign,
    receipts: Sequence[Receipt],
    *,
    ledger_digest: str | None = None,
    aside: Aside | None = None,
) -> dict[str, Any]:
    """The upstream summary for receipts already known to be valid and unique.

    ``ledger_digest`` may carry the ``ledger1:`` digest of exactly these
    receipts when the caller has already computed it.  ``aside`` may compute the baseline arm's
    metrics while the rest is computed (the CLI gives it to a forked process, the other core);
    the result is the same.
    """
    try:
        return _build(campaign, receipts, ledger_digest, aside or _here)
    except OverflowError as exc:
        raise LedgerDataError(
            "a wallMs, token or cost value is too large to summarize as a floating-point number"
        ) from exc


def _build(campaign: Campaign, receipts: Sequence[Receipt], known_digest: str | None, aside: Aside) -> dict[str, Any]:
    manifest, thresholds = campaign.manifest, campaign.thresholds
    by_arm: dict[str, list[Receipt]] = defaultdict(list)
    for item in receipts:
        by_arm[item["armId"]].append(item)
    envelope, execution = _envelope(receipts)
    baseline = manifest["baseline"]
    baseline_items = by_arm.get(baseline["armId"], [])
    baseline_metrics = aside(lambda: _arm_metrics(baseline, baseline_items, campaign))
    candidate_metrics = {}
    rows = []
    for arm in manifest["candidates"]:
        items = by_arm.get(arm["armId"], [])
        metrics = _arm_metrics(arm, items, campaign)
        candidate_metrics[arm["armId"]] = metrics
        coverage = _coverage(items, baseline_items, campaign)
        paired = _paired_quality(items, baseline_items)
        kill = _kill_paths(by_case(items), campaign)
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
    arms = {baseline["armId"]: baseline_metrics(), **candidate_metrics}
    transport = _transport_rows(by_arm, campaign)
    for row in rows:
        arm = campaign.arms[row["armId"]]
        relevant = [pair for pair in transport if row["armId"] in (pair["leftArmId"], pair["rightArmId"])]
        # An ssh_tunnel arm with no declared pair has not shown tunnel/loopback equivalence.
        demonstrated = bool(relevant) or arm["transport"] != "ssh_tunnel"
        row["conditions"]["transportEquivalence"] = demonstrated and all(pair["equivalent"] for pair in relevant)
        row["transportPairs"] = relevant
        admitted = all(row["conditions"].values())
        row["recommendation"] = ELIGIBLE if admitted else NOT_ADMITTED
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


def outcomes_by_case(
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
            expected, theirs_found = cand["expectedDefects"], base["detectedDefects"]
            if theirs_found is expected or theirs_found == expected:
                found_b = [True] * len(expected)
            else:
                found = set(theirs_found)
                found_b = [defect in found for defect in expected]
            recall[key[0]].extend(zip(recall_flags(cand), found_b, strict=True))
        else:
            false_positive[key[0]].append((cand["blockingFindingCount"] > 0, base["blockingFindingCount"] > 0))
    return recall, false_positive, len(shared)
