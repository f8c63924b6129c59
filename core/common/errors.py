"""The one error type of PrivPlan's user-facing checks (public: the GUI and CLI catch it).

Every user-facing validation error is an :class:`InputError`. Its message names the
field (and file, when known) and the problem, so the command line can print it as one
line and exit 2, and the GUI can show it in a dialog, the document untouched.
"""

from __future__ import annotations

__all__ = ["InputError"]


class InputError(ValueError):
    """Bad user input. ``field`` names what is wrong; ``str(err)`` is one line.

    Examples
    --------
    >>> str(InputError("k must be > 0, got -1", field="k"))
    'k: k must be > 0, got -1'
    """

    def __init__(self, message: str, *, field: str | None = None, file: str | None = None):
        self.field = field
        self.file = file
        self.problem = message
        parts = [p for p in (file, field) if p]
        prefix = ": ".join(parts)
        super().__init__(f"{prefix}: {message}" if prefix else message)

    def with_file(self, file: str) -> "InputError":
        """The same error (same class), with the file it came from named first."""
        return type(self)(self.problem, field=self.field, file=file)
