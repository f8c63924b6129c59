"""Kickstarting on tabular models: exact gradients, the teacher's ledger, the students."""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pytest

from core.cli.main import run_cli
from core.common.errors import InputError
from core.mdp.examples import four_startups, random_mdp
from core.mdp.files import save_mdp
from core.mdp.model import MDP
from core.sharing.learning import (
    SharingSetup,
    evaluate_softmax,
    reachable_states,
    run_sharing,
    run_student,
    sharing_ledger,
    softmax_policy,
    teacher_policy,
)
from core.sharing.mechanism import theorem1_epsilon


def _chain(n: int = 6, slip: float = 0.2) -> MDP:
    """The corridor example (core.mdp.examples.corridor)."""
    from core.mdp.examples import corridor

    return corridor(n, slip)


@pytest.mark.parametrize("mdp", [_chain(), random_mdp(5, 3, None, seed=3),
                                 random_mdp(4, 3, 4, seed=5), four_startups()],
                         ids=["chain", "random-infinite", "random-finite", "four-startups"])
def test_policy_gradient_is_exact(mdp):
    """The analytic softmax gradient equals central finite differences of J (1e-6)."""
    rng = np.random.default_rng(1)
    theta = rng.normal(size=mdp.P.shape[:2])
    pi = softmax_policy(theta, mdp.mask)
    J, grad, d = evaluate_softmax(mdp, pi)
    assert d.sum() == pytest.approx(1.0) and (d >= 0).all()
    h = 1e-6
    for s in range(mdp.n_states):
        for a in np.flatnonzero(mdp.mask[s]):
            up, dn = theta.copy(), theta.copy()
            up[s, a] += h
            dn[s, a] -= h
            fd = (evaluate_softmax(mdp, softmax_policy(up, mdp.mask))[0]
                  - evaluate_softmax(mdp, softmax_policy(dn, mdp.mask))[0]) / (2 * h)
            assert grad[s, a] == pytest.approx(fd, abs=1e-6)


def test_teachers_and_reachability():
    mdp = _chain()
    opt = teacher_policy(mdp, "optimal")
    assert (opt[:-1, 1] == 1).all()  # go right
    soft = teacher_policy(mdp, "softmax", temperature=0.5)
    assert np.allclose(soft.sum(axis=1), 1) and (soft[:-1, 1] > 0.5).all()
    assert reachable_states(mdp).all()
    with pytest.raises(InputError) as info:
        teacher_policy(mdp, "softmax", temperature=0)
    assert info.value.field == "teacher"


def test_ledger_follows_the_schedule_and_stops_within_the_budget():
    setup = SharingSetup(k0=5, coef=0.5, eta=0.1, lb=0.01, tau=1e-3, delta=None,
                         budget=(40.0, 0.9), iterations=50, draws=5000, bound="paper")
    led = sharing_ledger(setup, [2, 2, 3], 3, rng=2)
    assert led.ms == (2, 3) and led.queries_per_rollout == 3
    for r in led.rows:
        assert r.k == pytest.approx(5 * 0.5 ** r.rollout)
        assert r.epsilon == pytest.approx(max(theorem1_epsilon(r.k, m, 0.1, 1e-3, 0.01)
                                              for m in (2, 3)))
        assert r.epsilon_total <= 40.0 and r.delta_total <= 0.9
        assert r.epsilon_advanced <= r.epsilon_total + 1e-12
    e, d = led.totals
    assert e == pytest.approx(sum(3 * r.epsilon for r in led.rows))
    assert led.stopped_at is not None and led.k_at(led.stopped_at) == 0.0
    # the next roll-out would have passed the budget
    nxt = 5 * 0.5 ** led.stopped_at
    more = 3 * max(theorem1_epsilon(nxt, m, 0.1, 1e-3, 0.01) for m in (2, 3))
    from core.sharing.mechanism import delta_mc

    more_d = 3 * max(delta_mc(nxt, m, 0.1, 1e-3, draws=5000, rng=2).upper for m in (2, 3))
    assert e + more > 40.0 or d + more_d > 0.9


