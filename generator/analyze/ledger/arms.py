"""One arm's metrics in the reference summary (its ``arms`` entry and per-case cells), counted in one pass.

:func:`receipt_rows` reads the fields the summary needs of each receipt once (a receipt is a
26-key dict, and each field read from 10^5 of them costs a cache miss; the CLI keeps these rows
while the ledger streams: ``slim.SummaryRows``).  :func:`arm_metrics` then goes over an arm's rows
once: the arm's counters (validity, recall, false positives, tool calls, context, identity
mismatches, quality latencies) are added up as the rows go by, and the rows are grouped by case
for the cells.  Every number is the one the
upstream definitions give (the small functions below say what each is); the exact intervals are
asked of a :class:`~generator.analyze.ledger.bounds.Bounds` and filled in once everything is
counted.  ``tests/ledger/test_ledger_summary_fused.py`` checks the summary against the
straightforward one-definition-per-pass form it replaced.

Pure: no file access, no clock, no printing.
"""

from __future__ import annotations

import math
import operator
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from generator.analyze.ledger.bounds import Bounds, compute_here
from generator.model.ledger import TOKEN_FIELDS, Campaign, canonical_text

__all__ = [
    "ROW_FIELDS",
    "VARYING",
    "Receipt",
    "Row",
    "arm_metrics",
    "by_case",
    "flakiness",
    "percentile",
    "profile_key",
    "rate",
    "recall_flags",
    "receipt_rows",
]

Receipt = Mapping[str, Any]

#: The fields of a receipt the summary reads, in the order of a :data:`Row` (a receipt's values
#: fetched once, in C: :func:`receipt_rows`; every pass after that reads the small tuples).
ROW_FIELDS = (
    "armId",
    "caseId",
    "caseKind",
    "identityMatch",
    "rerunOf",
    "latencyClass",
    "normalizerRan",
    "detectedDefects",
    "expectedDefects",
    "blockingFindingCount",
    "toolUsing",
    "toolCallCorrect",
    "pseudoToolCallCount",
    "contextSufficient",
    "decoding",
    "killPathPassed",
    "containmentConclusive",
    "containmentBreach",
    "mutationEntered",
    "schemaVersion",
    "executionDigest",
    "killControl",
    # last: the fields a receipt that repeats another's bytes may change (see templates.py)
    "repeat",
    "wallMs",
    "usage",
)
Row = tuple[Any, ...]
(
    ARM_ID,
    CASE_ID,
    CASE_KIND,
    IDENTITY_MATCH,
    RERUN_OF,
    LATENCY_CLASS,
    NORMALIZER_RAN,
    DETECTED,
    EXPECTED,
    BLOCKING,
    TOOL_USING,
    TOOL_CALL_CORRECT,
    PSEUDO_TOOL_CALLS,
    CONTEXT_SUFFICIENT,
    DECODING,
    KILL_PATH_PASSED,
    CONTAINMENT_CONCLUSIVE,
    CONTAINMENT_BREACH,
    MUTATION_ENTERED,
    SCHEMA_VERSION,
    EXECUTION_DIGEST,
    KILL_CONTROL,
    REPEAT,
    WALL_MS,
    USAGE,
) = range(len(ROW_FIELDS))
_ROW = operator.itemgetter(*ROW_FIELDS)


#: The fields before the ones a repeat of another receipt's bytes may change (``row[:VARYING]``).
VARYING = REPEAT


def receipt_rows(receipts: Iterable[Receipt]) -> list[Row]:
    """Each receipt's :data:`ROW_FIELDS` values; a field a receipt does not have is ``None`` (a v1
    receipt has no ``executionDigest`` or ``killControl``; every other field is in every valid receipt)."""
    listed = receipts if isinstance(receipts, list) else list(receipts)
    try:
        return list(map(_ROW, listed))
    except KeyError:
        return [tuple(map(item.get, ROW_FIELDS)) for item in listed]


def _rate_entry(hits: int, count: int) -> dict[str, Any]:
    """A rate of ``count`` flags of which ``hits`` are true, its ``interval95`` still to be filled."""
    return {"successes": hits, "total": count, "rate": hits / count if count else None, "interval95": None}


def rate(values: Iterable[bool]) -> dict[str, Any]:
    """The rate of the flags that are ``True``, with its two-sided 95% Clopper-Pearson interval."""
    flags = list(values)
    entry = _rate_entry(sum(1 for flag in flags if flag is True), len(flags))
    bounds = Bounds()
    bounds.interval(entry, "interval95", entry["successes"], entry["total"])
    bounds.fill(compute_here)
    return entry


def _asked_rate(bounds: Bounds, hits: int, count: int) -> dict[str, Any]:
    entry = _rate_entry(hits, count)
    bounds.interval(entry, "interval95", hits, count)
    return entry


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


