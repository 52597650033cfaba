"""How long a test waits before it calls something hung (issue 27: no test depends on the machine's load).

Tests never time anything; they only give up on a child, a thread or a lock that never finishes, so a
regression fails instead of hanging the suite.  The limit is far above any working run: a build that
takes 3 s on a quiet machine took 15 s on a busy one, and the whole suite once took 27 minutes.  A real
hang still fails, just later.
"""

from __future__ import annotations

__all__ = ["HANG"]

#: Seconds a subprocess, thread join or queue read may take before the test fails as hung.
HANG = 600
