"""``python -m generator`` is the same as the ``evalsite`` command."""

from generator.cli import run

run()