def test_the_profile_ledger_states_the_certified_epsilon_per_query():
    from core.sharing.profile import l2_profile

    setup = SharingSetup(k0=5, coef=0.5, eta=0.1, lb=0.05, delta=1e-3, budget=(40.0, 0.9),
                         iterations=6, draws=5000)
    assert setup.bound == "profile"  # the default accountant
    led = sharing_ledger(setup, [2, 3], 3, rng=2)
    paper = sharing_ledger(SharingSetup(**{**setup.__dict__, "bound": "paper"}), [2, 3], 3,
                           rng=2)
    for r, p in zip(led.rows, paper.rows):
        assert r.tau is None and r.delta == 1e-3
        profiles = [l2_profile(r.k, m, 0.1, 0.05, delta=1e-3) for m in (2, 3)]  # once each
        exact = max(pr.epsilon for pr in profiles)
        assert exact <= r.epsilon <= 1.6 * max(pr.epsilon_lower for pr in profiles)
        assert r.epsilon < p.epsilon / 2  # eq. 12 states far more


def test_kickstarting_helps_and_privacy_costs():
    """On a 12-cell corridor (the reward is 11 slippery steps away, so the plain gradient
    starts near zero): every kind of teacher speeds the student up at iteration 10 (none:
    J = 0.013; with a teacher about 0.3); seeded runs repeat exactly."""
    mdp = _chain(12)
    setup = SharingSetup(k0=50, coef=0.98, eta=0.1, lb=0.01, delta=1e-3, budget=(1e9, 0.99),
                         iterations=60, lr=2.0, kappa=2.0, draws=5000)
    res = run_sharing(mdp, setup, seeds=4, seed=7)
    med = {k: np.median(c, axis=0) for k, c in res.curves.items()}
    for kind in ("nonprivate", "aware", "unaware"):
        assert med[kind][10] > med["none"][10] + 0.1, (kind, med[kind][10], med["none"][10])
    # δ budget: 11 queries of δ = 1e-3 to each of 8 noisy runs a roll-out
    assert res.ledger.stopped_at is not None and res.ledger.runs == 8
    assert res.teacher_value >= max(med[k][-1] for k in med) - 1e-9  # the teacher is optimal
    again = run_sharing(mdp, setup, seeds=4, seed=7, students=["aware", "unaware"])
    np.testing.assert_array_equal(again.curves["aware"], res.curves["aware"])
    d = res.to_dict()
    for key in ("k", "epsilon", "delta", "ledger_total", "stopped_at", "curves",
                "teacher_value", "cost_of_privacy"):
        assert key in d
    assert set(d["curves"]["aware"]) >= {"median", "lower", "upper"}
    json.dumps(d, allow_nan=False)


def test_run_student_refuses_unknown_types():
    with pytest.raises(InputError):
        run_student(_chain(), "teacher", np.full((6, 2), 0.5), SharingSetup(), None, None)


def _run(args):
    out, err = io.StringIO(), io.StringIO()
    return run_cli(args, out, err), out.getvalue(), err.getvalue()


def test_cli_share_json(tmp_path):
    path = tmp_path / "chain.mdp.json"
    save_mdp(_chain(), path)
    code, out, err = _run(["share", str(path), "--k0", "20", "--coef", "0.9", "--eta", "0.1",
                           "--delta", "0.01", "--budget", "1e6,0.9", "--seeds", "2",
                           "--iterations", "20", "--draws", "2000", "--seed", "3", "--json"])
    assert code == 0, err
    d = json.loads(out)
    assert d["mode"] == "experiment" and d["seed"] == 3 and d["states"] == 6
    assert len(d["curves"]["aware"]["median"]) == 21
    assert len(d["k"]) == len(d["epsilon"]) == len(d["delta"])
    assert d["ledger_total"]["composition"] == "basic"


@pytest.mark.parametrize("extra,flag", [(["--eta", "0.6"], "--eta"), (["--k0", "0"], "--k0"),
                                        (["--coef", "1.5"], "--coef"),
                                        (["--lambda", "-1"], "--lambda"),
                                        (["--beta", "1"], "--beta"),
                                        (["--budget", "x"], "--budget"),
                                        (["--teacher", "greedy"], "--teacher")])
def test_cli_share_bad_input(tmp_path, extra, flag):
    path = tmp_path / "chain.mdp.json"
    save_mdp(_chain(), path)
    code, out, err = _run(["share", str(path), "--seed", "1", "--iterations", "2",
                           "--seeds", "1", *extra])
    assert code == 2 and out == "" and err.count("\n") == 1 and flag in err, err


