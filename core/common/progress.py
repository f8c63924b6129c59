"""One progress-and-cancel protocol for every long computation.

A long function takes ``progress: Progress = no_progress`` and calls
``progress(fraction, message)`` with ``fraction`` in [0, 1]. To cancel, the callback
raises :class:`Cancelled`; core code lets it propagate.

Examples
--------
>>> seen = []
>>> p = sub_progress(lambda f, m="": seen.append(round(f, 2)), 0.5, 1.0)
>>> p(0.5, "half of the second half")
>>> seen
[0.75]
"""

from __future__ import annotations

from typing import Protocol

__all__ = ["Progress", "Cancelled", "no_progress", "sub_progress"]


class Cancelled(Exception):  # noqa: N818 - the name reads as the event it signals
    """Raised by a progress callback to stop a computation cooperatively."""


class Progress(Protocol):
    def __call__(self, fraction: float, message: str = "") -> None: ...


def no_progress(fraction: float, message: str = "") -> None:
    """The default progress callback: does nothing.

    Parameters
    ----------
    fraction : float
        Done so far, in [0, 1].
    message : str
        What is being done.
    """


def sub_progress(progress: Progress, start: float, stop: float) -> Progress:
    """Map a sub-step's [0, 1] onto ``[start, stop]`` of ``progress``.

    Parameters
    ----------
    progress : Progress
        The outer callback (it may raise :class:`Cancelled`).
    start, stop : float
        The part of the outer range the sub-step covers.

    Returns
    -------
    Progress
        A callback for the sub-step.
    """

    def wrapped(fraction: float, message: str = "") -> None:
        progress(start + (stop - start) * min(max(fraction, 0.0), 1.0), message)

    return wrapped
