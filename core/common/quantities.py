"""What a plotted quantity can physically be, and confidence bands clipped to it.

A 95 % interval from a normal or Student-t approximation is symmetric about the mean, so
near the edge of what a quantity can be it runs past that edge: a success rate of
0.97 ± 0.05 reaches 1.02, a route length of 0.3 ± 0.5 goes below zero. A band drawn like
that shows values nobody can observe. Every band PrivPlan draws — on screen, in the
report's SVG and in its PDF — goes through :func:`clip_band` with the range declared next
to the series' definition (``core.logistics.records.BENCH_RANGES``,
``core.logistics.packet_records.PACKET_RANGES``, ``core.advising.records.CURVE_RANGES``, …),
never a range guessed from the data.

Examples
--------
>>> lo, hi = clip_band([0.9, 0.2], [1.04, 0.5], PROBABILITY)
>>> lo.tolist(), hi.tolist()
([0.9, 0.2], [1.0, 0.5])
>>> band_around([0.3], [0.5], NON_NEGATIVE)[0].tolist()
[0.0]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from core.common.errors import InputError

__all__ = ["QuantityRange", "PROBABILITY", "NON_NEGATIVE", "AT_LEAST_ONE", "REAL",
           "clip_band", "band_around"]


@dataclass(frozen=True)
class QuantityRange:
    """The closed interval ``[low, high]`` a quantity can take (±∞: no limit that side).

    Parameters
    ----------
    low, high : float
        The smallest and the largest value the quantity can physically have.

    Examples
    --------
    >>> QuantityRange(0.0, 1.0).scaled(100.0)
    QuantityRange(low=0.0, high=100.0)
    >>> QuantityRange(2.0, 1.0)
    Traceback (most recent call last):
    ...
    core.common.errors.InputError: low: must be at most high (2.0 > 1.0)
    """

    low: float = -math.inf
    high: float = math.inf

    def __post_init__(self) -> None:
        if math.isnan(self.low) or math.isnan(self.high):
            raise InputError("a quantity's range cannot be NaN", field="low")
        if self.low > self.high:
            raise InputError(f"must be at most high ({self.low} > {self.high})", field="low")

    def scaled(self, factor: float) -> QuantityRange:
        """The range of the quantity times ``factor`` > 0 (a rate shown in percent)."""
        if not factor > 0:
            raise InputError("must be > 0", field="factor")
        return QuantityRange(self.low * factor, self.high * factor)

    def clip(self, values: ArrayLike) -> NDArray[np.float64]:
        """``values`` as floats, each moved into the range (NaN stays NaN)."""
        return np.clip(np.asarray(values, dtype=np.float64), self.low, self.high)


#: A probability or a rate of successes: [0, 1].
PROBABILITY = QuantityRange(0.0, 1.0)
#: Lengths, counts, messages, budgets, ε: never below zero.
NON_NEGATIVE = QuantityRange(0.0)
#: A ratio to an optimum that cannot be beaten (a route's stretch): at least one.
AT_LEAST_ONE = QuantityRange(1.0)
#: No physical limit (a value function with rewards of either sign).
REAL = QuantityRange()


def clip_band(low: ArrayLike, high: ArrayLike, limits: QuantityRange
              ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The ends of a band, each clipped to the quantity's range ``limits``.

    Parameters
    ----------
    low, high : array_like
        The interval's lower and upper ends, point by point (NaN: no interval there).
    limits : QuantityRange
        What the quantity can be, as declared with its series.

    Returns
    -------
    (ndarray, ndarray)
        ``low`` and ``high`` within ``limits``; NaN where the input was NaN.
    """
    return limits.clip(low), limits.clip(high)


def band_around(mean: ArrayLike | Sequence[float], half_width: ArrayLike | Sequence[float],
                limits: QuantityRange) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The band ``mean ± half_width`` clipped to ``limits`` (see :func:`clip_band`)."""
    m = np.asarray(mean, dtype=np.float64)
    h = np.asarray(half_width, dtype=np.float64)
    return clip_band(m - h, m + h, limits)
