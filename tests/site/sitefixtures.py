"""Fixture data and helpers for the site tests (and for issue 5's browser tests).

- ``hostile``: the hand-written hostile comparison document (fixtures/hostile.py).
- ``ledger_summary()``: the reference summary of the hostile ledger fixture.
- ``FixtureCore``: a core that serves those documents instead of reading
  experiments, so the site can be built without the comparison/ledger cores;
  the typed statistics of a document come from ``document_statistics()``.
- ``write_config()``: a site-config.yaml whose paths exist, in a temp folder.
- ``typical_document()``: a clean, realistic document (10 repetitions per side).
- ``build_hostile_site(out)``: the hostile site, built once, for other suites;
  ``entry_errors=True`` adds a failing comparison and ledger (entry-error pages)
  and ``dialogs=True`` adds ``DIALOG_XSS`` payloads (browser tests, issue 5).
"""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import json
import shutil
from collections import defaultdict
from pathlib import Path
from typing import Any

from generator.analyze.ledger.result import ledger_result
from generator.analyze.stats.experiment import paired_comparison
from generator.model.common import SIDES
from generator.model.comparison import (
    Disagreement,
    DurationSummary,
    EfficiencyRow,
    EfficiencyTable,
    Issue,
    MacroMetrics,
    ReportedDuration,
)
from generator.model.comparison_view import (
    AuditRow,
    ComparisonView,
    EfficiencyTables,
    Limitations,
    Matched,
    MatrixSummary,
    PairOutcome,
    RunEntry,
    SideSummary,
    TaskOutcome,
)
from generator.model.errors import EvalsiteError
from generator.model.runs import Artifact, CaseManifest, Quality, SkippedReport
from generator.model.stats import ExperimentComparison
from generator.pages.models import InputDigest
from generator.pipelines.build import ComparisonData, LedgerData, build_site
from generator.read.config import ComparisonConfig, LedgerConfig, load_config

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _load_hostile():
    spec = importlib.util.spec_from_file_location("evalsite_site_fixture_hostile", FIXTURES / "hostile.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


hostile = _load_hostile()


def ledger_summary() -> dict[str, Any]:
    return json.loads((FIXTURES / "ledger" / "summary.json").read_text(encoding="utf-8"))


def _digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def document_statistics(document: dict[str, Any]) -> ExperimentComparison:
    """The typed statistics of a hand-written document, computed (test side) from its strictly matched pairs."""
    candidate: dict[str, list[tuple[int, bool]]] = defaultdict(list)
    baseline: dict[str, list[tuple[int, bool]]] = defaultdict(list)
    for pair in document["pairs"]:
        candidate[pair["task"]].append((pair["rep"], bool(pair["candidate_passed"])))
        baseline[pair["task"]].append((pair["rep"], bool(pair["baseline_passed"])))
    order = sorted(candidate)
    return paired_comparison(
        {task: [v for _, v in sorted(candidate[task])] for task in order},
        {task: [v for _, v in sorted(baseline[task])] for task in order},
        tuple(document["ks"]),
        total_tasks=len(document["tasks"]),
    )


def _manifest(entry: dict[str, Any] | None, task: str) -> CaseManifest | None:
    if entry is None:
        return None
    parts = {
        key: value for key, value in entry.items() if key.endswith("_hash") and key not in ("case_hash", "core_hash")
    }
    return CaseManifest(
        task,
        str(entry.get("source")),
        str(entry.get("schema", "")),
        {key: value for key, value in parts.items() if value is not None},
        entry.get("case_hash"),
        entry.get("core_hash"),
    )


def _run(run: dict[str, Any]) -> RunEntry:
    quality = run.get("quality") or {}
    telemetry, reported = run.get("telemetry"), run.get("reported_telemetry")
    status = run.get("artifact", "not-read")
    artifact = None
    if status != "not-read" or telemetry is not None or reported is not None:
        artifact = Artifact(status, run.get("artifact_reason"), telemetry, reported)
    return RunEntry(
        side=run["side"],
        task=run["task"],
        rep=run["rep"],
        file=run["file"],
        passed=run["passed"],
        checks_failed=tuple(run.get("checks_failed") or ()),
        quality=Quality(
            str(quality.get("status", "N/A")),
            quality.get("reason_code") or "",
            "",
            quality.get("include_in_analysis"),
            str(quality.get("confidence", "")),
            (),
        ),
        manifest=_manifest(run["manifest"], run["task"]),
        manifest_valid=bool(run["manifest"].get("valid")),
        paired=run["paired"],
        artifact=artifact,
        provenance=tuple((run.get("provenance") or {}).items()),
    )


def _efficiency(block: dict[str, Any]) -> EfficiencyTable:
    def row(entry: dict[str, Any]) -> EfficiencyRow:
        return EfficiencyRow(
            entry["key"],
            entry["label"],
            entry["kind"],
            entry["complete"],
            entry["complete"],
            entry["candidate_average"],
            entry["baseline_average"],
            entry.get("reported_disagreements") or 0,
        )

    return EfficiencyTable(
        block["pairs"], tuple(row(r) for r in block["rows"]), tuple(row(r) for r in block.get("reported_rows") or ())
    )


def _duration(entry: dict[str, Any]) -> DurationSummary:
    stated = entry.get("reported") or {}
    return DurationSummary(
        entry["matched"],
        entry["covered"],
        entry["total_seconds"],
        entry["average_seconds"],
        tuple((item["task"], item["rep"]) for item in entry["missing"]),
        ReportedDuration(
            stated.get("covered", 0),
            stated.get("total_seconds"),
            stated.get("average_seconds"),
            tuple(Disagreement(**item) for item in stated.get("disagreements") or ()),
        ),
    )


def view_from_document(doc: dict[str, Any]) -> ComparisonView:
    """The typed view a hand-written ``evalsite.comparison.v1`` document describes (test side only:
    the product makes views from results and never reads a document back)."""
    sides = {
        side: SideSummary(
            doc[side]["treatment"],
            doc[side]["experiment"],
            doc[side]["runs"],
            MatrixSummary(**doc[side]["matrix"]),
            doc[side].get("format", "comet"),
            tuple(doc[side].get("format_notes") or ()),
        )
        for side in SIDES
    }
    lim = doc["limitations"]
    return ComparisonView(
        ks=tuple(doc["ks"]),
        expected_keys=doc["expected_keys"],
        tasks=tuple(doc["tasks"]),
        sides=sides,
        pairs=tuple(PairOutcome(**pair) for pair in doc["pairs"]),
        issues=tuple(Issue(**issue) for issue in doc["issues"]),
        issue_counts=dict(doc["issue_counts"]),
        metrics={side: {int(k): MacroMetrics(int(k), **m) for k, m in doc["metrics"][side].items()} for side in SIDES},
        matched={side: Matched(**doc["matched"][side]) for side in SIDES},
        duration={side: _duration(doc["duration"][side]) for side in SIDES},
        efficiency=EfficiencyTables(
            _efficiency(doc["efficiency"]["strict_success"]), _efficiency(doc["efficiency"]["all_aligned"])
        ),
        limitations=Limitations(
            tuple(lim["missing_matrix"]),
            tuple(lim["invalid_matrix"]),
            lim["fallback_records"],
            lim["execution_unbound_records"],
            lim.get("fallback_without_task_files", 0),
        ),
        statistics=document_statistics(doc),
        manifest_audit=tuple(
            AuditRow(
                row["task"],
                _manifest(row["candidate"], row["task"]),
                _manifest(row["baseline"], row["task"]),
                dict(row.get("states") or {}),
            )
            for row in doc["manifest_audit"]
        ),
        audit_summary=dict(doc.get("manifest_audit_summary") or {}),
        task_outcomes=tuple(
            TaskOutcome(o["task"], tuple(o["reps"]), o["pairs"], o["candidate_passes"], o["baseline_passes"])
            for o in doc["task_outcomes"]
        ),
        runs=tuple(_run(run) for run in doc["runs"]),
        skipped_reports=tuple(SkippedReport(**item) for item in doc["skipped_reports"]),
    )


class FixtureCore:
    """Serves fixture documents; ``fail`` maps entry ids to exceptions to raise."""

    def __init__(self, document=None, summary=None, instructions=None, fail=None):
        self.document = document if document is not None else hostile.comparison_document()
        self.summary = summary if summary is not None else ledger_summary()
        self.instructions = instructions if instructions is not None else hostile.instructions()
        self.fail = fail or {}
        self.calls: list[str] = []

    def compare(self, entry: ComparisonConfig) -> ComparisonData:
        self.calls.append(entry.id)
        if entry.id in self.fail:
            raise self.fail[entry.id]
        doc = copy.deepcopy(self.document)
        inputs = (
            InputDigest("comparison document", "data.json", _digest(json.dumps(doc, sort_keys=True)), "fixture"),
            InputDigest("candidate experiment", entry.candidate.experiment.name, _digest("c" + hostile.XSS[0])),
        )
        return ComparisonData(view_from_document(doc), doc, hostile.markdown_report(), self.instructions, inputs)

    def ledger(self, entry: LedgerConfig) -> LedgerData:
        self.calls.append(entry.id)
        if entry.id in self.fail:
            raise self.fail[entry.id]
        inputs = (InputDigest("campaign file", entry.campaign.name, _digest("campaign")),)
        return LedgerData(ledger_result(copy.deepcopy(self.summary)), inputs)


def write_config(
    root: Path, *, extra: str = "", comparisons: int = 1, ledgers: int = 1, title: str | None = None
) -> Path:
    """A valid site-config.yaml in *root* with real folders and files for every path."""
    (root / "exp" / "native").mkdir(parents=True, exist_ok=True)
    (root / "exp" / "beta").mkdir(parents=True, exist_ok=True)
    (root / "tasks").mkdir(exist_ok=True)
    (root / "ledger").mkdir(exist_ok=True)
    shutil.copy(FIXTURES / "ledger" / "campaign.json", root / "ledger" / "campaign.json")
    shutil.copy(FIXTURES / "ledger" / "receipts.jsonl", root / "ledger" / "receipts.jsonl")
    title = title or "Site " + hostile.XSS[1]
    lines = [f"title: {json.dumps(title)}", "output: _site"]
    if comparisons:
        lines.append("comparisons:")
        for i in range(comparisons):
            lines += [
                f"  - id: cmp-{i}",
                f"    title: {json.dumps('Comparison ' + str(i) + ' ' + hostile.XSS[0])}",
                "    candidate: {experiment: exp/native, treatment: COMET_NATIVE_PHASE1}",
                "    baseline: {experiment: exp/beta, treatment: COMET_FULL_040_BETA}",
                "    tasks: tasks",
                "    ks: [1, 2, 3]",
            ]
    if ledgers:
        lines.append("ledgers:")
        for i in range(ledgers):
            lines += [
                f"  - id: ledger-{i}",
                f"    title: {json.dumps('Ledger ' + str(i) + ' ' + hostile.XSS[2])}",
                "    campaign: ledger/campaign.json",
                "    ledger: ledger/receipts.jsonl",
            ]
    path = root / "site-config.yaml"
    path.write_text("\n".join(lines) + "\n" + extra, encoding="utf-8")
    return path


def typical_document(tasks: int = 20, reps: int = 10) -> dict[str, Any]:
    """A clean document shaped like a real comparison: every run paired, full telemetry."""
    doc = hostile.comparison_document()
    names = [f"task-{i:03d}-{'x' * 24}" for i in range(tasks)]
    pairs, runs, outcomes, audit = [], [], [], []
    for t, task in enumerate(names):
        for rep in range(1, reps + 1):
            c, b = (t + rep) % 3 != 0, (t * rep) % 4 != 0
            pairs.append(
                {"task": task, "rep": rep, "case_hash": _digest(task), "candidate_passed": c, "baseline_passed": b}
            )
            for side, passed in (("candidate", c), ("baseline", b)):
                runs.append(
                    {
                        "side": side,
                        "task": task,
                        "rep": rep,
                        "file": f"{task}-COMET_X-r{rep}_rep{rep}_report.json",
                        "passed": passed,
                        "checks_failed": [] if passed else ["test_feature_works", "test_cli_flag_documented"],
                        "quality": {"status": "ok", "reason_code": None, "include_in_analysis": True},
                        "manifest": {
                            "valid": True,
                            "source": "report-bound-v2",
                            "case_hash": _digest(task),
                            "core_hash": _digest("core" + task),
                        },
                        "paired": True,
                        "artifact": "verified",
                        "telemetry": hostile._telemetry(task, rep, side),
                    }
                )
        outcomes.append(
            {
                "task": task,
                "reps": list(range(1, reps + 1)),
                "candidate_passes": reps - 3,
                "baseline_passes": reps - 2,
                "pairs": reps,
            }
        )
        manifest = {
            key: _digest(key + task)
            for key in (
                "case_hash",
                "core_hash",
                "task_hash",
                "instruction_hash",
                "validator_hash",
                "environment_hash",
                "data_hash",
                "prompt_hash",
                "runner_hash",
                "controller_hash",
                "execution_hash",
            )
        }
        manifest.update({"source": "report-bound-v2", "schema": "comet.case-manifest.v2"})
        audit.append({"task": task, "candidate": manifest, "baseline": dict(manifest)})
    doc.update(
        {
            "tasks": names,
            "pairs": pairs,
            "runs": runs,
            "task_outcomes": outcomes,
            "manifest_audit": audit,
            "issues": [],
            "issue_counts": {},
            "skipped_reports": [],
            "expected_keys": tasks * reps,
        }
    )
    doc["candidate"]["treatment"] = "COMET_NATIVE_PHASE1"
    doc["baseline"]["treatment"] = "COMET_FULL_040_BETA"
    return doc


def typical_instruction() -> str:
    para = (
        "Add a `--sentences` flag to `wordcount-cli`. It prints the number of sentences in the input, "
        "where a sentence ends with `.`, `!` or `?` followed by whitespace or the end of the input. "
    )
    return (
        "# Count sentences\n\n" + "\n\n".join(para * 3 for _ in range(8)) + "\n\n- [ ] tests pass\n- [ ] docs updated\n"
    )


# Payloads that would open a dialog if they ever ran; the browser tests fail on
# any dialog.  Short, so they survive the 48-character cut of chart labels.
# DIALOG_XSS[1] targets Plotly's pseudo-HTML (``<a href>`` in a legend or tooltip).
DIALOG_XSS = (
    "<svg onload=alert(1)>",
    "<a href='javascript:alert(2)'>x</a>",
    '<iframe srcdoc="<script>parent.alert(3)</script>">',
)


def dialog_document() -> dict[str, Any]:
    """The hostile document with ``DIALOG_XSS`` in the treatment names (chart legends)."""
    doc = hostile.comparison_document()
    doc["candidate"]["treatment"] = DIALOG_XSS[0] + doc["candidate"]["treatment"]
    doc["baseline"]["treatment"] = DIALOG_XSS[1] + doc["baseline"]["treatment"]
    doc["skipped_reports"][0]["reason"] += DIALOG_XSS[2]
    return doc


def dialog_summary() -> dict[str, Any]:
    """The hostile ledger summary with ``DIALOG_XSS[1]`` in front of the hostile arm's id."""
    arm = "tunnel" + hostile.XSS[0]
    text = json.dumps(ledger_summary(), ensure_ascii=False)
    return json.loads(text.replace(json.dumps(arm, ensure_ascii=False)[1:-1], json.dumps(DIALOG_XSS[1] + arm)[1:-1]))


def dialog_instructions() -> dict[str, str | None]:
    return {
        task: (text + "\n\n" + " ".join(DIALOG_XSS) + "\n" if text else text)
        for task, text in hostile.instructions().items()
    }


def hostile_entry_errors() -> dict[str, BaseException]:
    """Data errors for ``cmp-1`` and ``ledger-1`` whose messages and details are hostile."""
    ledger_error = EvalsiteError("ledger is invalid " + hostile.XSS[1])
    ledger_error.details = ("line 3: not JSON " + hostile.XSS[0], "line 7: armId " + hostile.XSS[2])  # type: ignore[attr-defined]
    return {"cmp-1": EvalsiteError("no COMET reports found for " + hostile.XSS[0]), "ledger-1": ledger_error}


def build_hostile_site(
    out: Path, root: Path | None = None, *, entry_errors: bool = False, dialogs: bool = False
) -> Path:
    """Build the hostile fixture site into *out* (config and inputs under *root*).

    ``entry_errors``: also a failing comparison ``cmp-1`` and ledger ``ledger-1``
    (their pages are entry-error pages).  ``dialogs``: the inputs also carry
    ``DIALOG_XSS``.
    """
    root = root or out.parent / (out.name + "-inputs")
    root.mkdir(parents=True, exist_ok=True)
    count = 2 if entry_errors else 1
    config = load_config(write_config(root, comparisons=count, ledgers=count))
    core = FixtureCore(
        document=dialog_document() if dialogs else None,
        summary=dialog_summary() if dialogs else None,
        instructions=dialog_instructions() if dialogs else None,
        fail=hostile_entry_errors() if entry_errors else None,
    )
    build_site(config, out, core=core)
    return out
