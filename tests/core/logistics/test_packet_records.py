"""The record of a packet-routing study and its report section."""

from __future__ import annotations

import json
import math

import pytest

from core.common.errors import InputError
from core.logistics.packet import packet_claims, packet_study
from core.logistics.packet_records import (
    PACKET_KIND,
    PACKET_PLOTS,
    packet_series,
    run_packet_experiment,
)
from core.project.model import Project, RunRecord
from core.report.html import Figure, Table, build_report, to_html
from core.study import evaluate_claims, run_study, summary_rows


@pytest.fixture(scope="module")
def fig410():
    return run_packet_experiment("fig410", n=3, master_seed=4, values=[0.3, 0.8],
                                 approaches=["dp", "greedy"], sizes=5)


def test_summary_is_strict_json_and_matches_the_study_runner(fig410):
    s = fig410
    json.dumps(s, allow_nan=False)  # NaN stored as null: strict JSON
    assert s["x"] == "epsilon" and s["approaches"] == ["dp", "greedy"]
    assert s["params"]["sizes"] == 5 and s["master_seed"] == 4
    # the same study through the runner directly: identical means and intervals
    from dataclasses import replace

    st = packet_study("fig410", n=3, master_seed=4, values=[0.3, 0.8],
                      approaches=["dp", "greedy"])
    st = replace(st, points=tuple({**p, "n_centers": 5} for p in st.points))
    res = run_study(st)
    ref = summary_rows(res, ["messages"], center="mean")
    assert [r["messages"]["mean"] for r in s["rows"]] == [r["messages"]["center"] for r in ref]
    assert [r["messages"]["hi"] for r in s["rows"]] == [r["messages"]["hi"] for r in ref]
    # one claim pair per approach and ε, all evaluated at the sized points
    assert s["claims_total"] == 2 * 2 * 2
    assert all("n_centers=5" in c["point"] for c in s["claims"])
    # packet routing beside logistics: two scenarios per arm
    series = packet_series(s, "messages")
    assert [(x["arm"], x["scenario"]) for x in series] == [
        ("dp", "packet"), ("dp", "logistics"), ("greedy", "packet"), ("greedy", "logistics")]
    assert all(x["x"] == [0.3, 0.8] for x in series)


def test_fig411_claims_equal_the_plain_claims_without_a_size():
    s = run_packet_experiment("fig411", n=3, master_seed=9, values=[0.2],
                              approaches=["bestfirst"])
    st = packet_study("fig411", n=3, master_seed=9, values=[0.2], approaches=["bestfirst"])
    ref = evaluate_claims(run_study(st), packet_claims(st))
    assert [c["holds"] for c in s["claims"]] == [c.holds for c in ref]
    assert [c["p_adjusted"] for c in s["claims"]] == pytest.approx(
        [c.p_adjusted for c in ref], nan_ok=True)
    assert s["privacy"]["bestfirst"]["epsilon"] is None  # a restart under churn: no bound
    assert s["privacy"]["bestfirst"]["epsilon_reason"]


@pytest.mark.parametrize("kw, field", [({"sizes": 1}, "sizes"), ({"n": 1}, "worlds"),
                                       ({"values": [2.0]}, "values")])
def test_bad_parameters_name_their_field(kw, field):
    args = {"n": 2, "master_seed": 1, "values": [0.2], "approaches": ["greedy"], **kw}
    with pytest.raises(InputError) as e:
        run_packet_experiment("fig411", **args)
    assert e.value.field == field


def test_fig49_refuses_a_size():
    with pytest.raises(InputError, match="sweeps the network size"):
        run_packet_experiment("fig49", n=2, master_seed=1, values=[4], sizes=5)


def test_report_section_has_figures_with_intervals_claims_and_privacy(fig410):
    p = Project(name="packet")
    p.runs.append(RunRecord(id="run-1", kind=PACKET_KIND, target="logistics",
                            params=fig410["params"], summary=fig410, mode="experiment",
                            seed=4))
    rep = build_report(p)
    (sec,) = [x for x in rep.sections if x.id == "run-run-1"]
    assert "Fig 4.10" in sec.title
    figs = [b for b in sec.blocks if isinstance(b, Figure)]
    assert [f.id for f in figs] == [f"run-1-{k}" for k, _, _ in PACKET_PLOTS]
    msg = figs[1]
    assert len(msg.series) == 4 and [x.dashed for x in msg.series] == [False, True] * 2
    row = next(r for r in fig410["rows"] if r["arm"] == "dp" and r["scenario"] == "packet")
    lo, hi = row["messages"]["lo"], row["messages"]["hi"]
    assert (msg.series[0].low[0], msg.series[0].high[0]) == pytest.approx(
        (max(lo, 0.0), hi)) and hi > lo  # the interval's ends, never below 0 messages
    tables = {t.title: t for t in sec.blocks if isinstance(t, Table)}
    claims = next(t for k, t in tables.items() if k.startswith("Claims"))
    assert len(claims.rows) == fig410["claims_total"]
    assert {r[1] for r in claims.rows} <= {"yes", "no"}
    priv = next(t for k, t in tables.items() if k.startswith("What a real run proves"))
    assert all(r[1].startswith("unbounded") for r in priv.rows)
    html = to_html(rep)
    assert "Packet routing" in html and "<svg" in html
    assert all(lo <= hi for f in figs for s_ in f.series
               for lo, hi in zip(s_.low or (), s_.high or ()) if not math.isnan(lo + hi))
