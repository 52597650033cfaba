"""Harbor / Terminal-Bench 2 job folders as comparison runs: ``load_harbor``."""
