"""The second-core helper (``generator.pipelines.forked``): the answer is always what the
computation gives here, whichever process computed it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from generator.pipelines import build as build_module
from generator.pipelines.build import build_site, load_config
from generator.pipelines.forked import in_child, second_core, workers


def test_the_value_comes_from_the_child() -> None:
    assert in_child(os.getpid, force=True)() != os.getpid()


def test_one_worker_keeps_it_in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVALSITE_WORKERS", "1")
    assert not second_core()
    assert in_child(os.getpid)() == os.getpid()


def test_a_failing_child_is_computed_again_here() -> None:
    parent = os.getpid()
    calls: list[int] = []

    def compute() -> int:
        calls.append(os.getpid())
        if os.getpid() != parent:
            raise RuntimeError("only in the child")
        return 7

    assert in_child(compute, force=True)() == 7
    assert calls == [parent]  # the child's attempt failed there; the parent computed it


def test_an_error_reaches_the_caller() -> None:
    def compute() -> int:
        raise ValueError("bad data")

    with pytest.raises(ValueError, match="bad data"):
        in_child(compute, force=True)()


def _files(root: Path) -> dict[str, bytes]:
    out = {}
    for folder, _dirs, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            with open(path, "rb") as handle:
                out[os.path.relpath(path, root)] = handle.read()
    return out


def test_input_digests_walked_in_a_child_build_the_same_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """"Built from" digests walked on the other core (forced here for the small example) give the
    same site, byte for byte, as the digests walked in the building process."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    config = load_config("site-config.yaml")
    walked_in: list[str] = []
    real = build_module.in_child

    def watched(compute):  # type: ignore[no-untyped-def]
        walked_in.append("child")
        return real(compute, force=True)

    monkeypatch.setattr(build_module, "_FORK_MIN_RUNS", 0)
    monkeypatch.setattr(build_module, "in_child", watched)
    build_site(config, tmp_path / "forked")
    assert walked_in  # every comparison's digests were walked in a child
    monkeypatch.setattr(build_module, "_FORK_MIN_RUNS", 10**9)
    build_site(config, tmp_path / "here")
    forked, here = _files(tmp_path / "forked"), _files(tmp_path / "here")
    assert forked == here
    assert any(b"sha256:" in text for name, text in here.items() if name.endswith(".html"))


def test_pool_sizes_obey_one_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EVALSITE_WORKERS", raising=False)
    assert workers(63, 64) == 1  # below the pool's minimum
    assert workers(64, 64) == (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count())
    monkeypatch.setenv("EVALSITE_WORKERS", "3")
    assert workers(1, 64) == 3 and second_core()
    monkeypatch.setenv("EVALSITE_WORKERS", "0")
    assert workers(10**6, 64) == 1 and not second_core()
