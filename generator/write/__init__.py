"""Write stage: atomic output (site folders, ledger appends)."""
