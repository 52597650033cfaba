"""Settings shared by every test: the Hypothesis profile (``tests/support/hypo.py``)."""

from __future__ import annotations

import tests.support.hypo  # noqa: F401  (registers and loads the profile)
