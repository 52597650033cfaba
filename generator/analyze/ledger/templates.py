"""Receipts that repeat a known receipt's bytes, checked without parsing them.

In a ledger, most receipts repeat an earlier one except for a few fields: the content address
(``receiptId``), ``repeat``, ``usage`` and ``wallMs``.  A :class:`Template` is made from a line
whose bytes are exactly the canonical bytes of a receipt that
:class:`~generator.analyze.ledger.fastcheck.FastChecker` accepted.  It keeps the canonical bytes
around those four fields:

    P = the bytes before ``"receiptId":"``   (``armId`` ... ``pseudoToolCallCount``, sorted keys)
    M = the bytes from ``,"rerunOf":`` up to ``"usage":``  (``rerunOf`` ... ``toolUsing``)

A later line ``L`` matches when ``L = P + "receiptId":"ID","repeat":N + M + "usage":U,"wallMs":W}``
with ``ID`` of the ``bench1:`` form, ``N`` and ``W`` integers in canonical decimal, and ``U``
either ``null`` or a usage object whose orjson bytes (keys sorted) are ``U`` itself.  Then ``L``
is the canonical serialization of the template's receipt with those four values put in (canonical
JSON is written field by field, and ``P`` and ``M`` are cut at field boundaries), so:

* ``L`` is UTF-8 JSON that parses to that receipt (no parse needed);
* ``L`` is its canonical bytes (the ``ledger1:`` digest hashes ``L``);
* the receipt passes the fast path exactly when the template's receipt did and the four values
  pass their own checks -- every fast-path rule reads either only template fields or only one of
  the four (``repeat >= 1``; ``wallMs`` a count; the usage rules; the ``bench1:`` form) -- and its
  content address is the SHA-256 of ``L`` without the ``receiptId`` member (the hash of ``P`` is
  kept, so only the tail is hashed per line).

Anything else (no template, any byte out of place) is "not decided here": the line is parsed and
checked as before.  ``tests/ledger/test_ledger_templates.py`` checks the two agree.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import orjson

from generator.analyze.ledger.fastcheck import USAGE_SORTED, usage_ok

__all__ = ["MAX_TEMPLATES", "Match", "Template", "Templates"]

#: At most this many templates per ledger (each holds about 2 kB; receipts that never repeat
#: simply take the parsing path).
MAX_TEMPLATES = 8192

_RID = b'"receiptId":"'
_RID_START = len(_RID)
_RID_END = _RID_START + 71  # "bench1:" + 64 hex digits
_MEMBER = _RID_END + 2  # the member and the '",' that ends it
_REPEAT = b'","repeat":'
_REPEAT_AT = _RID_END + len(_REPEAT)  # first digit of repeat, from the start of the member
_RERUN = b',"rerunOf":'
_USAGE = b'"usage":'
_NULL_USAGE = b'"usage":null,"wallMs":'
_WALL = b',"wallMs":'
_DIGITS = 15  # 10**15 < 2**53: larger numbers are left to the full path


@dataclass(frozen=True, slots=True)
class Template:
    """The canonical bytes around the four varying fields of one accepted receipt (its ``M``; its
    ``P`` is the key it is found by)."""

    middle: bytes
    prefix_hash: Any  # sha256 state after the prefix
    cell: tuple[str, str]  # armId, caseId
    rerun_of: str | None
    receipt: Any  # the parsed receipt (read-only), or None when the caller does not need it
    kept: Any  # what the caller kept for that receipt


#: A line that matched a template: the template, receiptId, repeat, usage (and its bytes), wallMs.
Match = tuple[Template, str, int, Any, bytes, int]


def cut(blob: bytes) -> tuple[bytes, bytes] | None:
    """``(P, M)`` of canonical receipt bytes (see the module docstring), or None."""
    at = blob.find(_RID)
    if at < 0 or blob[at + _RID_END : at + _REPEAT_AT] != _REPEAT:
        return None
    middle_at = blob.find(_RERUN, at + _REPEAT_AT)
    usage_at = blob.find(_USAGE, middle_at)
    if middle_at < 0 or usage_at < 0:
        return None
    return blob[:at], blob[middle_at:usage_at]


class Templates:
    """The templates of one ledger, looked up by their ``P`` and then their ``M`` bytes."""

    def __init__(self) -> None:
        self._by_prefix: dict[bytes, dict[bytes, Template]] = {}
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def add(self, blob: bytes, cell: tuple[str, str], rerun_of: str | None, receipt: Any, kept: Any) -> None:
        """Remember ``blob``, the line that is exactly the canonical bytes of a receipt the fast path
        accepted (its arm and case ``cell``, its ``rerunOf``; the receipt itself when the caller
        keeps whole receipts, and what the caller kept)."""
        if self._count >= MAX_TEMPLATES:
            return
        parts = cut(blob)
        if parts is None:
            return
        prefix, middle = parts
        by_middle = self._by_prefix.setdefault(prefix, {})
        if middle not in by_middle:
            by_middle[middle] = Template(middle, hashlib.sha256(prefix), cell, rerun_of, receipt, kept)
            self._count += 1

    def match(self, line: bytes) -> Match | None:
        """The template ``line`` repeats and its four values, or None (not decided here)."""
        # The last "receiptId" member: a template's prefix holds none, so a line whose bytes
        # before it are a template's prefix has only this one (and it is the nearest to the end).
        at = line.rfind(_RID)
        if at < 0:
            return None
        by_middle = self._by_prefix.get(line[:at])
        if by_middle is None or not line.startswith(_REPEAT, at + _RID_END) or line[-1] != 125:  # 125: "}"
            return None
        digits = at + _REPEAT_AT
        middle_at = line.find(_RERUN, digits)
        text = line[digits:middle_at]  # repeat >= 1: no leading zero
        if middle_at < 0 or not text.isdigit() or text[0] == 48 or len(text) > _DIGITS:  # 48: "0"
            return None
        repeat = int(text)
        # M holds no '"usage":' (canonical text has no unescaped quote inside a string), so the
        # first one after it ends it
        usage_at = line.find(_USAGE, middle_at)
        template = by_middle.get(line[middle_at:usage_at]) if usage_at >= 0 else None
        if template is None:
            return None
        if line.startswith(_NULL_USAGE, usage_at):
            usage: Any = None
            usage_bytes = b"null"
            text = line[usage_at + len(_NULL_USAGE) : -1]
        else:
            wall_at = line.rfind(_WALL)
            if wall_at < usage_at:
                return None
            usage_bytes = line[usage_at + len(_USAGE) : wall_at]
            usage = _usage(usage_bytes)
            if usage is None:
                return None
            text = line[wall_at + len(_WALL) : -1]
        if not text.isdigit() or len(text) > _DIGITS or (text[0] == 48 and len(text) > 1):  # wallMs
            return None
        hasher = template.prefix_hash.copy()
        hasher.update(line[at + _MEMBER :])
        ident = line[at + _RID_START : at + _RID_END].decode("latin-1")  # never fails; checked next
        # equal to a SHA-256 hex digest: 64 lowercase hex digits, so the id has the bench1: form
        if ident[7:] != hasher.hexdigest() or not ident.startswith("bench1:"):
            return None
        return template, ident, repeat, usage, usage_bytes, int(text)


def _usage(text: bytes) -> Any:
    """The usage object whose canonical bytes are ``text`` when it passes the usage rules, else None."""
    try:
        usage = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    if type(usage) is not dict or tuple(usage) != USAGE_SORTED or not usage_ok(usage):
        return None
    try:
        same = orjson.dumps(usage) == text  # canonical: sorted keys, no spaces, numbers as written
    except orjson.JSONEncodeError:
        return None
    return usage if same else None
