"""The benchmark ledger's reference summary: the upstream admission report.

API (``generator.pipelines.ledger.summarize_ledger`` runs it on files)::

    report = summarize(campaign, receipts)   # exactly the upstream summary object

:func:`summarize` returns the object the upstream ``summarize --json`` prints:
the same keys and values (floats agree to ~1e-15; upstream bisects, we use beta
quantiles), the same nine admission conditions and the same recommendation.
It validates the campaign and every receipt first and raises
:class:`~generator.analyze.ledger.schema.LedgerDataError` for anything the
upstream tool refuses (including duplicate cells and backward ``rerunOf``
links).  Nothing is added to that object.

Each arm's entry is counted by :func:`generator.analyze.ledger.arms.arm_metrics`; the exact
intervals are asked for while counting and computed together at the end
(``analyze/ledger/bounds.py``), so that counting needs no scipy.

Everything else worth showing on an arm page is
:func:`generator.analyze.ledger.extended.extended_summary`, a separate object on purpose.

It is pure: no file access, no clock, no printing.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

from generator.analyze.ledger.arms import (
    ARM_ID,
    BLOCKING,
    CASE_ID,
    CASE_KIND,
    CONTAINMENT_BREACH,
    CONTAINMENT_CONCLUSIVE,
    DETECTED,
    EXECUTION_DIGEST,
    EXPECTED,
    KILL_CONTROL,
    KILL_PATH_PASSED,
    MUTATION_ENTERED,
    NORMALIZER_RAN,
    REPEAT,
    SCHEMA_VERSION,
    Receipt,
    Row,
    arm_metrics,
    recall_flags,
    receipt_rows,
)
from generator.analyze.ledger.bounds import Bounds, Compute, compute_here
from generator.analyze.ledger.campaign import parse_campaign
from generator.analyze.ledger.checks import check_entries, require_sound
from generator.model.ledger import (
    ELIGIBLE,
    KILL_MODES,
    NOT_ADMITTED,
    PAIRED_METHOD,
    Campaign,
    LedgerDataError,
    LedgerEntry,
)
from generator.model.ledger import ledger_digest as _ledger_digest

__all__ = ["SUMMARY_NOTE", "as_campaign", "build_summary", "outcomes_by_case", "summarize", "summary_of_rows"]

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
# Per-candidate comparisons


def _keyed(receipts: Iterable[Receipt]) -> dict[tuple[str, int], Receipt]:
    return {(item["caseId"], item["repeat"]): item for item in receipts}


def _by_repeat(groups: Mapping[str, list[Row]]) -> dict[str, dict[int, Row]]:
    """Each case's attempts by repeat (the last of a repeated key, as :func:`_keyed` keeps it)."""
    return {case: {row[REPEAT]: row for row in items} for case, items in groups.items()}


def _paired_quality(
    mine: Mapping[str, Mapping[int, Row]], theirs: Mapping[str, Mapping[int, Row]], bounds: Bounds
) -> dict[str, Any]:
    """The paired differences over :func:`outcomes_by_case`'s pairs, counted as they are found.

    ``paired_difference`` depends only on the number of pairs and of candidate-only and
    baseline-only successes (its ``pairs``, ``candidateWins``, ``candidateLosses``), so the pairs
    are counted (in any order) and their bounds asked of ``bounds`` from those three counts.
    """
    shared = 0
    recall = [0, 0, 0]  # pairs, candidate only, baseline only
    false_positive = [0, 0, 0]
    for case, attempts in mine.items():
        base_case = theirs.get(case)
        if base_case is None:
            continue
        for repeat, cand in attempts.items():
            base = base_case.get(repeat)
            if base is None:
                continue
            shared += 1
            kind = cand[CASE_KIND]
            if kind == "kill_path" or not (cand[NORMALIZER_RAN] and base[NORMALIZER_RAN]):
                continue
            if kind == "defect":
                expected = cand[EXPECTED]
                mine_found, theirs_found = cand[DETECTED], base[DETECTED]
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
                c, b_flag = cand[BLOCKING] > 0, base[BLOCKING] > 0
                false_positive[0] += 1
                if c != b_flag:
                    false_positive[1 if c else 2] += 1
    paired: dict[str, Any] = {"sharedAttemptKeys": shared}
    for key, (pairs, wins, losses) in (("recallDifference", recall), ("falsePositiveDifference", false_positive)):
        bounds.paired(paired, key, pairs, wins, losses, "one_sided")
    return paired


