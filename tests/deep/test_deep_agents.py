"""PPO kickstarting, the teacher's Lipschitz constant, the DQN under DP-DRL, PE-VDN with
networks: small runs that check the mechanics and the privacy statements."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from core.cli.main import run_cli


def _cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = run_cli(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


# ------------------------------------------------------------------------------ Lipschitz
def test_spectral_bound_holds_and_the_estimate_is_below_it():
    import jax

    from core.deep.ppo import ActorCritic, teacher_lipschitz

    model = ActorCritic(4, 3, (16, 16), jax.random.PRNGKey(0))
    # scale the weights up so the policy is far from uniform (a harder test of the bound)
    import equinox as eqx

    model = eqx.tree_at(lambda m: [lay.weight for lay in m.actor], model,
                        [lay.weight * 3.0 for lay in model.actor])
    eta = 0.05
    L = teacher_lipschitz(model, eta)
    assert L.proven and L.method == "bound"
    norms = [np.linalg.norm(np.asarray(w, np.float64), 2) for w in model.weights()]
    assert L.value == pytest.approx(0.5 * np.prod(norms) * (1 - 3 * eta), rel=1e-9)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4000, 4)).astype(np.float32)
    y = x + rng.normal(size=x.shape).astype(np.float32) * rng.uniform(1e-3, 1, (4000, 1))
    pol = jax.jit(jax.vmap(lambda v: jax.nn.softmax(model.logits(v))))
    px = (1 - 3 * eta) * np.asarray(pol(x), np.float64) + eta
    py = (1 - 3 * eta) * np.asarray(pol(y), np.float64) + eta
    ratio = np.linalg.norm(px - py, axis=1) / np.linalg.norm(x - y, axis=1)
    assert ratio.max() <= L.value * (1 + 1e-5)
    est = teacher_lipschitz(model, eta, method="estimate", observations=x)
    assert not est.proven and est.value <= L.value * (1 + 1e-5)
    assert est.value >= ratio.max() * 0.5   # the local slope is of the pairs' order


# ------------------------------------------------------------------------------ PPO
def test_ppo_sharing_keeps_the_tabular_keys_and_accounts_every_query():
    code, out, err = _cli("share", "gym:CartPole-v1", "--agent", "ppo", "--iterations", "3",
                          "--seeds", "1", "--teacher-iterations", "2", "--ppo-envs", "2",
                          "--ppo-steps", "16", "--students", "aware,unaware,none,nonprivate",
                          "--budget", "1e6,0.5", "--delta", "1e-6", "--k0", "5",
                          "--coef", "0.5", "--seed", "4", "--json")
    assert code == 0, err
    js = json.loads(out)
    for key in ("k", "epsilon", "delta", "ledger_total", "stopped_at", "curves",
                "teacher_value", "cost_of_privacy", "adjacency", "mode", "seed",
                "teacher_return", "lipschitz", "guarantee"):
        assert key in js, key
    assert js["agent"] == "ppo" and js["teacher_return"] == js["teacher_value"]
    assert js["queries"] == [32] * len(js["k"])          # envs x steps per roll-out
    assert js["k"] == pytest.approx([5 * 0.5 ** j for j in range(len(js["k"]))])
    assert js["ledger_total"]["runs"] == 2                # aware + unaware, one seed
    total = sum(e * q * 2 for e, q in zip(js["epsilon"], js["queries"]))
    assert js["ledger_total"]["epsilon"] == pytest.approx(total)
    assert js["lipschitz"]["proven"] and js["lb"] == pytest.approx(
        js["lipschitz"]["value"] * js["b"])
    assert set(js["curves"]) == {"aware", "unaware", "none", "nonprivate"}
    assert len(js["curves"]["aware"]["median"]) == 4
    assert js["nonprivate_baseline"]["epsilon"] is None


def test_ppo_budget_stops_the_teacher_and_an_estimate_is_labelled():
    code, out, err = _cli("share", "gym:CartPole-v1", "--agent", "ppo", "--iterations", "2",
                          "--seeds", "1", "--teacher-iterations", "1", "--ppo-envs", "2",
                          "--ppo-steps", "16", "--students", "aware", "--budget", "1e-4,0.5",
                          "--delta", "1e-6", "--lipschitz", "estimate", "--seed", "4",
                          "--json")
    assert code == 0, err
    js = json.loads(out)
    assert js["stopped_at"] == 0 and js["k"] == []
    assert not js["lipschitz"]["proven"] and js["epsilon_estimated"] is True
    assert "estimate" in js["guarantee"] and "not a guarantee" in js["guarantee"]


def test_demonstrations_follow_the_schedule_and_the_mechanism():
    import jax

    from core.deep.ppo import ActorCritic, Demonstrations, _policy_jit

    model = ActorCritic(4, 2, (8, 8), jax.random.PRNGKey(1))
    obs = np.random.default_rng(0).normal(size=(6, 4)).astype(np.float32)
    exact = np.asarray(_policy_jit(model, obs), np.float64)
    d = Demonstrations("nonprivate", model, 0.05)
    a, alpha = d.answers(obs, 0, _policy_jit)
    np.testing.assert_allclose(a, exact, rtol=1e-6) and alpha == 0.0
    aware = Demonstrations("aware", model, 0.05, ks=(5.0, 0.0),
                           noise=np.random.default_rng(3))
    a, alpha = aware.answers(obs, 0, _policy_jit)
    assert a.shape == (6, 2) and np.allclose(a.sum(axis=1), 1) and alpha > 0
    assert aware.answers(obs, 1, _policy_jit) == (None, 0.0)   # stopped: nothing sent
    rnd = Demonstrations("unaware", model, 0.05, ks=(0.0,), after_budget="random",
                         noise=np.random.default_rng(3))
    a, alpha = rnd.answers(obs, 0, _policy_jit)
    assert a.shape == (6, 2) and alpha == 0.0
    # the Dirichlet draws centre on the eta-mixed policy
    many = Demonstrations("unaware", model, 0.05, ks=(50.0,),
                          noise=np.random.default_rng(5))
    draws = np.stack([many.answers(obs[:1], 0, _policy_jit)[0][0] for _ in range(4000)])
    mixed = 0.9 * exact[0] + 0.05
    sd = np.sqrt(mixed * (1 - mixed) / 51 / 4000)
    assert np.abs(draws.mean(axis=0) - mixed).max() < 5 * sd.max()


# ------------------------------------------------------------------------------ DQN
def test_dqn_under_dpdrl_keeps_the_tabular_result_and_attack():
    from core.deep.dqn import DqnSetup, train_dqn
    from core.gridworld.attack import AttackSetup, recover_map
    from core.gridworld.dpdrl import DrlSetup
    from core.gridworld.maps import random_map

    grid = random_map(7, 7, np.random.default_rng(0))
    res = train_dqn(grid, DrlSetup(defense="dpdrl", epsilon=1.0, episodes=30, max_steps=40),
                    DqnSetup(warmup=50), seed=2)
    js = res.to_json()
    assert res.q.shape == (49, 256, 5) and np.isfinite(res.q).all()
    assert js["epsilon_per_step"] == 1.0 and js["epsilon_total"] is None
    assert js["obfuscated_steps"] > 0 and "disjoint" in js["epsilon_total_reason"]
    att = recover_map(grid, res.policy(), AttackSetup(population=10, generations=3), seed=1)
    assert 0 <= att.nrr <= 1
    again = train_dqn(grid, DrlSetup(defense="dpdrl", epsilon=1.0, episodes=30, max_steps=40),
                      DqnSetup(warmup=50), seed=2)
    np.testing.assert_array_equal(again.rewards, res.rewards)


def test_drl_agent_dqn_cli():
    code, out, err = _cli("drl", "--random", "7", "--agent", "dqn", "--episodes", "15",
                          "--max-steps", "30", "--seed", "1", "--json")
    assert code == 0, err
    js = json.loads(out)
    assert js["agent"] == "dqn" and "reward_final" in js and "truth" in js


# ------------------------------------------------------------------------------ PE-VDN
def test_pe_vdn_with_networks_equals_central_and_is_accounted_like_the_tables():
    from core.comarl.vdn import VdnSetup, team_grid, vdn_accounting
    from core.deep.vdn import train_vdn_net

    team = team_grid(3, rows=7, cols=7, seed=0)
    setup = VdnSetup(episodes=4, max_steps=20, dp=True, sigma=1.2, window=64,
                     sample_rate=0.1)
    res = train_vdn_net(team, setup, seed=1)
    js = res.to_json()
    assert js["pe_vs_central_max_diff"] < js["pe_vs_central_bound"]
    ref = vdn_accounting(setup, 3, res.updates)
    assert js["epsilon"] == ref.epsilon and js["delta"] == ref.delta
    assert js["neighboring_relation"] == "replace-one"
    assert res.q.shape == (3, 49, 5)
    plain = train_vdn_net(team, VdnSetup(episodes=3, max_steps=20), seed=1)
    assert plain.to_json()["epsilon"] is None
    assert plain.max_diff < 2 * 3 * 1e-5


# ------------------------------------------------------------------------------ records
def test_network_runs_are_recorded_and_reported_like_the_tabular_ones(tmp_path):
    import shutil
    from pathlib import Path

    from core.project.files import load_project

    proj = tmp_path / "p.privplan.json"
    shutil.copy(Path(__file__).resolve().parents[2] / "assets/examples/builtin.privplan.json",
                proj)
    code, out, err = _cli("mia", "--data", "wine", "--model", "mlp", "--defense", "dpsgd",
                          "--epsilon", "2", "--train-size", "20", "--shadows", "1",
                          "--epochs", "3", "--seed", "1", "--record", str(proj), "--json")
    assert code == 0, err
    code, out, err = _cli("share", "gym:CartPole-v1", "--agent", "ppo", "--iterations", "2",
                          "--seeds", "1", "--teacher-iterations", "1", "--ppo-envs", "2",
                          "--ppo-steps", "16", "--students", "aware,nonprivate", "--budget",
                          "1e6,0.5", "--delta", "1e-6", "--seed", "2", "--record",
                          "--project", str(proj), "--json")
    assert code == 0, err
    js = json.loads(out)
    p = load_project(proj)
    kinds = [r.kind for r in p.runs]
    assert kinds[-2:] == ["mia", "sharing"]
    share = p.runs[-1]
    assert share.params["agent"] == "ppo" and share.summary["teacher_return"] is not None
    ents = [e for e in p.ledger if e.source == share.id]
    live = [e for e in ents if e.mechanism == "dirichlet-policy"]
    assert len(live) == len(js["k"]) and all(e.count == 32 for e in live)
    assert any(e.epsilon == float("inf") for e in ents)      # the non-private baseline
    assert [e.mechanism for e in p.ledger if e.source == p.runs[-2].id] == ["dpsgd"]
    code, _, err = _cli("report", str(proj), "-o", str(tmp_path / "r.html"))
    assert code == 0, err
    html = (tmp_path / "r.html").read_text()
    assert "Membership inference: mlp" in html and "Lipschitz constant" in html
    assert "mean return (last 100 episodes)" in html
