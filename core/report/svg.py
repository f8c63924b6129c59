"""Figures of the report as inline SVG (a small plotter: the HTML needs no Qt)."""

from __future__ import annotations

import html
import math

from core.common.palette import cycle_colour
from core.report.model import Figure, _fmt

__all__ = ["svg_plot"]


def _ticks(lo: float, hi: float, log: bool) -> list[float]:
    if log:
        a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
        return [10.0 ** e for e in range(a, b + 1)]
    span = hi - lo or 1.0
    if not math.isfinite(span):  # values near the float range (a damaged summary): ends only
        return [lo, hi]
    step = 10 ** math.floor(math.log10(span / 4))
    for m in (1, 2, 5, 10):
        if span / (step * m) <= 6:
            step *= m
            break
    start = math.ceil(lo / step) * step
    return [start + i * step for i in range(int((hi - start) / step + 1e-9) + 1)]


def svg_plot(fig: Figure, *, width: int = 640, height: int = 320) -> str:
    """A small, dependency-free SVG line plot with error bars, log axes and a legend.

    Parameters
    ----------
    fig : Figure
        Series (x, y, optional error bars), axis labels and scales.
    width, height : int
        Size in pixels.

    Returns
    -------
    str
        An ``<svg>`` element; non-finite points are left out, and a figure without finite
        points says "no data".
    """
    pts = [(x, y, e) for s in fig.series for x, y, e in
           zip(s.x, s.y, s.err or (0.0,) * len(s.x)) if math.isfinite(x) and math.isfinite(y)]
    left, right, top, bottom = 64, 170, 30, 46  # the legend sits in the right margin
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" role="img" aria-label="{html.escape(fig.title)}">',
           f'<text x="{width / 2}" y="18" text-anchor="middle" font-size="13" '
           f'font-weight="bold">{html.escape(fig.title)}</text>']
    if not pts:
        out.append(f'<text x="{width / 2}" y="{height / 2}" text-anchor="middle">no data'
                   '</text></svg>')
        return "".join(out)
    xs = [p[0] for p in pts if not fig.log_x or p[0] > 0]
    ylo = [p[1] - p[2] for p in pts]
    yhi = [p[1] + p[2] for p in pts]
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(ylo), max(yhi)
    if fig.log_y:
        y0 = min(v for v in ylo + [p[1] for p in pts] if v > 0) if any(
            v > 0 for v in ylo + [p[1] for p in pts]) else 1e-12
    if y1 == y0:
        y0, y1 = y0 - 0.5, y1 + 0.5
    pad = 0.05 * (y1 - y0) if not fig.log_y else 0.0
    y0, y1 = y0 - pad, y1 + pad
    pw, ph = width - left - right, height - top - bottom

    def tx(x: float) -> float:
        if fig.log_x:
            return left + pw * (math.log10(x) - math.log10(x0)) / (
                (math.log10(x1) - math.log10(x0)) or 1.0)
        return left + pw * (x - x0) / ((x1 - x0) or 1.0)

    def ty(y: float) -> float:
        if fig.log_y:
            y = max(y, y0)
            return top + ph * (1 - (math.log10(y) - math.log10(y0)) / (
                (math.log10(y1) - math.log10(y0)) or 1.0))
        return top + ph * (1 - (y - y0) / ((y1 - y0) or 1.0))

    out.append(f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="white" '
               'stroke="#888"/>')
    for t in _ticks(x0, x1, fig.log_x):
        if x0 <= t <= x1 * (1 + 1e-9):
            X = tx(t)
            lab = (f'10<tspan dy="-5" font-size="8">{round(math.log10(t))}</tspan>'
                   if fig.log_x else _fmt(t, 3))
            out.append(f'<line x1="{X:.1f}" y1="{top}" x2="{X:.1f}" y2="{top + ph}" '
                       f'stroke="#eee"/><text x="{X:.1f}" y="{top + ph + 15}" '
                       f'text-anchor="middle" font-size="10">{lab}</text>')
    for t in _ticks(y0, y1, fig.log_y):
        if y0 <= t <= y1:
            Y = ty(t)
            out.append(f'<line x1="{left}" y1="{Y:.1f}" x2="{left + pw}" y2="{Y:.1f}" '
                       f'stroke="#eee"/><text x="{left - 5}" y="{Y + 3:.1f}" '
                       f'text-anchor="end" font-size="10">{_fmt(t, 3)}</text>')
    out.append(f'<text x="{left + pw / 2}" y="{height - 8}" text-anchor="middle" '
               f'font-size="11">{html.escape(fig.x_label)}</text>')
    out.append(f'<text transform="translate(14,{top + ph / 2}) rotate(-90)" '
               f'text-anchor="middle" font-size="11">{html.escape(fig.y_label)}</text>')
    for i, s in enumerate(fig.series):
        col = s.colour or cycle_colour(i)
        dash = ' stroke-dasharray="6 4"' if s.dashed else ""
        p = [(tx(x), ty(y)) for x, y in zip(s.x, s.y)
             if math.isfinite(x) and math.isfinite(y) and (not fig.log_x or x > 0)]
        if p and s.segments:
            for (a1, b1), (a2, b2) in zip(p[0::2], p[1::2]):
                out.append(f'<line x1="{a1:.1f}" y1="{b1:.1f}" x2="{a2:.1f}" y2="{b2:.1f}" '
                           f'stroke="{col}" stroke-width="1.2"{dash}/>')
        elif p:
            out.append(f'<polyline fill="none" stroke="{col}" stroke-width="1.8"{dash} '
                       f'points="{" ".join(f"{a:.1f},{b:.1f}" for a, b in p)}"/>')
        for j, (x, y) in enumerate(zip(s.x, s.y)):
            if not (math.isfinite(x) and math.isfinite(y)) or (fig.log_x and x <= 0):
                continue
            X, Y = tx(x), ty(y)
            if s.err is not None and s.err[j] > 0:
                out.append(f'<line x1="{X:.1f}" y1="{ty(y - s.err[j]):.1f}" x2="{X:.1f}" '
                           f'y2="{ty(y + s.err[j]):.1f}" stroke="{col}"/>')
            out.append(f'<circle cx="{X:.1f}" cy="{Y:.1f}" r="2.6" fill="{col}"/>')
        ly, lx = top + 10 + 16 * i, left + pw + 10
        out.append(f'<line x1="{lx}" y1="{ly}" x2="{lx + 18}" y2="{ly}" '
                   f'stroke="{col}" stroke-width="2"{dash}/><text x="{lx + 22}" '
                   f'y="{ly + 4}" font-size="10">{html.escape(s.name)}</text>')
    out.append("</svg>")
    return "".join(out)
