"""evalsite: verified static sites from AI-agent evaluation evidence.

The package is a pipeline whose stages are its sub-packages:
``read`` (safe I/O and parsers) -> ``analyze`` (pure functions) -> ``pages``
(page models) -> ``render`` (Jinja and Plotly) -> ``write`` (atomic output).
"""

__version__ = "0.1.0"
