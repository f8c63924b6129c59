"""core.report.sections.mdp: a recorded sweep, bounds run or design reads back in the report
with the parameters it was run with (b, δ̂, adjacency, π̄), its values per k or per state, and
(ε, δ) per k with the reason where unbounded."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from core.mdp.examples import four_startups
from core.mdp.records import BoundsParameters, SweepParameters
from core.project.model import Project, RunRecord
from core.report.model import KeyValues, Paragraph, Table
from core.report.sections.mdp import (
    _bounds_section,
    _design_section,
    _mdp_section,
    _policy_text,
    _sweep_section,
)


def _kv(section: Any, title: str) -> dict[str, str]:
    block = next(b for b in section.blocks if isinstance(b, KeyValues) and b.title == title)
    return dict(block.items)


def _table(section: Any, title_start: str) -> Table:
    return next(b for b in section.blocks if isinstance(b, Table)
                and b.title.startswith(title_start))


@pytest.fixture(scope="module")
def sweep() -> tuple[Project, RunRecord]:
    from core.mdp.sweep import privacy_sweep
    from core.project.recording import record_sweep_run

    p = Project()
    mid = p.add_mdp(four_startups(), "startups")
    params = SweepParameters(ks=(10.0, 1000.0), runs=3, beta=0.1, alpha_mode="paper",
                             seeded=True, seed=4, workers=1, b=0.2, delta_target=0.01,
                             policy_source="softmax", temperature=0.5)
    res = privacy_sweep(four_startups(), list(params.ks), **params.sweep_kwargs())
    rec, _ = record_sweep_run(p, mid, params, res)
    return p, rec


def test_the_sweep_section_states_its_parameters(sweep: tuple[Project, RunRecord]) -> None:
    p, rec = sweep
    sec = _sweep_section(p, rec)
    assert sec.id == f"run-{rec.id}" and "Privacy sweep of" in sec.title
    kv = _kv(sec, "Parameters")
    assert kv["k values"] == "10, 1000" and kv["runs per k"] == "3" and kv["β"] == "0.1"
    assert kv["randomness"].startswith("seeded experiment (seed 4)")
    assert kv["π̄ in every run"].startswith("softmax") and "0.5" in kv["π̄ in every run"]


def test_the_sweep_section_tables_values_and_privacy_per_k(
        sweep: tuple[Project, RunRecord]) -> None:
    p, rec = sweep
    sec = _sweep_section(p, rec)
    values = _table(sec, "Values and cost of privacy per k")
    assert [r[0] for r in values.rows] == ["10", "1000"]
    assert all(" ± " in cell for r in values.rows for cell in r[2:])
    privacy = _table(sec, "Privacy of one privatised model per k")
    assert len(privacy.rows) == 2 and privacy.columns[:3] == ("k", "ε", "δ")
    assert "b = 0.2" in privacy.note and "target δ̂ = 0.01" in privacy.note
    assert "seeded experiment: none of its privatised models was released" in privacy.note
    eps = [float(r[1]) for r in privacy.rows if r[1] != "unbounded"]
    assert eps == sorted(eps)  # a larger k releases more: ε grows with k
    assert any(isinstance(b, Paragraph) and "composed" in b.text for b in sec.blocks)


def test_a_sweep_without_results_says_so(sweep: tuple[Project, RunRecord]) -> None:
    p, rec = sweep
    empty = dataclasses.replace(rec, summary={})
    sec = _sweep_section(p, empty)
    assert [b.text for b in sec.blocks if isinstance(b, Paragraph)] == [
        "This run recorded no results."]


def test_policy_text_names_each_source() -> None:
    assert _policy_text({}) == "greedy optimum of the private model (deterministic)"
    assert "temperature 2" in _policy_text({"policy_source": "softmax", "temperature": 2.0})
    table = _policy_text({"policy_source": "table", "policy_file": "pi.csv",
                          "stochastic": True})
    assert table == "a given policy table (pi.csv) (stochastic)"
    assert _policy_text({"policy_source": "table", "stochastic": False}).endswith(
        "(deterministic)")
    lp = _policy_text({"policy_source": "lp", "synthesis_check": 1e-9})
    assert "LP (HiGHS" in lp and "agree with induction to 1e-09" in lp


def test_the_bounds_section_lists_policy_and_values_per_state() -> None:
    from core.mdp.private_policy import bounds_release
    from core.project.recording import bounds_run_record, record_run

    p = Project()
    mid = p.add_mdp(four_startups(), "startups")
    entry = next(e for e in p.mdps if e.id == mid)
    release = bounds_release(p.mdp(mid), BoundsParameters(k=200.0, seed=3),
                             digest_key=entry.model.digest_key())
    rec, entries = bounds_run_record(p, mid, release)
    record_run(p, rec, entries)
    sec = _bounds_section(p, rec)
    kv = _kv(sec, "Parameters")
    assert kv["k"] == "200" and kv["β"] == "0.05" and kv["π̄"].startswith("greedy optimum")
    table = _table(sec, "Policy and values at stage 0")
    assert len(table.rows) == p.mdp(mid).n_states
    for _, _, lo, mid_v, hi in table.rows:
        assert float(lo) <= float(mid_v) + 1e-9 and float(mid_v) <= float(hi) + 1e-9


def test_the_design_section_marks_the_recommendation() -> None:
    p = Project()
    mid = p.add_mdp(four_startups(), "startups")
    frontier = [{"eta": "auto", "k": 120.0, "epsilon": 0.9, "cost_bound": 3.5},
                {"eta": 0.05, "k": 80.0, "epsilon": 0.95, "cost_bound": 4.0}]
    rec = RunRecord(id="run-9", kind="design", target=mid, params={},
                    summary={"epsilon_target": 1.0, "delta_target": 1e-3, "b": 0.1,
                             "adjacency": "one-row", "beta": 0.05, "proxy": "public proxy",
                             "frontier": frontier, "recommended": frontier[0],
                             "infeasible": [{"eta": 0.3, "reason": "no k meets the target"}]},
                    mode="experiment", seed=None)
    sec = _design_section(p, rec)
    kv = _kv(sec, "Target and inputs")
    assert kv["target (ε, δ)"] == "(1, 0.001)" and kv["b"] == "0.1"
    assert kv["selection"] == "public inputs only (no privacy spent)"
    rows = _table(sec, "Frontier").rows
    assert rows[0][0] == "auto ★" and rows[1][0] == "0.05"
    assert [b.text for b in sec.blocks if isinstance(b, Paragraph)] == [
        "η = 0.3: no k meets the target"]
    none = dataclasses.replace(rec, summary={**rec.summary, "recommended": None,
                                             "recommended_reason": "nothing is feasible"})
    warnings = [b.text for b in _design_section(p, none).blocks if isinstance(b, Paragraph)]
    assert warnings[-1] == "nothing is feasible"


def test_the_models_section_lists_every_model() -> None:
    p = Project()
    p.add_mdp(four_startups(), "startups")
    sec = _mdp_section(p)
    assert sec.id == "models"
    assert any(isinstance(b, Table) and b.rows for b in sec.blocks)
