"""When orjson reads a JSON text exactly as the standard library does: one rule for every reader.

orjson reads integers of 19 digits or more as floats (the standard library keeps them exact), and
its nesting limit (1,024) is above ``json.loads``' recursion limit (about 1,000).  So a reader takes
orjson's fast path only for text holding no run of 19 digits (found by mapping every digit to
``0``: faster than a regular expression over hex digests) and with at most :data:`SHALLOW` opening
brackets (it cannot nest past either limit); whatever orjson then refuses (NaN, infinities,
``1e400``, lone surrogates, bytes that are not UTF-8) goes to the standard library, which decides.
"""

from __future__ import annotations

from typing import Final

__all__ = ["DIGITS_TO_ZERO", "LONG_DIGIT_RUN", "SHALLOW", "has_long_digit_run", "shallow"]

DIGITS_TO_ZERO: Final = bytes.maketrans(b"123456789", b"000000000")
LONG_DIGIT_RUN: Final = b"0" * 19  # a run of 19 digits once every digit is mapped to "0"
SHALLOW: Final = 500


def has_long_digit_run(data: bytes) -> bool:
    """True when ``data`` holds 19 digits in a row (the only numbers orjson reads differently)."""
    return LONG_DIGIT_RUN in data.translate(DIGITS_TO_ZERO)


def shallow(data: bytes) -> bool:
    """True when ``data`` has too few opening brackets to nest past either parser's limit."""
    return data.count(b"{") + data.count(b"[") <= SHALLOW
