"""evalsite: verified static sites from AI-agent evaluation evidence.

The package is a pipeline whose stages are its sub-packages: ``read`` (safe I/O and one parser per
input format) -> ``analyze`` (pure functions) -> ``pages`` (page models) -> ``render`` (Jinja,
Plotly, Markdown, JSON) -> ``write`` (atomic output), over the shared types of ``model``;
``pipelines`` runs the stages and ``cli`` parses arguments.

The public API is what ``__all__`` lists (see ``docs/api.md``); everything else is private and may
change.  Names load on first use, so ``import generator`` stays cheap (no numpy or scipy until a
comparison or a ledger summary is computed).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from generator.model.version import __version__

__all__ = [
    "ComparisonInputs",
    "ComparisonOutput",
    "ComparisonResult",
    "EvalsiteError",
    "LedgerResult",
    "SiteConfig",
    "__version__",
    "build_site",
    "compare_experiments",
    "load_config",
    "render_comparison",
    "run_comparison",
    "summarize_ledger",
]

_EXPORTS = {
    "ComparisonInputs": "generator.model.comparison",
    "ComparisonResult": "generator.model.comparison",
    "EvalsiteError": "generator.model.errors",
    "LedgerResult": "generator.model.ledger_result",
    "SiteConfig": "generator.read.config",
    "load_config": "generator.read.config",
    "ComparisonOutput": "generator.pipelines.compare",
    "compare_experiments": "generator.pipelines.compare",
    "run_comparison": "generator.pipelines.compare",
    "render_comparison": "generator.pipelines.compare",
    "summarize_ledger": "generator.pipelines.ledger",
    "build_site": "generator.pipelines.build",
}

if TYPE_CHECKING:
    from generator.model.comparison import ComparisonInputs, ComparisonResult
    from generator.model.errors import EvalsiteError
    from generator.model.ledger_result import LedgerResult
    from generator.pipelines.build import build_site
    from generator.pipelines.compare import (
        ComparisonOutput,
        compare_experiments,
        render_comparison,
        run_comparison,
    )
    from generator.pipelines.ledger import summarize_ledger
    from generator.read.config import SiteConfig, load_config


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'generator' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
