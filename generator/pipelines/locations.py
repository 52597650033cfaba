"""Where a build may write, and what a page may say about where its inputs are."""

from __future__ import annotations

import os
from pathlib import Path

from generator.model.errors import EvalsiteError
from generator.read.config import SiteConfig

__all__ = ["check_output_location", "scrub"]


def check_output_location(out_dir: Path, config: SiteConfig) -> None:
    """Refuse an output folder whose replacement would destroy the config or any input."""
    out = out_dir.resolve()
    if out == Path(out.anchor) or out == Path.home().resolve():
        raise EvalsiteError(f"refusing to use {out.name or out.anchor!r} as the output folder")
    protected = (config.base_dir, *config.input_paths())
    for path in protected:
        path = path.resolve()
        if path == out or out in path.parents:
            raise EvalsiteError(
                f"output folder {out.name!r} contains the site config or an input ({path.name!r}); choose another"
            )
        if path in out.parents and path != config.base_dir:
            raise EvalsiteError(f"output folder {out.name!r} is inside an input folder ({path.name!r})")


def scrub(message: str, config: SiteConfig) -> str:
    """Remove local paths from a message before it reaches a page."""
    message = " ".join(str(message).split())
    roots = sorted(
        {str(p) for p in (config.base_dir, *config.input_paths(), Path.home())} | {os.path.realpath(os.sep + "tmp")},
        key=len,
        reverse=True,
    )
    for root in roots:
        if root and root != os.sep:
            message = message.replace(root, "…")
    return message
