"""The Markdown report's words for imported sides (Inspect, Harbor, SWE-bench).

The report's own wording is Comet's (treatments, reports, controller-written matrices, raw
stdout, v1 manifests).  When a side was imported, the sentences that name those things are
worded per format from :data:`~generator.model.formats.FORMAT_WORDS`; a comparison of two Comet
sides keeps every byte of its report (the golden tests hold it to the reference).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from generator.model.common import SIDES
from generator.model.formats import FORMAT_WORDS, FormatWords

__all__ = [
    "COMET_EFFICIENCY",
    "COMET_PASSK",
    "COMET_RULES",
    "audit_intro",
    "duration_intro",
    "efficiency_intro",
    "execution_limitation",
    "formats",
    "imported",
    "label_column",
    "matrix_source",
    "passk_rule",
    "rules_lines",
    "skipped_intro",
    "stdout_anywhere",
]

Doc = Mapping[str, Any]

# The report's own (Comet) sentences, where an imported side words them differently.
COMET_RULES = [
    "- A candidate run and a baseline run are paired only for the same task and repetition. When both"
    " carry execution-bound (v2) manifests their full `case_hash` must agree; otherwise only the"
    " shared task-core hash can be compared, and that limitation is stated below.",
    "- Which task/repetition keys should exist comes from each experiment's controller-written"
    " matrix when it has a valid one, not from whichever reports survived.",
    "- Every metric is computed per task first and then averaged over tasks; runs of different tasks are never pooled.",
    "- A task with fewer than k paired repetitions is left out of that k's coverage: k is never reduced.",
    "- Durations are recomputed from raw stdout by summing every result event. Stored historical"
    " duration fields are not mixed into this metric.",
]

COMET_PASSK = (
    "Each value averages a per-task estimate over the tasks that have at least k paired repetitions;"
    " coverage is shown as eligible tasks / all task names. `pass@k` is the unbiased at-least-one-success"
    " estimator. `pass^k` is Comet's observed reliability floor: a task counts 1 only when every one of its"
    " paired repetitions passed. `pass^k unbiased` estimates the chance that k fresh repetitions all pass,"
    " C(c,k)/C(n,k). A run passes only when `passed` is true and `checks_failed` is an empty list."
)

COMET_EFFICIENCY = (
    "## Paired task efficiency from raw stdout",
    "Result-event telemetry is summed over the first model start and every resume. Token totals include"
    " cache-read tokens. Context input counts each streamed assistant message once (by message id).",
    "> Context rows need per-message usage on both sides. Where few pairs are complete, the agent CLI"
    " did not keep enough context telemetry, and those rows must not be used to claim a workflow"
    " difference.",
)

COMET = FormatWords(
    name="Comet experiment",
    run="report",
    identity="the report's case manifest",
    matrix="the controller-written matrix",
    passes="`passed` is true and `checks_failed` is an empty list",
    stdout=True,
)


def formats(doc: Doc) -> dict[str, str]:
    """Each side's format (a document without ``format`` on a side is Comet)."""
    return {side: str(doc[side].get("format", "comet")) for side in SIDES}


def imported(doc: Doc) -> bool:
    return any(fmt != "comet" for fmt in formats(doc).values())


def _words(fmt: str) -> FormatWords:
    return FORMAT_WORDS.get(fmt, COMET)


def _per_side(doc: Doc) -> list[tuple[str, str, FormatWords]]:
    """(side, format, words), one entry when both sides share a format."""
    fmts = formats(doc)
    if fmts["candidate"] == fmts["baseline"]:
        return [("both sides", fmts["candidate"], _words(fmts["candidate"]))]
    return [(f"the {side}", fmt, _words(fmt)) for side, fmt in fmts.items()]


def stdout_anywhere(doc: Doc) -> bool:
    """Whether either side's format can hold the agent's own stdout."""
    return any(_words(fmt).stdout for fmt in formats(doc).values())


def label_column() -> str:
    return "Side label"


