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

__all__ = ["Progress", "Cancelled", "no_progress", "sub_progress", "time_left_text"]


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


def time_left_text(elapsed: float, fraction: float) -> str:
    """"about 12 s left" from the time so far and the fraction done ("" while unknown).

    The estimate is the elapsed time scaled by what is left; it is shown once a run has
    done 2 % of its work and run for 1 s (earlier ones mostly measure start-up).

    Parameters
    ----------
    elapsed : float
        Seconds since the run started.
    fraction : float
        Work done, in [0, 1].

    Returns
    -------
    str

    Examples
    --------
    >>> time_left_text(4.0, 0.25), time_left_text(100.0, 0.5), time_left_text(0.5, 0.5)
    ('about 12 s left', 'about 2 min left', '')
    """
    if not (elapsed >= 1.0 and 0.02 <= fraction < 1.0):
        return ""
    left = elapsed * (1.0 - fraction) / fraction
    if left < 90:
        return f"about {max(1, round(left))} s left"
    if left < 90 * 60:
        return f"about {round(left / 60)} min left"
    return f"about {left / 3600:.1f} h left"
