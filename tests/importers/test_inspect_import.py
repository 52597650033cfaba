"""Inspect AI logs written by the real inspect-ai (scripts/make_inspect_logs.py), read without inspect-ai."""

from __future__ import annotations

import io
import json
import struct
import sys
import zipfile
import zlib
from pathlib import Path

import pytest
import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.model.errors import EvalsiteError
from generator.model.formats import ImportOptions
from generator.pipelines.compare import ComparisonInputs, compare_experiments, render_comparison
from generator.read.inspect.archive import MAX_MEMBER_BYTES
from generator.read.inspect.log import load_inspect
from tests.support.hypo import examples

FIXTURES = Path(__file__).parent / "fixtures" / "inspect"


def _summary(path: Path) -> list[tuple[object, ...]]:
    experiment = load_inspect("baseline", path, "T", ImportOptions())
    rows = [
        (
            r.task,
            r.rep,
            r.passed,
            r.checks_failed,
            r.quality.reason_code,
            r.quality.include_in_analysis,
            r.manifest.case_hash,
            json.dumps(r.report["reported_telemetry"], sort_keys=True),
        )
        for r in experiment.records
    ]
    return sorted(rows)


def _inputs(candidate: str = "candidate.json", baseline: str = "baseline.eval", **kw: object) -> ComparisonInputs:
    return ComparisonInputs(
        candidate_dir=FIXTURES / candidate,
        candidate_treatment="cand",
        baseline_dir=FIXTURES / baseline,
        baseline_treatment="base",
        candidate_format="inspect",
        baseline_format="inspect",
        **kw,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("side", ["baseline", "candidate"])
def test_eval_and_json_of_one_run_read_the_same(side: str) -> None:
    from_eval = _summary(FIXTURES / f"{side}.eval")
    assert from_eval == _summary(FIXTURES / f"{side}.json")
    assert len(from_eval) == 15  # five samples x three epochs


def test_identity_pass_rule_errors_and_reported_telemetry() -> None:
    experiment = load_inspect("baseline", FIXTURES / "baseline.eval", "T", ImportOptions())
    by_key = {r.key: r for r in experiment.records}
    assert by_key[("add", 1)].passed and not by_key[("add", 3)].passed  # match: C then I
    assert by_key[("add", 3)].checks_failed == ("match='I'",)
    errored = by_key[("flaky", 2)]
    assert errored.quality.status == "excluded" and errored.quality.reason_code == "harness_error"
    assert "scripted failure" in errored.quality.evidence[0]
    telemetry = by_key[("capital", 1)].report["reported_telemetry"]
    # mockllm reported input 42 (cache excluded), cache read 8, output 6: kept apart, total over all parts
    assert (telemetry["input_tokens"], telemetry["cache_read_input_tokens"], telemetry["output_tokens"]) == (42, 8, 6)
    assert telemetry["total_tokens"] == 56 and telemetry["num_turns"] == 1
    assert "reported by the harness" in telemetry["source"]
    # the header is the expected matrix: five sample ids x three epochs
    assert experiment.matrix.matrix is not None and len(experiment.matrix.matrix.keys_for("T")) == 15


def test_message_ids_do_not_change_the_case_hash_but_a_changed_input_does() -> None:
    base = {
        r.key: r.manifest.case_hash
        for r in load_inspect("baseline", FIXTURES / "baseline.json", "T", ImportOptions()).records
    }
    cand = {
        r.key: r.manifest.case_hash
        for r in load_inspect("candidate", FIXTURES / "candidate.json", "T", ImportOptions()).records
    }
    assert base[("capital", 1)] == cand[("capital", 1)]  # chat input: inspect drew new message ids
    assert base[("spell", 1)] != cand[("spell", 1)]  # the candidate's input was changed


def test_comparison_of_two_logs_discloses_the_error_and_the_changed_input() -> None:
    result = compare_experiments(_inputs())
    reasons = [(i.reason, i.task, i.rep) for i in result.alignment.issues]
    assert ("quality-excluded", "flaky", 2) in reasons
    assert [r for r in reasons if r[0] == "case-hash-mismatch"] == [
        ("case-hash-mismatch", "spell", n) for n in (1, 2, 3)
    ]
    assert len(result.alignment.pairs) == 11
    assert all(a.status == "reported" for a in result.artifacts["candidate"])
    document = render_comparison(result).document
    assert document["schema"] == "evalsite.comparison.v1"
    assert document["candidate"]["format"] == "inspect" and document["candidate"]["format_notes"]


def test_errors_as_failures_keeps_the_errored_sample_as_a_failure() -> None:
    result = compare_experiments(_inputs(import_options=ImportOptions(errors_as_failures=True)))
    pair = next(p for p in result.alignment.pairs if p.key == ("flaky", 2))
    assert not pair.candidate.passed and pair.candidate.quality.status == "flagged"


def test_scorer_and_threshold_are_options() -> None:
    strict = {
        r.key: r.passed
        for r in load_inspect("b", FIXTURES / "baseline.json", "T", ImportOptions(scorer="closeness")).records
    }
    lenient = {
        r.key: r.passed
        for r in load_inspect(
            "b", FIXTURES / "baseline.json", "T", ImportOptions(scorer="closeness", pass_threshold=0.5)
        ).records
    }
    assert not strict[("add", 3)] and lenient[("add", 3)]  # closeness 0.5
    with pytest.raises(EvalsiteError, match="no scorer 'nope'"):
        load_inspect("b", FIXTURES / "baseline.json", "T", ImportOptions(scorer="nope"))


def _members(path: Path) -> list[tuple[zipfile.ZipInfo, bytes]]:
    """The raw (still compressed) members of a real .eval log."""
    data = path.read_bytes()
    out = []
    for info in zipfile.ZipFile(io.BytesIO(data)).infolist():
        header = struct.unpack("<4sHHHHHIIIHH", data[info.header_offset : info.header_offset + 30])
        begin = info.header_offset + 30 + header[9] + header[10]
        out.append((info, data[begin : begin + info.compress_size]))
    return out


def _rezip(members: list[tuple[str, bytes, int, int, int]]) -> bytes:
    """A zip whose members carry given raw bytes, compression method, declared size and CRC."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for name, raw, _method, _size, _crc in members:
            archive.writestr(zipfile.ZipInfo(name, (2024, 1, 1, 0, 0, 0)), raw)
    data = bytearray(buffer.getvalue())
    # patch method, CRC and declared size in the local headers and the central directory
    infos = zipfile.ZipFile(io.BytesIO(bytes(data))).infolist()
    for info, (_name, _raw, method, size, crc) in zip(infos, members, strict=True):
        struct.pack_into("<H", data, info.header_offset + 8, method)
        struct.pack_into("<I", data, info.header_offset + 14, crc)
        struct.pack_into("<I", data, info.header_offset + 22, size)
    offset = data.find(b"PK\x01\x02")
    for _name, _raw, method, size, crc in members:
        struct.pack_into("<H", data, offset + 10, method)
        struct.pack_into("<I", data, offset + 16, crc)
        struct.pack_into("<I", data, offset + 24, size)
        name_len, extra_len, comment_len = struct.unpack_from("<HHH", data, offset + 28)
        offset += 46 + name_len + extra_len + comment_len
    return bytes(data)


def test_journal_only_log_is_refused_not_guessed(tmp_path: Path) -> None:
    kept = [(i.filename, raw, i.compress_type, i.file_size, i.CRC) for i, raw in _members(FIXTURES / "baseline.eval")]
    crashed = [m for m in kept if m[0].startswith(("_journal/", "samples/add"))]
    path = tmp_path / "crashed.eval"
    path.write_bytes(_rezip(crashed))
    with pytest.raises(EvalsiteError, match="holds only its journal"):
        load_inspect("candidate", path, "T", ImportOptions())


def test_zip_bomb_and_escaping_member_are_disclosed_skips(tmp_path: Path) -> None:
    kept = [(i.filename, raw, i.compress_type, i.file_size, i.CRC) for i, raw in _members(FIXTURES / "baseline.eval")]
    bomb = zstandard.ZstdCompressor().compress(b"{" + b" " * (MAX_MEMBER_BYTES + 10) + b"}")
    hostile = [
        ("samples/bomb_epoch_1.json", bomb, 93, 100, 0),  # declares 100 bytes, inflates past the cap
        ("../outside.json", b"{}", 0, 2, zlib.crc32(b"{}")),
        ("samples/../../x.json", b"{}", 0, 2, zlib.crc32(b"{}")),
    ]
    path = tmp_path / "hostile.eval"
    path.write_bytes(_rezip(kept + hostile))
    experiment = load_inspect("candidate", path, "T", ImportOptions())
    assert len(experiment.records) == 15  # the members after the bomb read with the zstd context it stopped
    skipped = {s.file.split("#", 1)[1]: s.reason for s in experiment.skipped}
    assert skipped["samples/bomb_epoch_1.json"] == "member exceeds the size limit when decompressed"
    assert skipped["../outside.json"] == "member lies outside its folder"
    assert skipped["samples/../../x.json"] == "member lies outside its folder"


def test_not_a_zip_and_missing_zstandard_are_one_line_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = tmp_path / "bad.eval"
    bad.write_bytes(b"PK\x03\x04 not really")
    with pytest.raises(EvalsiteError, match="not a readable zip"):
        load_inspect("candidate", bad, "T", ImportOptions())
    monkeypatch.setitem(sys.modules, "zstandard", None)
    with pytest.raises(EvalsiteError, match=r"evalsite\[inspect\]"):
        load_inspect("candidate", FIXTURES / "baseline.eval", "T", ImportOptions())
    assert len(load_inspect("candidate", FIXTURES / "baseline.json", "T", ImportOptions()).records) == 15


def test_a_folder_with_logs_of_two_runs_is_refused() -> None:
    # baseline and candidate are two runs (another solver): one side cannot be both (issue 29)
    with pytest.raises(
        EvalsiteError, match=r"^candidate Inspect logs 'baseline\.eval' and 'candidate\.eval' are not one run"
    ):
        load_inspect("candidate", FIXTURES, "T", ImportOptions())


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cut=st.integers(min_value=0, max_value=40_000), flip=st.integers(min_value=0, max_value=255))
def test_a_damaged_eval_log_is_an_error_or_disclosed_skips_never_a_crash(tmp_path: Path, cut: int, flip: int) -> None:
    data = bytearray((FIXTURES / "baseline.eval").read_bytes())
    data[cut % len(data)] ^= flip
    path = tmp_path / "damaged.eval"
    path.write_bytes(bytes(data))
    try:
        experiment = load_inspect("candidate", path, "T", ImportOptions())
    except EvalsiteError as error:
        assert "\n" not in str(error)
    else:
        assert len(experiment.records) + len(experiment.skipped) >= 1
