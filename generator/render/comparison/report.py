"""The Markdown comparison report (``evalsite compare --format markdown``).

Sections follow the order a reviewer needs them: what was compared and under
which rules, how much aligned, what the expected matrix says, the metrics,
duration and efficiency from raw stdout, the hash audit, per-task outcomes,
and finally every alignment issue.  Only experiment folder *names* are
printed.

Every untrusted field (task, treatment, experiment and file names, issue
details, skip reasons) goes through :func:`untrusted` (or :func:`code` inside
a code span): cut to :data:`~generator.pages.format.FIELD_CAP` characters with
the cut disclosed, invisible and bidirectional-control characters written as
``[U+XXXX]``, whitespace collapsed, and Markdown and HTML escaped: ``<``,
``>`` and ``&`` as entities, ``|`` as ``&#124;``, backslash, backtick, ``*``,
``~``, ``[`` and ``]`` backslash-escaped, and ``_`` too where it could open or
close emphasis (not inside a word, so ``COMET_FULL_039`` stays as it is).  A
hostile task name can neither break a table nor become a tag or a link under
any renderer, with or without HTML.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from generator.model.common import SIDES, short_hash
from generator.model.comparison import ComparisonResult
from generator.model.logs import status_sentences
from generator.model.price import Price
from generator.model.runs import PART_STATES
from generator.pages import format as fmt
from generator.pages.comparison.context import AUDIT_COLUMNS, MANIFEST_FIELDS
from generator.pages.comparison.price import price_note, price_rows
from generator.pages.names import visible
from generator.render.comparison import wording
from generator.render.comparison.scores import pass_verdict_heading, score_lines

__all__ = ["cell", "code", "comparison_markdown", "metric", "row", "table", "untrusted"]

DURATION_SOURCE = "raw_stdout:extract_events"
Doc = Mapping[str, Any]


_ESCAPES = {
    "\\": "\\\\",
    "`": "\\`",
    "*": "\\*",
    "~": "\\~",
    "[": "\\[",
    "]": "\\]",
    "<": "&lt;",
    ">": "&gt;",
    "&": "&amp;",
    "|": "&#124;",
}
_SPECIAL = re.compile(r"[\\`*~\[\]<>&|]|(?<![^\W_])_|_(?![^\W_])")


def _shown(value: object) -> str:
    return " ".join(visible(fmt.capped(str(value))).split())


def untrusted(value: object) -> str:
    """An untrusted field as inert Markdown text (see the module text); a lone ``*`` (every task) stays."""
    text = _shown(value)
    if text == "*":
        return text
    return _SPECIAL.sub(lambda found: _ESCAPES.get(found.group(), "\\_"), text)


def code(value: object) -> str:
    """An untrusted field as a code span: fenced by one more backtick than its longest run of backticks."""
    text = _shown(value)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def cell(value: object) -> str:
    """One table cell: no line breaks, no column separators."""
    text = " ".join(str(value).split())
    return text.replace("|", "\\|")


def row(values: Iterable[object]) -> str:
    return "| " + " | ".join(cell(value) for value in values) + " |"


def table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> list[str]:
    return [row(header), "|" + "|".join("---" for _ in header) + "|", *(row(r) for r in rows)]


def metric(value: float | None) -> str:
    return "N/A" if value is None else f"{value:.2f}"


def _sides_text(sides: Sequence[str]) -> str:
    return " and ".join(sides)


def comparison_markdown(result: ComparisonResult, document: Doc, price: Price | None = None) -> str:
    """The report of one result, from its JSON document (and the decision's *price*, issue 28)."""
    doc = document
    cand, base = doc["candidate"], doc["baseline"]
    ks = result.ks
    lines = [
        "# Strict experiment comparison",
        "",
        f"- Candidate: {code(cand['treatment'])} from {code(cand['experiment'])}",
        f"- Baseline: {code(base['treatment'])} from {code(base['experiment'])}",
        f"- Requested k: {', '.join(str(k) for k in ks)}",
        "",
        *_status_lines(result),
        "## Rules applied",
        "",
        *(wording.rules_lines(doc) if wording.imported(doc) else wording.COMET_RULES),
        "",
        "## Alignment summary",
        "",
        *table(
            ["Candidate runs", "Baseline runs", "Expected task/rep keys", "Strictly matched pairs", "Tasks", "Issues"],
            [
                [
                    cand["runs"],
                    base["runs"],
                    doc["expected_keys"],
                    len(doc["pairs"]),
                    len(doc["tasks"]),
                    len(doc["issues"]),
                ]
            ],
        ),
        "",
        *score_lines(doc),
        *_verdict_section(doc),
        *_price_section(price),
        *_matrix_section(doc),
        *_metrics_section(doc, ks),
        *_duration_section(doc),
        *_efficiency_section(doc),
        *_audit_section(doc),
        *_outcomes_section(doc),
        *_issues_section(doc),
        *_disclosures_section(doc),
    ]
    return "\n".join(lines).rstrip("\n") + "\n"


def _status_lines(result: ComparisonResult) -> list[str]:
    """A run that did not finish (a cancelled or errored Inspect log), said before anything else."""
    sentences = status_sentences({side: result.experiments[side].logs for side in SIDES})
    return [line for sentence in sentences for line in (f"> **Run status:** {untrusted(sentence)}", "")]


def _label(doc: Doc) -> str:
    """The header of the column naming each side: Comet's treatment, or the side's label."""
    return wording.label_column() if wording.imported(doc) else "Treatment"


def _percent_points(value: float | None) -> str:
    return "N/A" if value is None else f"{value * 100:+.1f} pp"


def _p(value: float | None) -> str:
    shown = fmt.p_value_report(value)
    return f"p {shown}" if shown.startswith("<") else f"p = {shown}"


def _verdict_section(doc: Doc) -> list[str]:
    stats = doc["statistics"]
    verdict = stats["verdict"]
    paired = stats["paired"]
    diff, interval = paired["difference"], paired["difference"]["interval"]
    mcnemar, flip, runs = paired["mcnemar"], paired["sign_flip"], paired["runs"]
    sentence = verdict["sentence"]
    lines = [
        pass_verdict_heading(doc),
        "",
        f"**{sentence[:1].upper()}{sentence[1:]}.**",
        "",
        f"- Difference in pass@1 (candidate − baseline) over {diff['tasks']} task(s) with matched pairs:"
        f" {_percent_points(diff['estimate'])}, {interval['confidence']:.0%} interval"
        f" [{_percent_points(interval['lower'])}, {_percent_points(interval['upper'])}] ({diff['method']}).",
        f"- Exact sign-flip test over tasks: {_p(flip['p_value'])} ({flip['method']}).",
        f"- McNemar on run pairs: exact {_p(mcnemar['p_value'])},"
        f" mid-{_p(mcnemar['p_mid'])}"
        f" ({mcnemar['discordant']} discordant of {runs['wins'] + runs['losses'] + runs['ties']} run pairs).",
    ]
    if stats["power"]["mde"] is not None:
        lines.append(
            "- Smallest difference this design detects with 80% power:"
            f" {stats['power']['mde'] * 100:.1f} percentage points."
        )
    lines += [f"- Warning: {warning}" for warning in stats["warnings"]]
    return [*lines, ""]


def _price_section(price: Price | None) -> list[str]:
    """The price box of the page as a table: what each side costs per run, and the paired difference."""
    if price is None or not price.quantities:
        return []
    rows = [
        [what, candidate, baseline, " ".join(difference)] for what, candidate, baseline, difference in price_rows(price)
    ]
    return [
        "## Price of the decision",
        "",
        *table(["Cost and duration", "Candidate", "Baseline", "Paired difference (95% interval)"], rows),
        "",
        price_note(price),
        "",
    ]


def _matrix_section(doc: Doc) -> list[str]:
    rows = []
    for side in SIDES:
        matrix = doc[side]["matrix"]
        label = side.capitalize()
        if wording.imported(doc):
            shown = short_hash(matrix["matrix_hash"]) if matrix["status"] == "report-bound" else "N/A"
            target = matrix["target_cases"] if matrix["status"] == "report-bound" else "N/A"
            rows.append([label, wording.matrix_source(doc, side, matrix["status"]), shown, target])
        elif matrix["status"] == "report-bound":
            rows.append([label, "report-bound", short_hash(matrix["matrix_hash"]), matrix["target_cases"]])
        elif matrix["status"] == "invalid":
            rows.append([label, "invalid (fail closed)", "N/A", "N/A"])
        else:
            rows.append([label, "historical fallback", "N/A", "N/A"])
    lines = [
        "## Expected case matrix audit",
        "",
        *table(["Experiment", "Source", "Matrix hash", "Target cases"], rows),
        "",
    ]
    limits = doc["limitations"]
    if wording.imported(doc):
        count = limits["execution_unbound_records"]
        return lines + ([wording.execution_limitation(doc, count), ""] if count else [])
    if limits["missing_matrix"]:
        lines += [
            f"> Expected-matrix limitation: the {_sides_text(limits['missing_matrix'])} experiment(s) have no"
            " controller-written matrix, so their observed reports stand in for it. A case that is missing"
            " from every report cannot be reconstructed or claimed as historically executed.",
            "",
        ]
    if limits["invalid_matrix"]:
        lines += [
            f"> Invalid-matrix handling: the {_sides_text(limits['invalid_matrix'])} experiment matrix failed"
            " validation, so the comparison fails closed for that side: its observed reports are excluded"
            " rather than used as a fallback.",
            "",
        ]
    if limits["fallback_records"]:
        lines += [
            f"> Audit limitation: {limits['fallback_records']} run record(s) carry no case manifest. Their"
            " hashes were rebuilt from the current tasks tree (`current-task-tree-fallback`), which proves"
            " parity at comparison time, not the historical checkout.",
            "",
        ]
    if limits.get("fallback_without_task_files"):
        lines += [
            f"> Task files not available: {limits['fallback_without_task_files']} run record(s) had their"
            " manifest rebuilt without a tasks folder, so every task path hashed as missing. Their task,"
            " instruction, environment and data hashes prove nothing about the task files.",
            "",
        ]
    if limits["execution_unbound_records"]:
        lines += [
            f"> Execution-identity limitation: {limits['execution_unbound_records']} run record(s) have v1 or"
            " rebuilt manifests, which do not bind runner and controller sources, the container image, the"
            " agent CLI version, the model selection or the interaction settings. They must not be presented"
            " as exact historical execution identity.",
            "",
        ]
    return lines


def _metrics_section(doc: Doc, ks: Sequence[int]) -> list[str]:
    rows = []
    for side in SIDES:
        treatment = doc[side]["treatment"]
        matched = doc["matched"][side]
        tally = f"{matched['passes']}/{matched['runs']}"
        for label, key in (
            ("pass@k", "pass_at_k"),
            ("pass^k", "pass_pow_k"),
            ("pass^k unbiased", "pass_pow_k_unbiased"),
        ):
            cells = []
            for k in ks:
                m = doc["metrics"][side][str(k)]
                cells.append(f"{metric(m[key])} ({m['eligible_tasks']}/{m['total_tasks']} tasks)")
            rows.append([untrusted(treatment), label, *cells, tally])
    intro = wording.passk_rule(doc) if wording.imported(doc) else wording.COMET_PASSK
    return [
        "## pass@k / pass^k — task macro average",
        "",
        intro,
        "",
        *table([_label(doc), "Metric", *(f"k={k}" for k in ks), "Matched pass/fail"], rows),
        "",
    ]


def _duration_section(doc: Doc) -> list[str]:
    rows, missing_lines = [], []
    for side in SIDES:
        d = doc["duration"][side]
        rows.append(
            [
                untrusted(doc[side]["treatment"]),
                d["matched"],
                f"{d['covered']}/{d['matched']}",
                fmt.seconds(d["total_seconds"]),
                fmt.seconds(d["average_seconds"]),
                DURATION_SOURCE if wording.stdout_anywhere(doc) else "none (no agent stdout)",
            ]
        )
        if d["missing"] and wording.stdout_anywhere(doc):
            refs = ", ".join(code(f"{item['task']}#r{item['rep']}") for item in d["missing"])
            missing_lines.append(f"- {untrusted(doc[side]['treatment'])} missing raw duration: {refs}")
    heading, intro = (
        wording.duration_intro(doc)
        if wording.imported(doc)
        else (
            "## Duration from raw stdout",
            "A run without a usable raw stdout counts as missing coverage; it is never replaced by, or"
            " averaged with, the duration stored in its report.",
        )
    )
    lines = [
        heading,
        "",
        intro,
        "",
        *table([_label(doc), "Matched runs", "Duration coverage", "Total", "Average / covered run", "Source"], rows),
        "",
    ]
    if missing_lines:
        lines += [*missing_lines, ""]
    return lines + _reported_duration_lines(doc)


def _reported_duration_lines(doc: Doc) -> list[str]:
    """The durations reported by the harness, in their own table, and every disagreement."""
    rows, notes = [], []
    for side in SIDES:
        d = doc["duration"][side]
        stated = d.get("reported") or {}
        if stated.get("covered"):
            rows.append(
                [
                    untrusted(doc[side]["treatment"]),
                    f"{stated['covered']}/{len(d['missing'])}",
                    fmt.seconds(stated["total_seconds"]),
                    fmt.seconds(stated["average_seconds"]),
                    "reported by the harness",
                ]
            )
        if stated.get("disagreements"):
            notes.append(
                f"- {untrusted(doc[side]['treatment'])}: the reported duration disagrees with raw stdout in"
                f" {len(stated['disagreements'])} run(s); the raw-stdout value is used."
            )
    lines: list[str] = []
    if rows:
        lines += [
            "### Duration reported by the harness",
            "",
            "For the matched runs without a usable agent stdout only; these numbers were not re-derived."
            if wording.imported(doc)
            else "For the matched runs without a usable raw stdout only; these numbers were not re-derived.",
            "",
            *table(
                [
                    _label(doc),
                    "Runs without re-derived duration that report one"
                    if wording.imported(doc)
                    else "Runs without raw duration that report one",
                    "Total",
                    "Average",
                    "Source",
                ],
                rows,
            ),
            "",
        ]
    if notes:
        lines += [*notes, ""]
    return lines


def _efficiency_table(table_doc: Doc) -> list[str]:
    rows = [
        [
            r["label"],
            f"{r['complete']}/{table_doc['pairs']}",
            fmt.by_kind(r["candidate_average"], r["kind"]),
            fmt.by_kind(r["baseline_average"], r["kind"]),
            fmt.change(r["delta_pct"]),
        ]
        for r in table_doc["rows"]
    ]
    return table(["Metric", "Complete pairs", "Candidate average", "Baseline average", "Candidate delta"], rows)


def _reported_efficiency(table_doc: Doc) -> list[str]:
    """The harness-reported rows of one efficiency table (pairs the raw-stdout rows do not cover)."""
    lines: list[str] = []
    reported = [r for r in table_doc.get("reported_rows", ()) if r["complete"]]
    if reported:
        lines += [
            "",
            "Reported by the harness (not re-derived; only pairs the rows above do not cover):",
            "",
            *_efficiency_table({"pairs": table_doc["pairs"], "rows": reported}),
        ]
    differing = [
        f"{r['label']} ({r['reported_disagreements']})" for r in table_doc["rows"] if r.get("reported_disagreements")
    ]
    if differing:
        lines += [
            "",
            "> Reported values disagree with raw stdout (runs): " + ", ".join(differing) + "; the raw-stdout"
            " value is used.",
        ]
    return lines


def _efficiency_section(doc: Doc) -> list[str]:
    eff = doc["efficiency"]
    heading, intro, note = wording.efficiency_intro(doc) if wording.imported(doc) else wording.COMET_EFFICIENCY
    return [
        heading,
        "",
        intro,
        "",
        f"### Strict-success intersection ({eff['strict_success']['pairs']} paired runs)",
        "",
        "The main efficiency view: both sides passed the same task repetition, so a run that gave up"
        " early cannot look cheap.",
        "",
        *_efficiency_table(eff["strict_success"]),
        *_reported_efficiency(eff["strict_success"]),
        "",
        f"### All aligned runs ({eff['all_aligned']['pairs']} paired runs)",
        "",
        *_efficiency_table(eff["all_aligned"]),
        *_reported_efficiency(eff["all_aligned"]),
        "",
        note,
        "",
    ]


def _audit_cell(entry: Doc, shown: Doc, part: str, unbound: str) -> str:
    """A part's short hash when both sides agree on it, else the audit state in words."""
    state = (entry.get("states") or {}).get(part)
    if state in (None, "same", "no-record"):
        return short_hash(shown[part]) or unbound
    if state == "not-recorded":
        return unbound
    return PART_STATES.get(state, str(state))


def _audit_summary(doc: Doc) -> list[str]:
    summary = doc.get("manifest_audit_summary")
    if not summary:
        return []
    labels = dict(MANIFEST_FIELDS)
    rows = [
        [labels.get(part, part), ", ".join(f"{PART_STATES.get(state, state)}: {n}" for state, n in counts.items())]
        for part, counts in summary.items()
    ]
    return [
        "",
        "Audit states over tasks (a part missing on both sides is not hashed, never the same):",
        "",
        *table(["Part", "Tasks by state"], rows),
    ]


def _audit_section(doc: Doc) -> list[str]:
    unbound = "not hashed" if wording.imported(doc) else "v1-unbound"
    rows = []
    for entry in doc["manifest_audit"]:
        cand, base = entry["candidate"], entry["baseline"]
        shown = cand or base
        source = "/".join(
            [cand["source"] if cand else "candidate-missing", base["source"] if base else "baseline-missing"]
        )
        rows.append(
            [
                untrusted(entry["task"]),
                short_hash(cand["case_hash"]) if cand else "—",
                short_hash(base["case_hash"]) if base else "—",
                source,
                *(_audit_cell(entry, shown, part, unbound) for part, _name in AUDIT_COLUMNS),
            ]
        )
    return [
        "## Case manifest audit",
        "",
        wording.audit_intro(doc)
        if wording.imported(doc)
        else "Hashes show their first 12 hex digits. Report-bound hashes are in the source reports in full;"
        " fallback hashes can be recomputed from the tasks tree.",
        "",
        *table(
            [
                "Task",
                "Candidate case",
                "Baseline case",
                "Source",
                "Instruction",
                "Validator",
                "Environment",
                "Prompt",
                "Runner",
                "Controller",
                "Execution",
            ],
            rows,
        ),
        *_audit_summary(doc),
        "",
    ]


def _outcomes_section(doc: Doc) -> list[str]:
    rows = [
        [
            untrusted(o["task"]),
            ",".join(str(rep) for rep in o["reps"]) or "—",
            f"{o['candidate_passes']}/{o['pairs']}",
            f"{o['baseline_passes']}/{o['pairs']}",
        ]
        for o in doc["task_outcomes"]
    ]
    return [
        "## Task outcomes on strictly matched repetitions",
        "",
        *table(["Task", "Repetitions", "Candidate", "Baseline"], rows),
        "",
    ]


def _issues_section(doc: Doc) -> list[str]:
    if not doc["issues"]:
        return ["## Alignment issues", "", "_None._", ""]
    counts = ", ".join(f"`{reason}`={count}" for reason, count in doc["issue_counts"].items())
    rows = [
        [untrusted(i["task"]), i["rep"], i["reason"], untrusted(i["detail"].replace("|", "/"))] for i in doc["issues"]
    ]
    return [
        "## Alignment issues",
        "",
        f"Issue counts: {counts}",
        "",
        *table(["Task", "Rep", "Reason", "Detail"], rows),
        "",
    ]


def _disclosures_section(doc: Doc) -> list[str]:
    lines: list[str] = []
    if doc["skipped_reports"]:
        lines += [
            "## Skipped report files",
            "",
            wording.skipped_intro(doc)
            if wording.imported(doc)
            else "These files in `reports/` could not be used. They do not change the pairs above.",
            "",
            *table(
                ["Side", "File", "Reason"],
                [[s["side"], untrusted(s["file"]), untrusted(s["reason"])] for s in doc["skipped_reports"]],
            ),
            "",
        ]
    if doc["rebased_runs"]:
        lines += [
            "## Rebased raw artifacts",
            "",
            "`--rebase-artifacts` was on: these runs' raw stdout was found by its exact expected name in the"
            " experiment's own `raw/` folder instead of the path the report recorded.",
            "",
            *table(
                ["Side", "Task", "Rep", "Report"],
                [[r["side"], untrusted(r["task"]), r["rep"], untrusted(r["file"])] for r in doc["rebased_runs"]],
            ),
            "",
        ]
    return lines
