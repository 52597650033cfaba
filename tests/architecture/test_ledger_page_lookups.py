"""Ledger pages format a typed result: they do not walk JSON documents by string keys (issue 27).

A string-key lookup is ``x["k"]`` or ``x.get("k", ...)`` with a constant string ``"k"``, counted in
the syntax tree of every module of a ``generator/pages/`` subpackage.  The ledger pages take
``LedgerResult.facts`` (``generator.model.ledger_result.LedgerFacts``); the one lookup left reads
a summary row's ``armId`` where the index page still passes the summary's row.
"""

from __future__ import annotations

import ast
from pathlib import Path

PAGES = Path(__file__).resolve().parents[2] / "generator" / "pages"

#: The most string-key lookups each pages/ subpackage may hold.
LIMITS = {"ledger": 1}


def string_key_lookups(source: str) -> list[int]:
    """The line of every ``x["k"]`` and ``x.get("k")`` (constant string key) in ``source``."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Subscript):
            key = node.slice
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
            key = node.args[0] if node.args else None
        else:
            continue
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            lines.append(node.lineno)
    return lines


def _count(folder: Path) -> dict[str, list[int]]:
    found = {}
    for path in sorted(folder.rglob("*.py")):
        lines = string_key_lookups(path.read_text(encoding="utf-8"))
        if lines:
            found[str(path.relative_to(PAGES.parent.parent))] = lines
    return found


def test_the_counter_finds_subscripts_and_gets_with_constant_keys():
    source = 'a["k"]\nb.get("k")\nc.get("k", 0)\nd[k]\ne.get(k)\nf[0]\ng["k"]["j"]\nh.get()\n'
    assert string_key_lookups(source) == [1, 2, 3, 7, 7]


def test_string_key_lookups_ledger():
    for package, limit in LIMITS.items():
        found = _count(PAGES / package)
        total = sum(len(lines) for lines in found.values())
        assert total <= limit, f"pages/{package} has {total} string-key lookups (at most {limit}): {found}"
