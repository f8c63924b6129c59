"""The one error type of PrivPlan's user-facing checks (public: the GUI and CLI catch it).

Every user-facing validation error is an :class:`InputError`. Its message names the
field (and file, when known) and the problem, so the command line can print it as one
line and exit 2, and the GUI can show it in a dialog, the document untouched.
"""

from __future__ import annotations

import re

#: numpy 2's repr of a scalar (``np.float64(-0.0)``, ``np.int64(3)``, ``np.str_('a')``),
#: which an f-string's ``!r`` puts into a message; users read the plain value.
_NUMPY_SCALAR = re.compile(r"\bnp\.(?:float|int|uint|complex|bool|str|bytes)\w*\(([^()]*)\)")


def plain_values(message: str) -> str:
    """``message`` with numpy scalar reprs shown as plain values.

    Examples
    --------
    >>> plain_values("probability np.float64(-0.0) must be positive, row np.int64(3)")
    'probability -0.0 must be positive, row 3'
    """
    return _NUMPY_SCALAR.sub(r"\1", message)

__all__ = ["InputError", "RunFailure", "WriteFailure", "plain_values"]


class InputError(ValueError):
    """Bad user input. ``field`` names what is wrong; ``str(err)`` is one line.

    Examples
    --------
    >>> str(InputError("k must be > 0, got -1", field="k"))
    'k: k must be > 0, got -1'
    """

    def __init__(self, message: str, *, field: str | None = None, file: str | None = None):
        message = plain_values(str(message))
        self.field = field
        self.file = file
        self.problem = message
        #: a result that explains the refusal (strict JSON; ``--json`` prints it beside the
        #: error object, e.g. the evaluation of a plan that does not fit its budget)
        self.partial: dict[str, object] | None = None
        parts = [p for p in (file, field) if p]
        prefix = ": ".join(parts)
        super().__init__(f"{prefix}: {message}" if prefix else message)

    def with_file(self, file: str) -> "InputError":
        """The same error (same class), with the file it came from named first."""
        return type(self)(self.problem, field=self.field, file=file)


class RunFailure(RuntimeError):
    """A run failed for a reason outside its input: a worker process or cluster worker died,
    the scheduler went away, the disk filled up. ``str(err)`` is one line that says what
    happened and what is missing; the command line exits 3 with it.

    Examples
    --------
    >>> str(RunFailure("a worker process died twice: 3 of 4 chunks finished, missing: k=10"))
    'a worker process died twice: 3 of 4 chunks finished, missing: k=10'
    """

    def __init__(self, message: str, *, missing: int = 0):
        self.missing = missing
        #: what finished before the failure, as strict JSON (set by the experiment that
        #: knows its results, e.g. :func:`core.mdp.sweep.partial_summary`); None if unknown
        self.partial: dict[str, object] | None = None
        super().__init__(message)


class WriteFailure(OSError):
    """Writing a file failed midway (a full disk, a quota, a device gone). An ``OSError``
    (with the original ``errno``), so every existing ``except OSError`` still catches it;
    ``str(err)`` is one line naming the file and saying that the old file is untouched.
    The command line exits 3 with it, like :class:`RunFailure`.
    """

    def __init__(self, errno: int | None, message: str):
        super().__init__(errno, message)
        self.message = message

    def __str__(self) -> str:
        return self.message
