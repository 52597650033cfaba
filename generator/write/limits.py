"""GitHub Pages' limits, checked on every built site (``docs/performance.md``, "Budgets").

A Pages site may be at most 1 GB, and a deployment of hundreds of thousands of files does not
finish within its 10 minutes; evalsite budgets 100,000 files.  A build over either limit (or past
80% of one) says so, with the setting that shrinks it: run pages are the part that grows with the
runs, so the ``transcripts:`` policy comes first.
"""

from __future__ import annotations

from typing import Final

__all__ = ["MAX_SITE_BYTES", "MAX_SITE_FILES", "limit_warnings"]

MAX_SITE_BYTES: Final = 1_000_000_000  # GitHub Pages: published sites may be no larger than 1 GB
MAX_SITE_FILES: Final = 100_000  # evalsite's budget for one deployment (issue 30)
_NEAR: Final = 0.8

_SMALLER: Final = {
    "all": "set transcripts: differing (or failures, or sample) to publish fewer run pages",
    "failures": "set transcripts: differing (or sample) to publish fewer run pages",
    "differing": "set transcripts: sample (or none) to publish fewer run pages",
    "sample": "set transcripts: none to publish no run pages, or split the site",
    "none": "split the comparisons over several sites",
}


def limit_warnings(files: int, total_bytes: int, policy: str) -> list[str]:
    """One warning per limit the site passes or comes within 20% of, with what to change."""
    found = []
    for what, value, limit, unit in (
        ("files", files, MAX_SITE_FILES, f"{MAX_SITE_FILES:,} files"),
        ("bytes", total_bytes, MAX_SITE_BYTES, "1 GB"),
    ):
        if value < _NEAR * limit:
            continue
        shown = f"{value:,} files" if what == "files" else f"{value / 1e9:.2f} GB"
        state = "over" if value > limit else "near"
        change = _SMALLER.get(policy, _SMALLER["all"])
        found.append(f"the site is {state} GitHub Pages' limit: {shown} of at most {unit}; {change}")
    return found
