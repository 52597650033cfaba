"""The one exception type that crosses stage boundaries.

Every expected failure (bad input, unreadable file, invalid configuration)
raises :class:`EvalsiteError` with a single-line, path-free message.  The CLI
prints it as ``error: <message>`` on stderr and exits with status 2.
"""


class EvalsiteError(Exception):
    """A failure the user can act on; its message is one line."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(str(message).split()))
