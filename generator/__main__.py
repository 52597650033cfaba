"""``python -m generator`` is the same as the ``evalsite`` command."""

import sys

from generator.cli import main

sys.exit(main())
