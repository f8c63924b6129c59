"""Figures of the report as inline SVG (a small plotter: the HTML needs no Qt)."""

from __future__ import annotations

import html
import math
import re
import sys

from core.common.palette import cycle_colour
from core.report.model import Figure, GridImage, Series, _fmt

__all__ = ["svg_plot", "svg_grid", "svg_block"]

# characters XML 1.0 does not allow at all (not even escaped): C0 controls but tab, newline
# and carriage return; surrogates; U+FFFE and U+FFFF
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _text(value: str) -> str:
    r"""``value`` as XML text or attribute content: the characters XML forbids are dropped
    (a title pasted with a control character must not make the whole report unreadable),
    the rest escaped.

    >>> _text("a\x07<b>")
    'a&lt;b&gt;'
    """
    return html.escape(_NOT_XML.sub("", str(value)))


def _ticks(lo: float, hi: float, log: bool) -> list[float]:
    if log:
        a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
        return [10.0 ** e for e in range(max(a, -323), min(b, 308) + 1)]
    span = hi - lo or 1.0
    if not math.isfinite(span):  # values near the float range (a damaged summary): ends only
        return [lo, hi]
    step = 10 ** math.floor(math.log10(span / 4))
    if not (math.isfinite(lo / step) and math.isfinite(hi / step)):
        return [lo, hi]
    for m in (1, 2, 5, 10):
        if span / (step * m) <= 6:
            step *= m
            break
    start = math.ceil(lo / step) * step
    return [start + i * step for i in range(int((hi - start) / step + 1e-9) + 1)]


def _marker(symbol: str, x: float, y: float, r: float, colour: str) -> str:
    """A marker of ``symbol`` ("o", "s", "t", "d") centred at (x, y), ``r`` its half-size."""
    if symbol == "s":
        return (f'<rect x="{x - r:.1f}" y="{y - r:.1f}" width="{2 * r:.1f}" '
                f'height="{2 * r:.1f}" fill="{colour}"/>')
    if symbol in ("t", "d"):
        corners = ([(x, y + r), (x - r, y - r), (x + r, y - r)] if symbol == "t" else
                   [(x, y - r), (x + r, y), (x, y + r), (x - r, y)])
        pts = " ".join(f"{a:.1f},{b:.1f}" for a, b in corners)
        return f'<polygon points="{pts}" fill="{colour}"/>'
    return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="{colour}"/>'


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
    # a log axis cannot show zero or negative values: such points are left out like NaN
    pts = [(x, y, lo, hi) for s in fig.series for x, y, lo, hi in
           zip(s.x, s.y, s.low or s.y, s.high or s.y) if math.isfinite(x) and math.isfinite(y)
           and (not fig.log_x or x > 0) and (not fig.log_y or y > 0)]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" role="img" aria-label="{_text(fig.title)}">',
           f'<text x="{width / 2}" y="18" text-anchor="middle" font-size="13" '
           f'font-weight="bold">{_text(fig.title)}</text>']
    if not pts:
        out.append(f'<text x="{width / 2}" y="{height / 2}" text-anchor="middle">no data'
                   '</text></svg>')
        return "".join(out)
    xs = [p[0] for p in pts]
    y0, y1 = _y_range(pts, fig.log_y)
    frame = _Frame(fig.log_x, fig.log_y, min(xs), max(xs), y0, y1, width, height)
    out += _axes_svg(fig, frame)
    for i, s in enumerate(fig.series):
        out += _series_svg(s, i, frame)
    out.append("</svg>")
    return "".join(out)


def _y_range(pts: list[tuple[float, float, float, float]], log_y: bool) -> tuple[float, float]:
    """The plotted y range: every point and finite error-bar end, with a 5 % margin on a
    linear axis (a log axis starts at the least positive value)."""
    ylo = [min(p[1], p[2]) if math.isfinite(p[2]) else p[1] for p in pts]
    yhi = [max(p[1], p[3]) if math.isfinite(p[3]) else p[1] for p in pts]
    y0, y1 = min(ylo), max(yhi)
    if log_y:
        y0 = min(v for v in ylo + [p[1] for p in pts] if v > 0) if any(
            v > 0 for v in ylo + [p[1] for p in pts]) else 1e-12
    if y1 == y0:  # one value: a margin around it (a decade each way on a log axis)
        d = max(0.5, 0.05 * abs(y0))
        y0, y1 = (y0 / 10, min(y1 * 10, sys.float_info.max)) if log_y else (y0 - d, y1 + d)
    pad = 0.1 * (y1 / 2 - y0 / 2) if not log_y else 0.0  # halves: no overflow near 1e308
    return max(y0 - pad, -sys.float_info.max), min(y1 + pad, sys.float_info.max)


