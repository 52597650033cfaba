"""What every redaction module shares: the marker, a rule, a result, and a length-keeping lower case."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, cast

#: One found secret: its kind and the 12-hex digest shown in its marker.
Finding = tuple[str, str]
#: A candidate: (match start, order, match end, secret start, secret end, kind); lower order wins.
Span = tuple[int, int, int, int, int, str]


class _Lazy:
    """A module-level regular expression compiled when first used, so importing compiles nothing."""

    __slots__ = ("_name", "_args", "_compiled", "_module")

    def __init__(self, module: dict[str, Any], name: str, pattern: str, flags: int = 0) -> None:
        self._module, self._name, self._args = module, name, (pattern, flags)
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, attribute: str) -> Any:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(*self._args)
            self._module[self._name] = compiled
        return getattr(compiled, attribute)


def lazy(module: dict[str, Any], name: str, pattern: str, flags: int = 0) -> re.Pattern[str]:
    """A regex compiled on first use, then put into *module* (a ``globals()``) under *name*."""
    return cast("re.Pattern[str]", _Lazy(module, name, pattern, flags))


MARKER_RE = lazy(globals(), "MARKER_RE", r"\[redacted:([a-z0-9][a-z0-9-]{0,63}) sha256:([0-9a-f]{12})\]")
KIND_RE = lazy(globals(), "KIND_RE", r"^[a-z0-9][a-z0-9-]{0,63}$")


def marker(kind: str, secret: str) -> str:
    digest = hashlib.sha256(secret.encode("utf-8", errors="surrogatepass")).hexdigest()[:12]
    return f"[redacted:{kind} sha256:{digest}]"


@dataclass(frozen=True, slots=True)
class RedactionRule:
    """A kind and a regex; the secret is the group named ``s`` when there is one, else the whole match.

    Built-in rules begin with a literal (so the regex engine can skip ahead fast); *not_after* lists
    the characters that may not precede a match, and *lower* rules are written in lower case and run
    on the folded text (:func:`fold`: case-insensitive, same positions).  *prefix* is that literal:
    every match starts with it, so the rule is only tried where it occurs (and *not_after* allows a
    match), and a text where it matches at none of those places is not scanned by the rule at all.
    """

    kind: str
    regex: str
    not_after: str = ""
    lower: bool = False
    prefix: str = ""


@dataclass(frozen=True, slots=True)
class Redacted:
    text: str
    found: tuple[Finding, ...]  # in order of appearance, repeats kept


def fold(text: str) -> str:
    """*text* lower-cased with every position kept: ``İ`` (which ``str.lower`` turns into two
    characters), the dotless ``ı`` and the long ``ſ`` become ``i``, ``i`` and ``s`` first.  These are
    the letters a case-insensitive Python regex matches to an ASCII letter that ``str.lower`` keeps
    apart (the Kelvin sign lowers to ``k`` already).  ``str.replace``, not ``str.translate``: a
    translation table looks up every character of a non-ASCII text (8 times slower on the pages of a
    site of hostile names)."""
    low = text.lower()
    if len(low) != len(text) or "\u0131" in low or "\u017f" in low:
        low = text.replace("\u0130", "i").replace("\u0131", "i").replace("\u017f", "s").lower()
    return low


def check_rule(kind: Any, regex: Any) -> RedactionRule:
    """A config rule, validated; raises ValueError with the reason."""
    if not isinstance(kind, str) or not KIND_RE.match(kind):
        raise ValueError(f"kind {kind!r} must be 1-64 characters of a-z, 0-9 and '-'")
    if not isinstance(regex, str) or not regex:
        raise ValueError(f"pattern {kind!r}: regex must be a non-empty string")
    if len(regex) > 2000:
        raise ValueError(f"pattern {kind!r}: regex is longer than 2000 characters")
    try:
        compiled = re.compile(regex)
    except re.error as error:
        raise ValueError(f"pattern {kind!r}: invalid regex ({error})") from None
    if compiled.match(""):
        raise ValueError(f"pattern {kind!r}: regex matches the empty string")
    if "(?P<q" in regex or any(name.startswith(("r", "s", "q")) and name[1:].isdigit() for name in compiled.groupindex):
        raise ValueError(f"pattern {kind!r}: group names r<N>, s<N> and q<N> are reserved")
    return RedactionRule(kind, regex)


def count_markers(texts: Iterable[str]) -> dict[str, set[str]]:
    """Distinct marker digests per kind in *texts* (how a build counts what it redacted)."""
    seen: dict[str, set[str]] = {}
    for text in texts:
        if "[redacted:" not in text:
            continue
        for kind, digest in MARKER_RE.findall(text):
            seen.setdefault(kind, set()).add(digest)
    return seen
