"""The build history in a build: entry bodies from the computed results, the append, trends, the gate.

``comparison_body`` / ``leaderboard_body`` turn one entry's already computed document (and its
"Built from" digests) into a history entry body; ``record_build`` appends them
(:func:`generator.write.history.append_history`) and returns the trends
(:func:`generator.analyze.history.trends`); ``gate_reasons`` words the ``--fail-on`` reasons;
``run_verify`` is ``evalsite history verify``.  ``HistoryOptions`` carries the key's variable
name, the anchor and ``--history-reset``; the outcome's ``head`` is what the site records
(``history-head.json``) for the next build to extend.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from generator.model.errors import EvalsiteError
from generator.model.history import HISTORY_SCHEMA, HistoryEntry, HistoryHead, SummaryItem, Trend
from generator.model.ledger import canonical_bytes
from generator.model.price import Price
from generator.model.redaction import Redactor
from generator.model.scores import ScoreSection, deciding_verdict
from generator.model.stats import BETTER, WORSE, ExperimentComparison
from generator.pages.format import pp
from generator.pages.models import InputDigest, SiteInfo
from generator.pages.trends.page import build_trend_page, subject_url, trend_url
from generator.pipelines.console import emit
from generator.read.config import SiteConfig
from generator.read.history import check_anchor, read_anchor, read_history, site_anchor, verify_history
from generator.render.summary import render_summary
from generator.render.trend import render_trend_page
from generator.write.files import write_text_atomic
from generator.write.guard import check_output_file
from generator.write.history import AppendedHistory, append_history

__all__ = [
    "FAIL_ON",
    "HistoryOptions",
    "comparison_body",
    "gate_reasons",
    "history_key",
    "leaderboard_body",
    "record_build",
    "run_verify",
    "source_revision",
]

FAIL_ON = ("regression", "issues", "verdict-worse")
_VERDICT_RANK = {BETTER: 2, "not distinguishable": 1, WORSE: 0}
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")


@dataclass(frozen=True)
class HistoryOptions:
    """``evalsite build``'s history options (docs/history.md, "Threat model")."""

    key_env: str | None = None  # --history-key-env: the environment variable holding the HMAC key
    anchor: Path | None = None  # --history-anchor: a history-head.json the history must extend
    reset: bool = False  # --history-reset: accept a history that does not extend the recorded head


def history_key(env_name: str | None) -> bytes | None:
    """The HMAC key from the environment variable *env_name* (never from a file, never shown)."""
    if env_name is None:
        return None
    if not _ENV_NAME.fullmatch(env_name):
        raise EvalsiteError(f"{env_name[:64]!r} is not an environment variable name (the history key's)")
    value = os.environb.get(env_name.encode("ascii"), b"")
    if not value.strip():
        raise EvalsiteError(f"the history key's environment variable {env_name} is not set or is empty")
    return value


def _anchors(options: HistoryOptions, out_dir: Path | None) -> list[tuple[HistoryHead, str]]:
    """The chain heads this build's history must extend: the replaced site's and ``--history-anchor``'s."""
    if options.reset:
        return []
    anchors = []
    recorded = site_anchor(out_dir) if out_dir is not None and out_dir.is_dir() else None
    if recorded is not None:
        anchors.append((recorded, "the site it replaces"))
    if options.anchor is not None:
        anchors.append((read_anchor(options.anchor), f"the anchor {options.anchor.name!r}"))
    return anchors


def source_revision(cwd: Path | None = None) -> str | None:
    """``GITHUB_SHA``, else ``git rev-parse HEAD`` (5 s timeout); ``None`` when neither answers."""
    sha = os.environ.get("GITHUB_SHA", "").strip()
    if sha:
        return sha[:64]
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    text = done.stdout.strip()
    return text if done.returncode == 0 and 7 <= len(text) <= 64 and text.isalnum() else None


def _epoch() -> int | None:
    text = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    return int(text) if text.isdigit() else None


