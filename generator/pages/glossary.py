"""The glossary: one list of the site's terms, the page that shows them, and links into it.

Every piece of jargon a page shows links to ``glossary.html#<id>`` through :func:`term_href`,
so a term is explained once, here.  :data:`TERMS` is the only list; each issue reason of
:data:`~generator.model.comparison.ISSUE_REASONS` has an entry (``reason-<reason>``).
"""

from __future__ import annotations

from generator.model.comparison import ISSUE_REASONS
from generator.pages.models import GlossaryPage, GlossaryTerm, Link, PageMeta, SiteInfo
from generator.pages.urls import index_url, rel

__all__ = ["GLOSSARY_URL", "TERMS", "glossary_page", "reason_term", "term_href"]

GLOSSARY_URL = "glossary.html"

_REASONS = {
    "invalid-expected-case-matrix": "A side's expected-case-matrix.json failed validation (shape, order, hash or "
    "size). Its reports are not used at all: the comparison fails closed instead of guessing the expected cases.",
    "expected-treatment-missing": "The expected case matrix has no cases of the compared treatment, so nothing "
    "of that treatment was expected and no run of it can be paired.",
    "expected-matrix-mismatch": "The two sides' expected case matrices disagree on a task/repetition key.",
    "unexpected-run": "A report exists for a task/repetition the expected case matrix does not list.",
    "duplicate-run": "Two or more reports claim the same task and repetition; none of them is paired.",
    "missing-repetition": "A task/repetition the matrix expects has no report on one side.",
    "invalid-case-manifest": "A report's case manifest did not verify (its hashes do not recompute); the run is "
    "not compared.",
    "quality-excluded": "The run's sample-quality verdict excludes it from analysis (for example an "
    "infrastructure failure rather than a real attempt).",
    "case-hash-mismatch": "The two sides ran the same task/repetition with different case hashes: they did not "
    "run the same case, so the pair is not compared.",
    "case-hash-drift": "One side's repetitions of a task carry different case hashes: the task changed between "
    "repetitions.",
}

