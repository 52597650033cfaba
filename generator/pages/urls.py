"""Stable, collision-free URLs for every page of the site.

Every page is a folder with an ``index.html`` (plus its ``data.json``), so a
page's URL is ``<folder>/index.html``.  Links are always relative: a page at
depth *d* reaches the site root through ``root = "../" * d``.  Nothing starts
with ``/``, because a GitHub Pages project site is served under ``/<repo>/``.

Names that come from the evidence (task names, arm ids) are untrusted: they may
contain markup, path separators, ``..`` or only non-ASCII letters.  Their slug
is a readable ASCII prefix (short words only, so that no secret reaches a path: see
:func:`_readable`) plus 32 hex digits (128 bits) of the SHA-256 of the
exact name, so it is stable (it depends on the name alone, not on the other
names in the build), distinct for names that differ only in case or
punctuation, and safe as one path segment on every file system.  128 bits make
two names with one slug a practical impossibility (a collision needs about
2**64 names), where the earlier 32 bits were found by brute force in under a
second; the site writer still refuses two pages with one output file.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
import unicodedata
from functools import lru_cache

from generator.model.common import is_slug
from generator.model.redaction import Redactor

__all__ = [
    "arm_url",
    "comparison_url",
    "index_url",
    "is_slug",
    "ledger_url",
    "name_slug",
    "page_dir",
    "rel",
    "relative_root",
    "report_url",
    "pair_url",
    "run_url",
    "task_transcripts_url",
    "task_url",
]

_PREFIX_LEN = 40
SLUG_HASH_DIGITS = 32  # 128 bits of SHA-256
_WORD = re.compile(r"[a-z0-9]+")
_LETTERS = re.compile(r"[a-z]+")
_LONGEST_WORD = 20  # a word of letters alone, kept up to this length
_LONGEST_TOKEN = 4  # a word with digits ("v2", "5x5", "py3"), kept up to this length


def _readable(name: str) -> str:
    """The words of ``name`` that can never carry a secret into a path, ``-``-joined and cut.

    A page path is published as it is (a file name, a link, the site manifest) and no redaction
    rule sees it whole, so the readable part keeps only short words: letters alone up to 20,
    anything with a digit up to 4 characters.  Keys, tokens and passwords are longer or mix digits
    in (``AKIA...``, ``hunter2``); a name a redaction rule would change keeps no readable part at all.
    """
    ascii_form = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii").lower()
    words = [
        word
        for word in _WORD.findall(ascii_form)
        if len(word) <= (_LONGEST_WORD if _LETTERS.fullmatch(word) else _LONGEST_TOKEN)
    ]
    prefix = "-".join(words)[:_PREFIX_LEN].strip("-")
    if prefix and _default_redactor().text(name) != name:
        return ""
    return prefix


@lru_cache(maxsize=1)
def _default_redactor() -> Redactor:
    return Redactor()


def name_slug(name: str) -> str:
    """A stable, collision-resistant URL segment for an untrusted name, never holding a secret of it.

    >>> name_slug("task-a")
    'task-a-37bbbbed5fd87cbc8c1b2084b1c48b52'
    >>> name_slug("deploy-AKIAIOSFODNN7EXAMPLE")
    'n-28838fcf430a428a1e2180dbc4b953ba'
    """
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:SLUG_HASH_DIGITS]
    prefix = _readable(name)
    return f"{prefix}-{digest}" if prefix else f"n-{digest}"


def index_url() -> str:
    return "index.html"


def comparison_url(comparison_id: str) -> str:
    return f"comparisons/{comparison_id}/index.html"


def task_url(comparison_id: str, task: str) -> str:
    return f"comparisons/{comparison_id}/tasks/{name_slug(task)}/index.html"


def run_url(comparison_id: str, task: str, side: str, rep: int, page: int = 1, variant: str = "") -> str:
    """A run's transcript page (``docs/transcripts.md``); long transcripts continue on ``page-N/``.

    *variant* (a short hash of the report file) tells apart two reports of one side, task and rep.
    """
    run = f"{side}-{rep}" + (f"-{variant}" if variant else "")
    base = f"comparisons/{comparison_id}/tasks/{name_slug(task)}/runs/{run}/"
    return base + ("index.html" if page == 1 else f"page-{page}/index.html")


def task_transcripts_url(comparison_id: str, task: str, page: int = 1) -> str:
    """A task's runs and pairs grouped (``run_pages: task``); the first page indexes them all."""
    base = f"comparisons/{comparison_id}/tasks/{name_slug(task)}/transcripts/"
    return base + ("index.html" if page == 1 else f"page-{page}/index.html")


def pair_url(comparison_id: str, task: str, rep: int) -> str:
    """The paired step view of one strictly matched (task, repetition) pair."""
    return f"comparisons/{comparison_id}/tasks/{name_slug(task)}/pairs/{rep}/index.html"


def ledger_url(ledger_id: str) -> str:
    return f"ledgers/{ledger_id}/index.html"


def report_url(report_id: str) -> str:
    """A single-system report's page (``reports:``)."""
    return f"reports/{report_id}/index.html"


def arm_url(ledger_id: str, arm_id: str) -> str:
    return f"ledgers/{ledger_id}/arms/{name_slug(arm_id)}/index.html"


def page_dir(url: str) -> str:
    """The folder of a page URL (``""`` for the root page)."""
    return url.rpartition("/")[0]


def relative_root(url: str) -> str:
    """``"../"`` repeated once per folder level of *url*."""
    return "../" * url.count("/")


def rel(from_url: str, to_url: str) -> str:
    """The relative link from the page at *from_url* to *to_url* (both site-relative).

    >>> rel("comparisons/x/index.html", "comparisons/x/tasks/t-1/index.html")
    'tasks/t-1/index.html'
    """
    if to_url.startswith("#"):
        return to_url
    target, _, fragment = to_url.partition("#")
    link = _relpath(target, page_dir(from_url))
    return f"{link}#{fragment}" if fragment else link


def _relpath(target: str, start: str) -> str:
    """``posixpath.relpath(target, start or ".")`` for the site's own URLs, by segment arithmetic.

    ``posixpath.relpath`` makes both paths absolute first (a ``getcwd`` call each; 7 µs a link against
    3 µs, five links a task page).  URLs the site makes hold no empty, ``.`` or ``..`` segment and do not
    start with ``/``; anything else takes ``posixpath.relpath`` (``tests/site/test_urls.py`` checks both agree).
    """
    to_parts = target.split("/")
    from_parts = start.split("/") if start else []
    if not target or _ODD_SEGMENTS.intersection(to_parts) or _ODD_SEGMENTS.intersection(from_parts):
        return posixpath.relpath(target, start or ".")
    common = 0
    for mine, theirs in zip(from_parts, to_parts, strict=False):
        if mine != theirs:
            break
        common += 1
    parts = [".."] * (len(from_parts) - common) + to_parts[common:]
    return "/".join(parts) if parts else "."


_ODD_SEGMENTS = frozenset(("", ".", ".."))
