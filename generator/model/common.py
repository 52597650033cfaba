"""Rules that every stage shares, written once.

- the two sides of a comparison and the order they are shown in;
- the default list of k for pass@k;
- what counts as a number (finite ``int``/``float``, never ``bool``);
- how hashes are labelled (``sha256:<hex>``) and shortened for display;
- which config ids are usable as one URL segment.
"""

from __future__ import annotations

import hashlib
import math
import re
from typing import Final, Literal

from generator.model.redaction import safe_cut

__all__ = [
    "DEFAULT_KS",
    "SIDES",
    "cap_text",
    "Side",
    "is_json_number",
    "is_number",
    "is_slug",
    "sha256_bytes",
    "sha256_label",
    "sha256_text",
    "short_hash",
]

Side = Literal["candidate", "baseline"]
SIDES: Final[tuple[Side, Side]] = ("candidate", "baseline")

DEFAULT_KS: Final[tuple[int, ...]] = (1, 2, 3)

SHA256_PREFIX: Final = "sha256:"
SHORT_HASH_DIGITS: Final = 12

_SLUG_RE = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$")


def is_json_number(value: object) -> bool:
    """``int`` or ``float`` but not ``bool`` (JSON ``true`` is not a count); non-finite allowed.

    The raw-stdout telemetry parser sums every value of this kind, as Comet does.
    """
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_number(value: object) -> bool:
    """A finite ``int`` or ``float`` (never ``bool``): a value that can be shown or averaged."""
    kind = type(value)
    if kind is int:
        return True
    if kind is float:
        return math.isfinite(value)  # type: ignore[arg-type]
    return is_json_number(value) and math.isfinite(value)  # type: ignore[arg-type]


def sha256_label(hexdigest: str) -> str:
    """The one way a SHA-256 digest is labelled: ``sha256:<64 hex>``."""
    return SHA256_PREFIX + hexdigest


def sha256_bytes(data: bytes) -> str:
    return sha256_label(hashlib.sha256(data).hexdigest())


def sha256_text(text: str) -> str:
    """Digest of a text as UTF-8 (lone surrogates kept, so any Python string has one)."""
    return sha256_bytes(text.encode("utf-8", "surrogatepass"))


def short_hash(value: object, *, empty: str = "") -> str:
    """The first 12 hex digits of a ``sha256:...`` hash (or of any other string), for display."""
    if not isinstance(value, str) or not value:
        return empty
    return value.removeprefix(SHA256_PREFIX)[:SHORT_HASH_DIGITS]


def is_slug(value: object) -> bool:
    """True for config ids usable as one URL segment: ``a-z0-9-``, 1-64 chars."""
    return isinstance(value, str) and bool(_SLUG_RE.fullmatch(value))


def cap_text(value: str, limit: int) -> str:
    """``value`` cut to ``limit`` characters with the cut disclosed (how many, and the digest of the whole).

    The cut never ends inside a secret or a token-like run (``model/redaction.py: safe_cut``): text
    is capped before it is redacted, so a secret straddling the cut would otherwise show its start.
    """
    if len(value) <= limit:
        return value
    cut = safe_cut(value, limit)
    return f"{value[:cut]}… ({len(value) - cut:,} more characters cut; {sha256_text(value)})"