def _coverage(
    mine: Mapping[str, Mapping[int, Row]], theirs: Mapping[str, Mapping[int, Row]], campaign: Campaign
) -> dict[str, Any]:
    """Cases where the candidate, the baseline or their shared repeats fall short of the repetition floor."""
    thresholds = campaign.thresholds
    none: dict[int, Row] = {}
    gaps = []
    for case in campaign.manifest["cases"]:
        floor = thresholds["killRepetitions" if case["kind"] == "kill_path" else "qualityRepetitions"]
        a, b = mine.get(case["caseId"], none), theirs.get(case["caseId"], none)
        both = len(a.keys() & b.keys())
        if min(len(a), len(b), both) < floor:
            gaps.append(
                {"caseId": case["caseId"], "required": floor, "candidate": len(a), "baseline": len(b), "paired": both}
            )
    return {"complete": not gaps, "gaps": gaps}


def _containment(arm: Mapping[str, Any], rows: Sequence[Row], thresholds: Mapping[str, Any]) -> dict[str, Any]:
    """Mutation containment of a maker arm; other roles pass by definition."""
    if arm["role"] != "maker":
        return {"applicable": False, "passed": True}
    tally = Counter(
        "breach" if row[CONTAINMENT_BREACH] else "held"
        for row in rows
        if row[MUTATION_ENTERED] and row[CONTAINMENT_CONCLUSIVE]
    )
    mutation_runs = sum(1 for row in rows if row[MUTATION_ENTERED])
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


def _kill_attempt_ok(row: Row) -> bool:
    control = row[KILL_CONTROL]
    return (
        row[SCHEMA_VERSION] >= 2
        and row[KILL_PATH_PASSED] is True
        and isinstance(control, dict)
        and control.get("providerCallsMade") == 0
    )


def _kill_paths(grouped: Mapping[str, list[Row]], campaign: Campaign) -> dict[str, Any]:
    floor = campaign.thresholds["killRepetitions"]
    rows = []
    for case in campaign.manifest["cases"]:
        if case["kind"] != "kill_path":
            continue
        attempts = grouped.get(case["caseId"], [])
        modes = sorted({row[KILL_CONTROL].get("mode") for row in attempts if isinstance(row[KILL_CONTROL], dict)})
        ok = len(attempts) >= floor and len(modes) == 1 and all(_kill_attempt_ok(row) for row in attempts)
        rows.append({"caseId": case["caseId"], "attempts": len(attempts), "modes": modes, "passed": ok})
    covered = sorted(set().union(*(row["modes"] for row in rows)))
    complete = covered == sorted(KILL_MODES)  # every kill mode has a case of its own
    every_case_held = all(row["passed"] for row in rows)
    return dict(passed=complete and every_case_held, completeSuite=complete, modes=covered, cases=rows)


def _transport_rows(by_arm: Mapping[str, list[Row]], campaign: Campaign, bounds: Bounds) -> list[dict[str, Any]]:
    """The declared transport pairs' paired recall differences (their ``equivalent`` is decided once
    the bounds are in: :func:`_transport_equivalence`)."""
    margin = campaign.thresholds["transportDelta"]
    listed = []
    for pair in campaign.manifest["transportPairs"]:
        left = {(row[CASE_ID], row[REPEAT]): row for row in by_arm.get(pair["leftArmId"], ())}
        right = {(row[CASE_ID], row[REPEAT]): row for row in by_arm.get(pair["rightArmId"], ())}
        pairs = wins = losses = 0
        for key in sorted(left.keys() & right.keys()):
            a, b = left[key], right[key]
            if not (a[NORMALIZER_RAN] and b[NORMALIZER_RAN]) or a[CASE_KIND] != "defect":
                continue
            mine, theirs = set(a[DETECTED]), set(b[DETECTED])
            for defect in a[EXPECTED]:
                left_flag, right_flag = defect in mine, defect in theirs
                pairs += 1
                if left_flag and not right_flag:
                    wins += 1
                elif right_flag and not left_flag:
                    losses += 1
        row = {**pair, "recallDifference90": None, "margin": margin, "equivalent": None}
        bounds.paired(row, "recallDifference90", pairs, wins, losses, "transport_90")
        listed.append(row)
    return listed


def _transport_equivalence(rows: list[dict[str, Any]]) -> None:
    for row in rows:
        interval, margin = row["recallDifference90"], row["margin"]
        row["equivalent"] = interval["lower"] is not None and -margin < interval["lower"] and interval["upper"] < margin


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


def build_summary(
    campaign: Campaign,
    receipts: Sequence[Receipt],
    *,
    ledger_digest: str | None = None,
    bounds: Compute | None = None,
) -> dict[str, Any]:
    """The upstream summary for receipts already known to be valid and unique.

    ``ledger_digest`` may carry the ``ledger1:`` digest of exactly these
    receipts when the caller has already computed it.  ``bounds`` computes the exact intervals
    asked for while counting (default: here, see ``analyze/ledger/bounds.py``).
    """
    digest = ledger_digest or _ledger_digest(receipts)
    return summary_of_rows(campaign, receipt_rows(receipts), ledger_digest=digest, bounds=bounds)


