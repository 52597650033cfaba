"""Inspect AI logs (``.eval`` zips and ``.json``) as comparison runs: ``load_inspect``."""
