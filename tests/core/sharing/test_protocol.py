"""the paper's after-budget rule, rewards scaled for κ, sampled (exploring)
students, gymnasium ids resolved against the installed gymnasium, and the study arms."""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pytest

from core.cli.main import run_cli
from core.common.errors import InputError
from core.mdp.examples import corridor, random_mdp
from core.sharing.learning import (
    SharingSetup,
    evaluate_softmax,
    reward_scale,
    run_sharing,
    run_student,
    sharing_ledger,
    softmax_policy,
    teacher_policy,
)
from core.sharing.rollouts import random_policies, sampled_gradient


def _run(args):
    out, err = io.StringIO(), io.StringIO()
    return run_cli(args, out, err), out.getvalue(), err.getvalue()


def test_sampled_gradient_is_unbiased_on_a_finite_horizon():
    """The mean of many REINFORCE estimates equals the exact gradient within 4.5 standard
    errors per entry (finite horizon: no truncation bias)."""
    mdp = random_mdp(4, 3, 3, seed=5)
    theta = np.random.default_rng(2).normal(size=mdp.P.shape[:2])
    pi = softmax_policy(theta, mdp.mask)
    _, exact, _ = evaluate_softmax(mdp, pi)
    gen = np.random.default_rng(7)
    draws = np.array([sampled_gradient(mdp, pi, 8, 0, gen)[0] for _ in range(3000)])
    mean, se = draws.mean(axis=0), draws.std(axis=0, ddof=1) / math.sqrt(len(draws))
    ok = mdp.mask & (se > 0)
    z = np.abs(mean - exact)[ok] / se[ok]
    assert z.max() < 4.5, z.max()


def test_random_policies_are_uniform_on_each_simplex():
    mask = np.array([[True, True, True, False]] * 20000)
    p = random_policies(mask, np.random.default_rng(3))
    assert np.allclose(p.sum(axis=1), 1.0) and (p[:, 3] == 0).all()
    # Dir(1,1,1): each coordinate has mean 1/3 and variance 2/36
    se = math.sqrt(2 / 36 / len(p))
    assert np.all(np.abs(p[:, :3].mean(axis=0) - 1 / 3) < 4 * se)


def _stopped_ledger(setup: SharingSetup, mdp):
    """A ledger that stops before roll-out 0 (budget 0)."""
    from dataclasses import replace

    counts = mdp.mask.sum(axis=1)
    led = sharing_ledger(replace(setup, budget=(0.0, 0.0)), counts.tolist(), mdp.n_states)
    assert led.stopped_at == 0
    return led


@pytest.mark.parametrize("gradient", ["exact", "sampled"])
def test_after_budget_stop_sends_nothing_and_random_sends_random_policies(gradient):
    mdp = corridor(6)
    base = SharingSetup(k0=5, eta=0.1, iterations=15, gradient=gradient, episodes=4)
    led = _stopped_ledger(base, mdp)
    teacher = teacher_policy(mdp) * (1 - 2 * 0.1) + 0.1
    curves = {}
    for rule in ("stop", "random"):
        setup = SharingSetup(**{**base.__dict__, "after_budget": rule})
        for kind in ("none", "aware", "unaware"):
            curves[rule, kind] = run_student(mdp, kind, teacher, setup, led,
                                             np.random.default_rng(11))
    # stop: no demonstration at all, so both private students are the no-teacher student
    np.testing.assert_array_equal(curves["stop", "aware"], curves["stop", "none"])
    np.testing.assert_array_equal(curves["stop", "unaware"], curves["stop", "none"])
    # random: the unaware student is pulled toward random policies
    assert not np.array_equal(curves["random", "unaware"], curves["random", "none"])


def test_after_budget_is_validated_and_reported():
    with pytest.raises(InputError) as info:
        SharingSetup(after_budget="uniform").check()
    assert info.value.field == "after_budget"
    with pytest.raises(InputError) as info:
        SharingSetup(gradient="adam").check()
    assert info.value.field == "gradient"
    with pytest.raises(InputError):
        SharingSetup(episodes=1).check()
    res = run_sharing(corridor(5), SharingSetup(iterations=3, eta=0.1, budget=(0.0, 0.0),
                                                after_budget="random"),
                      students=["aware"], seeds=1, seed=1)
    assert any("uniformly random policies" in n for n in res.notes)


