"""Helpers shared by the ledger tests (golden data access, CLI runner, JSON comparison)."""

from __future__ import annotations

import base64
import contextlib
import fcntl
import gzip
import io
import json
import math
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.analyze.ledger.schema import canonical_text, parse_campaign
from generator.cli import main as evalsite_main
from tests.support.ledger_synth import arm, full_grid, make_campaign

GOLDEN = Path(__file__).resolve().parent / "golden"
FLOAT_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


def run_cli(*args: str, stdin: bytes | str | None = None) -> Run:
    """``evalsite ledger ARGS`` in-process, with stdin/stdout/stderr captured."""
    data = stdin.encode("utf-8") if isinstance(stdin, str) else (stdin or b"")
    fake_in = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.ExitStack() as stack:
        stack.enter_context(_swap(sys, "stdin", fake_in))
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(err))
        code = evalsite_main(["ledger", *args])
    return Run(code, out.getvalue(), err.getvalue())


@contextlib.contextmanager
def _swap(owner: Any, name: str, value: Any) -> Iterator[None]:
    old = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, old)


def assert_one_line_error(run: Run, expected: str | None = None) -> None:
    assert run.code == 2, run
    assert run.err.startswith("error: "), run.err
    assert run.err.count("\n") == 1, run.err
    assert "Traceback" not in run.err
    if expected is not None:
        assert run.err == f"error: {expected}\n"


def json_close(mine: Any, reference: Any, path: str = "$") -> list[str]:
    """Differences between two JSON values: exact except floats (1e-9, absolute)."""
    problems: list[str] = []
    if isinstance(reference, dict):
        if not isinstance(mine, dict) or set(mine) != set(reference):
            return [f"{path}: keys {sorted(mine) if isinstance(mine, dict) else type(mine)} != {sorted(reference)}"]
        for key in reference:
            problems += json_close(mine[key], reference[key], f"{path}.{key}")
    elif isinstance(reference, list):
        if not isinstance(mine, list) or len(mine) != len(reference):
            return [f"{path}: list differs"]
        for i, (a, b) in enumerate(zip(mine, reference, strict=False)):
            problems += json_close(a, b, f"{path}[{i}]")
    elif isinstance(reference, float) and isinstance(mine, float):
        if not (math.isclose(mine, reference, rel_tol=0, abs_tol=FLOAT_TOLERANCE)):
            problems.append(f"{path}: {mine!r} != {reference!r}")
    elif type(mine) is not type(reference) or mine != reference:
        problems.append(f"{path}: {mine!r} != {reference!r}")
    return problems


def golden_json(*parts: str) -> Any:
    return json.loads((GOLDEN.joinpath(*parts)).read_text(encoding="utf-8"))


def golden_ledger_bytes(folder: Path) -> bytes:
    with gzip.open(folder / "receipts.jsonl.gz", "rb") as handle:
        return handle.read()


def golden_cases() -> dict[str, Any]:
    with gzip.open(GOLDEN / "cases.json.gz", "rb") as handle:
        return json.loads(handle.read().decode("ascii"))


def unpack(b64: str) -> bytes:
    return gzip.decompress(base64.b64decode(b64))


def write_campaign(path: Path, raw: Any) -> Path:
    path.write_text(json.dumps(raw, ensure_ascii=False), encoding="utf-8")
    return path


def write_ledger(path: Path, receipts: list[dict[str, Any]]) -> Path:
    path.write_bytes("".join(canonical_text(item) + "\n" for item in receipts).encode("utf-8"))
    return path


def small_campaign(**overrides: Any) -> dict[str, Any]:
    """12 defect + 8 clean + 4 kill cases: enough for a candidate to clear every standard bar."""
    options: dict[str, Any] = {"defect_cases": 12, "clean_cases": 8, "candidates": [arm("candidate")]}
    options.update(overrides)
    return make_campaign(**options)


def perfect_receipts(raw: dict[str, Any], arms: tuple[str, ...] = ("codex-baseline", "candidate"), **fields: Any):
    return full_grid(parse_campaign(raw), arms, **fields)


def upstream_style_append(ledger: Path | str, receipt: dict[str, Any]) -> None:
    """What the upstream tool does last: flock the sibling lock, O_APPEND one canonical line."""
    fd = os.open(str(ledger) + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        out = os.open(ledger, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.write(out, (canonical_text(receipt) + "\n").encode("utf-8"))
        os.fsync(out)
        os.close(out)
    finally:
        os.close(fd)


def append_worker(ledger: str, raw: dict[str, Any], receipts: list[dict[str, Any]], upstream: bool, results) -> None:
    """One concurrent appender (run in a child process): evalsite's append, or the upstream protocol."""
    from generator.pipelines.ledger import append_receipt

    campaign = parse_campaign(raw)
    counts = []
    for receipt in receipts:
        if upstream:
            upstream_style_append(ledger, receipt)
            counts.append(-1)
        else:
            counts.append(append_receipt(ledger, campaign, receipt).count)
    results.put(counts)
