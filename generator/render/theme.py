"""A user's theme: their own templates and assets first on the loader path (``theme_dir:``).

Like MkDocs' ``custom_dir``: a file in the theme folder with the same relative path as one of
evalsite's templates (``base.html``, ``partials/blocks.html``, ``assets/site.css``, ...) replaces it,
and new files (a partial an override includes) are added. The build renders from a private copy of
evalsite's templates with the theme laid over it, so the rest of the pipeline sees one folder, and
autoescaping stays on for every template, the theme's included (``render/env.py``). The files are
read by ``generator.read.theme``.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

__all__ = ["themed_templates"]


@contextmanager
def themed_templates(default: Path, theme: Sequence[tuple[str, bytes]] | None) -> Iterator[Path]:
    """*default* itself without a theme; else a private copy with the theme's files laid over it."""
    if theme is None:
        yield default
        return
    with tempfile.TemporaryDirectory(prefix="evalsite-theme-") as folder:
        root = Path(folder) / "templates"
        shutil.copytree(default, root, symlinks=False)
        for relative, data in theme:
            target = root / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        yield root
