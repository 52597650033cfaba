"""The evalsite version (shown in every page's footer and by ``evalsite --version``)."""

__version__ = "0.1.0"