def test_rewards_are_scaled_for_learning_and_curves_stay_in_the_environments_units():
    mdp = corridor(6)
    rho = reward_scale(mdp)
    assert rho == pytest.approx(float(np.abs(mdp.R).max()))
    res = run_sharing(mdp, SharingSetup(iterations=2, eta=0.1), students=["none"], seeds=1,
                      seed=1)
    uniform = softmax_policy(np.zeros(mdp.P.shape[:2]), mdp.mask)
    assert res.curves["none"][0, 0] == pytest.approx(evaluate_softmax(mdp, uniform)[0])
    assert any("Rewards scaled" in n for n in res.notes)
    # scaling only rescales the no-teacher learner's step: lr·ρ on raw rewards is the same
    a = run_sharing(mdp, SharingSetup(iterations=4, eta=0.1, lr=2.0), students=["none"],
                    seeds=1, seed=1)
    b = run_sharing(mdp, SharingSetup(iterations=4, eta=0.1, lr=2.0 / rho,
                                      reward_scale="none"), students=["none"], seeds=1, seed=1)
    np.testing.assert_allclose(a.curves["none"], b.curves["none"], rtol=1e-9)


gym = pytest.importorskip("gymnasium")


@pytest.mark.parametrize("asked,family", [("gym:Taxi-v3", "Taxi"),
                                          ("gym:CliffWalking-v0", "CliffWalking")])
def test_retired_gym_ids_resolve_to_the_installed_version(asked, family):
    from core.sharing.gym_import import gym_environments, import_gym, resolve_gym_id

    env_id, note = resolve_gym_id(asked[4:])
    assert env_id.startswith(family + "-v")
    mdp = import_gym(asked)
    assert family in mdp.name and np.allclose(mdp.P.sum(axis=2), 1.0)
    if note:
        assert asked[4:] in note and env_id in note and "asked for" in mdp.name
    listed = {e["id"]: e for e in gym_environments()}
    assert listed[asked[4:]]["available"] and listed[asked[4:]]["resolves_to"] == env_id


def test_unknown_family_is_refused_with_the_field():
    from core.sharing.gym_import import import_gym

    with pytest.raises(InputError) as info:
        import_gym("gym:MountainCar-v0")
    assert info.value.field == "env" and "FrozenLake" in str(info.value)


def test_cli_share_runs_every_advertised_gym_environment():
    for env in ("gym:CliffWalking-v0", "gym:Taxi-v3"):
        code, out, err = _run(["share", env, "--iterations", "2", "--seeds", "1", "--seed",
                               "1", "--students", "none,aware", "--delta", "1e-6",
                               "--budget", "1e9,0.9", "--after-budget", "random", "--json"])
        assert code == 0, err
        d = json.loads(out)
        assert d["after_budget"] == "random" and d["reward_scale"] > 1
        assert d["env_note"] is None or "newest" in d["env_note"]


def test_study_arm_pairs_students_on_one_seed():
    from core.sharing.study import sharing_claims, sharing_claims_study, student_arm
    from core.study import run_study

    a = student_arm(5, env="example:corridor", kind="none", iterations=6, rollouts=2)
    b = student_arm(5, env="example:corridor", kind="none", iterations=6, rollouts=2)
    assert a == b and set(a) == {"final", "mean"}
    study = sharing_claims_study(["corridor"], n=3, master_seed=1, iterations=4, rollouts=2)
    res = run_study(study)
    assert len(res.arms) == 6 and res.n == 3
    claims = sharing_claims(["corridor"])
    assert len(claims) == 6
    # the private student against no teacher is claimed under both after-budget rules
    assert {(c.a, c.b) for c in claims} >= {("aware-stop", "none"), ("aware-random", "none")}
