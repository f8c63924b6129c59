"""Bands in the report stay within what their quantity can be (a success rate in [0, 1], a
length or a count never below 0), in the figure model and in the SVG."""

from __future__ import annotations

import dataclasses
import re

import pytest

from core.common.quantities import NON_NEGATIVE, PROBABILITY, QuantityRange, band_around
from core.project.model import Project, RunRecord
from core.report import build_report
from core.report.model import Figure, Series
from core.report.svg import svg_plot


def _bench_project() -> Project:
    """A plan-bench record whose 95 % intervals run past the metrics' ranges, as a normal
    approximation does near them: success 0.97 ± 0.07, a length 0.3 ± 0.5."""
    row = {"approach": "dp", "epsilon": 1.0,
           "success": 0.97, "success_ci_low": 0.90, "success_ci_high": 1.04,
           "route_length": 0.3, "route_length_ci_low": -0.2, "route_length_ci_high": 0.8,
           "messages": 2.0, "messages_ci_low": -1.0, "messages_ci_high": 5.0,
           "stretch": 1.02, "stretch_ci_low": 0.97, "stretch_ci_high": 1.07}
    row2 = {**row, "epsilon": 2.0, "success": 0.5, "success_ci_low": 0.4,
            "success_ci_high": 0.6}
    summary = {"benchmark": "B1", "title": "t", "worlds": 3,
               "config": {"parameter": "epsilon", "values": [1.0, 2.0],
                          "approaches": ["dp"]},
               "rows": [row, row2]}
    p = Project(name="bench")
    p.runs.append(RunRecord(id="run-1", kind="plan-bench", target="B1", params={},
                            summary=summary, mode="experiment", seed=1))
    return p


def _figure(key: str) -> Figure:
    rep = build_report(_bench_project())
    return next(f for f in rep.figures() if f.id == f"run-1-{key}")


def test_a_success_band_whose_interval_exceeds_1_is_kept_within_0_and_1():
    (s,) = _figure("success").series
    assert s.low is not None and s.high is not None
    assert s.high[0] == 1.0 and s.low[0] == pytest.approx(0.90)  # the interval's own ends
    assert (s.low[1], s.high[1]) == pytest.approx((0.4, 0.6))  # within range: unchanged
    assert all(0.0 <= lo <= hi <= 1.0 for lo, hi in zip(s.low, s.high))


def test_length_and_message_bands_never_go_below_0():
    for key in ("route_length", "messages"):
        (s,) = _figure(key).series
        assert s.low[0] == 0.0 and s.high[0] > 0.0, key
    (s,) = _figure("stretch").series  # a stretch is at least 1
    assert s.low[0] == 1.0


def _bar_ends_and_points(svg: str, colour: str) -> tuple[list[float], dict[str, list[float]]]:
    """The y pixel of every vertical error-bar end drawn in ``colour``, and the y pixel of
    every point by colour."""
    ends = []
    for x1, y1, x2, y2 in re.findall(
            rf'<line x1="([\d.]+)" y1="([\d.]+)" x2="([\d.]+)" y2="([\d.]+)" '
            rf'stroke="{colour}"/>', svg):
        if x1 == x2:
            ends += [float(y1), float(y2)]
    points: dict[str, list[float]] = {}
    for cy, fill in re.findall(r'<circle cx="[\d.]+" cy="([\d.]+)" r="[\d.]+" fill="([^"]+)"',
                               svg):
        points.setdefault(fill, []).append(float(cy))
    return ends, points


@pytest.mark.parametrize("key, edge", [("success", 1.0), ("success", 0.0),
                                       ("route_length", 0.0)])
def test_the_svg_draws_no_band_past_the_range(key, edge):
    fig = _figure(key)
    colour = fig.series[0].colour
    ref = Series("edge", (1.0,), (edge,), colour="#123456")  # a point at the range's edge
    svg = svg_plot(dataclasses.replace(fig, series=fig.series + (ref,)))
    ends, points = _bar_ends_and_points(svg, colour)
    (y_edge,) = points["#123456"]
    assert ends
    if edge == 1.0:  # SVG's y grows downwards: nothing drawn above the point at 1
        assert min(ends) >= y_edge - 0.05
    else:
        assert max(ends) <= y_edge + 0.05


def test_series_clip_any_band_to_their_declared_range():
    s = Series("rate", (1.0, 2.0), (0.99, 0.01), low=(0.95, -0.03), high=(1.03, 0.05),
               limits=PROBABILITY)
    assert s.low == (0.95, 0.0) and s.high == (1.0, 0.05)
    t = Series.around("count", (1.0,), (0.5,), (2.0,), NON_NEGATIVE)
    assert t.low == (0.0,) and t.high == (2.5,)
    assert Series.around("free", (1.0,), (0.5,), (2.0,), QuantityRange()).low == (-1.5,)
    lo, hi = band_around([0.5], [float("nan")], PROBABILITY)  # no interval: stays NaN
    assert lo[0] != lo[0] and hi[0] != hi[0]


def test_an_advising_band_never_shows_a_convergence_ratio_above_1():
    arm = {"label": "dp", "strategy": "dp", "epsilon": 1.0,
           "cr_mean": [0.5, 0.98], "cr_ci": [0.1, 0.05]}
    p = Project(name="adv")
    p.runs.append(RunRecord(id="run-1", kind="advise-experiment", target="advising-1",
                            params={}, summary={"experiment": "exp1", "seeds": [1, 2],
                                                "curve_epochs": [1, 100], "arms": [arm]},
                            mode="experiment", seed=1))
    fig = next(f for f in build_report(p).figures() if f.id == "run-1-convergence")
    (s,) = fig.series
    assert s.high == pytest.approx((0.6, 1.0)) and s.low == pytest.approx((0.4, 0.93))
