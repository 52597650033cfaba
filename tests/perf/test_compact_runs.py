"""Issue 16, memory flat in the runs: the compact run data (summaries with shared values, matrix
cases and keys, packed telemetry, the chunked efficiency tables) read back exactly what the plain
objects gave."""

from __future__ import annotations

import pickle
from collections.abc import Mapping, Sequence
from pathlib import Path
from statistics import fmean
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from generator.analyze.comparison import efficiency
from generator.analyze.comparison.efficiency import disagrees, efficiency_table
from generator.model.common import is_json_number
from generator.model.comparison import METRICS, REPORTED_METRICS, EfficiencyRow, EfficiencyTable, Metric
from generator.model.packed import ArtifactTable, PairedArtifacts, TelemetryValues
from generator.model.runs import (
    REPORTED_ONLY_FIELDS,
    TELEMETRY_FIELDS,
    Artifact,
    ExpectedMatrix,
    MatrixCases,
    report_summary,
)
from generator.read.comet.matrix import MatrixError, matrix_payload, parse_matrix
from tests.support.hypo import examples

Telemetry = Mapping[str, Any] | None

# --------------------------------------------------------------------------- the tables as they were


def _value(events: Mapping[str, Any] | None, key: str) -> float | None:
    if events is None:
        return None
    value: Any = events.get(key)
    return float(value) if is_json_number(value) else None


def _row(metric: Metric, both: list[tuple[float, float]], selected: int, disagreements: int = 0) -> EfficiencyRow:
    return EfficiencyRow(
        key=metric.key,
        label=metric.label,
        kind=metric.kind,
        complete=len(both),
        selected=selected,
        candidate_average=fmean(a for a, _ in both) if both else None,
        baseline_average=fmean(b for _, b in both) if both else None,
        disagreements=disagreements,
    )


def reference_table(
    selected: Sequence[tuple[Telemetry, Telemetry]], reported: Sequence[tuple[Telemetry, Telemetry]] | None = None
) -> EfficiencyTable:
    """Average each metric over the pairs where both sides have it; reported numbers in their own rows."""
    stated = list(reported) if reported is not None else [(None, None)] * len(selected)
    rows = []
    # per metric, one byte per pair: 1 where the re-derived row covers it (a set per metric would
    # hold an int object per pair)
    covered: dict[str, bytearray] = {}
    for metric in METRICS:
        both: list[tuple[float, float]] = []
        differing = 0
        covered[metric.key] = covers = bytearray(len(selected))
        for index, (candidate, baseline) in enumerate(selected):
            a, b = _value(candidate, metric.key), _value(baseline, metric.key)
            for derived, said in ((a, _value(stated[index][0], metric.key)), (b, _value(stated[index][1], metric.key))):
                if derived is not None and said is not None and disagrees(derived, said):
                    differing += 1
            if candidate is None or baseline is None:
                continue
            if a is not None and b is not None:
                both.append((a, b))
                covers[index] = 1
        rows.append(_row(metric, both, len(selected), differing))
    reported_rows = []
    if reported is not None:
        for metric in REPORTED_METRICS:
            pairs: list[tuple[float, float]] = []
            seen = False
            taken = covered.get(metric.key)
            for index, (candidate, baseline) in enumerate(stated):
                a, b = _value(candidate, metric.key), _value(baseline, metric.key)
                seen = seen or a is not None or b is not None
                if a is not None and b is not None and not (taken is not None and index < len(taken) and taken[index]):
                    pairs.append((a, b))
            if seen:
                reported_rows.append(_row(metric, pairs, len(selected)))
    return EfficiencyTable(len(selected), tuple(rows), tuple(reported_rows))


# --------------------------------------------------------------------------- efficiency tables

_number = st.one_of(
    st.none(),
    st.integers(0, 10**6),
    st.integers(-(2**70), 2**70),
    st.floats(-1e18, 1e18, allow_nan=False),
)
_odd = st.one_of(st.booleans(), st.text(max_size=3))  # not numbers: read as missing