class _Frame:
    """The plot area of an SVG plot and its data-to-pixel maps; the legend sits in the
    right margin."""

    left, right, top, bottom = 64, 170, 30, 46

    def __init__(self, log_x: bool, log_y: bool, x0: float, x1: float, y0: float, y1: float,
                 width: int, height: int) -> None:
        self.log_x, self.log_y = log_x, log_y
        self.x0, self.x1, self.y0, self.y1 = x0, x1, y0, y1
        self.width, self.height = width, height
        self.pw = width - self.left - self.right
        self.ph = height - self.top - self.bottom

    def tx(self, x: float) -> float:
        x0, x1 = self.x0, self.x1
        if self.log_x:
            return self.left + self.pw * (math.log10(x) - math.log10(x0)) / (
                (math.log10(x1) - math.log10(x0)) or 1.0)
        return self.left + self.pw * _fraction(x, x0, x1)

    def ty(self, y: float) -> float:
        y0, y1 = self.y0, self.y1
        if self.log_y:
            y = max(y, y0)
            return self.top + self.ph * (1 - (math.log10(y) - math.log10(y0)) / (
                (math.log10(y1) - math.log10(y0)) or 1.0))
        return self.top + self.ph * (1 - _fraction(y, y0, y1))


def _fraction(v: float, lo: float, hi: float) -> float:
    """(v − lo) / (hi − lo), computed on halves so that a span wider than the largest float
    (values near ±1e308) does not overflow to inf/inf; halving is exact, so every other value
    gives the same number."""
    return (v / 2 - lo / 2) / ((hi / 2 - lo / 2) or 1.0)


def _axes_svg(fig: Figure, f: _Frame) -> list[str]:
    """The plot area's frame, grid lines with tick labels, and the axis labels."""
    left, top, pw, ph = f.left, f.top, f.pw, f.ph
    out = [f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="white" '
           'stroke="#888"/>']
    for t in _ticks(f.x0, f.x1, fig.log_x):
        if f.x0 <= t <= f.x1 * (1 + 1e-9):
            X = f.tx(t)
            lab = (f'10<tspan dy="-5" font-size="8">{round(math.log10(t))}</tspan>'
                   if fig.log_x else _fmt(t, 3))
            out.append(f'<line x1="{X:.1f}" y1="{top}" x2="{X:.1f}" y2="{top + ph}" '
                       f'stroke="#eee"/><text x="{X:.1f}" y="{top + ph + 15}" '
                       f'text-anchor="middle" font-size="10">{lab}</text>')
    for t in _ticks(f.y0, f.y1, fig.log_y):
        if f.y0 <= t <= f.y1:
            Y = f.ty(t)
            out.append(f'<line x1="{left}" y1="{Y:.1f}" x2="{left + pw}" y2="{Y:.1f}" '
                       f'stroke="#eee"/><text x="{left - 5}" y="{Y + 3:.1f}" '
                       f'text-anchor="end" font-size="10">{_fmt(t, 3)}</text>')
    out.append(f'<text x="{left + pw / 2}" y="{f.height - 8}" text-anchor="middle" '
               f'font-size="11">{_text(fig.x_label)}</text>')
    out.append(f'<text transform="translate(14,{top + ph / 2}) rotate(-90)" '
               f'text-anchor="middle" font-size="11">{_text(fig.y_label)}</text>')
    return out


