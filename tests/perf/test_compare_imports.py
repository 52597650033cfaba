"""``evalsite compare`` computes its statistics without importing scipy.stats or scipy.optimize, and
its JSON document without the pages' formatting or YAML.

A behaviour test, not a timing test (``bench/bench_inspect.py`` prints the times): a fresh
interpreter runs the command and reports which scipy subpackages ended up in ``sys.modules``, and
whether the statistics really ran (the Tango interval's root finder was loaded).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

_PROBE = """
import sys
from generator import cli
code = cli.main(sys.argv[1:])
from generator.analyze.stats import dist
solved = dist.brentq_extension.cache_info().currsize
loaded = sorted(m for m in sys.modules if m.split(".")[0] == "scipy" and m.count(".") == 1 and m[6] != "_")
others = sorted(m for m in ("generator.pages", "yaml", "jinja2") if m in sys.modules)
print("EXIT", code, "SOLVED", solved, "SCIPY", ",".join(loaded), "OTHERS", ",".join(others) or "none", file=sys.stderr)
"""

INSPECT = [
    *("--candidate", "examples/inspect/candidate.eval", "--candidate-treatment", "candidate-solver"),
    *("--baseline", "examples/inspect/baseline.eval", "--baseline-treatment", "baseline-solver"),
    *("--candidate-format", "inspect", "--baseline-format", "inspect"),
]
COMET = [
    *("--candidate", "examples/experiments/native", "--candidate-treatment", "COMET_NATIVE_PHASE1"),
    *("--baseline", "examples/experiments/beta", "--baseline-treatment", "COMET_FULL_040_BETA"),
    *("--tasks", "examples/tasks", "--rebase-artifacts"),
]


@pytest.mark.parametrize("sides", [INSPECT, COMET], ids=["inspect", "comet"])
def test_compare_imports_neither_scipy_stats_nor_optimize(sides: list[str]) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, "compare", *sides, "--format", "json"],
        cwd=ROOT,
        capture_output=True,
        check=False,
    )
    last = proc.stderr.decode().strip().splitlines()[-1].split(" ")
    assert last[:4] == ["EXIT", "0", "SOLVED", "1"], proc.stderr.decode()[-2000:]
    assert last[5].split(",") == ["scipy.special", "scipy.version"]
    assert last[6:] == ["OTHERS", "none"]  # nor the pages, YAML or Jinja
    assert b'"tango"' in proc.stdout or b"Tango" in proc.stdout
