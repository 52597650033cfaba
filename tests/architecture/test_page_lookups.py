"""Page models select and format typed results: they do not walk JSON-shaped dicts (issue 27).

A string-key lookup is ``x["key"]`` or ``x.get("key", ...)`` with a string literal key, counted in
the AST of every module under ``generator/pages/``.  Each part of ``pages/`` listed in
:data:`BUDGETS` may hold at most its number; a page that starts re-indexing a rendered document
(``evalsite.comparison.v1``, a summary dict) fails here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PAGES = Path(__file__).resolve().parents[2] / "generator" / "pages"

#: Part of pages/ (a subpackage or a module) -> the most string-key lookups it may hold.
BUDGETS = {
    # the comparison and task pages format a ComparisonView (model/comparison_view.py)
    "comparison": 0,
    # the ledger pages take LedgerResult.facts (model/ledger_result.py)
    "ledger": 0,
    # the comparison headline formats the view, the ledger headline LedgerResult.facts
    "index.py": 0,
    # run and pair pages
    "runs": 0,
}


def lookups(tree: ast.AST) -> int:
    """How many ``x["literal"]`` and ``x.get("literal", ...)`` the tree holds."""
    found = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript):
            key = node.slice
            found += isinstance(key, ast.Constant) and isinstance(key.value, str)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
            first = node.args[0] if node.args else None
            found += isinstance(first, ast.Constant) and isinstance(first.value, str)
    return found


def _count(part: Path) -> int:
    files = sorted(part.rglob("*.py")) if part.is_dir() else [part]
    return sum(lookups(ast.parse(path.read_text(encoding="utf-8"), str(path))) for path in files)


def test_the_counter_counts_what_it_says() -> None:
    tree = ast.parse('a["k"]; a.get("k"); a.get("k", 1); a[k]; a.get(k); a[0]; a.b; d = {"k": 1}')
    assert lookups(tree) == 3
    assert lookups(ast.parse('g["k"]["j"]\nh.get()\n')) == 2


@pytest.mark.parametrize("part", sorted(BUDGETS))
def test_pages_stay_within_their_lookup_budget(part: str) -> None:
    path = PAGES / part
    assert path.exists(), f"pages/{part} is gone: update BUDGETS"
    count = _count(path)
    assert count <= BUDGETS[part], f"pages/{part} has {count} string-key lookups (budget {BUDGETS[part]})"
