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
from generator.model.comparison_view import RunEntry
from generator.model.runs import PART_STATES, task_folder_problem
from generator.pages import format as fmt
from generator.pages.comparison.context import (
    MANIFEST_FIELDS,
    TASK_LISTS,
    TELEMETRY_FIELDS,
    ComparisonContext,
    side_label,
)
from generator.pages.models import (
    Cell,
    Column,
    InputDigest,
    Link,
    Notice,
    NumberRow,
    PageBundle,
    Row,
    Table,
    TaskPage,
)
from generator.pages.names import phrase
from generator.pages.runs.grouped import run_key
from generator.pages.urls import index_url, pair_url, rel, run_url, task_transcripts_url, task_url

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
_PROVENANCE = (
    ("run", "run"),
    ("trial_name", "trial"),
    ("failure_mode", "failure mode"),
    ("agent_run_id", "agent run"),
    ("model", "model"),
)
# Reported-only telemetry columns, after the re-derived ones.
_REPORTED_ONLY = (
    ("agent_duration_seconds", "Agent duration", "seconds"),
    ("api_calls", "LLM API calls", "count"),
    ("tool_time_seconds", "Tool execution time", "seconds"),
)


class TaskPages(ComparisonContext):
    """The task pages of one comparison."""

    _task_runs: tuple[str, list[RunEntry]] | None = None  # the last task page's runs (see _runs)

    def format_notices(self) -> tuple[Notice, ...]:
        """Each imported side's format and what that format cannot record (e.g. Harbor's trial order)."""
        notices = []
        for side in SIDES:
            facts = self.view.sides[side]
            if not facts.imported:
                continue  # a Comet experiment
            notes = " ".join(str(note) for note in facts.format_notes)
            notices.append(
                Notice("info", f"The {side} side is in the {facts.format} format." + (f" {notes}" if notes else ""))
            )
        return tuple(notices)

    def audit_notices(self) -> tuple[Notice, ...]:
        """Top-of-page notices: imported formats, then manifests rebuilt without the task files."""
        count = self.view.limitations.fallback_without_task_files
        if not count:
            return self.format_notices()
        return self.format_notices() + (
            Notice(
                "warning",
                f"The task files were not available: {count:,} run record(s) had their case manifest rebuilt"
                " without a tasks folder, so every task path hashed as missing. Their task, instruction,"
                " environment and data hashes prove nothing, and the audit marks them not hashed.",
                f"task files not available, so {count:,} run record(s) have case hashes that prove nothing",
            ),
        )

    def hashes_table(self, task: str) -> tuple[Table, tuple[str, ...]]:
        entry = self.audit_by_task.get(task)
        cand, base = (entry.candidate, entry.baseline) if entry else (None, None)
        states: Mapping[str, str] = entry.states if entry else {}
        rows = []
        differ = []
        for key, label in MANIFEST_FIELDS:
            c_val = cand.field_value(key) if cand else None
            b_val = base.field_value(key) if base else None
            state = states.get(key)
            if state is not None:  # the audit state the comparison recorded
                verdict = _shared_cell(
                    PART_STATES.get(state, state), _STATE_SORT.get(state, "9"), _STATE_CLS.get(state, "na")
                )
                if state in ("differs", "missing-candidate", "missing-baseline", "one-sided"):
                    differ.append(label)
            elif cand and base:
                same = c_val == b_val
                verdict = _SAME if same else _DIFFERS
                if not same:
                    differ.append(label)
            else:
                verdict = _ONE_SIDED
            c_cell = Cell(fmt.text(c_val) if cand else "no record", None, None, "mono hash")
            b_text = fmt.text(b_val) if base else "no record"
            b_cell = c_cell if b_text == c_cell.text else Cell(b_text, None, None, "mono hash")  # one object
            rows.append(
                Row(
                    (_component_cell(label, key), c_cell, b_cell, verdict),
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
        return any(self._paired_runs(task, int(pair.rep)) for pair in self.pairs_by_task.get(task, ()))

    def _steps_cell(self, task: str, rep: int, steps: bool) -> tuple[Cell, ...]:
        """The Steps cell of a pair row (none when no pair of the task has aligned steps: *steps*)."""
        if not steps:
            return ()
        if not self._paired_runs(task, rep):
            return (Cell("—", None, None, "na"),)
        target = (
            task_transcripts_url(self.id, task) + f"#pair-r{rep}"
            if self.source.grouped
            else pair_url(self.id, task, rep)
        )
        return (Cell("aligned steps", None, rel(task_url(self.id, task), target)),)

    def pairs_table(self, task: str) -> Table:
        steps: bool | None = None  # whether the task has a Steps column: looked up once, at the first pair
        rows = []
        for pair in self.pairs_by_task.get(task, ()):
            lead = (
                _rep_cell(pair.rep),
                Cell(fmt.hash12(pair.case_hash), None, None, "mono", pair.case_hash),
                fmt.bool_cell(pair.candidate_passed),
                fmt.bool_cell(pair.baseline_passed),
            )
            rep = int(pair.rep)
            if steps is None:
                steps = self._has_steps(task)
            rows.append(
                Row(
                    (*lead, *self._steps_cell(task, rep, steps)),
                    "mismatch" if pair.candidate_passed != pair.baseline_passed else "",
                    f"pair-r{rep}",  # a stable anchor: task page#pair-r2
                )
            )
        return Table(
            id="pairs-table",
            caption="Strictly matched pairs",
            columns=(Column("Rep", True), Column("Case hash"), Column("Candidate"), Column("Baseline"))
            + (
                (Column("Steps", help="the two runs' tool calls aligned, first divergence marked"),)
                if (steps if steps is not None else self._has_steps(task))
                else ()
            ),
            rows=tuple(rows),
            empty="No strictly matched pairs for this task.",
        )

    def _runs(self, task: str) -> list[RunEntry]:
        """The task's runs by repetition, then side (made once a task page: its two tables share them)."""
        cached = self._task_runs
        if cached is not None and cached[0] == task:
            return cached[1]
        order = {side: index for index, side in enumerate(SIDES)}
        runs = sorted(self.runs_of(task), key=lambda run: (run.rep, order.get(run.side, 9), str(run.file)))
        self._task_runs = (task, runs)
        return runs

    def _raw_stdout_cell(self, task: str, run: RunEntry) -> Cell:
        """The artifact state; a link to the run page when the transcript is shown, else why not."""
        status = run.artifact_status
        text = f"{status}: {run.artifact_reason}" if run.artifact_reason else str(status)
        cls = "warn" if status in ("rejected", "absent") else ""
        key = (str(run.side), task, int(run.rep), str(run.file))
        if key not in self.source.run_pages:
            return _shared_cell(text, None, cls)
        variant, problem = self.source.run_pages[key]
        if problem is not None:
            return _shared_cell(f"{text} · transcript not shown: {problem}", None, "warn")
        if self.source.grouped:  # the run's row in the index of the task's transcript pages
            target = task_transcripts_url(self.id, task) + f"#run-{run_key(key[0], key[2], variant)}"
        else:
            target = run_url(self.id, task, key[0], key[2], 1, variant)
        href = rel(task_url(self.id, task), target)
        return Cell(f"{text} · transcript", None, href, cls)

    def runs_table(self, task: str) -> Table:
        rows = []
        anchors: Counter[str] = Counter()
        for run in self._runs(task):
            # a stable anchor per run: task page#run-candidate-r2 (-2, -3, ... for a repeated report of one key)
            anchor = f"run-{run.side}-r{int(run.rep)}"
            anchors[anchor] += 1
            anchor += f"-{anchors[anchor]}" if anchors[anchor] > 1 else ""
            quality = run.quality
            manifest = run.manifest
            checks = run.checks_failed
            quality_text = str(quality.status)
            if quality.reason_code:
                quality_text += f" ({quality.reason_code})"
            rows.append(
                Row(
                    (
                        _rep_cell(run.rep),
                        _side_cell(run.side),
                        fmt.bool_cell(run.passed),
                        _shared_cell(
                            "; ".join(str(c) for c in checks) if checks else "—",
                            str(len(checks)),
                            "fail" if checks else "",
                        ),
                        _shared_cell(quality_text),
                        fmt.bool_cell(quality.include_in_analysis, "included", "excluded"),
                        Cell(
                            f"{'valid' if run.manifest_valid else 'invalid'} · {manifest.source}",
                            None,
                            None,
                            "" if run.manifest_valid else "fail",
                            manifest.case_hash,
                        ),
                        fmt.bool_cell(run.paired, "paired", "unpaired"),
                        self._raw_stdout_cell(task, run),
                        Cell(str(run.file), None, None, "mono"),
                        _provenance_cell(run.provenance),
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
        """Re-derived telemetry per run, and below each run what its harness reported, in its own row.

        Its number cells are :class:`NumberRow` strings, not a Cell per value (most of a task page's cells).
        """
        rows: list[Row | NumberRow] = []
        dropped = 0  # rows whose every value is N/A (an empty sort key): counted, not shown
        for run in self._runs(task):
            reported = run.reported
            lead = (_rep_cell(run.rep), _side_cell(run.side))
            telemetry = run.telemetry
            texts, sorts = _telemetry_numbers(telemetry, TELEMETRY_FIELDS)
            texts += _NOT_DERIVED_TEXTS  # raw stdout re-derives none of these
            sorts += _NOT_DERIVED_SORTS
            if any(sorts):
                rows.append(
                    NumberRow(
                        (*lead, _RAW_STDOUT), tuple(texts), tuple(sorts), "" if telemetry is not None else "muted"
                    )
                )
            else:
                dropped += 1
            if reported is not None:
                texts, sorts = _telemetry_numbers(reported, _TELEMETRY_COLUMNS)
                if any(sorts):
                    rows.append(NumberRow((*lead, _REPORTED), tuple(texts), tuple(sorts), "reported"))
                else:
                    dropped += 1
        without = f"{dropped:,} row{'s' if dropped != 1 else ''} with no value (every column N/A)"
        return Table(
            id="telemetry-table",
            caption="Telemetry: re-derived from raw stdout (paired runs only; N/A otherwise), and, in rows"
            " of their own, the numbers the harness reported (never re-derived)"
            + (f"; {without} not shown" if dropped and rows else ""),
            columns=(Column("Rep", True), Column("Side"), Column("Source"))
            + tuple(Column(label, True, key) for key, label, _kind in _TELEMETRY_COLUMNS),
            rows=tuple(rows),
            empty=f"No telemetry: {without}." if dropped else "No runs.",
        )

    def _instruction_note(self, task: str, instruction: str | None) -> str | None:
        """Why a task page shows no instruction (None when it shows one)."""
        if instruction is not None:
            return None
        if self.source.tasks_configured and (problem := task_folder_problem(task)) is not None:
            return f"The instruction is not looked up and this task's tasks-tree paths hash as missing: {problem}."
        if self.source.tasks_configured:
            return "No readable instruction.md was found for this task in the tasks folder."
        return "No tasks folder is configured for this comparison, so the instruction is not shown."

    def _task_facts(self, task: str) -> tuple[tuple[str, str], ...]:
        """The task page's facts: its comparison, matched repetitions, each side's passes and its issues."""
        outcome = self.outcome_by_task.get(task)
        facts = [("Comparison", self.source.title)]
        if outcome is not None:
            facts += [
                ("Matched reps", ",".join(str(r) for r in outcome.reps) or "—"),
                *(
                    (phrase("{} passes", self.treatment[side]), f"{outcome.passes(side)}/{outcome.pairs}")
                    for side in SIDES
                ),
            ]
        facts.append(("Issues for this task", str(len(self.issues_by_task.get(task, ())))))
        return tuple(facts)

    def _neighbour(self, url: str, index: int) -> Link | None:
        """A link to the task at *index* in the comparison's order, or None past either end."""
        if not 0 <= index < len(self.tasks):
            return None
        return Link(self.tasks[index], rel(url, task_url(self.id, self.tasks[index])))

    def task_page(self, index: int) -> PageBundle:
        task = self.tasks[index]
        url = task_url(self.id, task)
        hashes, differ = self.hashes_table(task)
        instruction = self.source.instructions.get(task)
        note = self._instruction_note(task, instruction)
        inputs = list(self.source.inputs)
        if instruction is not None:
            inputs.append(InputDigest("instruction", "instruction.md", sha256_text(instruction), "UTF-8 text as read"))
        facts = self._task_facts(task)
        previous, following = self._neighbour(url, index - 1), self._neighbour(url, index + 1)
        page = TaskPage(
            meta=self.meta(
                url,
                phrase("Task {}", task),
                (("Home", index_url()), (self.source.title, self.url)),
                inputs,
                (Link("data.json", "data.json"),),
            ),
            comparison_id=self.id,
            task=task,
            instruction=instruction,
            instruction_note=note,
            facts=facts,
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
_NOT_DERIVED_TEXTS = (fmt.NA,) * len(_REPORTED_ONLY)  # fmt.num_cell(None, fmt.NA): N/A, no sort key
_NOT_DERIVED_SORTS = ("",) * len(_REPORTED_ONLY)
_RAW_STDOUT = Cell("raw stdout")
_REPORTED = Cell("reported by the harness")
_SAFE_INT = 1 << 53  # ints below this format exactly as their float does
_COUNT = "count"


def _telemetry_numbers(
    values: Mapping[str, Any] | None, fields: tuple[tuple[str, str, str], ...]
) -> tuple[list[str], list[str]]:
    """The display texts and sort keys of one number cell per field of *values*: what
    ``fmt.num_cell(value, shown)`` holds with the field kind's format (``fmt.count`` for counts, else
    ``fmt.by_kind``); an undefined value is ``N/A`` with an empty key.

    A plain int or finite float (every telemetry number) is formatted here without the general checks,
    and each distinct (kind, value) once per build: token counts and context windows repeat across runs.
    """
    keys, kinds = _field_specs(fields)
    if values is None:
        return [fmt.NA] * len(keys), [""] * len(keys)
    texts: list[str] = []
    sorts: list[str] = []
    add_text, add_sort = texts.append, sorts.append
    known = _NUMBERS
    for kind, value in zip(kinds, map(values.get, keys), strict=True):
        vtype = type(value)
        if vtype is int:
            # an int key (never a bool: its type is not int): no str key equals it
            hit = known.get((kind, value))  # type: ignore[arg-type]
            if hit is not None:
                add_text(hit[0])
                add_sort(hit[1])
                continue
        elif vtype is float:
            sort = repr(value)  # the float's one shortest repr: it decides the shown text
            hit = known.get((kind, sort))
            if hit is not None:
                add_text(hit[0])
                add_sort(sort)
                continue
        elif value is None:
            add_text(fmt.NA)
            add_sort("")
            continue
        elif isinstance(value, list):  # a list of tool calls counts as its length
            value = len(value)
            vtype = int
        shown, sort = _number(kind, value, vtype)
        add_text(shown)
        add_sort(sort)
    return texts, sorts


def _number(kind: str, value: Any, vtype: type) -> tuple[str, str]:
    """One value's (shown, sort key), formatted; plain numbers are remembered in ``_NUMBERS``."""
    if vtype is int and -_SAFE_INT < value < _SAFE_INT:
        shown = f"{value:,}" if kind == _COUNT else fmt.kind_format(kind).format(value)
        return _known((kind, value), shown, str(value))
    if vtype is float and math.isfinite(value):
        sort = repr(value)
        if kind == _COUNT:
            shown = f"{value:,}" if float(value).is_integer() else f"{value:.2f}"
        else:
            shown = fmt.kind_format(kind).format(value)
        return _known((kind, sort), shown, sort)
    shown = fmt.by_kind(value, kind) if kind != _COUNT else fmt.count(value)
    cell = fmt.num_cell(value, shown)
    return cell.text, cell.sort or ""


_SPECS: dict[tuple[tuple[str, str, str], ...], tuple[tuple[str, ...], tuple[str, ...]]] = {}


def _field_specs(fields: tuple[tuple[str, str, str], ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The keys and kinds of *fields* (label dropped), once per fields tuple."""
    spec = _SPECS.get(fields)
    if spec is None:
        spec = _SPECS[fields] = (tuple(key for key, _l, _k in fields), tuple(kind for _k, _l, kind in fields))
    return spec


# (kind, int value or float repr) -> (shown, sort key): each distinct telemetry number formatted once
_NUMBERS: dict[tuple[str, int | str], tuple[str, str]] = {}


def _known(key: tuple[str, int | str], shown: str, sort: str) -> tuple[str, str]:
    if len(_NUMBERS) >= 1 << 16:
        _NUMBERS.clear()
    hit = _NUMBERS[key] = (shown, sort)
    return hit


_NO_PROVENANCE = Cell("—", None, None, "na")
_SAME = Cell("same", "1", None, "same")
_DIFFERS = Cell("differs", "0", None, "diff")
_ONE_SIDED = Cell("N/A (one side has no record)", "", None, "na")
_COMPONENTS: dict[tuple[str, str], Cell] = {}


def _component_cell(label: str, key: str) -> Cell:
    """``Cell(label, None, None, "", key)`` for a manifest component, one object per component."""
    cell = _COMPONENTS.get((label, key))
    if cell is None:
        cell = _COMPONENTS[(label, key)] = Cell(label, None, None, "", key)
    return cell


_SHARED: dict[tuple[str, str | None, str], Cell] = {}


def _shared_cell(text: str, sort: str | None = None, cls: str = "") -> Cell:
    """``Cell(text, sort, None, cls)``, one object per distinct str triple (cells are immutable, and
    the renderer writes a cell it has seen once from what it wrote)."""
    if type(text) is not str or not (sort is None or type(sort) is str) or type(cls) is not str:
        return Cell(text, sort, None, cls)
    key = (text, sort, cls)
    cell = _SHARED.get(key)
    if cell is None:
        if len(_SHARED) >= 1 << 10:  # few are kept: cells are objects the garbage collector walks
            _SHARED.clear()
        cell = _SHARED[key] = Cell(text, sort, None, cls)
    return cell


_SIDE_CELLS: dict[str, Cell] = {}
_REP_CELLS: dict[int, Cell] = {}


def _side_cell(side: Any) -> Cell:
    """``Cell(side_label(side))``, one object per side (cells are immutable)."""
    cell = _SIDE_CELLS.get(side) if type(side) is str else None
    if cell is None:
        cell = Cell(side_label(side))
        if type(side) is str and len(_SIDE_CELLS) < 64:
            _SIDE_CELLS[side] = cell
    return cell


def _rep_cell(rep: Any) -> Cell:
    """``fmt.num_cell(rep)``, one object per int repetition."""
    cell = _REP_CELLS.get(rep) if type(rep) is int else None
    if cell is None:
        cell = fmt.num_cell(rep)
        if type(rep) is int and len(_REP_CELLS) < 4096:
            _REP_CELLS[rep] = cell
    return cell


def _provenance_cell(provenance: tuple[tuple[str, str], ...]) -> Cell:
    """The upstream identities of one run (source run, trial, failure mode, model), or a dash."""
    shown = dict(provenance)
    parts = [f"{label}: {shown[key]}" for key, label in _PROVENANCE if shown.get(key)]
    if not parts:
        return _NO_PROVENANCE
    return _shared_cell(" · ".join(parts), None, "mono")