def _telemetry(fields: Sequence[str]) -> st.SearchStrategy[Telemetry]:
    plain = st.fixed_dictionaries({}, optional={name: _number | _odd for name in fields})
    packed = st.fixed_dictionaries({name: _number for name in TELEMETRY_FIELDS}).map(TelemetryValues)
    return st.none() | plain | packed


_pairs = st.lists(st.tuples(_telemetry(TELEMETRY_FIELDS), _telemetry(TELEMETRY_FIELDS)), max_size=12)
_stated = st.tuples(
    _telemetry((*TELEMETRY_FIELDS, *REPORTED_ONLY_FIELDS)), _telemetry((*TELEMETRY_FIELDS, *REPORTED_ONLY_FIELDS))
)


@settings(max_examples=examples(300), deadline=None)
@given(_pairs, st.none() | st.lists(_stated, min_size=12, max_size=12), st.sampled_from([1, 3, 1024]))
def test_the_chunked_efficiency_table_is_the_table_pair_by_pair(
    selected: list[tuple[Telemetry, Telemetry]], stated: list[tuple[Telemetry, Telemetry]] | None, chunk: int
) -> None:
    reported = None if stated is None else stated[: len(selected)]
    saved = efficiency._CHUNK
    efficiency._CHUNK = chunk  # several chunks, and chunks that end inside the pairs
    try:
        table = efficiency_table(selected, reported)
    finally:
        efficiency._CHUNK = saved
    assert table == reference_table(selected, reported)
    assert [row.key for row in table.rows] == [metric.key for metric in METRICS]
    assert {row.key for row in table.reported_rows} <= {metric.key for metric in REPORTED_METRICS}


def test_disagreements_and_reported_rows_count_as_before() -> None:
    derived = TelemetryValues({"duration_seconds": 10.0, "num_turns": 3})
    said = {"duration_seconds": 20.0, "api_calls": 4}
    table = efficiency_table([(derived, derived), (None, derived)], [(said, said), (said, said)])
    assert table == reference_table([(derived, derived), (None, derived)], [(said, said), (said, said)])
    duration = next(row for row in table.rows if row.key == "duration_seconds")
    assert (duration.complete, duration.disagreements) == (1, 3)
    assert disagrees(10.0, 20.0)
    reported = {row.key: row for row in table.reported_rows}
    assert reported["api_calls"].complete == 2 and reported["duration_seconds"].complete == 1


@settings(max_examples=examples(200), deadline=None)
@given(st.fixed_dictionaries({name: _number for name in TELEMETRY_FIELDS}))
def test_packed_numbers_are_the_values_as_floats(values: dict[str, Any]) -> None:
    packed = TelemetryValues(values)
    keys = tuple(metric.key for metric in METRICS)
    expected = tuple(_value(values, key) for key in keys)
    assert packed.numbers(keys) == expected
    assert pickle.loads(pickle.dumps(packed)).numbers(keys) == expected


# --------------------------------------------------------------------------- report summaries

_tasks = st.from_regex(r"[a-z][a-z0-9_-]{0,10}", fullmatch=True)


@settings(max_examples=examples(300), deadline=None)
@given(
    _tasks,
    st.sampled_from(["C", "BASE-LINE"]),
    st.integers(1, 12),
    st.sampled_from(["{t}-{T}-r{r}", "{t}-{T}", "other-{T}", "", "{t}"]),
    st.sampled_from(["raw/{f}_stdout.json", "{f}_stdout.json", "/abs/{f}.json", "raw/x.json", ""]),
    st.booleans(),
    st.lists(st.text(max_size=4), max_size=2),
)
def test_a_summary_with_shared_values_reads_like_the_plain_summary(
    task: str, treatment: str, rep: int, name: str, reference: str, passed: bool, failed: list[str]
) -> None:
    file = f"{task.replace('-', '_')}_{treatment}_r{rep}_rep1_report.json"
    stem = file[: -len("_report.json")]
    report: dict[str, Any] = {
        "name": name.format(t=task, T=treatment, r=rep),
        "rep": 1,
        "passed": passed,
        "checks_failed": failed,
        "events_summary": {"artifact_references": {"raw_stdout": reference.format(f=stem)}},
    }
    plain = report_summary(report, {})
    shared: dict[Any, Any] = {}
    compact = report_summary(report, shared, task=task, file=file)
    assert dict(compact) == dict(plain) and list(compact) == list(plain)
    for key in (*plain, "missing"):
        assert compact.get(key) == plain.get(key)
    back = pickle.loads(pickle.dumps(compact))
    assert dict(back) == dict(plain)
    kept: dict[Any, Any] = {}
    first, second = back.shared_in(kept, task, file), compact.shared_in(kept, task, file)
    assert dict(first) == dict(second) == dict(plain)
    if not failed or all(type(item) is str for item in failed):
        assert first._values is second._values  # one values tuple for alike runs


