""" "Built from" reuses the digests of the files compare read, and they are the digests of a fresh read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bench.bench_compare import BASELINE, CANDIDATE, make_synthetic_pair
from generator.model.comparison import ComparisonInputs
from generator.pipelines.compare import compare_experiments
from generator.read import digests
from generator.read.digests import tree_digest_of
from generator.read.safe_io import recording_digests


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    candidate, baseline = make_synthetic_pair(tmp_path, tasks=6, reps=2, stdout_bytes=1_500, seed=5)
    (candidate / "notes.txt").write_text("a file compare never reads\n")
    return candidate, baseline


@pytest.mark.parametrize("workers", ["1", "2"])
def test_recorded_digests_equal_fresh_ones_and_save_the_reads(
    pair: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, workers: str
) -> None:
    candidate, baseline = pair
    fresh = {side: tree_digest_of(side) for side in pair}
    monkeypatch.setenv("EVALSITE_WORKERS", workers)
    hashed: list[str] = []
    original = digests._hash_head

    def counting(path: str, what: str) -> tuple[str, int | None]:
        hashed.append(os.path.basename(path))
        return original(path, what)

    monkeypatch.setattr(digests, "_hash_head", counting)
    with recording_digests():
        compare_experiments(ComparisonInputs(candidate, CANDIDATE, baseline, BASELINE))
        reused = {side: tree_digest_of(side) for side in pair}
    assert reused == fresh
    # only what compare did not read is hashed again: the matrix files (read by their own reader) and the note
    assert "notes.txt" in hashed
    assert not any(name.endswith(("_stdout.json", "_report.json")) for name in hashed)


def test_a_file_changed_after_it_was_read_is_hashed_again(pair: tuple[Path, Path]) -> None:
    candidate, baseline = pair
    with recording_digests():
        compare_experiments(ComparisonInputs(candidate, CANDIDATE, baseline, BASELINE))
        raw = sorted((candidate / "raw").iterdir())[0]
        raw.write_text(raw.read_text() + "\n")  # new size and mtime: a new identity
        inside = tree_digest_of(candidate)
    assert inside == tree_digest_of(candidate)  # the same as a build that recorded nothing


def test_nothing_is_recorded_outside_a_build(pair: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    candidate, baseline = pair
    compare_experiments(ComparisonInputs(candidate, CANDIDATE, baseline, BASELINE))
    info = os.lstat(sorted((candidate / "raw").iterdir())[0])
    from generator.read.safe_io import recorded_digest

    assert recorded_digest(info) is None
