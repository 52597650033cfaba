"""SWE-bench harness run folders and experiments-repository submissions as comparison runs."""