def test_cli_share_unknown_gym_id_and_missing_gymnasium(monkeypatch):
    code, _, err = _run(["share", "gym:Pong-v5", "--seed", "1"])
    assert code == 2 and "unknown gymnasium environment" in err and "ENV" in err
    import builtins

    real_import = builtins.__import__

    def no_gym(name, *a, **kw):
        if name == "gymnasium":
            raise ImportError("no gymnasium")
        return real_import(name, *a, **kw)

    monkeypatch.setattr(builtins, "__import__", no_gym)
    code, _, err = _run(["share", "gym:FrozenLake-v1", "--seed", "1"])
    assert code == 2 and "privplan[gym]" in err


def test_frozenlake_import_is_a_normal_mdp():
    pytest.importorskip("gymnasium")
    from core.sharing.gym_import import import_gym

    mdp = import_gym("gym:FrozenLake-v1")
    assert mdp.n_states == 16 and mdp.n_actions == 4 and mdp.horizon is None
    assert np.allclose(mdp.P.sum(axis=2), 1.0)
    goal = mdp.state_names.index("G3,3")
    assert (mdp.P[goal, :, goal] == 1).all()  # the end of an episode absorbs
    assert mdp.R.max() == pytest.approx(1 / 3)  # the slippery step into the goal
    big = import_gym("gym:FrozenLake-v1:8x8")
    assert big.n_states == 64
    assert math.isclose(float(teacher_policy(big).sum()), 64.0)


def test_cli_share_records_into_a_project_like_the_window(tmp_path):
    from core.project.files import load_project, save_project
    from core.project.model import Project

    p = Project()
    p.add_mdp(_chain(), "chain")
    path = tmp_path / "p.privplan.json"
    save_project(p, path)
    code, out, err = _run(["share", str(path), "--mdp", "chain", "--k0", "20", "--coef", "0.9",
                           "--eta", "0.1", "--delta", "0.01", "--budget", "1e6,0.9", "--seeds",
                           "2", "--iterations", "10", "--draws", "2000", "--seed", "3",
                           "--record", "--json"])
    assert code == 0, err
    d = json.loads(out)
    q = load_project(path)
    run = q.runs[-1]
    assert (run.kind, run.target, d["recorded"]["run"]) == ("sharing", "chain", run.id)
    entries = [e for e in q.ledger if e.source == run.id]
    assert len(entries) == d["recorded"]["ledger_entries"] == len(d["k"]) + 1
    noisy = [e for e in entries if not e.unbounded]
    assert all(e.dataset == "mdp:chain" and e.count == d["queries"][0] * 4 for e in noisy)
    raw = [e for e in entries if e.unbounded]  # the non-private baseline, never dropped
    assert len(raw) == 1 and raw[0].count == d["queries_per_rollout"] * 10 * 2
    # --record needs a project
    code, _, err = _run(["share", "gym:FrozenLake-v1", "--record", "--seed", "1"])
    assert code == 2 and "--record" in err


def test_report_has_a_policy_sharing_section():
    from core.project.model import Project
    from core.project.recording import record_run, sharing_run_record
    from core.report.html import Figure, Table, build_report, to_html
    from core.sharing.learning import sharing_release
    from core.sharing.records import SharingParameters

    p = Project()
    p.add_mdp(_chain(), "chain")
    setup = SharingSetup(k0=20, coef=0.9, eta=0.1, delta=0.01, budget=(1e6, 0.9),
                         iterations=10, draws=2000)
    params = SharingParameters("mdp:chain", setup, seeds=2, seed=3)
    res = sharing_release(params, mdp=_chain())
    rec, entries = sharing_run_record(p, res, params)
    assert rec.params == params.to_dict() and rec.params["students"] == list(res.curves)
    record_run(p, rec, entries)
    rep = build_report(p)
    sec = next(s for s in rep.sections if s.id == f"run-{rec.id}")
    assert sec.title.startswith("Policy sharing: mdp:chain")
    fig = next(b for b in sec.blocks if isinstance(b, Figure))
    assert len(fig.series) == 5  # four students and the teacher
    ledger = next(b for b in sec.blocks if isinstance(b, Table))
    assert len(ledger.rows) == len([r for r in res.ledger.rows if not r.stopped])
    assert "Policy sharing" in to_html(rep)