def _inputs(inputs: Sequence[InputDigest]) -> tuple[dict[str, str], str]:
    mapping = {item.role: item.sha256 for item in inputs}
    return mapping, "sha256:" + hashlib.sha256(canonical_bytes(mapping)).hexdigest()


def _body(kind: str, subject: str, title: str, inputs: Sequence[InputDigest], **rest: Any) -> dict[str, Any]:
    mapping, digest = _inputs(inputs)
    return {
        "schema": HISTORY_SCHEMA,
        "kind": kind,
        "subject": subject,
        "title": title,
        "revision": source_revision(),
        "time": _epoch(),
        "inputs": mapping,
        "inputs_digest": digest,
        **rest,
    }


def comparison_body(
    subject: str, title: str, document: Mapping[str, Any], inputs: Sequence[InputDigest], verdict: str | None
) -> dict[str, Any]:
    """One comparison's entry: per side and task the matched passes and runs, and the runs left out."""
    left_out = Counter((r["side"], r["task"]) for r in document["runs"] if not r["paired"])
    sides = []
    for side in ("candidate", "baseline"):
        tasks = [
            {
                "task": o["task"],
                "passes": o[f"{side}_passes"],
                "runs": o["pairs"],
                "excluded": left_out[side, o["task"]],
            }
            for o in document["task_outcomes"]
        ]
        sides.append({"label": side, "tasks": tasks})
    issues = sum(int(n) for n in document["issue_counts"].values())
    return _body("comparison", subject, title, inputs, verdict=verdict, issues=issues, tiers=None, sides=sides)


def leaderboard_body(
    subject: str, title: str, document: Mapping[str, Any], inputs: Sequence[InputDigest]
) -> dict[str, Any]:
    """One leaderboard's entry: per system and task the aligned passes and runs, and the runs left out."""
    sides = []
    issues = 0
    for system in document["systems"]:
        left_out = Counter(r["task"] for r in system["runs"] if not r["aligned"])
        tasks = [
            {"task": o["task"], "passes": o["passes"], "runs": len(o["reps"]), "excluded": left_out[o["task"]]}
            for o in system["task_outcomes"]
        ]
        sides.append({"label": system["label"], "tasks": tasks})
        issues += sum(int(n) for n in system["issue_counts"].values())
    tiers = [list(tier) for tier in document["tiers"]]
    worse = sorted(str(row["label"]) for row in document["against_baseline"] if row["outcome"] == WORSE)
    return _body(
        "leaderboard", subject, title, inputs, verdict=None, issues=issues, tiers=tiers, sides=sides, worse=worse
    )


def record_build(
    path: Path,
    bodies: Sequence[Mapping[str, Any]],
    *,
    key: bytes | None = None,
    anchors: Sequence[tuple[HistoryHead, str]] = (),
) -> tuple[AppendedHistory, tuple[Trend, ...]]:
    """Append this build's entries and compute every subject's trend from the whole history."""
    appended = append_history(path, bodies, key=key, anchors=anchors)
    from generator.analyze.history import trends  # scipy: imported only when a history is kept

    return appended, trends(appended.history.entries)


