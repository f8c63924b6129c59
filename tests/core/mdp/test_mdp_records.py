"""core.mdp.records: what a sweep or bounds run keeps, as strict JSON."""

from __future__ import annotations

import json
import math

from core.mdp.examples import four_startups
from core.mdp.private_policy import private_policy
from core.mdp.records import SweepParameters, bounds_summary, sweep_summary
from core.mdp.sweep import privacy_sweep


def test_sweep_summary_is_strict_json_without_the_row_table():
    res = privacy_sweep(four_startups(), [1.0, 100.0], runs=2, seed=3, workers=1,
                        delta_method="union")
    s = sweep_summary(res)
    text = json.dumps(s, allow_nan=False)  # raises on NaN/inf
    assert "privacy_rows" not in s
    assert s["privacy_rows_total"] == [len(p.rows) for p in res.privacy]
    assert s["privacy_rows_without_guarantee"] == [len(p.not_applicable) for p in res.privacy]
    # k = 1 has no finite guarantee: null with its reason, never a number
    assert not math.isfinite(res.privacy[0].epsilon)
    assert s["epsilon"][0] is None and s["epsilon_reason"][0]
    assert json.loads(text) == s


def test_bounds_summary_names_the_chosen_actions():
    m = four_startups()
    res = private_policy(m, 100.0, seed=1)
    states = [f"s{i}" for i in range(m.n_states)]
    actions = [[f"a{i}{j}" for j in range(m.P.shape[1])] for i in range(m.n_states)]
    s = bounds_summary(res, states, actions)
    json.dumps(s, allow_nan=False)
    assert s["state_ids"] == states
    pol = res.policy if res.policy.ndim == 1 else res.policy[0]
    first = s["policy_ids"] if res.policy.ndim == 1 else s["policy_ids"][0]
    assert first == [actions[i][int(a)] for i, a in enumerate(pol)]


def test_sweep_parameters_round_trip_to_the_sweep_arguments():
    p = SweepParameters(ks=(10.0, 100.0), runs=5, beta=0.05, alpha_mode="paper", seeded=True,
                        seed=4, workers=1)
    d = p.to_dict()
    assert d["ks"] == [10.0, 100.0] and json.dumps(d)
    kw = p.sweep_kwargs()
    assert kw["seed"] == 4 and kw["runs"] == 5 and "ks" not in kw