def test_sampled_rollouts_ask_only_visited_states():
    from core.common.validation import as_random_source
    from core.sharing.learning import _visited

    mdp = _chain(12)
    pi = softmax_policy(np.zeros((12, 2)), mdp.mask)
    seen = _visited(mdp, pi, 5, np.random.default_rng(0))
    assert seen[mdp.initial_state] and seen.sum() <= 5  # five steps: at most five states
    assert _visited(mdp, pi, 5, as_random_source(None).generator)[0]  # release mode works
    setup = SharingSetup(k0=50, coef=0.98, eta=0.1, lb=0.01, delta=0.01, budget=(1e9, 0.99),
                         iterations=40, lr=2.0, kappa=2.0, draws=5000, rollout="sample",
                         steps=30)
    a = run_sharing(mdp, setup, seeds=3, seed=7)
    # reproducible; the teacher's schedule depends on how many noisy runs share its budget,
    # so the same noisy students (aware and unaware) must run
    b = run_sharing(mdp, setup, seeds=3, seed=7, students=["unaware", "aware", "none"])
    np.testing.assert_array_equal(a.curves["unaware"], b.curves["unaware"])
    med = {k: np.median(c, axis=0) for k, c in a.curves.items()}
    assert med["nonprivate"][10] > med["none"][10] + 0.1
    assert any("Sampled roll-outs" in n for n in a.notes)
    with pytest.raises(InputError) as info:
        SharingSetup(rollout="x").check()
    assert info.value.field == "rollout"


def test_cli_teacher_from_a_bounds_run(tmp_path):
    from core.mdp.private_policy import private_policy
    from core.mdp.records import bounds_summary
    from core.project.files import save_project
    from core.project.model import Project, RunRecord
    from core.sharing.learning import actions_policy, run_policy

    p = Project()
    mdp = _chain()
    p.add_mdp(mdp, "chain")
    pp = private_policy(mdp, 30.0, seed=2)
    rec = RunRecord(id=p.new_run_id(), kind="bounds", target="chain", params={"k": 30.0},
                    summary=bounds_summary(pp, list(mdp.state_names),
                                           [list(r) for r in mdp.action_names]),
                    mode="experiment", seed=2)
    p.runs.append(rec)
    path = tmp_path / "p.privplan.json"
    save_project(p, path)
    base = ["share", str(path), "--mdp", "chain", "--seeds", "1", "--iterations", "3",
            "--draws", "2000", "--seed", "1", "--json"]
    code, out, err = _run(base + ["--teacher", f"run:{rec.id}"])
    assert code == 0, err
    want = evaluate_softmax(mdp, actions_policy(mdp, run_policy(rec)))[0]
    assert json.loads(out)["teacher_value"] == pytest.approx(want)
    for teacher, msg in ((["--teacher", "run:run-99"], "no run"),):
        code, _, err = _run(base + teacher)
        assert code == 2 and msg in err and "--teacher" in err
    with pytest.raises(InputError):
        actions_policy(mdp, [0] * 3)  # wrong length


def test_student_runs_do_not_depend_on_the_worker_count():
    setup = SharingSetup(k0=20, coef=0.9, eta=0.1, delta=0.01, budget=(1e6, 0.9),
                         iterations=8, draws=2000, rollout="sample", steps=10)
    one = run_sharing(_chain(), setup, seeds=5, seed=2)
    two = run_sharing(_chain(), setup, seeds=5, seed=2, workers=2)
    for kind in one.curves:
        np.testing.assert_array_equal(one.curves[kind], two.curves[kind])


def test_ternary_samples_follow_the_teacher_the_run_used():
    """The scatter shows the teacher that was demonstrated (here a softmax one), η-mixed."""
    from core.sharing.learning import shared_samples

    mdp = random_mdp(5, 3, None, seed=3)
    setup = SharingSetup(iterations=3, eta=0.1, draws=20_000)
    res = run_sharing(mdp, setup, seeds=1, seed=1, teacher="softmax", temperature=5.0)
    t = shared_samples(mdp, res, seed=1)
    s = mdp.state_names.index(t["state"])
    np.testing.assert_allclose(t["teacher"], res.teacher[s, mdp.mask[s]])
    soft = teacher_policy(mdp, "softmax", temperature=5.0)[s, mdp.mask[s]]
    np.testing.assert_allclose(t["teacher"], (1 - 3 * 0.1) * soft + 0.1)