def gate_reasons(
    fail_on: Sequence[str],
    trend_list: Sequence[Trend],
    issues: Mapping[str, int],
    worse: Mapping[str, Sequence[tuple[str, str]]] | None = None,
) -> list[str]:
    """One sentence per reason the build fails its ``--fail-on`` gate (empty: it passes).

    *worse* maps a leaderboard (``leaderboard 'id'``) to its (system, sentence) pairs reported
    significantly worse than the baseline after correction whose evidence changed since the
    previous build (:func:`_newly_worse`): ``verdict-worse`` fails on each (docs/history.md).
    """
    reasons: list[str] = []
    for trend in trend_list:
        latest = trend.latest
        if latest is None:
            continue
        if "regression" in fail_on:
            for step in latest.regressions:
                reasons.append(
                    f"{trend.kind} {trend.subject!r}: {step.label} regressed against build {step.reference} "
                    f"(pass@1 {pp(step.estimate)}, sign-flip p = {step.p_value:.3g} below the gate's level "
                    f"{step.level:.2g}, {step.tasks} shared tasks; docs/history.md)"
                )
        if "verdict-worse" in fail_on and len(trend.builds) > 1:
            before, now = trend.builds[-2].verdict, latest.verdict
            if before in _VERDICT_RANK and now in _VERDICT_RANK and _VERDICT_RANK[now] < _VERDICT_RANK[before]:
                reasons.append(f"{trend.kind} {trend.subject!r}: the verdict went from {before!r} to {now!r}")
    if "verdict-worse" in fail_on:
        for subject, systems in (worse or {}).items():
            for label, sentence in systems:
                reasons.append(f"{subject}: system {label!r} is worse than the baseline after correction ({sentence})")
    if "issues" in fail_on:
        for subject, count in issues.items():
            if count:
                reasons.append(f"{subject}: {count} alignment issue(s)")
    return reasons


def run_verify(path: str, *, key_env: str | None = None, site: str | None = None, anchor: str | None = None) -> int:
    """``evalsite history verify PATH [--key-env NAME] [--site DIR] [--anchor FILE]``: 0 and a count
    when the chain (and the MACs, and the anchor) verify; exit 2 naming the first problem."""
    key = history_key(key_env)
    anchors: list[tuple[HistoryHead, str]] = []
    if site is not None:
        recorded = site_anchor(Path(site)) if Path(site).is_dir() else None
        if recorded is None:
            raise EvalsiteError(f"the site {Path(site).name!r} records no history head (no history-head.json)")
        anchors.append((recorded, f"the site {Path(site).name!r}"))
    if anchor is not None:
        anchors.append((read_anchor(anchor), f"the anchor {Path(anchor).name!r}"))
    if not os.path.lexists(path):
        raise EvalsiteError(f"history file {Path(path).name!r} not found")
    read = read_history(path, key)
    problem = verify_history(read, require_mac=key is not None)
    for recorded, where in anchors:
        problem = problem or check_anchor(read, recorded, where)
    if problem is not None:
        raise EvalsiteError(problem)
    subjects = len({(e.kind, e.subject) for e in read.entries})
    line = f"history verified: {len(read.entries)} entries, {subjects} subject(s), chain intact"
    unkeyed = len(read.entries) - read.macs
    if key is not None and read.entries:
        line += f"; {read.macs} MAC(s) verified with the key"
        line += f" (the first {unkeyed} entries carry none; the MACs after them vouch for them)" if unkeyed else ""
    elif read.macs:
        line += f"; {read.macs} entries carry a MAC that was not checked (pass --key-env NAME to check them)"
    for recorded, where in anchors:
        line += f"; extends the head {where} recorded ({recorded.entries} entries)"
    emit(line + "\n")
    return 0


# --------------------------------------------------------------------------- in a build


@dataclass(frozen=True)
class Record:
    """One comparison or leaderboard of this build, as the history and the summary need it."""

    kind: Literal["comparison", "leaderboard"]
    subject: str
    title: str
    body: Mapping[str, Any] | None  # None: the entry could not be built (nothing is recorded)
    verdict: str | None = None
    effect: float | None = None
    lower: float | None = None
    upper: float | None = None
    error: str | None = None
    worse: tuple[tuple[str, str], ...] = ()  # a leaderboard's (system, sentence) worse than its baseline
    baseline: str | None = None  # a leaderboard's baseline label
    p_value: float | None = None  # a comparison verdict's sign-flip p-value
    alpha: float | None = None  # and the level it was tested at
    run_status: tuple[str, ...] = ()  # a side's or system's run that did not finish (not in the history body)
    price: Price | None = None  # a comparison's cost and duration per run (the summary's; not in the history body)