def _latency_entry(walls: Mapping[str, list[int]]) -> dict[str, Any]:
    return {
        klass: {
            "count": len(values),
            "medianMs": statistics.median(values) if values else None,
            "p90Ms": percentile(values, 0.90),
        }
        for klass, values in walls.items()
    }


def _latency(rows: Iterable[Row]) -> dict[str, Any]:
    """Wall times of the cold and the resident attempts: count, median, 90th percentile."""
    walls: dict[str, list[int]] = {"cold": [], "resident": []}
    for row in rows:
        bucket = walls.get(row[LATENCY_CLASS])
        if bucket is not None:
            bucket.append(row[WALL_MS])
    return _latency_entry(walls)


def _usage(rows: Sequence[Row]) -> dict[str, Any]:
    """Token counts and provider costs reported, summed in the rows' order."""
    reported = [row[USAGE] for row in rows if row[USAGE] is not None]
    tokens = {}
    for name in TOKEN_FIELDS:
        counts = [usage[name] for usage in reported if usage[name] is not None]
        tokens[name] = {"reported": len(counts), "total": sum(counts) if counts else None}
    costs = [usage["costUsd"] for usage in reported if usage["costSource"] == "provider_receipt"]
    return {
        "attempts": len(rows),
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


def _decoding_profiles(rows: Iterable[Row], seen: dict[int, tuple[Any, str]] | None = None) -> list[dict[str, Any]]:
    # Receipts often share one decoding object (slim receipts do): count the objects first, then
    # key each distinct object once (``seen``: the key and canonical text of each object already
    # keyed, for an arm's cells; the objects outlive it).  Objects come in order of first use, so
    # each key's example is still the decoding of the first receipt that has it.
    decodings = list(map(_DECODING, rows))
    uses = Counter(map(id, decodings))  # counted in C
    objects = {id(decoding): decoding for decoding in decodings}  # first use decides the order
    known = {} if seen is None else seen
    tally: Counter[tuple[Any, ...]] = Counter()
    example: dict[tuple[Any, ...], tuple[Mapping[str, Any], str]] = {}
    for ident, decoding in objects.items():
        found = known.get(ident)
        if found is None:
            found = known[ident] = (profile_key(decoding), canonical_text(decoding))
        key = found[0]
        tally[key] += uses[ident]
        if key not in example:
            example[key] = (decoding, found[1])
    listed = [(example[key][1], key) for key in tally]
    listed.sort()
    return [{"decoding": dict(example[key][0]), "attempts": tally[key]} for _, key in listed]


def _signature(row: Row) -> tuple[Any, ...]:
    """Everything a repeat can be scored on; timing, usage and decoding are left out."""
    if row[CASE_KIND] == "kill_path":
        return ("kill", row[NORMALIZER_RAN], row[IDENTITY_MATCH], row[KILL_PATH_PASSED])
    return (
        "quality",
        row[NORMALIZER_RAN],
        row[IDENTITY_MATCH],
        row[KILL_PATH_PASSED],
        tuple(sorted(row[DETECTED])),
        row[BLOCKING] > 0,
        row[TOOL_CALL_CORRECT],
        row[PSEUDO_TOOL_CALLS],
        row[CONTEXT_SUFFICIENT],
        row[CONTAINMENT_CONCLUSIVE],
        row[CONTAINMENT_BREACH],
    )


# What _signature reads, detectedDefects apart (which counts by object), fetched in C.
_SCORED = operator.itemgetter(
    CASE_KIND,
    NORMALIZER_RAN,
    IDENTITY_MATCH,
    KILL_PATH_PASSED,
    BLOCKING,
    TOOL_CALL_CORRECT,
    PSEUDO_TOOL_CALLS,
    CONTEXT_SUFFICIENT,
    CONTAINMENT_CONCLUSIVE,
    CONTAINMENT_BREACH,
)
_DETECTED = operator.itemgetter(DETECTED)
_DECODING = operator.itemgetter(DECODING)
_REPEAT = operator.itemgetter(REPEAT)


def _signature_counts(rows: Sequence[Row]) -> Counter[tuple[Any, ...]]:
    """``Counter(map(_signature, rows))``, with ``_signature`` called once per distinct shape.

    Rows with equal scored fields and the same ``detectedDefects`` object have equal signatures,
    so they are counted together first (in C) and one of them is signed for all.
    """
    shapes = list(zip(map(_SCORED, rows), map(id, map(_DETECTED, rows)), strict=True))
    example = dict(zip(shapes, rows, strict=True))
    groups: Counter[tuple[Any, ...]] = Counter()
    for shape, count in Counter(shapes).items():
        groups[_signature(example[shape])] += count
    return groups


def _flakiness_entry(groups: Counter[tuple[Any, ...]], attempts: int) -> dict[str, Any]:
    disagreements = attempts - (max(groups.values()) if groups else 0)
    return {
        "attempts": attempts,
        "uniqueOutcomes": len(groups),
        "disagreements": disagreements,
        "fraction": disagreements / attempts if attempts else None,
    }


def flakiness(receipts: Sequence[Receipt]) -> dict[str, Any]:
    """How often repeats disagree on their scored outcome (:func:`_signature`)."""
    return _flakiness_entry(Counter(map(_signature, receipt_rows(receipts))), len(receipts))


def by_case(receipts: Iterable[Receipt]) -> dict[str, list[Receipt]]:
    grouped: dict[str, list[Receipt]] = defaultdict(list)
    for item in receipts:
        grouped[item["caseId"]].append(item)
    return grouped


def recall_flags(item: Receipt) -> list[bool]:
    detected, expected = item["detectedDefects"], item["expectedDefects"]
    if detected is expected or detected == expected:  # found exactly the expected defects
        return [True] * len(expected)
    found = set(detected)
    return [defect in found for defect in expected]


def _cell(case: Mapping[str, Any], group: list[Row], seen: dict[int, tuple[Any, str]]) -> dict[str, Any]:
    """One case's row of an arm: its attempts in repeat order."""
    repeats = list(map(_REPEAT, group))
    attempts = group if repeats == sorted(repeats) else sorted(group, key=_REPEAT)  # sorted is stable
    return {
        "caseId": case["caseId"],
        "caseKind": case["kind"],
        "flakiness": _flakiness_entry(_signature_counts(attempts), len(attempts)),
        "latency": _latency(attempts),
        "usage": _usage(attempts),
        "decodingProfiles": _decoding_profiles(attempts, seen),
        "attempts": len(attempts),
        "reruns": sum(1 for row in attempts if row[RERUN_OF] is not None),
    }


def arm_metrics(  # noqa: C901 - one pass over every receipt of an arm (ledger summarize 10^5 in 0.87 s)
    arm: Mapping[str, Any], rows: Sequence[Row], campaign: Campaign, bounds: Bounds
) -> tuple[dict[str, Any], dict[str, list[Row]]]:
    """The arm's summary entry (its intervals asked of ``bounds``) and its rows by case (ledger order).

    Quality attempts are those of defect and clean cases; "ran" ones had their output normalised.
    ``validity``: ran among quality attempts; ``recall``: expected defects detected by ran
    attempts; ``falsePositive``: ran clean attempts with a blocking finding; ``toolCallCorrectness``:
    ran tool-using attempts with a correct tool call and no pseudo tool call;
    ``contextSufficiency``: ran attempts that judged their context, judged sufficient.
    """
    groups: dict[str, list[Row]] = {}
    quality = valid = mismatches = reruns = 0
    recall_hits = recall_total = fp_hits = fp_total = tool_hits = tool_total = context_hits = context_total = 0
    walls: dict[str, list[int]] = {"cold": [], "resident": []}
    for row in rows:
        group = groups.get(row[CASE_ID])
        if group is None:
            groups[row[CASE_ID]] = [row]
        else:
            group.append(row)
        if not row[IDENTITY_MATCH]:
            mismatches += 1
        if row[RERUN_OF] is not None:
            reruns += 1
        kind = row[CASE_KIND]
        if kind == "kill_path":
            continue
        quality += 1
        bucket = walls.get(row[LATENCY_CLASS])
        if bucket is not None:
            bucket.append(row[WALL_MS])
        ran = row[NORMALIZER_RAN]
        if ran is True:
            valid += 1
        if not ran:
            continue
        detected, expected = row[DETECTED], row[EXPECTED]
        recall_total += len(expected)
        if detected is expected or detected == expected:
            recall_hits += len(expected)
        else:
            found = set(detected)
            recall_hits += sum(1 for defect in expected if defect in found)
        if kind == "clean":
            fp_total += 1
            if row[BLOCKING] > 0:
                fp_hits += 1
        if row[TOOL_USING]:
            tool_total += 1
            if row[TOOL_CALL_CORRECT] is True and row[PSEUDO_TOOL_CALLS] == 0:
                tool_hits += 1
        judged = row[CONTEXT_SUFFICIENT]
        if judged is not None:
            context_total += 1
            if judged is True:
                context_hits += 1
    seen: dict[int, tuple[Any, str]] = {}
    cells = [_cell(case, groups.get(case["caseId"], []), seen) for case in campaign.manifest["cases"]]
    metrics = {
        "arm": arm,
        "qualityAttempts": quality,
        "attempts": len(rows),
        "reruns": reruns,
        "validity": _asked_rate(bounds, valid, quality),
        "recall": _asked_rate(bounds, recall_hits, recall_total),
        "falsePositive": _asked_rate(bounds, fp_hits, fp_total),
        "toolCallCorrectness": _asked_rate(bounds, tool_hits, tool_total),
        "contextSufficiency": _asked_rate(bounds, context_hits, context_total),
        "identityMismatches": mismatches,
        "latency": _latency_entry(walls),
        "usage": _usage(rows),
        "decodingProfiles": _decoding_profiles(rows, seen),
        "cells": cells,
    }
    return metrics, groups
