"""core.report.model's formatters and blocks, and core.report.html.to_html.

The formatters are the one place an ε, a number or a time becomes text in every report:
each promise of theirs is checked (an unbounded ε reads "unbounded" with its reason, never
∞, 0 or blank; NaN reads as a dash). ``to_html`` must escape every string it is given (a
property test with hostile text) and lay out what the options ask for.
"""

from __future__ import annotations

import html
import math
from html.parser import HTMLParser
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.common.errors import InputError
from core.common.quantities import NON_NEGATIVE, PROBABILITY
from core.report.html import WIDE_TABLE_COLUMNS, to_html
from core.report.model import (
    REPORTERS,
    UNBOUNDED_TEXT,
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

# ---------------------------------------------------------------- formatters


@pytest.mark.parametrize("x, text", [
    (None, "–"), (True, "yes"), (False, "no"), (7, "7"), (10 ** 20, str(10 ** 20)),
    (0.123456789, "0.1235"), (1e-20, "1e-20"), (math.nan, "–"), (math.inf, "∞"),
    (-math.inf, "−∞"), ("text", "text"), (2.0, "2"),
])
def test_fmt(x: object, text: str) -> None:
    assert _fmt(x) == text


def test_fmt_digits() -> None:
    assert _fmt(math.pi, 3) == "3.14" and _fmt(math.pi, 6) == "3.14159"


@pytest.mark.parametrize("x, reason, text", [
    (1.25, "", "1.25"), (0.0, "", "0"), (math.inf, "", UNBOUNDED_TEXT),
    (None, "", UNBOUNDED_TEXT), (math.inf, "raw data", "unbounded (raw data)"),
    (None, "no guarantee", "unbounded (no guarantee)"), (math.nan, "", "–"),
    (True, "", "yes"),  # a bool is not an ε: shown as what it is, never "unbounded"
])
def test_eps(x: object, reason: str, text: str) -> None:
    assert _eps(x, reason) == text


@given(st.floats(min_value=0.0, allow_infinity=True, allow_nan=False), st.text(max_size=5))
@settings(max_examples=40)
def test_eps_never_reads_infinity_or_blank(x: float, reason: str) -> None:
    text = _eps(x, reason)
    assert text and "∞" not in text and "inf" not in text
    if math.isinf(x):
        assert text.startswith(UNBOUNDED_TEXT)


def test_reason_at() -> None:
    assert _reason_at("one reason", 5) == "one reason"
    assert _reason_at(["a", None, "c"], 0) == "a"
    assert _reason_at(["a", None, "c"], 1) == ""
    assert _reason_at(["a"], 3) == "" and _reason_at(None, 0) == ""


def test_pair_and_times() -> None:
    assert _pair(math.inf, 1e-5) == "(unbounded, 1e-05)"
    assert _pair(0.5, 0.0) == "(0.5, 0)"
    assert _time("2026-01-02T03:04:05+00:00") == "2026-01-02 03:04:05 UTC"
    assert _short_time("2026-01-02T03:04:05+00:00") == "2026-01-02 03:04"
    assert _short_time("yesterday") == "yesterday"


def test_mode_text() -> None:
    assert "seed 42" in _mode_text(SimpleNamespace(mode="experiment", seed=42))
    assert _mode_text(SimpleNamespace(mode="release", seed=None)) == \
        "release mode (secure noise)"


def test_footnote_unbounded_numbers_each_distinct_reason_once() -> None:
    t = Table(("run", "ε", "total"),
              (("a", "unbounded (raw Q-values released)", "x unbounded (raw Q-values released) y"),
               ("b", "unbounded (no finite bound)", "2"),
               ("c", "0.5", "unbounded")),
              note="Totals by basic composition.")
    out = footnote_unbounded(t)
    assert [r[1] for r in out.rows] == ["unbounded [1]", "unbounded [2]", "0.5"]
    assert out.rows[0][2] == "x unbounded [1] y"
    assert out.rows[2][2] == "unbounded"  # no reason: nothing to footnote
    assert out.note == ("Totals by basic composition. [1] raw Q-values released. "
                        "[2] no finite bound.")
    assert (out.columns, out.title, out.widths) == (t.columns, t.title, t.widths)
    plain = Table(("a",), (("1",),))
    assert footnote_unbounded(plain) is plain


# ---------------------------------------------------------------- blocks


def test_series_band_needs_both_ends_of_the_right_length() -> None:
    with pytest.raises(InputError) as info:
        Series("s", (1.0,), (1.0,), low=(0.5,))
    assert info.value.field == "high"
    with pytest.raises(InputError) as info:
        Series("s", (1.0,), (1.0,), high=(0.5,))
    assert info.value.field == "low"
    with pytest.raises(InputError) as info:
        Series("s", (1.0, 2.0), (1.0, 2.0), low=(0.5,), high=(1.5,))
    assert info.value.field == "low"


def test_series_band_is_clipped_to_its_limits() -> None:
    s = Series("rate", (1.0, 2.0), (0.98, 0.02), low=(0.9, -0.1), high=(1.1, 0.1),
               limits=PROBABILITY)
    assert s.low == (0.9, 0.0) and s.high == (1.0, 0.1)
    a = Series.around("len", (1.0, 2.0), (0.3, 5.0), (0.5, math.nan), NON_NEGATIVE)
    assert a.low[0] == 0.0 and a.high[0] == 0.8
    assert math.isnan(a.low[1]) and math.isnan(a.high[1])
    assert Series.around("x", (1.0,), (1.0,), None, NON_NEGATIVE).low is None


def test_report_figures_in_order_and_the_registry() -> None:
    f1 = Figure("f1", "t", "x", "y", ())
    g = GridImage("g", "maps", (), ())
    r = Report("R", {}, [Section("a", [Paragraph("p"), f1]), Section("b", [g])])
    assert r.figures() == [f1, g]

    @reporter("__unit_test_kind__")
    def fn(project: object, run: object) -> Section:
        return Section("x")

    try:
        assert REPORTERS["__unit_test_kind__"] is fn
    finally:
        del REPORTERS["__unit_test_kind__"]


# ---------------------------------------------------------------- HTML


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


_hostile = st.lists(st.sampled_from(list("<>&\"'ab /=;ε東") + ["<script>", "</td>"]),
                    min_size=1, max_size=8).map("".join)


@settings(max_examples=30)
@given(_hostile, _hostile, _hostile, _hostile)
def test_to_html_escapes_every_string(title: str, key: str, cell: str, para: str) -> None:
    r = Report(title, {key: cell}, [
        Section("s1", [Paragraph(para), KeyValues(((key, cell),), title=para),
                       Table((key,), ((cell,),), title=title, note=para)], id="one"),
        Section("s2", [], id="two")])
    page = to_html(r, css="")
    parser = _Collect()
    parser.feed(page)
    text = "".join(parser.text)
    for s in (title, key, cell, para):
        assert html.escape(s) in page
        assert s in text  # the browser shows the string itself
    assert "script" not in parser.tags


def test_to_html_layout_options() -> None:
    wide_cols = tuple(f"c{i}" for i in range(WIDE_TABLE_COLUMNS))
    fig = Figure("fig-1", "plot", "x", "y", (Series("a", (1.0,), (1.0,)),), caption="cap")
    r = Report("R", {"project": "p"}, [
        Section("One", [Table(("a", "b"), (("1", "2"),), widths=(30, 70)),
                        Table(wide_cols, ())], id="one"),
        Section("Two", [fig], id="two")])
    page = to_html(r, css="body{}", break_before=("two",),
                   figure_html=lambda f: f"<img alt='{f.id}'>")
    assert '<h2 class="page-break">Two</h2>' in page and '<h2>One</h2>' in page
    assert '<th width="30%">a</th><th width="70%">b</th>' in page
    assert '<table class="wide">' in page and '<table class="data">' in page
    assert "<img alt='fig-1'>" in page and '<p class="caption">cap</p>' in page
    assert '<a href="#two">Two</a>' in page and "<style>body{}</style>" in page
    assert page.endswith("</body></html>\n")
    single = to_html(Report("R", {}, [Section("Only", [])]), css="")
    assert "Contents:" not in single


def test_to_html_draws_figures_as_inline_svg_by_default() -> None:
    fig = Figure("f", "plot", "x", "y", (Series("a", (1.0, 2.0), (1.0, 3.0)),))
    page = to_html(Report("R", {}, [Section("S", [fig])]), css="")
    assert '<figure id="f"><div><svg' in page and "<polyline" in page


def test_to_html_is_deterministic() -> None:
    r = Report("R", {"a": "b"}, [Section("S", [Paragraph("x", kind="warning")])])
    assert to_html(r, css="") == to_html(r, css="")
    assert '<p class="warning">x</p>' in to_html(r, css="")
