"""Run pages: one run's transcript, paginated to the byte budget (``docs/transcripts.md``)."""
