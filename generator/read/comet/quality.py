"""Sample quality: is a run real signal, or noise from the environment?

A verdict stored in the report always wins (that is what current Comet
reports carry).  Older reports get one derived from their failed checks and
their raw stdout/stderr, with Comet's first-match rule table: clear
environment failures with no model result (rate limit, API timeout, runner
timeout, container, auth, network) are *excluded*; suspicious but completed
runs are *flagged* and stay in the analysis set.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from generator.model.runs import Quality

__all__ = ["Quality", "derived_quality", "sample_quality", "stored_quality"]

_STATUSES = ("included", "excluded", "flagged")
_CONFIDENCES = ("high", "medium", "low")


def _pattern(text: str) -> re.Pattern[str]:
    return re.compile(text, re.IGNORECASE)


_GAP = r"[^\n]{0,80}"
RATE = _pattern(r"429|rate[_ -]?limit|insufficient quota|quota exceeded")
API_TIMEOUT = _pattern(r"api request timed out|request timed out|read timed out")
RUNNER_TIMEOUT = _pattern(r"timeout after|timed out after|subprocess.*timeout")
CONTAINER = _pattern(
    r"docker daemon not running"
    rf"|docker{_GAP}(?:not available|failed|image build failed)"
    rf"|docker build{_GAP}failed"
    r"|container (?:failed|crashed|did not start)"
    rf"|container build{_GAP}failed"
    rf"|build image{_GAP}failed"
    rf"|image build{_GAP}failed"
    rf"|mount{_GAP}failed"
)
AUTH = _pattern(r"authentication|unauthorized|invalid api key|api key|auth token")
NETWORK = _pattern(r"dns|tls|connection reset|connection refused|gateway timeout|econnreset|etimedout")
OUTER = _pattern(r"api timeout|timeout|rate[_ -]?limit|quota|network|dns|tls|docker|container|auth")
VALIDATOR = _pattern(r"validator|artifact path|task directory|not found in archive")

# Hard failures: (pattern, reason code, human reason); each applies only without a result.
_EXCLUSIONS = (
    (RATE, "rate_limited", "Provider rate limit or quota before a model result"),
    (API_TIMEOUT, "api_timeout", "API request timed out before a model result"),
    (RUNNER_TIMEOUT, "runner_timeout", "Outer runner timed out"),
    (CONTAINER, "container_failure", "Container or image failure before a model result"),
    (AUTH, "auth_failure", "Authentication failure before a model result"),
    (NETWORK, "network_failure", "Network failure before a model result"),
)


def stored_quality(report: Mapping[str, Any]) -> Quality | None:
    """The verdict the report carries (top level first), coerced; None if absent."""
    raw = report.get("sample_quality")
    if not isinstance(raw, dict):
        events = report.get("events_summary")
        raw = events.get("sample_quality") if isinstance(events, dict) else None
    if not isinstance(raw, dict):
        return None
    status = raw.get("status")
    status = status if status in _STATUSES else "flagged"
    include = bool(raw["include_in_analysis"]) if "include_in_analysis" in raw else status != "excluded"
    confidence = raw.get("confidence", "medium")
    confidence = confidence if confidence in _CONFIDENCES else "medium"
    evidence = raw.get("evidence")
    items = tuple(str(item) for item in evidence if item) if isinstance(evidence, list) else ()
    return Quality(
        status=status,
        reason_code=str(raw.get("reason_code") or "legacy_unknown"),
        reason=str(raw.get("reason") or "legacy sample-quality metadata"),
        include_in_analysis=include,
        confidence=confidence,
        evidence=items,
    )


def _has_result_line(stdout: str | None) -> bool:
    if not stdout:
        return False
    for line in stdout.splitlines():
        try:
            event = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(event, dict) and event.get("type") == "result":
            return True
    return False


def derived_quality(
    report: Mapping[str, Any],
    read_artifact: Callable[[str], str | None],
) -> Quality:
    """Apply Comet's rule table; ``read_artifact(key)`` returns a contained file's text."""
    events = report.get("events_summary")
    events = events if isinstance(events, dict) else {}
    failed = report.get("checks_failed")
    checks = [str(item) for item in failed] if isinstance(failed, list) else []
    attribution = events.get("failure_attribution")
    attribution = [item for item in attribution if isinstance(item, dict)] if isinstance(attribution, list) else []
    stdout = read_artifact("raw_stdout")
    stderr = read_artifact("raw_stderr")
    has_result = _has_result_line(stdout) or events.get("duration_seconds") is not None
    text = "\n".join(part for part in (stderr, stdout, *checks) if part)
    soft_text = "\n".join(part for part in (stderr, *checks) if part)

    def verdict(status: str, code: str, reason: str, confidence: str, evidence: tuple[str, ...]) -> Quality:
        return Quality(status, code, reason, status != "excluded", confidence, evidence)

    if not has_result:
        for pattern, code, reason in _EXCLUSIONS:
            if pattern.search(text):
                return verdict("excluded", code, reason, "high", (text[:200],))
    if has_result and any(p.search(soft_text) for p in (RATE, API_TIMEOUT, CONTAINER, AUTH, NETWORK, OUTER)):
        return verdict(
            "flagged",
            "completed_run_mentions_outer_failure",
            "Completed run mentions an outer failure",
            "medium",
            (soft_text[:200],),
        )
    harness = [str(item.get("reason") or "") for item in attribution if item.get("bucket") == "harness"]
    if harness:
        return verdict("flagged", "harness_trigger_suspect", "Harness attributed failure", "medium", tuple(harness))
    if VALIDATOR.search(soft_text) and any(item.get("bucket") == "task" for item in attribution):
        return verdict(
            "flagged", "validator_assumption", "Validator assumption suspected", "medium", (soft_text[:200],)
        )
    if has_result and (events.get("total_tokens") is None or events.get("total_cost_usd") is None):
        return verdict(
            "flagged",
            "partial_observability",
            "Result present but telemetry missing",
            "medium",
            ("result event present but telemetry missing",),
        )
    if not has_result and checks:
        return verdict("flagged", "partial_observability", "No result event", "low", (checks[0],))
    evidence = "result event present" if has_result else "legacy report treated as valid signal"
    return verdict("included", "valid_signal", "Run completed with validator evidence", "high", (evidence,))


def sample_quality(report: Mapping[str, Any], read_artifact: Callable[[str], str | None]) -> Quality:
    """Stored verdict if any, else the derived one."""
    return stored_quality(report) or derived_quality(report, read_artifact)
