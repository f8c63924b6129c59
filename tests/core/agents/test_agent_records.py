"""Agents' runs in a project: ledger entries (honest about what is unbounded), the project file
round trip of grid worlds, and the report sections."""

from __future__ import annotations

import numpy as np

from core.comarl.release import ComarlParameters, comarl_release
from core.gridworld.maps import GridEntry, random_map
from core.gridworld.release import (
    DrlParameters,
    DrlTableParameters,
    drl_release,
    drl_table_release,
)
from core.project.files import load_project, save_project
from core.project.model import Project
from core.project.recording import (
    comarl_run_record,
    drl_run_record,
    drl_table_run_record,
    record_run,
)
from core.report.html import build_report, to_html


def test_runs_ledger_grids_and_report(tmp_path):
    p = Project()
    m = random_map(7, 7, np.random.default_rng(0))
    p.grids.append(GridEntry("grid-1", m))
    params = DrlParameters(defense="dpdrl", epsilon=0.5, episodes=40, attack=True,
                           population=8, generations=2, seed=1)
    run = drl_release(params, grid=m)
    r = run.train
    rec, es = drl_run_record(p, run, params, "grid-1")
    # the params keys old projects hold, in their order
    assert list(rec.params) == ["grid", "defense", "preset", "epsilon", "episodes",
                                "max_steps", "attack", "seeded", "seed", "agent"]
    assert rec.params["attack"] is True and rec.params["epsilon"] == 0.5
    assert DrlParameters.from_dict(rec.params) == DrlParameters(
        defense="dpdrl", epsilon=0.5, episodes=40, attack=True, seed=1)
    assert rec.summary["recovered"] == run.attack.recovered.to_rows()
    (e,) = record_run(p, rec, es)
    assert e.unbounded and e.count == r.obfuscated_steps and e.dataset == "grid:grid-1"
    table = DrlTableParameters(DrlParameters(episodes=20, generations=1, seed=1), "grid-1")
    rec, es = drl_table_run_record(p, drl_table_release(table, grid=m), table)
    # the params keys old projects hold, in their order: the first of to_dict
    assert list(rec.params) == ["grid", "episodes", "rows", "seeded", "seed"]
    assert rec.params == {k: table.to_dict()[k] for k in rec.params}
    assert DrlTableParameters.from_dict(rec.params) == DrlTableParameters(
        DrlParameters(episodes=20, seed=1), "grid-1")
    assert len(record_run(p, rec, es)) == 6 and all(x.source == rec.id for x in es)
    team = ComarlParameters(agents=2, episodes=10, dp=True, seed=1)
    pe = comarl_release(team)
    rec, es = comarl_run_record(p, pe, team)
    assert list(rec.params) == ["agents", "episodes", "dp", "sigma", "window", "sample_rate",
                                "seeded", "seed", "agent"]
    assert rec.summary["central_team_return"] == pe.central.team_return
    assert ComarlParameters.from_dict(rec.params) == team
    stored = record_run(p, rec, es)
    kinds = sorted(x.mechanism for x in stored)
    assert kinds == ["dpsgd-tables", "dpsgd-tables", "secure-sum", "secure-sum"]
    assert all(x.unbounded for x in stored if x.mechanism == "secure-sum")
    path = tmp_path / "a.privplan.json"
    save_project(p, str(path))
    q = load_project(str(path))
    assert q.grids == p.grids and [x.kind for x in q.runs] == ["drl", "drl-table", "comarl"]
    html = to_html(build_report(q))
    for title in ("DP-DRL: grid-1", "DP-DRL comparison", "PE-Co-MARL", "Leakage inspector"):
        assert title in html
