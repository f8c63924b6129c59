"""The one palette: what colour each series and arm has, in the app and in every report.

Okabe & Ito (2008), "Color Universal Design": distinguishable with the common colour-vision
deficiencies. The GUI (:mod:`gui.shell.style`, pyqtgraph) and the reports (SVG in HTML,
pyqtgraph in PDF) both take their colours from here, so a series has the same colour on the
screen and on paper.

Examples
--------
>>> series_colour("v_private") == PRIVATE_ACCENT
True
>>> arm_colour("no advice"), arm_colour("dp eps=2", ["no advice", "dp eps=0.5", "dp eps=2"])
('#000000', '#009E73')
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["OKABE_ITO", "PRIVATE_ACCENT", "ERROR_COLOUR", "CYCLE", "SERIES_COLOURS",
           "APPROACH_COLOURS", "series_colour", "arm_colour", "agent_colour", "cycle_colour"]

OKABE_ITO = {
    "black": "#000000", "orange": "#E69F00", "sky_blue": "#56B4E9", "green": "#009E73",
    "yellow": "#F0E442", "blue": "#0072B2", "vermillion": "#D55E00", "purple": "#CC79A7",
}

#: The one accent colour for private (released) artefacts.
PRIVATE_ACCENT = OKABE_ITO["orange"]
ERROR_COLOUR = OKABE_ITO["vermillion"]

#: Series without a colour of their own, in order.
CYCLE = (OKABE_ITO["blue"], OKABE_ITO["orange"], OKABE_ITO["black"], OKABE_ITO["green"],
         OKABE_ITO["vermillion"], OKABE_ITO["purple"], OKABE_ITO["sky_blue"])

#: The MDP figures' series (Figure 2.1): key -> colour.
SERIES_COLOURS = {
    "v_lower": OKABE_ITO["blue"], "v_private": PRIVATE_ACCENT, "v_true": OKABE_ITO["black"],
    "v_upper": OKABE_ITO["green"], "cost_bound": OKABE_ITO["vermillion"],
    "cost_empirical": OKABE_ITO["black"],
}

#: Route planning approaches (logistics benchmarks): approach -> colour.
APPROACH_COLOURS = {
    "dp": OKABE_ITO["blue"], "dp-thesis": OKABE_ITO["purple"], "noprivacy": OKABE_ITO["black"],
    "bestfirst": OKABE_ITO["vermillion"], "greedy": OKABE_ITO["green"],
    "simplified": OKABE_ITO["sky_blue"],
}

_ARM_FIXED = {"no advice": OKABE_ITO["black"], "traditional": OKABE_ITO["blue"],
              "dp": OKABE_ITO["vermillion"]}
_OCHRE = "#8C6D1F"  # an eighth colour, dark enough on white
_ARM_SEQUENCE = (OKABE_ITO["sky_blue"], OKABE_ITO["green"], PRIVATE_ACCENT, OKABE_ITO["purple"],
                 OKABE_ITO["vermillion"], OKABE_ITO["blue"], _OCHRE)
_AGENT_COLOURS = (OKABE_ITO["blue"], OKABE_ITO["vermillion"], OKABE_ITO["green"],
                  PRIVATE_ACCENT, OKABE_ITO["purple"], OKABE_ITO["sky_blue"],
                  OKABE_ITO["black"], _OCHRE)


def series_colour(key: str) -> str:
    """The colour of an MDP figure's series.

    Parameters
    ----------
    key : str
        ``"v_lower"``, ``"v_private"``, ``"v_true"``, ``"v_upper"``, ``"cost_bound"`` or
        ``"cost_empirical"``.

    Returns
    -------
    str
        A hex colour.
    """
    return SERIES_COLOURS[key]


def arm_colour(label: str, others: Sequence[str] = ()) -> str:
    """The colour of an advising arm: the thesis's (no advice black, traditional blue, DP
    vermillion), and a sequence for the other arms (an ε sweep) in the order of ``others``.

    Parameters
    ----------
    label : str
        The arm.
    others : sequence of str
        Every arm of the figure, in order.

    Returns
    -------
    str
        A hex colour.
    """
    if label in _ARM_FIXED:
        return _ARM_FIXED[label]
    extra = [x for x in others if x not in _ARM_FIXED]
    i = extra.index(label) if label in extra else 0
    return _ARM_SEQUENCE[i % len(_ARM_SEQUENCE)]


def agent_colour(i: int) -> str:
    """The colour of agent ``i`` (teachers, students).

    Parameters
    ----------
    i : int
        The agent's index.

    Returns
    -------
    str
        A hex colour (the sequence repeats after 8).
    """
    return _AGENT_COLOURS[i % len(_AGENT_COLOURS)]


def cycle_colour(i: int) -> str:
    """The colour of the ``i``-th series that has none of its own.

    Parameters
    ----------
    i : int
        The series' position in its figure.

    Returns
    -------
    str
        A hex colour.
    """
    return CYCLE[i % len(CYCLE)]