def comparison_record(
    subject: str,
    title: str,
    document: Mapping[str, Any],
    inputs: Sequence[InputDigest],
    statistics: ExperimentComparison | None,
    run_status: tuple[str, ...] = (),
    price: Price | None = None,
    scores: ScoreSection | None = None,
) -> Record:
    """The history record of a comparison: the verdict that decides (the mean score's under ``metric: mean``)."""
    mean = scores.comparison if scores is not None else None
    # without matched pairs no verdict decides: pass@1's "no verdict" is recorded
    deciding = (deciding_verdict(statistics, scores) or statistics.verdict) if statistics is not None else None
    verdict = deciding.outcome if deciding is not None else None
    body = comparison_body(subject, title, document, inputs, verdict)
    if statistics is None or deciding is None:
        return Record("comparison", subject, title, body, run_status=run_status, price=price)
    difference = mean.difference.interval if mean is not None else statistics.paired.difference.interval
    return Record(
        "comparison", subject, title, body, verdict, difference.estimate, difference.lower, difference.upper,
        p_value=deciding.p_value, alpha=deciding.alpha, run_status=run_status, price=price,
    )  # fmt: skip


def leaderboard_record(
    subject: str,
    title: str,
    document: Mapping[str, Any],
    inputs: Sequence[InputDigest],
    run_status: tuple[str, ...] = (),
) -> Record:
    rows = document["against_baseline"]
    worse = tuple((str(row["label"]), str(row["sentence"])) for row in rows if row["outcome"] == WORSE)
    body = leaderboard_body(subject, title, document, inputs)
    baseline = document.get("baseline")
    return Record("leaderboard", subject, title, body, worse=worse, baseline=baseline, run_status=run_status)


def failed_record(kind: Literal["comparison", "leaderboard"], subject: str, title: str, message: str) -> Record:
    return Record(kind, subject, title, None, error=message)


def check_summary_path(path: Path, config: SiteConfig, out_dir: Path | None = None) -> None:
    """``--summary``: never over an input, never inside an input folder or the site folder it would
    be swapped away with (the next build would find a file it did not write), only over an earlier summary."""
    inputs = config.input_paths()
    folders = [p for p in inputs if p.is_dir()]
    if out_dir is not None:
        real_out = os.path.realpath(out_dir)
        real = os.path.realpath(path)
        if real == real_out or real.startswith(real_out.rstrip(os.sep) + os.sep):
            raise EvalsiteError(f"--summary {path.name!r} lies inside the output folder; write it beside the site")
    check_output_file(
        path,
        kind="summary",
        input_files=[p for p in inputs if p.is_file()],
        input_folders=folders,
        option="--summary",
    )


@dataclass
class HistoryOutcome:
    trends: tuple[Trend, ...] = ()
    pages: list[tuple[str, str, object]] = field(default_factory=list)  # (url, html, data.json content)
    links: dict[tuple[str, str], str] = field(default_factory=dict)  # (kind, subject) -> trend page URL
    appended: int = 0
    reasons: list[str] = field(default_factory=list)
    head: HistoryHead | None = None  # the history's chain head after this build (history-head.json)


def _trend_data(trend: Trend) -> dict[str, Any]:
    return {"schema": "evalsite.trend.v1", "trend": asdict(trend)}


