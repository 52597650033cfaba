"""Builders for Comet experiment folders, shaped like Comet's own test fixture.

``write_run`` writes one report (with a valid v1 case manifest whose parts are
derived from ``variant``) and, unless ``durations`` is None, its raw stdout with
one ``result`` event per duration.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from generator.read.comet.manifest import CORE_PARTS, SCHEMA_V1, canonical_hash
from generator.read.comet.matrix import matrix_payload

CAND = "COMET_NATIVE_PHASE1"
BASE = "COMET_FULL_040_BETA"


def sha(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def v1_manifest(task: str, variant: str = "canonical") -> dict[str, Any]:
    parts = {part: sha(f"{task}:{part}:{variant}") for part in CORE_PARTS}
    case = canonical_hash({"schema": SCHEMA_V1, "task": task, **parts})
    return {"schema": SCHEMA_V1, "task": task, "case_hash": case, **parts}


def stem_of(task: str, treatment: str, rep: int) -> str:
    return f"{task.replace('-', '_')}_{treatment}_r{rep}_rep1"


def write_run(
    exp: Path,
    task: str,
    treatment: str,
    rep: int,
    passed: bool,
    *,
    variant: str = "canonical",
    durations: tuple[int, ...] | None = (1000,),
    result_telemetry: dict[str, Any] | None = None,
    extra_lines: list[dict[str, Any]] | None = None,
    manifest: dict[str, Any] | None = None,
) -> Path:
    """Write a report (and its raw stdout); return the report path."""
    stem = stem_of(task, treatment, rep)
    (exp / "reports").mkdir(parents=True, exist_ok=True)
    (exp / "raw").mkdir(parents=True, exist_ok=True)
    stdout = exp / "raw" / f"{stem}_stdout.json"
    if durations is not None:
        lines = list(extra_lines or [])
        lines += [{"type": "result", "duration_ms": d, **(result_telemetry or {})} for d in durations]
        stdout.write_text("".join(json.dumps(line) + "\n" for line in lines))
    report = {
        "name": f"{task}-{treatment}-r{rep}",
        "rep": 1,
        "passed": passed,
        "run_id": f"run-{stem}",
        "checks_passed": [],
        "checks_failed": [] if passed else ["validator failed"],
        "sample_quality": {
            "status": "included",
            "reason_code": "valid_signal",
            "reason": "Run completed with validator evidence",
            "include_in_analysis": True,
            "confidence": "high",
            "evidence": ["result event present"],
        },
        "events_summary": {
            "duration_seconds": 9999,
            "case_manifest": manifest if manifest is not None else v1_manifest(task, variant),
            "artifact_references": {"raw_stdout": str(stdout.resolve())},
        },
        "timestamp": "2026-07-20T14:03:11.512345",
    }
    path = exp / "reports" / f"{stem}_report.json"
    path.write_text(json.dumps(report, indent=2))
    return path


def write_matrix(exp: Path, cases: list[tuple[str, str, int]]) -> Path:
    exp.mkdir(parents=True, exist_ok=True)
    path = exp / "expected-case-matrix.json"
    path.write_text(json.dumps(matrix_payload(cases), indent=2, sort_keys=True) + "\n")
    return path


def v2_from_v1(v1: dict[str, Any]) -> dict[str, Any]:
    identity = {
        "schema": "comet.eval.execution-identity.v1",
        "image_id_hash": sha("image"),
        "image_repo_digests_hash": sha("digests"),
        "image_ref_hash": sha("ref"),
        "claude_tool_version_hash": sha("claude"),
        "model_selection_hash": sha("model"),
        "interaction_hash": sha("interaction"),
        "model_source": "explicit",
        "interaction_mode": "auto_user",
        "interaction_max_turns": "3",
    }
    parts = {part: v1[part] for part in CORE_PARTS}
    parts.update(runner_hash=sha("runner"), controller_hash=sha("controller"), execution_hash=canonical_hash(identity))
    schema = "comet.eval.case-manifest.v2"
    case = canonical_hash({"schema": schema, "task": v1["task"], **parts})
    return {"schema": schema, "task": v1["task"], "case_hash": case, **parts, "execution_identity": identity}


def write_reported_run(exp: Path, task: str, treatment: str, rep: int, passed: bool, events: dict[str, Any]) -> None:
    """A report without raw stdout (realdata style): its events_summary states the harness's numbers."""
    (exp / "reports").mkdir(parents=True, exist_ok=True)
    name = f"{task}-{treatment}-r{rep}"
    report = {
        "name": name,
        "task": task,
        "treatment": treatment,
        "rep": rep,
        "passed": passed,
        "checks_failed": [] if passed else ["tests_failed"],
        "events_summary": events,
        "source": {"run": f"{treatment}_run_{rep}", "trial_name": f"{task}.{rep}-of-2", "failure_mode": "unset"},
        "model": "model-x",
    }
    (exp / "reports" / f"{name}.json").write_text(json.dumps(report))
