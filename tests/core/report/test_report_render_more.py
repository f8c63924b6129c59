"""core.report.svg, core.report.html and core.report.model's formatters: the SVG is
well-formed XML whose points land inside the plot area at the right places (checked by
inverting the linear and log maps), hostile text is escaped everywhere, non-finite values are
left out or spelled as the house style says, and unbounded reasons become numbered footnotes."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.common.errors import InputError
from core.common.quantities import QuantityRange
from core.report.html import WIDE_TABLE_COLUMNS, to_html
from core.report.model import (
    REPORTERS,
    Figure,
    GridImage,
    KeyValues,
    Paragraph,
    Report,
    Section,
    Series,
    Table,
    _eps,
    _fmt,
    _mode_text,
    _pair,
    _reason_at,
    _short_time,
    _time,
    footnote_unbounded,
    reporter,
)
from core.report.svg import _ticks, svg_block, svg_grid, svg_plot

NS = "{http://www.w3.org/2000/svg}"


def _parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def _fig(*series: Series, **kw: object) -> Figure:
    base = dict(id="f", title="T", x_label="x", y_label="y", series=series)
    base.update(kw)
    return Figure(**base)  # type: ignore[arg-type]


# ------------------------------------------------------------------ svg_plot
def test_a_plot_is_well_formed_svg_of_the_requested_size() -> None:
    svg = svg_plot(_fig(Series("a", (0.0, 1.0, 2.0), (1.0, 3.0, 2.0))), width=500, height=300)
    root = _parse(svg)
    assert root.tag == f"{NS}svg"
    assert (root.get("width"), root.get("height")) == ("500", "300")
    assert root.get("viewBox") == "0 0 500 300"
    assert len(root.findall(f"{NS}polyline")) == 1


def test_hostile_titles_labels_and_names_are_escaped() -> None:
    evil = '<script>alert("x")</script> & ü'
    svg = svg_plot(_fig(Series(evil, (0.0, 1.0), (0.0, 1.0)), title=evil, x_label=evil,
                        y_label=evil))
    assert "<script>" not in svg
    root = _parse(svg)  # still parses: nothing broke out of its element
    texts = ["".join(t.itertext()) for t in root.iter(f"{NS}text")]
    assert texts.count(evil) == 4  # title, both axis labels, the legend
    assert root.get("aria-label") == evil


def test_a_plot_without_finite_points_says_no_data() -> None:
    for series in [(), (Series("a", (math.nan, math.inf), (1.0, 2.0)),),
                   (Series("b", (1.0, 2.0), (math.nan, -math.inf)),)]:
        svg = svg_plot(_fig(*series))
        root = _parse(svg)
        assert "no data" in "".join(root.itertext())
        assert root.find(f"{NS}polyline") is None


def _points(svg: str) -> list[tuple[float, float]]:
    root = _parse(svg)
    line = root.find(f"{NS}polyline")
    assert line is not None
    return [tuple(map(float, p.split(","))) for p in line.get("points", "").split()]  # type: ignore[misc]


def test_points_map_linearly_into_the_plot_area() -> None:
    xs, ys = (0.0, 1.0, 2.0, 4.0), (10.0, 20.0, 15.0, 30.0)
    width, height = 640, 320
    pts = _points(svg_plot(_fig(Series("a", xs, ys)), width=width, height=height))
    left, right, top, bottom = 64, 170, 30, 46
    pw, ph = width - left - right, height - top - bottom
    # x: min and max at the plot edges; y: 5 % padding above and below
    y0, y1 = 10.0 - 0.05 * 20.0, 30.0 + 0.05 * 20.0
    for (px, py), x, y in zip(pts, xs, ys):
        assert px == pytest.approx(left + pw * x / 4.0, abs=0.06)
        assert py == pytest.approx(top + ph * (1 - (y - y0) / (y1 - y0)), abs=0.06)
        assert left <= px <= left + pw and top <= py <= top + ph


def test_non_finite_points_are_left_out_of_the_line() -> None:
    pts = _points(svg_plot(_fig(Series("a", (0.0, 1.0, 2.0, 3.0),
                                       (1.0, math.nan, 2.0, math.inf)))))
    assert len(pts) == 2


def test_a_log_axis_places_decades_evenly_and_drops_non_positive_x() -> None:
    xs, ys = (0.0, 1.0, 10.0, 100.0), (1.0, 1.0, 2.0, 3.0)
    pts = _points(svg_plot(_fig(Series("a", xs, ys), log_x=True)))
    assert len(pts) == 3  # x = 0 cannot be drawn on a log axis
    gaps = [b[0] - a[0] for a, b in zip(pts, pts[1:])]
    assert gaps[0] == pytest.approx(gaps[1], abs=0.11)
    svg = svg_plot(_fig(Series("a", xs, ys), log_x=True))
    assert svg.count('<tspan dy="-5" font-size="8">') == 3  # ticks 10^0, 10^1, 10^2


def test_error_bars_are_drawn_only_where_the_band_has_width() -> None:
    s = Series("a", (0.0, 1.0, 2.0), (1.0, 2.0, 3.0), low=(0.5, 2.0, 2.0),
               high=(1.5, 2.0, 4.0))
    root = _parse(svg_plot(_fig(s)))
    bars = [ln for ln in root.iter(f"{NS}line") if ln.get("x1") == ln.get("x2")
            and ln.get("stroke") not in ("#eee",)]
    # two vertical bars (points 0 and 2); the zero-width band at point 1 draws none
    assert len(bars) == 2


def test_the_y_range_includes_the_error_bar_ends() -> None:
    s = Series("a", (0.0, 1.0), (1.0, 1.0), low=(-9.0, 1.0), high=(1.0, 11.0))
    root = _parse(svg_plot(_fig(s), height=320))
    ys = [float(c.get("cy", "nan")) for c in root.iter(f"{NS}circle")]
    # both points at y = 1, inside a range [−10, 12] padded 5 %: strictly inside the area
    assert all(30 < y < 320 - 46 for y in ys)
    bar_ends = [float(ln.get(k, "nan")) for ln in root.iter(f"{NS}line")
                if ln.get("stroke") not in ("#eee",) and ln.get("x1") == ln.get("x2")
                for k in ("y1", "y2")]
    assert all(30 <= y <= 320 - 46 for y in bar_ends)


def test_segments_pair_points_and_markers_draw_shapes() -> None:
    seg = Series("routes", (0.0, 1.0, 2.0, 3.0), (0.0, 1.0, 0.0, 1.0), segments=True)
    root = _parse(svg_plot(_fig(seg)))
    route_lines = [ln for ln in root.iter(f"{NS}line") if ln.get("stroke-width") == "1.2"]
    assert len(route_lines) == 2 and root.find(f"{NS}polyline") is None
    for symbol, tag, n in (("s", "rect", 2), ("t", "polygon", 2), ("d", "polygon", 2),
                           ("o", "circle", 2)):
        mk = Series("m", (0.0, 1.0), (0.0, 1.0), markers=True, symbol=symbol)
        r = _parse(svg_plot(_fig(mk)))
        found = [e for e in r.iter(f"{NS}{tag}")
                 if tag != "rect" or e.get("fill") not in ("white",)]
        assert len(found) == n + 1  # two points and the legend key


def test_dashed_series_and_explicit_colours_are_kept() -> None:
    s = Series("a", (0.0, 1.0), (0.0, 1.0), dashed=True, colour="#123456")
    root = _parse(svg_plot(_fig(s)))
    line = root.find(f"{NS}polyline")
    assert line is not None and line.get("stroke") == "#123456"
    assert line.get("stroke-dasharray") == "6 4"


def test_a_single_point_and_a_flat_line_still_plot() -> None:
    assert len(_points(svg_plot(_fig(Series("a", (5.0,), (2.0,)))))) == 1
    pts = _points(svg_plot(_fig(Series("a", (0.0, 1.0, 2.0), (3.0, 3.0, 3.0)))))
    assert len({p[1] for p in pts}) == 1


def test_huge_values_near_the_float_range_still_render() -> None:
    """A y span wider than the largest float (a damaged summary) used to give every y
    coordinate as "nan" and the axis ends as ±∞."""
    svg = svg_plot(_fig(Series("a", (0.0, 1.0), (-1e308, 1e308))))
    _parse(svg)
    assert "nan" not in svg.lower().replace("no data", "")
    assert "∞" not in svg
    pts = _points(svg)
    # inside the plot area (top 30, bottom 320 − 46), the larger value higher, symmetric
    assert 30 <= pts[1][1] < pts[0][1] <= 320 - 46
    assert pts[0][1] - (320 - 46) == pytest.approx(30 - pts[1][1])
    wide_x = _points(svg_plot(_fig(Series("a", (-1e308, 1e308), (0.0, 1.0)))))
    assert wide_x[0][0] == pytest.approx(64) and wide_x[1][0] == pytest.approx(640 - 170)


# ------------------------------------------------------------------ ticks
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.floats(-1e6, 1e6), st.floats(1e-3, 1e6))
def test_linear_ticks_are_few_evenly_spaced_and_inside(lo: float, span: float) -> None:
    hi = lo + span
    t = _ticks(lo, hi, False)
    assert 1 <= len(t) <= 12
    assert all(lo - 1e-9 * span <= v <= hi + 1e-6 * span for v in t)
    steps = [b - a for a, b in zip(t, t[1:])]
    if steps:
        assert max(steps) == pytest.approx(min(steps), rel=1e-6)
        mant = steps[0] / 10 ** math.floor(math.log10(steps[0]))
        assert any(mant == pytest.approx(m, rel=1e-6) for m in (1, 2, 5, 10))


def test_log_ticks_are_the_covering_decades() -> None:
    assert _ticks(0.05, 300.0, True) == [0.01, 0.1, 1.0, 10.0, 100.0, 1000.0]


# ------------------------------------------------------------------ svg_grid
def test_grid_cells_take_their_legend_colour_and_unknown_ones_white() -> None:
    g = GridImage("g", "maps & <more>", (("truth", ("#.", ".?")), ("empty", ())),
                  (("#", "#333333", "wall"), (".", "#eeeeee", "free")))
    root = _parse(svg_grid(g, cell=10))
    cells = [r for r in root.iter(f"{NS}rect") if r.get("stroke") == "#cccccc"]
    assert [c.get("fill") for c in cells] == ["#333333", "#eeeeee", "#eeeeee", "#ffffff"]
    assert root.find(f"{NS}title").text == "maps & <more>"  # type: ignore[union-attr]
    labels = "".join(root.itertext())
    assert "truth" in labels and "empty" not in labels  # an empty panel is not drawn
    assert svg_block(g) == svg_grid(g)


# ------------------------------------------------------------------ to_html
def _report(*sections: Section, **meta: str) -> Report:
    return Report("R <&>", dict(meta) or {"project": "p"}, list(sections))


def test_html_escapes_every_text_and_keeps_structure() -> None:
    evil = "<b>&\"'"
    rep = _report(Section(evil, [Paragraph(evil, kind="warning"),
                                 KeyValues(((evil, evil),), title=evil),
                                 Table((evil,), ((evil,),), title=evil, note=evil)],
                          id="s1"), who=evil)
    page = to_html(rep, css="")
    assert "<b>&" not in page
    assert page.count("&lt;b&gt;&amp;") >= 8
    assert page.startswith("<!DOCTYPE html>") and page.endswith("</html>\n")
    assert '<p class="warning">' in page and '<p class="note">' in page


def test_contents_appear_only_with_more_than_one_section() -> None:
    one = to_html(_report(Section("A", [], id="a")), css="")
    assert "Contents:" not in one
    two = to_html(_report(Section("A", [], id="a"), Section("B", [], id="b")), css="")
    assert 'href="#a"' in two and 'href="#b"' in two and "2. <a" in two


def test_page_breaks_wide_tables_and_widths() -> None:
    cols = tuple(f"c{i}" for i in range(WIDE_TABLE_COLUMNS))
    wide = Table(cols, (cols,))
    narrow = Table(("a", "b"), (("1", "2"),), widths=(30, 70))
    bad_widths = Table(("a", "b"), (("1", "2"),), widths=(100,))
    page = to_html(_report(Section("A", [wide], id="a"), Section("B", [narrow, bad_widths],
                                                                   id="b")),
                   css="", break_before=["b"])
    assert '<h2 class="page-break">B</h2>' in page and "<h2>A</h2>" in page
    assert '<table class="wide">' in page
    assert '<th width="30%">a</th><th width="70%">b</th>' in page
    assert page.count("<th>a</th><th>b</th>") == 1  # widths that do not match are ignored


def test_figures_use_the_given_renderer_and_keep_their_caption() -> None:
    fig = _fig(Series("a", (0.0, 1.0), (0.0, 1.0)), caption="cap <1>")
    seen = []
    page = to_html(_report(Section("A", [fig], id="a")), css="",
                   figure_html=lambda b: seen.append(b.id) or "<img alt='x'>")
    assert seen == ["f"] and "<img alt='x'>" in page
    assert '<p class="caption">cap &lt;1&gt;</p>' in page
    inline = to_html(_report(Section("A", [fig], id="a")), css="")
    assert "<svg" in inline


def test_the_css_is_inlined() -> None:
    page = to_html(_report(Section("A", [], id="a")), css="body{color:red}")
    assert "<style>body{color:red}</style>" in page


# ------------------------------------------------------------------ formatters
@pytest.mark.parametrize("x,text", [
    (None, "–"), (True, "yes"), (False, "no"), (3, "3"), (2 ** 70, str(2 ** 70)),
    (math.nan, "–"), (math.inf, "∞"), (-math.inf, "−∞"), (0.123456789, "0.1235"),
    (1e-12, "1e-12"), ("ü", "ü"),
])
def test_fmt_spells_every_kind_of_value(x: object, text: str) -> None:
    assert _fmt(x) == text


def test_eps_never_prints_infinity_and_keeps_the_reason() -> None:
    assert _eps(math.inf) == "unbounded"
    assert _eps(None, "raw") == "unbounded (raw)"
    assert _eps(0.0) == "0"
    assert _eps(True) == "yes"  # a bool is not an ε: not called unbounded
    assert _eps(-math.inf) == "−∞"
    assert _pair(math.inf, 1e-5) == "(unbounded, 1e-05)"
    assert _pair(0.5, 0.0) == "(0.5, 0)"


def test_reason_at_reads_lists_and_strings() -> None:
    assert _reason_at("one", 5) == "one"
    assert _reason_at(["a", None, "c"], 1) == "" and _reason_at(["a", None, "c"], 2) == "c"
    assert _reason_at(["a"], 3) == "" and _reason_at(None, 0) == ""


def test_times_read_as_utc_and_short() -> None:
    assert _time("2026-01-02T03:04:05+00:00") == "2026-01-02 03:04:05 UTC"
    assert _short_time("2026-01-02T03:04:05+00:00") == "2026-01-02 03:04"
    assert _short_time("yesterday") == "yesterday"
    assert _mode_text(SimpleNamespace(mode="experiment", seed=7)).endswith(
        "(seed 7) — reproducible, not a release")
    assert _mode_text(SimpleNamespace(mode="release", seed=None)) == \
        "release mode (secure noise)"


def test_footnotes_number_distinct_reasons_in_order_of_first_use() -> None:
    t = Table(("a", "ε"), (("x", "unbounded (beta)"), ("y", "≤ unbounded (alpha) total"),
                           ("z", "unbounded (beta)"), ("w", "0.5")), note="Base note")
    out = footnote_unbounded(t)
    assert [r[1] for r in out.rows] == ["unbounded [1]", "≤ unbounded [2] total",
                                        "unbounded [1]", "0.5"]
    assert out.note == "Base note [1] beta. [2] alpha."
    assert out.columns == t.columns
    plain = Table(("a",), (("1",),))
    assert footnote_unbounded(plain) is plain


# ------------------------------------------------------------------ model
def test_a_band_needs_both_ends_and_one_value_per_point() -> None:
    with pytest.raises(InputError) as info:
        Series("a", (0.0,), (1.0,), low=(0.0,))
    assert info.value.field == "high"
    with pytest.raises(InputError) as info:
        Series("a", (0.0,), (1.0,), high=(2.0,))
    assert info.value.field == "low"
    with pytest.raises(InputError) as info:
        Series("a", (0.0, 1.0), (1.0, 2.0), low=(0.0,), high=(2.0,))
    assert info.value.field == "low"


def test_a_band_is_clipped_to_what_the_quantity_can_be() -> None:
    rate = QuantityRange(0.0, 1.0)
    s = Series("r", (0.0, 1.0), (0.5, 0.99), low=(-0.2, 0.9), high=(0.7, 1.3), limits=rate)
    assert s.low == (0.0, 0.9) and s.high == (0.7, 1.0)
    a = Series.around("r", (0.0, 1.0), (0.5, 0.99), (0.1, math.nan), rate)
    assert a.low[0] == pytest.approx(0.4) and a.high[0] == pytest.approx(0.6)  # type: ignore[index]
    none = Series.around("r", (0.0,), (0.5,), None, rate)
    assert none.low is None and none.high is None


def test_report_figures_are_in_report_order() -> None:
    f1, f2 = _fig(id="f1"), _fig(id="f2")
    g = GridImage("g", "t", (), ())
    rep = _report(Section("A", [Paragraph("x"), f1]), Section("B", [g, Table((), ()), f2]))
    assert [b.id for b in rep.figures()] == ["f1", "g", "f2"]


def test_reporter_registers_and_returns_the_function() -> None:
    def fn(project: object, run: object) -> Section:
        return Section("t")

    before = dict(REPORTERS)
    try:
        assert reporter("test-kind-more")(fn) is fn
        assert REPORTERS["test-kind-more"] is fn
    finally:
        REPORTERS.clear()
        REPORTERS.update(before)


def test_svg_numbers_are_plain_decimals() -> None:
    svg = svg_plot(_fig(Series("a", (1e-9, 2e-9), (1e9, 2e9))))
    coords = re.findall(r'\s(?:x|y|cx|cy|x1|x2|y1|y2)="([^"]+)"', svg)
    assert coords and all(re.fullmatch(r"-?\d+(\.\d+)?", c) for c in coords)
