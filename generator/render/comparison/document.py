"""The ``evalsite.comparison.v1`` JSON document of a comparison: a rendering of its view.

Field by field description: ``docs/comparison-json.md``.  Every entry is the ``to_json`` of a
record of the :class:`~generator.model.comparison_view.ComparisonView`; nothing is computed here.
The document names experiments by folder name and reports by file name only; it never contains
a local path.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from generator.model.common import SIDES
from generator.model.comparison import COMPARISON_SCHEMA
from generator.model.comparison_view import ComparisonView
from generator.model.stats import as_json

__all__ = ["SCHEMA", "STREAMED", "audit_entries", "comparison_document", "pair_entries", "run_entries"]

SCHEMA = COMPARISON_SCHEMA


def run_entries(view: ComparisonView) -> Iterator[dict[str, Any]]:
    """The document's ``runs``, one entry at a time, in (side, task, rep, file) order.

    Each entry is made as it is read, so a caller that writes each one as it comes
    (``evalsite compare --format json``) never holds them all.
    """
    return (run.to_json() for run in view.runs)


def audit_entries(view: ComparisonView) -> Iterator[dict[str, Any]]:
    """The document's ``manifest_audit``, one task's row at a time."""
    return (row.to_json() for row in view.manifest_audit)


def pair_entries(view: ComparisonView) -> Iterator[dict[str, Any]]:
    """The document's ``pairs``, one at a time, in (task, rep) order."""
    return (pair.to_json() for pair in view.pairs)


#: Document keys whose entries a writer may make one at a time (see ``comparison_document``).
STREAMED = {"runs": run_entries, "pairs": pair_entries, "manifest_audit": audit_entries}


def comparison_document(view: ComparisonView, *, runs: bool = True, streamed: bool = False) -> dict[str, Any]:
    """Build the JSON-ready document (plain dicts, lists, str, int, float, bool, None).

    ``runs=False`` leaves out the ``runs`` key, for a caller that writes :func:`run_entries`
    in its place; ``streamed=True`` leaves out every key of :data:`STREAMED` (``runs``,
    ``pairs``, ``manifest_audit``: the ones that grow with the runs or tasks) for a caller that
    writes their entries one at a time.
    """
    return {
        "schema": SCHEMA,
        "ks": list(view.ks),
        "expected_keys": view.expected_keys,
        "tasks": list(view.tasks),
        **{side: view.sides[side].to_json() for side in SIDES},
        **({} if streamed else {"pairs": list(pair_entries(view))}),
        "issues": [issue.to_json() for issue in view.issues],
        "issue_counts": dict(view.issue_counts),
        "metrics": {side: {str(k): metrics.to_json() for k, metrics in view.metrics[side].items()} for side in SIDES},
        "matched": {side: view.matched[side].to_json() for side in SIDES},
        "duration": {side: view.duration[side].to_json() for side in SIDES},
        "efficiency": view.efficiency.to_json(),
        "price": view.price.to_json(),
        "limitations": view.limitations.to_json(),
        "statistics": as_json(view.statistics),
        # metric mean or several scorers only (issue 29): a pass@k comparison of one scorer keeps its bytes
        **({"scores": view.scores.to_json()} if view.scores is not None else {}),
        **({} if streamed else {"manifest_audit": list(audit_entries(view))}),
        "manifest_audit_summary": {part: dict(counts) for part, counts in view.audit_summary.items()},
        "task_outcomes": [outcome.to_json() for outcome in view.task_outcomes],
        **({"runs": list(run_entries(view))} if runs and not streamed else {}),
        "rebased_runs": [run.to_json() for run in view.rebased_runs],
        "rebase_artifacts": view.rebase_artifacts,
        "skipped_reports": [
            {"side": skipped.side, "file": skipped.file, "reason": skipped.reason} for skipped in view.skipped_reports
        ],
    }