def test_values_of_different_types_are_never_shared_and_dicts_are_kept_apart() -> None:
    kept: dict[Any, Any] = {}
    one = report_summary({"passed": True, "rep": 1}, {}, task="t", file="f.json").shared_in(kept, "t", "f.json")
    other = report_summary({"passed": 1, "rep": 1.0}, {}, task="t", file="f.json").shared_in(kept, "t", "f.json")
    assert one["passed"] is True and type(other["passed"]) is int and type(other["rep"]) is float
    figures = [report_summary({"events_summary": {"turns": 2}}, {}).shared_in(kept, "", "") for _ in range(2)]
    assert figures[0] == figures[1] == {"events_summary": {"turns": 2}}
    assert figures[0]._values is not figures[1]._values  # a dict among the values: never shared


# --------------------------------------------------------------------------- matrix cases and keys

_names = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._-]{0,5}", fullmatch=True)
_cases = st.lists(st.tuples(_names, st.sampled_from(["T", "U"]), st.integers(1, 40)), max_size=40)


@settings(max_examples=examples(300), deadline=None)
@given(_cases, st.sampled_from(["T", "U", "V"]), st.lists(st.tuples(_names, st.integers(0, 41)), max_size=10))
def test_matrix_cases_and_keys_are_the_tuples_they_replace(
    cases: list[tuple[str, str, int]], treatment: str, probes: list[tuple[str, int]]
) -> None:
    matrix = ExpectedMatrix("sha256:x", tuple(cases))
    assert isinstance(matrix.cases, MatrixCases)
    assert list(matrix.cases) == cases and len(matrix.cases) == len(cases)
    assert [matrix.cases[i] for i in range(-len(cases), len(cases))] == cases + cases
    assert matrix.cases == tuple(cases)
    old = frozenset((task, rep) for task, t, rep in cases if t == treatment)
    keys = matrix.keys_for(treatment)
    assert keys == old and len(keys) == len(old) and set(keys) == old
    for probe in [*probes, *old]:
        assert (probe in keys) == (probe in old)
    assert ("x", True) in keys or ("x", 1) not in old  # True reads as 1, as in a set of tuples
    assert not keys or keys | set() == old


def _reference_parse(listed: list[dict[str, Any]]) -> str:
    """What was wrong with a list of cases, as the checks read before (a set of every case)."""
    cases: list[tuple[str, str, int]] = []
    seen: set[tuple[str, str, int]] = set()
    for item in listed:
        case = (item["task"], item["treatment"], item["rep"])
        if case in seen:
            return "expected case matrix contains a duplicate case"
        seen.add(case)
        cases.append(case)
    if cases != sorted(cases):
        return "expected case matrix cases are not canonically ordered"
    return "ok"


@settings(max_examples=examples(300), deadline=None)
@given(_cases, st.randoms(use_true_random=False))
def test_matrix_checks_report_the_same_first_problem(cases: list[tuple[str, str, int]], rng: Any) -> None:
    payload = matrix_payload(cases)  # sorted and distinct, with its hash
    listed = list(payload["cases"])
    if listed and rng.random() < 0.5:
        listed.insert(rng.randrange(len(listed) + 1), dict(rng.choice(listed)))  # a duplicate
    if rng.random() < 0.5:
        rng.shuffle(listed)
    expected = _reference_parse(listed)
    try:
        parsed = parse_matrix({**payload, "cases": listed})
    except MatrixError as error:
        assert str(error) == expected
    else:
        assert expected == "ok"
        assert list(parsed.cases) == sorted(set(cases))


