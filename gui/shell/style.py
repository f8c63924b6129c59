"""Shared look: the colour-blind-safe palette (Okabe–Ito), the private accent, text helpers."""

from __future__ import annotations

import re

__all__ = ["OKABE_ITO", "SERIES", "PRIVATE_ACCENT", "ERROR_COLOUR", "fmt_num", "fmt_value",
           "INVALID_STYLE", "pretty_message"]

# The colours live in core.common.palette: the app and every report (SVG and PDF) use the
# same one per series and arm.
from core.common import ERROR_COLOUR, OKABE_ITO, PRIVATE_ACCENT, series_colour

#: Plot series: key -> (legend label, colour, symbol, dashed line)
SERIES = {
    "v_lower": ("v\u0332  pessimistic bound", series_colour("v_lower"), "t", False),
    "v_private": ("V\u0304  private value (π̄ on P̄)", series_colour("v_private"), "o", False),
    "v_true": ("V  π̄ on true P (oracle view)", series_colour("v_true"), "s", True),
    "v_upper": ("v\u0304  optimistic bound", series_colour("v_upper"), "t1", False),
    "cost_bound": ("bound  v\u0304 − v\u0332", series_colour("cost_bound"), "d", False),
    "cost_empirical": ("empirical |V\u0304 − V| (oracle view)", series_colour("cost_empirical"),
                       "s", True),
}

INVALID_STYLE = (f"border: 1px solid {ERROR_COLOUR}; background: #FDECE6;")


def fmt_num(x: float, digits: int = 4) -> str:
    """Number text for tables: fixed decimals for ordinary magnitudes, else scientific.

    >>> fmt_num(0.0042712), fmt_num(-0.27851), fmt_num(123456.0), fmt_num(0.0)
    ('0.0043', '-0.2785', '1.235e+05', '0.0000')
    """
    if x != x:  # NaN
        return "–"
    ax = abs(x)
    if ax == 0 or 1e-3 <= ax < 1e4:
        return f"{x:.{digits}f}"
    return f"{x:.{max(1, digits - 1)}e}"


def fmt_value(x: object, spec: str = ".3f") -> str:
    """A result value for result texts and tables: "—" for a missing one, ``spec`` for a
    number, the text itself otherwise.

    >>> fmt_value(None), fmt_value(0.51234), fmt_value(3, ".1f"), fmt_value("n/a")
    ('—', '0.512', '3.0', 'n/a')
    """
    if x is None:
        return "—"
    try:
        return format(float(x), spec)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return str(x)


_SYMBOLS = ((r"\beta_bar\b", "η̄"), (r"\beta\b", "η"), (r"\bdelta_method\b", "δ method"),
            (r"\bdelta\b", "δ"), (r"\bgamma\b", "γ"), (r"\bbeta\b", "β"), (r"\bv2\b", "v₂"))


def pretty_message(text: str) -> str:
    """The core's ASCII parameter names as the symbols the panel shows (η, η̄, δ, γ, β).

    >>> pretty_message("eta + eta_bar must be < 1, got 1.1")
    'η + η̄ must be < 1, got 1.1'
    """
    for pattern, symbol in _SYMBOLS:
        text = re.sub(pattern, symbol, text)
    return text
