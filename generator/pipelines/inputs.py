"""The "Built from" digests of a page's inputs: a folder by its tree digest, a file by its own."""

from __future__ import annotations

import hashlib
from pathlib import Path

from generator.pages.models import InputDigest
from generator.read.digests import file_digest, tree_digest_of

__all__ = ["digest", "tree_input"]


def tree_input(role: str, path: Path) -> InputDigest:
    if path.is_file():  # an imported log file (an Inspect .eval/.json log, a SWE-bench run report)
        return InputDigest(role, path.name, file_digest(path), "file")
    found = tree_digest_of(path)
    return InputDigest(role, path.name, found.digest, found.detail)


def digest(data: bytes | str) -> str:
    return "sha256:" + hashlib.sha256(data.encode("utf-8") if isinstance(data, str) else data).hexdigest()