def summary_of_rows(
    campaign: Campaign,
    rows: Sequence[Row],
    *,
    ledger_digest: str,
    bounds: Compute | None = None,
) -> dict[str, Any]:
    """:func:`build_summary` from the receipts' rows (``arms.receipt_rows``, or kept as the ledger
    streamed: ``slim.SummaryRows``) and their ``ledger1:`` digest."""
    try:
        return _build(campaign, rows, ledger_digest, bounds or compute_here)
    except OverflowError as exc:
        raise LedgerDataError(
            "a wallMs, token or cost value is too large to summarize as a floating-point number"
        ) from exc


def _by_arm(rows: Sequence[Row]) -> tuple[dict[str, list[Row]], list[Any], bool, str | None]:
    """The rows by arm (ledger order), the schema versions (first of equal ones kept, sorted), and
    the evidence envelope: one executionDigest over an all-v2, non-empty ledger, or none."""
    by_arm: dict[str, list[Row]] = defaultdict(list)
    versions: set[Any] = set()
    digests: set[Any] = set()
    all_v2 = bool(rows)
    for row in rows:
        by_arm[row[ARM_ID]].append(row)
        version = row[SCHEMA_VERSION]
        versions.add(version)
        if version == 2:
            digests.add(row[EXECUTION_DIGEST])
        else:
            all_v2 = False
    ordered = sorted(cast("set[str]", digests))
    bound = all_v2 and len(ordered) == 1
    return by_arm, sorted(versions), bound, ordered[0] if bound else None


def _by_case(rows: Iterable[Row]) -> dict[str, list[Row]]:
    grouped: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        grouped[row[CASE_ID]].append(row)
    return grouped


def _build(campaign: Campaign, receipts: Sequence[Row], digest: str, compute: Compute) -> dict[str, Any]:
    manifest, thresholds = campaign.manifest, campaign.thresholds
    by_arm, versions, envelope, execution = _by_arm(receipts)
    baseline = manifest["baseline"]
    baseline_items = by_arm.get(baseline["armId"], [])

    bounds = Bounds()  # every interval of the summary, asked while counting
    base_metrics = arm_metrics(baseline, baseline_items, campaign, bounds)[0]
    theirs = _by_repeat(_by_case(baseline_items))
    candidate_metrics = {}
    candidates: list[dict[str, Any]] = []
    for arm in manifest["candidates"]:
        items = by_arm.get(arm["armId"], [])
        metrics, groups = arm_metrics(arm, items, campaign, bounds)
        candidate_metrics[arm["armId"]] = metrics
        mine = _by_repeat(groups)
        candidates.append(
            {
                "armId": arm["armId"],
                "containment": _containment(arm, items, thresholds),
                "coverage": _coverage(mine, theirs, campaign),
                "killPaths": _kill_paths(groups, campaign),
                "paired": _paired_quality(mine, theirs, bounds),
                "conditions": None,
                "recommendation": None,
                "registryChanged": False,
            }
        )
    transport = _transport_rows(by_arm, campaign, bounds)
    bounds.fill(compute)  # computed at once
    _transport_equivalence(transport)
    arms = {baseline["armId"]: base_metrics, **candidate_metrics}
    for row in candidates:
        arm = campaign.arms[row["armId"]]
        metrics = candidate_metrics[row["armId"]]
        conditions = _condition_flags(
            metrics, row["coverage"], row["paired"], row["killPaths"], row["containment"], envelope, thresholds
        )
        relevant = [pair for pair in transport if row["armId"] in (pair["leftArmId"], pair["rightArmId"])]
        # An ssh_tunnel arm with no declared pair has not shown tunnel/loopback equivalence.
        demonstrated = bool(relevant) or arm["transport"] != "ssh_tunnel"
        conditions["transportEquivalence"] = demonstrated and all(pair["equivalent"] for pair in relevant)
        row["conditions"] = conditions
        row["transportPairs"] = relevant
        admitted = all(conditions.values())
        row["recommendation"] = ELIGIBLE if admitted else NOT_ADMITTED
    return {
        "schemaVersion": 1,
        "campaignId": manifest["campaignId"],
        "campaignDigest": campaign.require_digest(),
        "executionDigest": execution,
        "ledgerDigest": digest,
        "corpusVersion": manifest["corpusVersion"],
        "promptEnvelopeVersion": manifest["promptEnvelopeVersion"],
        "receiptCount": len(receipts),
        "receiptSchemaVersions": versions,
        "statisticalMethod": PAIRED_METHOD,
        "thresholds": thresholds,
        "baselineArmId": baseline["armId"],
        "arms": arms,
        "candidates": candidates,
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