def rules_lines(doc: Doc) -> list[str]:
    lines = []
    for who, fmt, words in _per_side(doc):
        matrix = words.matrix or f"the observed {words.run}s ({words.name}s record no expected matrix)"
        lines.append(
            f"- {who[:1].upper()}{who[1:]}: {words.name} ({fmt}); one run = one {words.run}; case hash ="
            f" {words.identity}; expected task/repetition keys from {matrix}; a run passes when {words.passes}."
        )
    fmts = formats(doc)
    if fmts["candidate"] != fmts["baseline"]:
        lines.append(
            "- The two formats hash different things, so runs pair by task id and repetition only and every"
            " case hash reads `not hashed`."
        )
    lines += [
        "- A candidate run and a baseline run are paired only for the same task and repetition, and their case"
        " hashes must agree where both were hashed.",
        "- Errored or limit-stopped runs that were not scored are excluded with their reason (errors are not"
        " failures), unless errors are counted as failures.",
        "- Every metric is computed per task first and then averaged over tasks; runs of different"
        " tasks are never pooled.",
        "- A task with fewer than k paired repetitions is left out of that k's coverage: k is never reduced.",
    ]
    if stdout_anywhere(doc):
        lines.append(
            "- Durations and telemetry are re-derived from the agent's own stdout where the input holds it;"
            " numbers the harness reported are shown apart, labelled as reported."
        )
    else:
        lines.append(
            "- These inputs hold no agent stdout: durations and telemetry are the harness's own numbers,"
            " labelled as reported, never re-derived."
        )
    return lines


def matrix_source(doc: Doc, side: str, status: str) -> str:
    words = _words(formats(doc)[side])
    if status == "report-bound":
        return f"{words.matrix or 'the input'} ({words.name})"
    if status == "invalid":
        return "invalid (fail closed)"
    return f"observed {words.run}s ({words.name}s record no expected matrix)"


def execution_limitation(doc: Doc, count: int) -> str:
    names = ", ".join(sorted({_words(fmt).name + "s" for fmt in formats(doc).values()}))
    return (
        f"> Execution-identity limitation: {count} run record(s) come from {names}, which record the case"
        " but not the runner and controller sources, the container image, the agent version, the model"
        " selection or the interaction settings. They must not be presented as exact historical execution"
        " identity."
    )


def passk_rule(doc: Doc) -> str:
    sides = _per_side(doc)
    rules = (
        f"when {sides[0][2].passes}"
        if len(sides) == 1
        else "; ".join(f"on {who} side when {words.passes}" for who, _fmt, words in sides)
    )
    return (
        "Each value averages a per-task estimate over the tasks that have at least k paired repetitions;"
        " coverage is shown as eligible tasks / all task names. `pass@k` is the unbiased at-least-one-success"
        " estimator. `pass^k` is the observed reliability floor: a task counts 1 only when every one of its"
        " paired repetitions passed. `pass^k unbiased` estimates the chance that k fresh repetitions all pass,"
        f" C(c,k)/C(n,k). A run passes {rules}."
    )


def duration_intro(doc: Doc) -> tuple[str, str]:
    """The duration section's heading and first paragraph."""
    if stdout_anywhere(doc):
        return (
            "## Duration from the agent's own stdout",
            "A run whose input holds no usable agent stdout counts as missing coverage here; the harness's own"
            " duration for it is shown apart below, never averaged in.",
        )
    names = " and ".join(sorted({_words(fmt).name + "s" for fmt in formats(doc).values()}))
    return (
        "## Duration",
        f"{names} hold no agent stdout, so no duration is re-derived (coverage 0 by design); the durations"
        " the harness reported follow.",
    )


def efficiency_intro(doc: Doc) -> tuple[str, str, str]:
    """The efficiency section's heading, its first paragraph and its closing note."""
    if stdout_anywhere(doc):
        return (
            "## Paired task efficiency",
            "Rows re-derived from the agent's own stdout come first (where the input holds it); rows the harness"
            " reported follow, apart. Token totals include cache-read tokens.",
            "> Context rows need per-message usage on both sides; where few pairs are complete they must not be"
            " used to claim a workflow difference.",
        )
    return (
        "## Paired task efficiency (reported by the harness)",
        "These inputs hold no agent stdout, so the re-derived rows are empty by design; the rows reported by"
        " the harness follow them. Token totals include cache-read tokens.",
        "> Context rows need per-message usage, which the harness does not report.",
    )


def audit_intro(doc: Doc) -> str:
    sides = _per_side(doc)
    hashes = (
        sides[0][2].identity if len(sides) == 1 else "; ".join(f"{who}: {words.identity}" for who, _f, words in sides)
    )
    return (
        f"Hashes show their first 12 hex digits. The case hash is the format's own ({hashes}); the Comet"
        " manifest parts (instruction, validator, environment, ...) are not recorded by these formats."
    )


def skipped_intro(doc: Doc) -> str:
    names = " or ".join(sorted({_words(fmt).name for fmt in formats(doc).values()}))
    return f"These files of the {names} input could not be used. They do not change the pairs above."