def _series_svg(s: Series, i: int, f: _Frame) -> list[str]:
    """Series ``s`` (the ``i``-th): its line or segments, its points with error bars, and
    its legend entry."""
    col = s.colour or cycle_colour(i)
    dash = ' stroke-dasharray="6 4"' if s.dashed else ""
    shown = [j for j, (x, y) in enumerate(zip(s.x, s.y))
             if math.isfinite(x) and math.isfinite(y) and (not f.log_x or x > 0)
             and (not f.log_y or y > 0)]
    p = [(f.tx(s.x[j]), f.ty(s.y[j])) for j in shown]
    out: list[str] = []
    if p and s.segments:
        for (a1, b1), (a2, b2) in zip(p[0::2], p[1::2]):
            out.append(f'<line x1="{a1:.1f}" y1="{b1:.1f}" x2="{a2:.1f}" y2="{b2:.1f}" '
                       f'stroke="{col}" stroke-width="1.2"{dash}/>')
    elif p and not s.markers:
        out.append(f'<polyline fill="none" stroke="{col}" stroke-width="1.8"{dash} '
                   f'points="{" ".join(f"{a:.1f},{b:.1f}" for a, b in p)}"/>')
    for j, (X, Y) in zip(shown, p):
        if s.low is not None and s.high is not None and s.high[j] > s.low[j]:
            # an infinite end (no bound that side) runs to the edge of the plot
            lo_j, hi_j = max(s.low[j], f.y0), min(s.high[j], f.y1)
            out.append(f'<line x1="{X:.1f}" y1="{f.ty(lo_j):.1f}" x2="{X:.1f}" '
                       f'y2="{f.ty(hi_j):.1f}" stroke="{col}"/>')
        out.append(_marker(s.symbol, X, Y, 4.5 if s.markers else 2.6, col))
    ly, lx = f.top + 10 + 16 * i, f.left + f.pw + 10
    key = (_marker(s.symbol, lx + 9, ly, 4.5, col) if s.markers else
           f'<line x1="{lx}" y1="{ly}" x2="{lx + 18}" y2="{ly}" '
           f'stroke="{col}" stroke-width="2"{dash}/>')
    out.append(f'{key}<text x="{lx + 22}" y="{ly + 4}" font-size="10">'
               f'{_text(s.name)}</text>')
    return out


def svg_grid(grid: GridImage, *, cell: int = 14, gap: int = 24) -> str:
    """Grid maps as coloured cells side by side, each with its label, and a legend.

    >>> g = GridImage("g", "maps", (("truth", ("#.", ".G")),), (("#", "#333", "wall"),))
    >>> svg = svg_grid(g); svg.count("<rect") >= 4 and "truth" in svg and "wall" in svg
    True
    """
    e = _text
    colours = {c: col for c, col, _ in grid.legend}
    panels = [(label, rows) for label, rows in grid.panels if rows]
    width = max(1, sum(max(len(r) for r in rows) * cell + gap for _, rows in panels))
    height = max((len(rows) for _, rows in panels), default=0) * cell + 20
    parts = []
    x0 = 0
    for label, rows in panels:
        w = max(len(r) for r in rows)
        parts.append(f'<text x="{x0 + w * cell / 2:.0f}" y="12" text-anchor="middle" '
                     f'font-size="12">{e(label)}</text>')
        for i, row in enumerate(rows):
            for j, ch in enumerate(row):
                parts.append(f'<rect x="{x0 + j * cell}" y="{18 + i * cell}" width="{cell}" '
                             f'height="{cell}" fill="{colours.get(ch, "#ffffff")}" '
                             'stroke="#cccccc" stroke-width="0.5"/>')
        x0 += w * cell + gap
    legend_y = height + 14
    lx = 0
    for _ch, col, meaning in grid.legend:
        parts.append(f'<rect x="{lx}" y="{legend_y - 10}" width="10" height="10" '
                     f'fill="{col}" stroke="#999"/><text x="{lx + 14}" y="{legend_y}" '
                     f'font-size="11">{e(meaning)}</text>')
        lx += 24 + 7 * len(meaning)
    total_w = max(width, lx)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w}" '
            f'height="{legend_y + 6}" role="img" aria-label="{e(grid.title)}">'
            f'<title>{e(grid.title)}</title>' + "".join(parts) + "</svg>")


def svg_block(block: Figure | GridImage) -> str:
    """A plot (:func:`svg_plot`) or grid maps (:func:`svg_grid`) as inline SVG."""
    return svg_grid(block) if isinstance(block, GridImage) else svg_plot(block)
