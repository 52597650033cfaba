"""A decoded view of a text, to find secrets hidden by an encoding, and the way back to the text.

Decoded: JSON and C escapes ``\\uXXXX`` and ``\\xXX``, URL encoding ``%XX`` (ASCII only), zero-width
characters (removed) and escaped ``\\n``, ``\\r``, ``\\t``.  In a second view, a line break (real or
escaped, with the next line's indentation) inside a token is removed too: after at least 8 token
characters that hold a digit, an underscore or two capitals, before another token character.
:func:`decoded` returns a view; :meth:`View.back` maps a span of it to the span of the original text
it came from, so that a secret written ``ghp_\\u0041…`` is replaced with its escapes.
"""

from __future__ import annotations

import bisect
import re

_ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff\u00ad\u180e"
_TOKEN = "A-Za-z0-9_+/=-"
SITES = re.compile(  # every branch begins with a literal or a class: the engine skips to those characters
    r"\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})|%([0-7][0-9a-fA-F])|[" + _ZERO_WIDTH + r"]"
    r"|\n[ \t]*(?=[" + _TOKEN + r"\\%])|\r\n[ \t]*(?=[" + _TOKEN + r"\\%])|\\r\\n[ \t]*|\\[nrt][ \t]*"
)
_JOINS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+/=-\\%")
_ESCAPED = {"n": "\n", "r": "\r", "t": "\t"}
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+/=-")
_RUN = re.compile(r"[" + _TOKEN + r"]{8,}\Z")
_MIXED = re.compile(r"[0-9_]|[A-Z].*[A-Z]")
_TRIGGER = re.compile(r"[\\%" + _ZERO_WIDTH + r"]")  # a class first: the engine skips everything else fast
_LINE = re.compile(r"\n[ \t]*(?=[" + _TOKEN + r"\\%])")  # a literal first: searched as fast
_AT = re.compile(SITES.pattern)
#: A text with more sites than this is decoded only in its first this many (a cap on the work).
MAX_SITES = 200_000


class View:
    """The decoded text and, per edit, (view start, view end, text start, text end)."""

    __slots__ = ("text", "edits", "_starts")

    def __init__(self, text: str, edits: list[tuple[int, int, int, int]]) -> None:
        self.text = text
        self.edits = edits
        self._starts = [edit[0] for edit in edits]

    def back(self, start: int, end: int) -> tuple[int, int]:
        """The span of the original text that the view's ``[start, end)`` was decoded from (a decoded
        piece the span begins or ends in is taken whole)."""
        first, _ = self._char(start)
        last, piece_end = self._char(end - 1)
        return first, piece_end

    def _char(self, at: int) -> tuple[int, int]:
        """Where the view's character *at* came from: (text start, text end)."""
        index = bisect.bisect_right(self._starts, at) - 1
        if index < 0:
            return at, at + 1
        v_start, v_end, t_start, t_end = self.edits[index]
        if at < v_end:
            return t_start, t_end
        return t_end + (at - v_end), t_end + (at - v_end) + 1

    def touches(self, start: int, end: int) -> bool:
        """Whether the view's ``[start, end]`` holds or borders an edit."""
        index = bisect.bisect_right(self._starts, end) - 1
        return index >= 0 and self.edits[index][1] >= start


def sites(text: str) -> list[re.Match[str]]:
    """``SITES.finditer(text)`` as a list, found by two fast scans (a ``\\``, ``%`` or zero-width
    character; a line break before a token character) and the full pattern only where they hit."""
    found: list[re.Match[str]] = []
    done = 0
    hits = [m.start() for m in _TRIGGER.finditer(text)]
    hits += [m.start() - (m.start() > 0 and text[m.start() - 1] == "\r") for m in _LINE.finditer(text)]
    for at in sorted(hits):
        if at < done:
            continue
        match = _AT.match(text, at)
        if match is not None and match.end() > at:
            found.append(match)
            done = match.end()
    return found


def decoded(text: str, join: bool, found: list[re.Match[str]] | None = None) -> View | None:
    """The decoded view of *text*, or None when nothing in it is decoded; line breaks inside a token
    are removed only when *join* (then None also when no line break was removed).  *found*: its
    :func:`sites`, when known."""
    joined = False
    pieces: list[str] = []
    edits: list[tuple[int, int, int, int]] = []
    done = 0
    size = 0
    for count, site in enumerate(sites(text) if found is None else found):
        if count >= MAX_SITES:
            break
        start, end = site.span()
        code, byte, url = site.groups()
        first = text[start]
        if code is None and byte is None and url is None and first not in _ZERO_WIDTH:
            # a line break: removed inside a token, else an escaped one is decoded (``\\n`` ends a line)
            joins = join and start > 0 and text[start - 1] in _TOKEN_CHARS and end < len(text) and text[end] in _JOINS
            if joins:
                run = _RUN.search(text, max(0, start - 64), start)
                joins = run is not None and _MIXED.search(run.group(0)) is not None
            if joins:
                value = ""
                joined = True
            elif first == "\\":
                value = _ESCAPED[text[start + 1]]
                end = start + 2
            else:
                continue
        elif first in _ZERO_WIDTH:
            value = ""
        else:
            value = chr(int(code or byte or url, 16))
            if value in _ZERO_WIDTH:
                value = ""
        pieces.append(text[done:start])
        size += start - done
        edits.append((size, size + len(value), start, end))
        pieces.append(value)
        size += len(value)
        done = end
    if not edits or (join and not joined):
        return None
    pieces.append(text[done:])
    return View("".join(pieces), edits)


def windows(view: View, reach: int) -> list[tuple[int, int]]:
    """Merged spans of the view within *reach* of an edit."""
    out: list[tuple[int, int]] = []
    for v_start, v_end, _t_start, _t_end in view.edits:
        low, high = max(0, v_start - reach), min(len(view.text), v_end + reach)
        if out and low <= out[-1][1]:
            out[-1] = (out[-1][0], high)
        else:
            out.append((low, high))
    return out
