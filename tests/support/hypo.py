"""How many examples a property test tries: sized to what it proves, thorough in CI, small every day.

Each test states the count that proves its claim (``examples(3000)`` for a fast path held to its
slow twin over hostile text).  CI (``CI`` set, as ``.ci/run`` does) and ``EVALSITE_HYPOTHESIS=ci``
run that count; everyday runs (``make test-fast``, ``make test`` on a laptop) run a tenth of it, at
least 10 but never more than the count itself, so the loop stays fast while CI keeps the full
search.  Tests without an explicit count take the profile's: 100 in CI, 20 every day.  Nothing here
depends on the machine's speed: deadlines are off in both profiles.
"""

from __future__ import annotations

import os

from hypothesis import settings

__all__ = ["THOROUGH", "examples"]

THOROUGH = os.environ.get("EVALSITE_HYPOTHESIS", "ci" if os.environ.get("CI") else "dev") == "ci"

settings.register_profile("ci", max_examples=100, deadline=None)
settings.register_profile("dev", max_examples=20, deadline=None)
settings.load_profile("ci" if THOROUGH else "dev")


def examples(thorough: int, *, daily: int | None = None) -> int:
    """``thorough`` in CI; every day *daily* if given, else a tenth of it, at least 10 (or
    ``thorough`` itself when smaller).  *daily* is for tests parametrized over many cases (one per
    gitleaks rule), where a single example each already covers every case."""
    if THOROUGH:
        return thorough
    return daily if daily is not None else min(thorough, max(10, thorough // 10))
