"""The generic records format (``format: records``): JSONL, CSV or JSON records through a field mapping."""
