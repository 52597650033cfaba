"""How untrusted names are shown: invisible characters made visible, look-alikes found.

Evidence names (task names, arm ids, file names, treatments) can impersonate
each other: ``csv-dedupe``, ``"\\u202eepuded-vsc"``, ``"csv\\u200b-dedupe"``
and ``"csv-dedup\\u0435"`` (a Cyrillic ``е``) all *display* as
``csv-dedupe``.  Three rules, applied by the renderer to every displayed
string:

* :func:`visible` writes every invisible, format, bidirectional-control,
  private-use, unassigned or odd-space character as the text ``[U+XXXX]``
  (tabs and line breaks stay: HTML shows them as spaces);
* :func:`isolate`: every untrusted name in a text position is written inside
  ``<bdi>``, whatever its characters, by both renderers (the Jinja ``name``
  filter and the table renderer, every non-number cell text).  A name is then
  a neutral to the text around it and takes its own direction from its first
  strong character, so no right-to-left letter, digit, neutral or combining
  mark of a name can reorder what stands around it, nor be reordered by it.
  A sentence we write around names is a :class:`Phrase` (:func:`phrase`):
  its words are written as text and each of its names isolated.  Attribute
  values and ``<title>`` cannot hold markup: there the text is plain (made
  visible, escaped) and the browser shows it apart from the page's text;
* :func:`skeleton` is the Unicode Technical Standard #39 skeleton (NFD, each
  character mapped to its confusable prototype, NFD again), with invisible
  characters dropped; two different names with one skeleton are
  *confusable*, and :func:`confusable_with` finds them within one table.

The confusable data is Unicode's ``confusables.txt`` as shipped by the
``confusable-homoglyphs`` package.  That package keeps each mapping in both
directions, so the prototype of a character is taken as the one member of its
confusable class that is shortest, then smallest: a stable stand-in for the
prototype that gives equal skeletons exactly when the classes agree.
Multi-character confusables (``rn`` for ``m``) are not matched.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from functools import lru_cache

__all__ = [
    "Phrase",
    "confusable_with",
    "is_invisible",
    "is_number",
    "isolate",
    "phrase",
    "phrase_html",
    "skeleton",
    "visible",
]

# Default-ignorable or blank-looking code points whose general category is not C* or Z*.
_IGNORABLE = frozenset(
    [0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x2800, 0x3164, 0xFFA0]
    + list(range(0x180B, 0x1810))
    + list(range(0xFE00, 0xFE10))
    + list(range(0xE0100, 0xE01F0))
)
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"})
_KEPT = frozenset("\t\n\r ")


def is_invisible(char: str) -> bool:
    """True for a character that shows as nothing, as a blank, or changes the text's direction."""
    if char in _KEPT:
        return False
    return unicodedata.category(char) in _INVISIBLE_CATEGORIES or ord(char) in _IGNORABLE


def visible(text: str) -> str:
    """``text`` with every invisible character written as ``[U+XXXX]``."""
    if text.isascii() and text.isprintable():
        return text
    return "".join(f"[U+{ord(char):04X}]" if is_invisible(char) else char for char in text)


# A number as the site prints it ("12,345", "0.25", "$1.234", "40s", "1e-05", "+3"): a number is no
# name, and digits after our (left-to-right) words or at a line's start resolve left to right anyway.
_NUMBER = re.compile(r"[-+$]?[0-9][0-9.,+$% se-]*")


def is_number(text: str) -> bool:
    """True for a short text that is a number as the site prints it (written without ``<bdi>``)."""
    return len(text) <= 64 and _NUMBER.fullmatch(text) is not None


def isolate(html: str) -> str:
    """A name's escaped HTML, isolated: the one markup every renderer writes around every name."""
    return f"<bdi>{html}</bdi>" if html else ""


class Phrase(str):
    """A sentence we write with untrusted names in it ("Task {}", "{} vs {}").

    It is the plain text everywhere a ``str`` goes (attributes, ``<title>``, JSON, sorting), and
    :attr:`parts` keeps its words (even indexes) apart from its names (odd indexes), so a text
    position can isolate each name (:func:`phrase_html`).  Built by :func:`phrase`.
    """

    parts: tuple[str, ...]


def phrase(template: str, *names: str) -> Phrase:
    """``template`` with each ``{}`` replaced by the next of ``names`` (as text, never formatted); a
    name that is itself a :class:`Phrase` is spliced in, its words kept words and its names names."""
    words = template.split("{}")
    if len(words) != len(names) + 1:
        raise ValueError(f"phrase {template!r} has {len(words) - 1} slot(s) for {len(names)} name(s)")
    parts: list[str] = [words[0]]
    for name, word in zip(names, words[1:], strict=True):
        if isinstance(name, Phrase):
            parts[-1] += name.parts[0]
            parts += name.parts[1:]
            parts[-1] += word
        else:
            parts += [str(name), word]
    out = Phrase("".join(parts))
    out.parts = tuple(parts)
    return out


def phrase_html(value: Phrase, text: Callable[[str], str], name: Callable[[str], str]) -> str:
    """A phrase's HTML: its words through *text*, its names through *name* (which isolates them)."""
    return "".join(name(part) if index % 2 else text(part) for index, part in enumerate(value.parts) if part)


@lru_cache(maxsize=1)
def _prototypes() -> dict[str, str]:
    """Character -> the stand-in prototype of its confusable class (one pass over the data)."""
    from confusable_homoglyphs.confusables import confusables_data  # type: ignore[import-untyped]

    parent: dict[str, str] = {}

    def find(item: str) -> str:
        root = item
        while parent.get(root, root) != root:
            root = parent[root]
        while parent.get(item, item) != root:
            parent[item], item = root, parent[item]
        return root

    def clean(value: str) -> str:
        return value.replace("\u200e", "").replace("\u200f", "")

    for key, entries in confusables_data.items():
        source = clean(key)
        for entry in entries:
            target = clean(entry["c"])
            if source and target:
                a, b = find(source), find(target)
                if a != b:
                    parent[max(a, b, key=_rank)] = min(a, b, key=_rank)
    return {member: find(member) for member in list(parent) if len(member) == 1 and find(member) != member}


def _rank(value: str) -> tuple[int, str]:
    return (len(value), value)


@lru_cache(maxsize=1)
def _translation() -> dict[int, str]:
    return {ord(char): prototype for char, prototype in _prototypes().items()}


@lru_cache(maxsize=1 << 16)  # table cells repeat (task names, labels): each text is mapped once per build
def skeleton(text: str) -> str:
    """The UTS #39 skeleton of ``text`` (invisible characters dropped)."""
    decomposed = unicodedata.normalize("NFD", text)
    if decomposed.isascii() and decomposed.isprintable():  # nothing invisible to drop: map at C speed
        mapped = decomposed.translate(_translation())
    else:
        table = _prototypes()
        mapped = "".join(table.get(char, char) for char in decomposed if not is_invisible(char))
    return unicodedata.normalize("NFD", mapped)


def confusable_with(texts: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Each text that looks like another, different text of ``texts`` -> those others (sorted)."""
    distinct = set(texts)  # a column repeats its texts ("Candidate", "Baseline"): each is mapped once
    distinct.discard("")
    if len(distinct) < 2:
        return {}
    groups: dict[str, set[str]] = {}
    for text in distinct:
        if text:
            groups.setdefault(skeleton(text), set()).add(text)
    found: dict[str, tuple[str, ...]] = {}
    for members in groups.values():
        if len(members) > 1:
            for text in members:
                found[text] = tuple(sorted(members - {text}))
    return found
