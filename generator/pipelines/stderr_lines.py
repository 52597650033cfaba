"""One ``warning:``, ``fail:`` or ``error:`` line on stderr that may carry untrusted text (issue 26).

A name from the evidence can be 70,000 characters long or hold line breaks, terminal escapes or
GitHub's ``::`` workflow commands.  :func:`say` writes every control, invisible or line-breaking
character as ``[U+XXXX]`` (``pages/names.py: visible``; tabs and line breaks too, so a name can
forge no second line), redacts it like every published byte (a CI log is public too), and cuts
the text to :data:`LINE_CAP` characters with the cut disclosed (``pages/format.py: capped``: how
many characters, and the digest of the whole).  The cap leaves room for a message that names
two or three fields of up to ``FIELD_CAP`` (500) characters each.
"""

from __future__ import annotations

import sys
from functools import lru_cache

from generator.model.redaction import Redactor
from generator.pages.format import capped
from generator.pages.names import visible

__all__ = ["LINE_CAP", "say", "shown"]

LINE_CAP = 1_000  # characters of the text of one stderr line

_BREAKS = {0x09: "[U+0009]", 0x0A: "[U+000A]", 0x0B: "[U+000B]", 0x0C: "[U+000C]", 0x0D: "[U+000D]"}


def shown(text: object) -> str:
    """``text`` on one visible line of at most :data:`LINE_CAP` characters and its cut notice."""
    return capped(visible(str(text).translate(_BREAKS)), LINE_CAP)


def say(prefix: str, text: object, redactor: Redactor | None = None) -> None:
    """Print ``prefix: text`` on stderr, the text redacted (by the site's rules, else the built-in ones:
    a CI log is published too) and :func:`shown`."""
    print(f"{prefix}: {shown((redactor or _default_redactor()).text(str(text)))}", file=sys.stderr)


@lru_cache(maxsize=1)
def _default_redactor() -> Redactor:
    return Redactor()
