"""Pure analyses of run transcripts: the paired step alignment (``steps.py``)."""
