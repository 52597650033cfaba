"""Render stage: Jinja templates, Markdown and Plotly chart data."""
