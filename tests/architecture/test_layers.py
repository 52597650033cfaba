"""The pipeline's stages import one way: cli -> pipelines -> {read, analyze, pages, render, write} -> model.

Within the stages, only the pipeline's own direction is allowed: render may import pages (the page
models it renders) and write may import read (the ledger lock it shares with the reader).

Every ``import``/``from ... import`` of ``generator`` in every module counts, including those inside
functions and under ``TYPE_CHECKING``: a stage that needs another stage's type is a sign the type
belongs in ``generator.model``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "generator"

STAGES = ("read", "analyze", "pages", "render", "write")
# What each top-level part of the package may import (besides itself and the package root's version).
ALLOWED: dict[str, set[str]] = {
    "model": set(),
    **{stage: {"model"} for stage in STAGES},
    # render turns page models into HTML and Markdown; write may use read's safe primitives (locks).
    "render": {"model", "pages"},
    "write": {"model", "read"},
    "pipelines": {"model", *STAGES},
    "cli": {"model", "pipelines"},
    "__main__": {"cli"},
    # the public statistics API (docs/api.md) over the analysis functions
    "stats": {"model", "analyze"},
    "__init__": {"model", "pipelines", "read"},
}


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _part_of(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1:
        return "__init__"
    return parts[1]


def _imports(path: Path) -> Iterator[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = _module_name(path)
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target == "generator" or (node.module is None and node.level):
                # ``from generator import x``: x may be a sub-package
                for alias in node.names:
                    yield node.lineno, f"{target}.{alias.name}"
            else:
                yield node.lineno, target


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = _module_name(path)
        graph[name] = {target for _, target in _imports(path) if target.split(".")[0] == "generator"}
    return graph


def _resolve(target: str, modules: set[str]) -> str | None:
    """The module an import names (``from generator.x import name`` names generator.x)."""
    while target and target not in modules:
        target = target.rpartition(".")[0]
    return target or None


def test_every_stage_imports_only_what_it_may() -> None:
    violations = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = _part_of(_module_name(path))
        allowed = ALLOWED.get(source)
        assert allowed is not None, f"{path.relative_to(PACKAGE.parent)}: not part of a known stage"
        for line, target in _imports(path):
            if target.split(".")[0] != "generator":
                continue
            part = _part_of(target)
            if part != source and part not in allowed:
                violations.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {target} ({source} -> {part})")
    assert not violations, "imports against the pipeline:\n" + "\n".join(violations)


def test_analyze_is_pure() -> None:
    """analyze/ does no I/O of its own: no file, process or network modules."""
    forbidden = {"os", "io", "shutil", "subprocess", "socket", "tempfile", "pathlib", "sys", "fcntl"}
    found = []
    for path in sorted((PACKAGE / "analyze").rglob("*.py")):
        for line, target in _imports(path):
            if target.split(".")[0] in forbidden:
                found.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {target}")
    assert not found, "\n".join(found)


def test_no_import_cycles() -> None:
    graph = _graph()
    modules = set(graph)
    edges = {
        name: {resolved for t in targets if (resolved := _resolve(t, modules)) and resolved != name}
        for name, targets in graph.items()
    }
    # A package's __init__ importing its own modules is not a cycle between modules.
    for name, targets in edges.items():
        targets.discard(name.rpartition(".")[0])
    state: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join(stack[stack.index(nxt) :] + [nxt]))
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node)
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


@pytest.mark.parametrize("limit", [600])
def test_no_module_over_the_size_limit(limit: int) -> None:
    big = [
        f"{p.relative_to(PACKAGE.parent)}: {n} lines"
        for p in sorted(PACKAGE.rglob("*.py"))
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > limit
    ]
    assert not big, "\n".join(big)


def test_the_checker_sees_a_violation(tmp_path: Path) -> None:
    """The checker is not vacuous: a planted analyze -> read import is found."""
    planted = tmp_path / "generator" / "analyze" / "x.py"
    planted.parent.mkdir(parents=True)
    planted.write_text("from generator.read.safe_io import read_contained\n", encoding="utf-8")
    global PACKAGE
    saved = PACKAGE
    PACKAGE = tmp_path / "generator"
    try:
        with pytest.raises(AssertionError, match="analyze -> read"):
            test_every_stage_imports_only_what_it_may()
    finally:
        PACKAGE = saved