def run_history(
    records: Sequence[Record],
    history: Path | None,
    fail_on: Sequence[str],
    site: SiteInfo,
    templates: Path,
    redactor: Redactor | None = None,
    options: HistoryOptions | None = None,
    out_dir: Path | None = None,
) -> HistoryOutcome:
    """Append this build's entries (when a history is configured), build the trend pages, word the gate.

    The entries are redacted as the site is (a secret in a task name never reaches the history);
    the history must extend the chain head the site in *out_dir* recorded (and ``--history-anchor``'s)
    unless ``--history-reset``; with ``--history-key-env`` the entries carry MACs.
    """
    outcome = HistoryOutcome()
    if history is not None:
        options = options or HistoryOptions()
        redact = (redactor or Redactor()).value
        bodies = [redact(dict(r.body)) for r in records if r.body is not None]
        key, anchors = history_key(options.key_env), _anchors(options, out_dir)
        appended, outcome.trends = record_build(history, bodies, key=key, anchors=anchors)
        outcome.appended = len(appended.appended)
        outcome.head = appended.history.head
        current = {(r.kind, r.subject) for r in records}
        for trend in outcome.trends:
            if (trend.kind, trend.subject) not in current:
                continue  # a subject no longer in the config keeps its entries, but gets no page
            page = build_trend_page(trend, site)
            outcome.pages.append((page.meta.url, render_trend_page(page, templates, redactor), _trend_data(trend)))
            outcome.links[trend.kind, trend.subject] = page.meta.url
    current_trends = [t for t in outcome.trends if (t.kind, t.subject) in {(r.kind, r.subject) for r in records}]
    issues = {f"{r.kind} {r.subject!r}": int(r.body["issues"]) for r in records if r.body is not None}
    worse = {
        f"leaderboard {r.subject!r}": r.worse if history is None else _newly_worse(r, appended.history.entries)
        for r in records
        if r.kind == "leaderboard" and r.worse
    }
    outcome.reasons = gate_reasons(fail_on, current_trends, issues, worse)
    return outcome


def _newly_worse(record: Record, entries: Sequence[HistoryEntry]) -> tuple[tuple[str, str], ...]:
    """The systems of a leaderboard worse than its baseline that were not worse in the previous recorded
    build (its entry lists them, ``worse``): a standing difference does not fire ``verdict-worse`` again,
    even when every system was re-run (issue 25). For an entry written before that field: a system, or
    the baseline, whose per-task counts differ between the last two entries (or that is new). The first
    recorded build has nothing new; with no history configured every worse system counts."""
    own = [e for e in entries if e.kind == "leaderboard" and e.subject == record.subject]
    if len(own) < 2:
        return ()
    if own[-2].worse is not None:  # recorded: only a system that was not worse before fires (issue 25)
        return tuple((label, sentence) for label, sentence in record.worse if label not in own[-2].worse)
    before, now = ({side.label: side.tasks for side in entry.sides} for entry in own[-2:])

    def moved(label: str | None) -> bool:
        return label is None or label not in before or before[label] != now.get(label)

    return tuple((label, sentence) for label, sentence in record.worse if moved(label) or moved(record.baseline))


def write_summary(
    path: Path,
    records: Sequence[Record],
    outcome: HistoryOutcome,
    base_url: str | None,
    redactor: Redactor | None = None,
) -> None:
    by_subject = {(t.kind, t.subject): t for t in outcome.trends}
    items = []
    for r in records:
        trend = by_subject.get((r.kind, r.subject))
        page = subject_url(r.kind, r.subject)
        anchor = "verdict" if r.kind == "comparison" else "tiers"
        issues_anchor = "alignment-issues" if r.kind == "comparison" else "issues-s"
        tiers = None
        if r.body is not None and r.body.get("tiers") is not None:
            tiers = tuple(tuple(tier) for tier in r.body["tiers"])
        items.append(
            SummaryItem(
                r.kind,
                r.subject,
                r.title,
                f"{page}#{anchor}",
                f"{page}#{issues_anchor}",
                r.verdict,
                r.effect,
                r.lower,
                r.upper,
                tiers,
                int(r.body["issues"]) if r.body is not None else 0,
                trend,
                trend_url(r.kind, r.subject) if trend is not None else None,
                r.error,
                r.run_status,
                r.price,
            )
        )
    text = render_summary(items, base_url, outcome.reasons, redact=(redactor or Redactor()).text)  # then capped
    write_text_atomic(path, text)