_TERMS: tuple[tuple[str, str, str], ...] = (
    (
        "percentage-points",
        "percentage points (pp)",
        "The unit of a difference between two rates: 52% against 47% is a difference of +5 pp. Differences on "
        "comparison pages are in percentage points, never in percent of the baseline.",
    ),
    (
        "mean-score",
        "mean score (metric: mean)",
        "For scorers that give partial credit (0, 0.5, 0.8, 1): the mean of a task's scores over its repetitions, then "
        "over tasks. With metric: mean it decides the verdict by the same rule as pass@1; its differences are in "
        "points, the difference of mean scores times 100 (0.83 against 0.56 is +27 points).",
    ),
    (
        "verdict",
        "verdict",
        "Candidate better (or worse) only when the 95% task-clustered interval of the pass@1 difference excludes "
        "zero and the exact sign-flip test over tasks agrees (p < 0.05); otherwise not distinguishable at this "
        "sample size, with the number of tasks that would be needed.",
    ),
    (
        "wins-losses-ties",
        "wins / losses / ties",
        "Per task: a win when the candidate passes more of the task's strictly matched repetitions than the "
        "baseline, a loss when fewer, a tie when the same number.",
    ),
    (
        "strictly-matched-pair",
        "strictly matched pair",
        "One candidate run and one baseline run of the same task and repetition with the same case hash. Only "
        "such pairs are compared.",
    ),
    (
        "report-bound",
        "report-bound",
        "The expected case matrix was written by the controller and verified (regular file, exact shape, "
        "canonical order, hash), so a repetition that never produced a report is detected as missing.",
    ),
    (
        "historical-fallback",
        "historical fallback",
        "No expected case matrix: the expected cases are the reports that exist, so a repetition that never "
        "produced a report cannot be detected as missing.",
    ),
    (
        "pass-at-k",
        "pass@k",
        "The chance that at least one of k repetitions of a task passes, estimated without bias from c passes of "
        "n repetitions as 1 − C(n−c, k)/C(n, k), averaged over tasks (task macro). Undefined when k > n.",
    ),
    (
        "pass-pow-k",
        "pass^k",
        "Every aligned repetition of the task passed (Comet's definition), averaged over tasks.",
    ),
    (
        "pass-pow-k-unbiased",
        "pass^k (unbiased)",
        "The chance that k repetitions drawn from the task's n all pass, C(c, k)/C(n, k), averaged over tasks.",
    ),
    (
        "task-clustered-interval",
        "task-clustered interval",
        "A 95% t interval for the pass@1 difference that treats the repetitions of one task as correlated (the "
        "task is the unit), so repeated runs do not overstate the evidence.",
    ),
    (
        "betting-interval",
        "betting interval",
        "A confidence interval built from a betting (test-martingale) argument; it stays valid at any number of "
        "tasks, where the t interval is only approximate with few tasks.",
    ),
    (
        "design-effect",
        "design effect",
        "The variance of the task-clustered estimate divided by the variance it would have if every run were "
        "independent. Above 1, repetitions of a task are correlated and carry less information than their count.",
    ),
    (
        "sign-flip-test",
        "sign-flip test",
        "An exact permutation test over tasks: under no difference, each task's difference is equally likely "
        "positive or negative. It needs no normal approximation.",
    ),
    (
        "mcnemar",
        "McNemar test",
        "An exact test on the discordant run pairs (one side passed, the other failed); the mid-p value is shown "
        "alongside. It treats run pairs as independent.",
    ),
    (
        "tango",
        "Tango interval",
        "Tango's score interval for the difference of two paired proportions over run pairs; like McNemar it "
        "treats run pairs as independent.",
    ),
    (
        "mde",
        "minimum detectable difference (MDE)",
        "The smallest true difference the verdict's own rule would call with 80% power at the 5% level in this design "
        "(tasks × repetitions). A smaller real difference would usually read as not distinguishable.",
    ),
    (
        "naive-interval",
        "naive run-level interval",
        "An interval that treats every run pair as independent; shown for contrast, not used by the verdict.",
    ),
    (
        "case-hash",
        "case hash",
        "The SHA-256 identity of what a run was asked to do: the task, instruction, validator, environment, data "
        "and prompt. Two runs are comparable only when their case hashes are equal.",
    ),
    (
        "execution-hash",
        "execution hash",
        "The SHA-256 identity of how a run was executed (runner and controller). v1 and rebuilt manifests do not "
        "carry it (v1-unbound).",
    ),
    (
        "manifest-audit",
        "case manifest audit",
        "The hash components of the first record of each task on each side, compared part by part. A part "
        "missing on both sides proves nothing and is not agreement.",
    ),
    (
        "quality-excluded",
        "quality-excluded",
        "A run whose sample-quality verdict excludes it from analysis; it is disclosed as an issue, never "
        "counted as a pass or a failure.",
    ),
    (
        "checks-failed",
        "failed checks",
        "The reasons a report gives for a failed run (checks_failed). A run passes only when passed is true and "
        "no check failed.",
    ),
    (
        "reported-telemetry",
        "reported by the harness",
        "Numbers the report itself carries (events_summary), as the harness measured them; shown apart from "
        "numbers re-derived from raw stdout.",
    ),
    (
        "price",
        "cost and duration per run",
        "Beside the verdict: each side's mean cost (and duration) per strictly matched run, passed or not, and "
        "its cost per solved task (total cost / runs that passed). A side's numbers are re-derived from raw "
        "stdout when any of its runs has one, else as the harness reported them (said beside them); a run "
        "without a value is left out and counted, never read as 0. The difference is the mean over tasks of "
        "each task's mean paired difference, with its 95% task-clustered t interval.",
    ),
    (
        "kill-path",
        "kill path",
        "A ledger control case that deliberately aborts, corrupts output, substitutes identity or interrupts "
        "transport, to show that the reviewer detects and reports the failure.",
    ),
    (
        "containment",
        "containment",
        "The ledger check that a reviewer stayed within its allowed scope (no writes or reads outside it) over "
        "enough attempts to be conclusive.",
    ),
)

TERMS: tuple[GlossaryTerm, ...] = tuple(GlossaryTerm(i, t, d) for i, t, d in _TERMS) + tuple(
    GlossaryTerm(f"reason-{reason}", reason, _REASONS[reason]) for reason in ISSUE_REASONS
)
_IDS = frozenset(term.id for term in TERMS)


def reason_term(reason: str) -> str:
    """The glossary id of an issue reason, or "" for a reason the glossary does not know."""
    return f"reason-{reason}" if f"reason-{reason}" in _IDS else ""


def term_href(from_url: str, term: str) -> str:
    """The relative link from the page at ``from_url`` to ``term``'s entry (a known id only)."""
    if term not in _IDS:
        raise KeyError(f"unknown glossary term {term!r}")
    return f"{rel(from_url, GLOSSARY_URL)}#{term}"


def glossary_page(site: SiteInfo) -> GlossaryPage:
    meta = PageMeta(
        url=GLOSSARY_URL, title="Glossary", site=site, crumbs=(Link("Home", rel(GLOSSARY_URL, index_url())),)
    )
    return GlossaryPage(meta, TERMS)
