"""Cutting a text without keeping part of a secret (``safe_cut``)."""

from __future__ import annotations

from generator.model.redaction.base import MARKER_RE, lazy
from generator.model.redaction.builtin import _ALNUM
from generator.model.redaction.core import Redactor

#: Characters of a token-like run: a cut inside one (8 or more characters) backs off to its start.
_TOKEN_CHARS = frozenset(_ALNUM + "_+/=-")
_TOKEN_RUN = 8
#: The longest token-like run a cut backs off from (a secret is shorter; a longer run is data).
_RUN_REACH = 256
#: The text either side of a cut that the built-in rules are run on (every match but a PEM block
#: is shorter); a PEM block is found by its BEGIN line up to 66,000 characters back.
_WINDOW = 4608  # an env-style value (4,096) and its name
_PEM_REACH = 66_000
_PEM_BEGIN = lazy(globals(), "_PEM_BEGIN", r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
_DEFAULT: list[Redactor] = []


def safe_cut(text: str, at: int) -> int:
    """Where to cut *text* near *at* so that the kept part ``text[:cut]`` holds no part of a secret.

    A text is often cut (to a field's or a step's budget) before it is redacted, so a secret that
    straddles the cut would show its first part, which no rule then recognises.  The cut moves back
    (never forward) while it falls after the start of a secret a built-in rule finds in the full text
    and before the end of that rule's match (to the secret's start, so ``API_KEY=`` may stay), inside
    a redaction marker, or inside a run of 8 to 256 token characters ``[A-Za-z0-9_+/=-]`` (a secret
    of a rule the cutter does not know, such as a config pattern; a longer run is data).
    Pure; ``docs/security.md``.
    """
    if at <= 0 or at >= len(text):
        return max(0, min(at, len(text)))
    if len(text) > _REMEMBER_SIZE:
        return _cut(text, at)
    key = (text, at)
    cut = _CUTS.get(key)
    if cut is None:
        if len(_CUTS) >= _REMEMBER:
            _CUTS.clear()
        cut = _CUTS[key] = _cut(text, at)
    return cut


#: Cuts remembered (text, place) -> cut, for texts of at most 16 KiB: a page caps the same long name or
#: message in every table and view of it, and each cut runs the rules over up to 9 KiB around it.
_CUTS: dict[tuple[str, int], int] = {}
_REMEMBER = 512
_REMEMBER_SIZE = 1 << 14


def _cut(text: str, at: int) -> int:
    """:func:`safe_cut` of a text longer than *at*, worked out."""
    if not _DEFAULT:
        _DEFAULT.append(Redactor())
    low = max(0, at - _WINDOW)
    window = text[low : at + _WINDOW]
    # (secret start, match end): a cut after a secret's start but before its match ends (the ``@``
    # after a URL password) would keep the secret without what makes a rule see it
    found = _DEFAULT[0]._spans(window) if _DEFAULT[0].may_hold_secret(window) else []
    spans = [(s_start + low, end + low) for _, _, end, s_start, _, _ in found]
    spans += [(m.start() + low, m.end() + low) for m in MARKER_RE.finditer(window)]
    begin = text.rfind("-----BEGIN", max(0, at - _PEM_REACH), at)
    if begin >= 0 and _PEM_BEGIN.match(text, begin) and text.find("-----END", begin, at) < 0:
        spans.append((begin, len(text)))  # a private key block open at the cut
    cut = at
    moved = True
    while moved and cut > 0:
        moved = False
        for start, end in spans:
            if start < cut < end:
                cut, moved = start, True
        if 0 < cut < len(text) and text[cut - 1] in _TOKEN_CHARS and text[cut] in _TOKEN_CHARS:
            start = cut
            while start > 0 and cut - start <= _RUN_REACH and text[start - 1] in _TOKEN_CHARS:
                start -= 1
            end = cut
            while end < len(text) and end - start <= _RUN_REACH and text[end] in _TOKEN_CHARS:
                end += 1
            if _TOKEN_RUN <= end - start <= _RUN_REACH:  # a longer run is data, not a secret
                cut, moved = start, True
    return cut
