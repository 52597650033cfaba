"""Analyze stage: pure functions over immutable data. No I/O, no printing."""
