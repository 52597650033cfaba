"""One page per task of a comparison.

Its instruction, its case-manifest hash components side by side, its strictly
matched pairs, every repetition of both sides with its telemetry, and its
alignment issues.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from functools import cached_property
from typing import Any

from generator.model.common import SIDES, sha256_text
from generator.model.runs import PART_STATES, task_folder_problem
from generator.pages import format as fmt
from generator.pages.comparison.context import (
    MANIFEST_FIELDS,
    TASK_LISTS,
    TELEMETRY_FIELDS,
    ComparisonContext,
    side_label,
)
from generator.pages.models import Cell, Column, InputDigest, Link, Notice, PageBundle, Row, Table, TaskPage
from generator.pages.urls import index_url, pair_url, rel, run_url, task_url

__all__ = ["TASK_SCHEMA", "TaskPages"]

#: A task page's data.json: the positions of the task's entries in the comparison document.
TASK_SCHEMA = "evalsite.site.task.v2"

# How each audit state is marked: only "same" is green; a missing or unhashed part is never agreement.
_STATE_CLS = {
    "same": "same",
    "differs": "diff",
    "missing-candidate": "diff",
    "missing-baseline": "diff",
    "one-sided": "warn",
    "missing-both": "warn",
    "not-hashed": "na",
    "not-recorded": "na",
    "no-record": "na",
}
_STATE_SORT = {"differs": "0", "missing-candidate": "1", "missing-baseline": "1", "one-sided": "2", "same": "5"}
_PROVENANCE = (("run", "run"), ("trial_name", "trial"), ("failure_mode", "failure mode"), ("agent_run_id", "agent run"))
# Reported-only telemetry columns, after the re-derived ones.
_REPORTED_ONLY = (
    ("agent_duration_seconds", "Agent duration", "seconds"),
    ("api_calls", "LLM API calls", "count"),
    ("tool_time_seconds", "Tool execution time", "seconds"),
)


class TaskPages(ComparisonContext):
    """The task pages of one comparison."""

    def format_notices(self) -> tuple[Notice, ...]:
        """Each imported side's format and what that format cannot record (e.g. Harbor's trial order)."""
        notices = []
        for side in ("candidate", "baseline"):
            facts = self.doc.get(side) or {}
            fmt = facts.get("format")
            if not fmt:
                continue  # a Comet experiment
            notes = " ".join(str(note) for note in facts.get("format_notes") or ())
            notices.append(Notice("info", f"The {side} side is in the {fmt} format." + (f" {notes}" if notes else "")))
        return tuple(notices)

    def audit_notices(self) -> tuple[Notice, ...]:
        """Top-of-page notices: imported formats, then manifests rebuilt without the task files."""
        count = (self.doc.get("limitations") or {}).get("fallback_without_task_files") or 0
        if not count:
            return self.format_notices()
        return self.format_notices() + (
            Notice(
                "warning",
                f"The task files were not available: {count:,} run record(s) had their case manifest rebuilt"
                " without a tasks folder, so every task path hashed as missing. Their task, instruction,"
                " environment and data hashes prove nothing, and the audit marks them not hashed.",
            ),
        )

    def hashes_table(self, task: str) -> tuple[Table, tuple[str, ...]]:
        entry = self.audit_by_task.get(task) or {"candidate": None, "baseline": None}
        cand, base = entry["candidate"], entry["baseline"]
        states: Mapping[str, str] = entry.get("states") or {}
        rows = []
        differ = []
        for key, label in MANIFEST_FIELDS:
            c_val = cand.get(key) if cand else None
            b_val = base.get(key) if base else None
            state = states.get(key)
            if state is not None:  # the audit state the comparison recorded
                verdict = Cell(
                    PART_STATES.get(state, state), _STATE_SORT.get(state, "9"), None, _STATE_CLS.get(state, "na")
                )
                if state in ("differs", "missing-candidate", "missing-baseline", "one-sided"):
                    differ.append(label)
            elif cand and base:
                same = c_val == b_val
                verdict = Cell("same", "1", None, "same") if same else Cell("differs", "0", None, "diff")
                if not same:
                    differ.append(label)
            else:
                verdict = Cell("N/A (one side has no record)", "", None, "na")
            rows.append(
                Row(
                    (
                        Cell(label, None, None, "", key),
                        Cell(fmt.text(c_val) if cand else "no record", None, None, "mono hash"),
                        Cell(fmt.text(b_val) if base else "no record", None, None, "mono hash"),
                        verdict,
                    ),
                    "mismatch" if verdict.cls == "diff" else "",
                    f"part-{key.removesuffix('_hash')}",
                )
            )
        table = Table(
            id="hashes-table",
            caption="Case manifest hash components (first record of the task on each side)",
            columns=(Column("Component"), Column("Candidate"), Column("Baseline"), Column("Same?")),
            rows=tuple(rows),
            sortable=False,
        )
        return table, tuple(differ)

    @cached_property
    def _shown_sides(self) -> dict[tuple[str, int], set[str]]:
        """(task, rep) -> the sides whose run page shows the transcript (once per comparison, not per row)."""
        shown: dict[tuple[str, int], set[str]] = {}
        for key, (variant, problem) in self.source.run_pages.items():
            if not variant and problem is None:
                shown.setdefault((key[1], key[2]), set()).add(key[0])
        return shown

    def _paired_runs(self, task: str, rep: int) -> bool:
        """True when both runs of the pair have a run page (their transcripts are aligned on a pair page)."""
        return self._shown_sides.get((task, rep), set()) >= {"candidate", "baseline"}

    def _has_steps(self, task: str) -> bool:
        return any(self._paired_runs(task, int(pair["rep"])) for pair in self.pairs_by_task.get(task, ()))

    def _steps_cell(self, task: str, rep: int) -> tuple[Cell, ...]:
        if not self._has_steps(task):
            return ()
        if not self._paired_runs(task, rep):
            return (Cell("—", None, None, "na"),)
        return (Cell("aligned steps", None, rel(task_url(self.id, task), pair_url(self.id, task, rep))),)

    def pairs_table(self, task: str) -> Table:
        rows = tuple(
            Row(
                (
                    fmt.num_cell(pair["rep"]),
                    Cell(fmt.hash12(pair["case_hash"]), None, None, "mono", pair["case_hash"]),
                    fmt.bool_cell(pair["candidate_passed"]),
                    fmt.bool_cell(pair["baseline_passed"]),
                    *self._steps_cell(task, int(pair["rep"])),
                ),
                "mismatch" if pair["candidate_passed"] != pair["baseline_passed"] else "",
                f"pair-r{int(pair['rep'])}",  # a stable anchor: task page#pair-r2
            )
            for pair in self.pairs_by_task.get(task, ())
        )
        return Table(
            id="pairs-table",
            caption="Strictly matched pairs",
            columns=(Column("Rep", True), Column("Case hash"), Column("Candidate"), Column("Baseline"))
            + (
                (Column("Steps", help="the two runs' tool calls aligned, first divergence marked"),)
                if self._has_steps(task)
                else ()
            ),
            rows=rows,
            empty="No strictly matched pairs for this task.",
        )

    def _runs(self, task: str) -> list[Mapping[str, Any]]:
        order = {side: index for index, side in enumerate(SIDES)}
        return sorted(
            self.runs_by_task.get(task, ()),
            key=lambda run: (run["rep"], order.get(run["side"], 9), str(run["file"])),
        )

    def _raw_stdout_cell(self, task: str, run: Mapping[str, Any]) -> Cell:
        """The artifact state; a link to the run page when the transcript is shown, else why not."""
        text = f"{run['artifact']}: {run['artifact_reason']}" if run.get("artifact_reason") else str(run["artifact"])
        cls = "warn" if run["artifact"] in ("rejected", "absent") else ""
        key = (str(run["side"]), task, int(run["rep"]), str(run["file"]))
        if key not in self.source.run_pages:
            return Cell(text, None, None, cls)
        variant, problem = self.source.run_pages[key]
        if problem is not None:
            return Cell(f"{text} · transcript not shown: {problem}", None, None, "warn")
        href = rel(task_url(self.id, task), run_url(self.id, task, key[0], key[2], 1, variant))
        return Cell(f"{text} · transcript", None, href, cls)

    def runs_table(self, task: str) -> Table:
        rows = []
        anchors: Counter[str] = Counter()
        for run in self._runs(task):
            # a stable anchor per run: task page#run-candidate-r2 (-2, -3, ... for a repeated report of one key)
            anchor = f"run-{run['side']}-r{int(run['rep'])}"
            anchors[anchor] += 1
            anchor += f"-{anchors[anchor]}" if anchors[anchor] > 1 else ""
            quality = run["quality"] or {}
            manifest = run["manifest"] or {}
            checks = run["checks_failed"] or []
            quality_text = str(quality.get("status", fmt.NA))
            if quality.get("reason_code"):
                quality_text += f" ({quality['reason_code']})"
            rows.append(
                Row(
                    (
                        fmt.num_cell(run["rep"]),
                        Cell(side_label(run["side"])),
                        fmt.bool_cell(run["passed"]),
                        Cell(
                            "; ".join(str(c) for c in checks) if checks else "—",
                            str(len(checks)),
                            None,
                            "fail" if checks else "",
                        ),
                        Cell(quality_text),
                        fmt.bool_cell(quality.get("include_in_analysis"), "included", "excluded"),
                        Cell(
                            f"{'valid' if manifest.get('valid') else 'invalid'} · {manifest.get('source', fmt.NA)}",
                            None,
                            None,
                            "" if manifest.get("valid") else "fail",
                            manifest.get("case_hash"),
                        ),
                        fmt.bool_cell(run["paired"], "paired", "unpaired"),
                        self._raw_stdout_cell(task, run),
                        Cell(str(run["file"]), None, None, "mono"),
                        _provenance_cell(run.get("provenance")),
                    ),
                    "",
                    anchor,
                )
            )
        return Table(
            id="runs-table",
            caption="Every repetition, both sides",
            columns=(
                Column("Rep", True),
                Column("Side"),
                Column("Result"),
                Column("Failed checks"),
                Column("Quality"),
                Column("Analysis"),
                Column("Manifest"),
                Column("Paired"),
                Column("Raw stdout", help="verified, rebased, absent or rejected"),
                Column("Report file"),
                Column("Upstream", help="identities the report carries: source run, trial, failure mode, model"),
            ),
            rows=tuple(rows),
            empty="No reports of either treatment for this task.",
        )

    def telemetry_table(self, task: str) -> Table:
        """Re-derived telemetry per run, and below each run what its harness reported, in its own row."""
        rows = []
        not_derived = (_NA_NUM,) * len(_REPORTED_ONLY)  # raw stdout re-derives none of these
        for run in self._runs(task):
            reported = run.get("reported_telemetry")
            lead = (fmt.num_cell(run["rep"]), Cell(side_label(run["side"])))
            telemetry = run["telemetry"]
            cells = _telemetry_cells(telemetry if isinstance(telemetry, dict) else None, TELEMETRY_FIELDS)
            rows.append(Row((*lead, _RAW_STDOUT, *cells, *not_derived), "" if telemetry else "muted"))
            if isinstance(reported, dict):
                cells = _telemetry_cells(reported, _TELEMETRY_COLUMNS)
                rows.append(Row((*lead, _REPORTED, *cells), "reported"))
        return Table(
            id="telemetry-table",
            caption="Telemetry: re-derived from raw stdout (paired runs only; N/A otherwise), and, in rows"
            " of their own, the numbers the harness reported (never re-derived)",
            columns=(Column("Rep", True), Column("Side"), Column("Source"))
            + tuple(Column(label, True, key) for key, label, _kind in _TELEMETRY_COLUMNS),
            rows=tuple(rows),
            empty="No runs.",
        )

    def task_page(self, index: int) -> PageBundle:
        task = self.tasks[index]
        url = task_url(self.id, task)
        outcome = self.outcome_by_task.get(task)
        hashes, differ = self.hashes_table(task)
        instruction = self.source.instructions.get(task)
        if instruction is not None:
            note = None
        elif self.source.tasks_configured and (problem := task_folder_problem(task)) is not None:
            note = f"The instruction is not looked up and this task's tasks-tree paths hash as missing: {problem}."
        elif self.source.tasks_configured:
            note = "No readable instruction.md was found for this task in the tasks folder."
        else:
            note = "No tasks folder is configured for this comparison, so the instruction is not shown."
        inputs = list(self.source.inputs)
        if instruction is not None:
            inputs.append(InputDigest("instruction", "instruction.md", sha256_text(instruction), "UTF-8 text as read"))
        facts = [("Comparison", self.source.title)]
        if outcome is not None:
            facts += [
                ("Matched reps", ",".join(str(r) for r in outcome["reps"]) or "—"),
                (f"{self.treatment['candidate']} passes", f"{outcome['candidate_passes']}/{outcome['pairs']}"),
                (f"{self.treatment['baseline']} passes", f"{outcome['baseline_passes']}/{outcome['pairs']}"),
            ]
        facts.append(("Issues for this task", str(len(self.issues_by_task.get(task, ())))))
        previous = (
            Link(self.tasks[index - 1], rel(url, task_url(self.id, self.tasks[index - 1]))) if index > 0 else None
        )
        following = (
            Link(self.tasks[index + 1], rel(url, task_url(self.id, self.tasks[index + 1])))
            if index + 1 < len(self.tasks)
            else None
        )
        page = TaskPage(
            meta=self.meta(
                url,
                f"Task {task}",
                (("Home", index_url()), (self.source.title, self.url)),
                inputs,
                (Link("data.json", "data.json"),),
            ),
            comparison_id=self.id,
            task=task,
            instruction=instruction,
            instruction_note=note,
            facts=tuple(facts),
            hashes_table=hashes,
            hashes_differ=differ,
            pairs_table=self.pairs_table(task),
            runs_table=self.runs_table(task),
            telemetry_table=self.telemetry_table(task),
            issues_table=self.issues_table(
                self.issues_by_task.get(task, ()), url, with_task=False, anchor="task-issues-table"
            ),
            previous=previous,
            next=following,
        )
        # Where this task's entries sit in the comparison's data.json, not a second copy of them
        # (the copies were a quarter of a large site's bytes): docs/site.md, "What the site contains".
        data = {
            "schema": TASK_SCHEMA,
            "comparison": self.id,
            "task": task,
            "document": rel(url, self.url.removesuffix("index.html") + "data.json"),
            "instruction_sha256": sha256_text(instruction) if instruction is not None else None,
            "positions": {key: self.positions[key].get(task, []) for key in TASK_LISTS},
        }
        return PageBundle(page, data)


_TELEMETRY_COLUMNS = (*TELEMETRY_FIELDS, *_REPORTED_ONLY)
_NA_NUM = fmt.num_cell(None, fmt.NA)  # cells are immutable: one object serves every undefined value
_RAW_STDOUT = Cell("raw stdout")
_REPORTED = Cell("reported by the harness")
_SAFE_INT = 1 << 53  # ints below this format exactly as their float does
_COUNT = "count"


def _telemetry_cells(values: Mapping[str, Any] | None, fields: tuple[tuple[str, str, str], ...]) -> list[Cell]:
    """One number cell per field of *values*: ``fmt.num_cell(value, shown)`` with the field kind's format.

    The same cells the general formatters make (``fmt.count`` for counts, else ``fmt.by_kind``); an
    undefined value is the shared N/A cell, and a plain int or finite float (every telemetry number)
    is formatted here without the general checks.
    """
    cells = []
    for key, _label, kind in fields:
        value = values.get(key) if values is not None else None
        if isinstance(value, list):  # a list of tool calls counts as its length
            value = len(value)
        if value is None:
            cells.append(_NA_NUM)
            continue
        vtype = type(value)
        if vtype is int and -_SAFE_INT < value < _SAFE_INT:
            shown = f"{value:,}" if kind == _COUNT else fmt.kind_format(kind).format(value)
            cells.append(Cell(shown, str(value), None, "num"))
        elif vtype is float and math.isfinite(value):
            if kind == _COUNT:
                shown = f"{value:,}" if float(value).is_integer() else f"{value:.2f}"
            else:
                shown = fmt.kind_format(kind).format(value)
            cells.append(Cell(shown, repr(value), None, "num"))
        else:
            shown = fmt.by_kind(value, kind) if kind != _COUNT else fmt.count(value)
            cells.append(fmt.num_cell(value, shown))
    return cells


def _provenance_cell(provenance: Any) -> Cell:
    """The upstream identities of one run (source run, trial, failure mode, model), or a dash."""
    if not isinstance(provenance, Mapping) or not provenance:
        return Cell("—", None, None, "na")
    parts = [f"{label}: {provenance[key]}" for key, label in _PROVENANCE if provenance.get(key)]
    if provenance.get("model"):
        parts.append(f"model: {provenance['model']}")
    return Cell(" · ".join(parts), None, None, "mono")
