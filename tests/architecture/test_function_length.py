"""No function of the product is longer than 100 lines (issue 27: a house a newcomer can carry on).

Long functions were the page builders that grew a section at a time; each is now a short function
that names its parts.  ``ruff``'s C901 (``pyproject.toml``) caps their branching at 15.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "generator"
LONGEST = 100


def test_no_function_is_longer_than_a_hundred_lines() -> None:
    long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno is not None:
                lines = node.end_lineno - node.lineno + 1
                if lines > LONGEST:
                    long.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {node.name} ({lines} lines)")
    assert not long, "split these functions: " + "; ".join(long)
