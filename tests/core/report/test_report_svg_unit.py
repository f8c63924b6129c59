"""core.report.svg: the report's plots and grid maps are well-formed SVG whatever the data.

Property: for any series (NaN, ±∞, values near the float range, zero or negative values on
a log axis, bands with infinite ends, hostile text in titles and names), the plot parses as
XML and every coordinate in it is a finite number — a browser shows a figure, never a
broken element. Beside that: points land where the axes say, the legend names every
series, and the grid maps draw one cell per character.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.report.model import Figure, GridImage, Series
from core.report.svg import _ticks, svg_block, svg_grid, svg_plot

_NS = "{http://www.w3.org/2000/svg}"
_COORD = ("x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "width", "height")


def _parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == _NS + "svg"
    return root


def _coordinates(root: ET.Element) -> list[float]:
    out = []
    for el in root.iter():
        for name in _COORD:
            if name in el.attrib:
                out.append(float(el.attrib[name]))
        if "points" in el.attrib:
            out += [float(v) for v in re.split(r"[ ,]+", el.attrib["points"].strip()) if v]
    return out


# text without control characters: XML 1.0 cannot carry them at all (an HTML page tolerates
# them; the report's titles and names come from code and project names)
_text = st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs")), max_size=8)
_value = st.one_of(st.floats(-1e6, 1e6), st.sampled_from(
    [math.nan, math.inf, -math.inf, 0.0, -1.0, 1e-300, 1.7e308, -1.7e308]))


@st.composite
def _series(draw: st.DrawFn) -> Series:
    n = draw(st.integers(0, 6))
    x = tuple(draw(st.lists(_value, min_size=n, max_size=n)))
    y = tuple(draw(st.lists(_value, min_size=n, max_size=n)))
    band = draw(st.booleans())
    low = tuple(draw(st.lists(_value, min_size=n, max_size=n))) if band else None
    high = tuple(draw(st.lists(_value, min_size=n, max_size=n))) if band else None
    return Series(draw(_text), x, y, low=low, high=high,
                  dashed=draw(st.booleans()), segments=draw(st.booleans()),
                  markers=draw(st.booleans()), symbol=draw(st.sampled_from("ostd")))


@settings(max_examples=15)
@given(st.lists(_series(), max_size=3), st.booleans(), st.booleans(), _text)
def test_any_plot_is_well_formed_with_finite_coordinates(series: list[Series], log_x: bool,
                                                         log_y: bool, title: str) -> None:
    fig = Figure("f", title, "x <axis>", "y & axis", tuple(series), log_x=log_x, log_y=log_y)
    svg = svg_plot(fig)
    root = _parse(svg)
    coords = _coordinates(root)
    assert all(math.isfinite(c) for c in coords), svg
    assert "nan" not in svg and "inf" not in svg.replace("font", "")


def test_log_axis_without_positive_values_says_no_data() -> None:
    for fig in (Figure("f", "t", "x", "y", (Series("a", (0.0, -1.0), (1.0, 2.0)),),
                       log_x=True),
                Figure("f", "t", "x", "y", (Series("a", (1.0, 2.0), (0.0, -3.0)),),
                       log_y=True)):
        svg = svg_plot(fig)
        _parse(svg)
        assert "no data" in svg


def test_a_figure_without_finite_points_says_no_data() -> None:
    fig = Figure("f", "t", "x", "y", (Series("a", (math.nan, 1.0), (1.0, math.inf)),))
    svg = svg_plot(fig)
    assert "no data" in svg and "<polyline" not in svg
    assert "no data" in svg_plot(Figure("f", "t", "x", "y", ()))


def test_an_infinite_band_end_runs_to_the_plot_edge() -> None:
    s = Series("a", (1.0, 2.0), (1.0, 2.0), low=(0.5, 1.5), high=(math.inf, 2.5))
    root = _parse(svg_plot(Figure("f", "t", "x", "y", (s,))))
    bars = [el for el in root.iter(_NS + "line")
            if el.attrib.get("x1") == el.attrib.get("x2") and el.attrib.get("stroke") != "#eee"]
    assert len(bars) == 2
    top = min(float(el.attrib["y2"]) for el in bars)
    assert top == pytest.approx(30.0, abs=0.11)  # the frame's top edge


def test_points_land_where_the_axes_say() -> None:
    s = Series("a", (0.0, 10.0), (0.0, 100.0))
    root = _parse(svg_plot(Figure("f", "t", "x", "y", (s,)), width=640, height=320))
    poly = next(root.iter(_NS + "polyline"))
    (x0, y0), (x1, y1) = [tuple(map(float, p.split(","))) for p in
                          poly.attrib["points"].split()]
    assert x0 == pytest.approx(64.0) and x1 == pytest.approx(640 - 170)
    # y has a 5 % margin each side of [0, 100]: 0 sits 1/12 of the height above the bottom
    ph = 320 - 30 - 46
    assert y0 == pytest.approx(30 + ph * (1 - 5 / 110), abs=0.06)
    assert y1 == pytest.approx(30 + ph * (1 - 105 / 110), abs=0.06)


def test_log_axes_are_labelled_with_powers_of_ten() -> None:
    s = Series("a", (1.0, 1000.0), (1e-3, 1.0))
    svg = svg_plot(Figure("f", "t", "x", "y", (s,), log_x=True, log_y=True))
    _parse(svg)
    assert 'font-size="8">3</tspan>' in svg and 'font-size="8">0</tspan>' in svg


def test_legend_names_every_series_escaped() -> None:
    series = (Series("<script>alert(1)</script>", (1.0,), (1.0,)),
              Series("R&D ε", (1.0,), (2.0,), markers=True, symbol="d"))
    svg = svg_plot(Figure("f", 'say "hi"', "x", "y", series))
    root = _parse(svg)
    texts = ["".join(t.itertext()) for t in root.iter(_NS + "text")]
    assert "<script>alert(1)</script>" in texts and "R&D ε" in texts
    assert "<script>" not in svg
    assert root.attrib["aria-label"] == 'say "hi"'


def test_segments_pair_up_points() -> None:
    s = Series("routes", (0.0, 1.0, 2.0, 3.0), (0.0, 1.0, 0.0, 1.0), segments=True)
    root = _parse(svg_plot(Figure("f", "t", "x", "y", (s,))))
    coloured = [el for el in root.iter(_NS + "line") if el.attrib.get("stroke-width") == "1.2"]
    assert len(coloured) == 2


@pytest.mark.parametrize("symbol, tag", [("o", "circle"), ("s", "rect"), ("t", "polygon"),
                                         ("d", "polygon")])
def test_marker_symbols(symbol: str, tag: str) -> None:
    s = Series("m", (1.0, 2.0), (1.0, 2.0), markers=True, symbol=symbol, colour="#123456")
    root = _parse(svg_plot(Figure("f", "t", "x", "y", (s,))))
    marks = [el for el in root.iter(_NS + tag) if el.attrib.get("fill") == "#123456"]
    assert len(marks) == 3  # two points and the legend key


@pytest.mark.parametrize("lo, hi", [(0.0, 1.0), (-3.0, 17.0), (0.001, 0.0042), (5.0, 5.0),
                                    (-1e6, 1e6)])
def test_linear_ticks_are_round_evenly_spaced_and_inside(lo: float, hi: float) -> None:
    ticks = _ticks(lo, hi, False)
    assert 1 <= len(ticks) <= 7
    assert all(lo - 1e-9 * max(1, abs(lo)) <= t <= hi + 1e-9 * max(1, abs(hi)) for t in ticks)
    steps = {round(b - a, 12) for a, b in zip(ticks, ticks[1:])}
    assert len(steps) <= 1
    if steps:
        step = steps.pop()
        mantissa = step / 10 ** math.floor(math.log10(step))
        assert round(mantissa, 6) in (1.0, 2.0, 5.0)


def test_log_ticks_cover_the_decades() -> None:
    assert _ticks(0.03, 200.0, True) == [0.01, 0.1, 1.0, 10.0, 100.0, 1000.0]


def test_ticks_of_an_overflowing_span_are_the_ends() -> None:
    assert _ticks(-1.7e308, 1.7e308, False) == [-1.7e308, 1.7e308]


def test_grid_maps_draw_one_cell_per_character() -> None:
    g = GridImage("g", "maps <&>", (("truth", ("#.", ".G")), ("empty", ()),
                                    ("guess", ("##",))),
                  (("#", "#333333", "wall"), ("G", "#00aa00", "goal")))
    svg = svg_grid(g, cell=10, gap=5)
    root = _parse(svg)
    cells = [el for el in root.iter(_NS + "rect") if el.attrib.get("stroke") == "#cccccc"]
    assert len(cells) == 4 + 2  # the empty panel is left out
    fills = [el.attrib["fill"] for el in cells]
    assert fills.count("#333333") == 3 and fills.count("#00aa00") == 1
    assert fills.count("#ffffff") == 2  # characters without a legend entry are white
    assert "".join(next(root.iter(_NS + "title")).itertext()) == "maps <&>"
    assert svg_block(g) == svg_grid(g)


def test_svg_block_dispatches_a_figure_to_the_plotter() -> None:
    fig = Figure("f", "t", "x", "y", (Series("a", (1.0,), (1.0,)),))
    assert svg_block(fig) == svg_plot(fig)


def test_control_characters_in_titles_and_names_still_give_well_formed_xml() -> None:
    """A title pasted with a control character (a terminal bell, a form feed) made the SVG
    unparsable and with it the whole report; those characters are dropped, the rest kept."""
    bad = "loss\x07 of \x0cplan <1>\x00\ufffe"
    fig = Figure("f", bad, "k\x1b", "ε\x08", (Series("s\x01", (1.0, 2.0), (1.0, 3.0)),))
    root = _parse(svg_plot(fig))
    assert root.get("aria-label") == "loss of plan <1>"
    texts = ["".join(t.itertext()) for t in root.iter() if t.tag.endswith("text")]
    assert "loss of plan <1>" in texts and "k" in texts and "ε" in texts and "s" in texts
    grid = GridImage("g", bad, (("a\x03", ("#.", ".#")),),
                     (("#", "#000000", "wall\x02"), (".", "#ffffff", "free")))
    assert _parse(svg_grid(grid)).get("aria-label") == "loss of plan <1>"
