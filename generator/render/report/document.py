"""The ``evalsite.report.v1`` document of a single-system report (docs/report-json.md).

The system's entry is the leaderboard document's (``system_json``: the same fields a leaderboard
system has, without its rank and tier); the report adds the failure reasons, the efficiency averages
and the run status. Keys are sorted by the JSON writer; undefined numbers are ``null``.
"""

from __future__ import annotations

from typing import Any

from generator.model.report import REPORT_SCHEMA, ReportResult
from generator.render.leaderboard.document import system_json

__all__ = ["report_document"]


def report_document(result: ReportResult) -> dict[str, Any]:
    system = system_json(result.system)
    for key in ("rank", "tier"):  # a report ranks nothing
        system.pop(key)
    return {
        "schema": REPORT_SCHEMA,
        "ks": list(result.ks),
        "tasks": list(result.tasks),
        "passes": result.passes,
        "expected_case_matrix": {"status": result.matrix_status, "error": result.matrix_error},
        "system": system,
        "failure_reasons": [
            {"reason": f.reason, "runs": f.runs, "tasks": f.tasks, "quality_excluded": f.excluded}
            for f in result.failures
        ],
        "efficiency": [
            {
                "key": m.key,
                "label": m.label,
                "kind": m.kind,
                "runs_with_value": m.runs,
                "aligned_runs": m.aligned_runs,
                "average": m.average,
                "source": "reported by the harness" if m.reported else "re-derived",
                "disagreements": m.disagreements,
            }
            for m in result.efficiency
        ],
        "run_status": list(result.run_status),
    }