# --------------------------------------------------------------------------- packed artifacts

_statuses = st.sampled_from(["verified", "rebased", "no-result-event", "absent", "rejected", "reported"])
_artifacts = st.none() | st.builds(
    Artifact,
    _statuses,
    st.none() | st.text(max_size=8),
    _telemetry(TELEMETRY_FIELDS),
    st.none() | st.fixed_dictionaries({}, optional={"duration_seconds": _number, "source": st.text(max_size=3)}),
)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(_artifacts, max_size=12), st.data())
def test_packed_artifacts_are_the_artifacts_appended(artifacts: list[Artifact | None], data: Any) -> None:
    table = ArtifactTable(artifacts)
    assert len(table) == len(artifacts)
    assert list(table) == artifacts and table[:] == artifacts
    for index, artifact in enumerate(artifacts):
        got = table[index]
        assert got == artifact and table[index - len(artifacts)] == artifact
        assert table.status(index) == (None if artifact is None else artifact.status)
        if artifact is not None and got is not None:
            assert got.telemetry == artifact.telemetry and got.reported == artifact.reported
            if artifact.telemetry is not None:
                assert got.telemetry is not None and dict(got.telemetry) == dict(artifact.telemetry)
    read = [index for index, artifact in enumerate(artifacts) if artifact is not None]
    chosen = data.draw(st.lists(st.sampled_from(read), max_size=8)) if read else []
    paired = PairedArtifacts(table, chosen)
    assert list(paired) == [artifacts[index] for index in chosen] == paired[:]
    assert list(paired.statuses()) == [artifacts[index].status for index in chosen]  # type: ignore[union-attr]
    assert list(paired.telemetry()) == [artifacts[index].telemetry for index in chosen]  # type: ignore[union-attr]
    assert list(paired.reported()) == [artifacts[index].reported for index in chosen]  # type: ignore[union-attr]
    assert paired.telemetry()[1:3] == [artifacts[index].telemetry for index in chosen[1:3]]  # type: ignore[union-attr]
    unread = [index for index, artifact in enumerate(artifacts) if artifact is None]
    if unread:
        try:
            PairedArtifacts(table, unread[:1])
        except AssertionError:
            pass
        else:
            raise AssertionError("a pair without its artifact was accepted")


# --------------------------------------------------------------------------- the streamed document

_EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_the_streamed_document_is_the_whole_document_byte_for_byte() -> None:
    from generator.analyze.comparison.view import comparison_view
    from generator.model.comparison import ComparisonInputs
    from generator.model.jsonfmt import json_text
    from generator.pipelines.compare import _document_chunks, compare_experiments, report_chunks
    from generator.render.comparison.document import STREAMED, comparison_document

    for candidate, treatment, baseline, other in (
        ("native", "COMET_NATIVE_PHASE1", "beta", "COMET_FULL_040_BETA"),
        ("native", "DYNAMIC_SKILL", "legacy", "COMET_FULL_039"),
    ):
        experiments = _EXAMPLES / "experiments"
        inputs = ComparisonInputs(
            experiments / candidate, treatment, experiments / baseline, other, tasks_dir=_EXAMPLES / "tasks"
        )
        view = comparison_view(compare_experiments(inputs))
        whole = comparison_document(view)
        streamed = comparison_document(view, streamed=True)
        assert set(whole) - set(streamed) == set(STREAMED)
        assert whole["runs"] and whole["manifest_audit"]  # something is streamed
        pieces = list(_document_chunks(view, streamed))
        assert len(pieces) > 3 and "".join(pieces) == json_text(whole)
        assert "".join(report_chunks(inputs, "json")) == json_text(whole)
