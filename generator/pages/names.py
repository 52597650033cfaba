"""How untrusted names are shown: invisible characters made visible, look-alikes found.

Evidence names (task names, arm ids, file names, treatments) can impersonate
each other: ``csv-dedupe``, ``"\\u202eepuded-vsc"``, ``"csv\\u200b-dedupe"``
and ``"csv-dedup\\u0435"`` (a Cyrillic ``е``) all *display* as
``csv-dedupe``.  Three rules, applied by the renderer to every displayed
string:

* :func:`visible` writes every invisible, format, bidirectional-control,
  private-use, unassigned or odd-space character as the text ``[U+XXXX]``
  (tabs and line breaks stay: HTML shows them as spaces);
* :func:`needs_isolation` says when a name holds right-to-left letters, so the
  renderer wraps it in ``<bdi>`` and it cannot reorder the text around it;
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

import unicodedata
from collections.abc import Iterable
from functools import lru_cache

__all__ = ["confusable_with", "is_invisible", "needs_isolation", "skeleton", "visible"]

# Default-ignorable or blank-looking code points whose general category is not C* or Z*.
_IGNORABLE = frozenset(
    [0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x2800, 0x3164, 0xFFA0]
    + list(range(0x180B, 0x1810))
    + list(range(0xFE00, 0xFE10))
    + list(range(0xE0100, 0xE01F0))
)
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"})
_KEPT = frozenset("\t\n\r ")
_RTL_CLASSES = frozenset({"R", "AL", "AN"})


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


def needs_isolation(text: str) -> bool:
    """True when ``text`` holds a right-to-left letter or digit (then it is shown in ``<bdi>``)."""
    if text.isascii():
        return False
    return any(unicodedata.bidirectional(char) in _RTL_CLASSES for char in text)


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
