"""The advising engine: RNG discipline, deterministic equivalences (spec §10.3), budgets,
teacher views in all four cases, no leakage into teachers, validation and set-up files."""

from __future__ import annotations

import json

import numpy as np
import pytest

from core.advising.framework import (
    advice_distribution,
    normalize_alg4,
    run_advising,
    sample_index,
    squared_distance,
    teacher_view,
)
from core.advising.model import AdvisingParams, AdvisingSetup
from core.advising.presets import (
    LAYOUTS,
    PRESETS,
    core_rewards,
    experiment_arms,
    layout_action_sets,
    preset,
)
from core.common.errors import InputError
from core.common.progress import Cancelled

ARRAYS = ("convergence", "convergence_per_agent", "advice_per_epoch", "ask_budget", "give_budget",
          "releases_per_epoch", "unprotected_per_epoch", "tasks", "actions", "advised",
          "q_final", "pi_final", "visits")


def identical(a, b, skip: tuple[str, ...] = ()) -> bool:
    same = all(np.array_equal(getattr(a, k), getattr(b, k)) for k in ARRAYS if k not in skip)
    ev = all(np.array_equal(getattr(a.events, k), getattr(b.events, k), equal_nan=True)
             for k in ("epoch", "student", "teacher", "task", "distance", "action", "q_hat"))
    return same and ev


def four_cases_setup(**params) -> AdvisingSetup:
    """Action sets that produce every case of Algorithm 5 between some pair."""
    servers = list("ABCDEF")
    agents = {"p": list("ABCD"), "q": list("ABCE"), "r": list("ABC"), "s": list("ABCDE"),
              "t": list("ABCD"), "u": list("ABCF")}
    rewards = core_rewards(6, 6).tolist()
    p = AdvisingParams.for_variant("thesis", **{"epochs": 150, **params})
    return AdvisingSetup.from_labels(servers=servers, tasks=[str(k) for k in range(6)],
                                     agents=agents, rewards=rewards, params=p, name="cases")


# ------------------------------------------------------------------ RNG discipline
def test_same_seed_bit_identical_and_seed_matters():
    s = preset("exp2", strategy="dp")
    a, b = run_advising(s, rng=5), run_advising(s, rng=5)
    assert identical(a, b)
    assert a.seed == 5 and a.mode == "experiment"
    assert not np.array_equal(a.convergence, run_advising(s, rng=6).convergence)
    # A Generator is used as the single stream: the same as the int seed.
    c = run_advising(s, rng=np.random.Generator(np.random.PCG64(5)))
    assert identical(a, c)


def test_prefix_of_a_longer_run_is_identical():
    s = preset("exp3", strategy="dp", variant="thesis")
    short, long = run_advising(s.with_params(epochs=80), rng=2), run_advising(s, rng=2)
    assert np.array_equal(short.convergence, long.convergence[:80])
    assert np.array_equal(short.actions, long.actions[:80])


def test_sampler_consumes_exactly_what_generator_choice_does():
    g1, g2 = np.random.default_rng(11), np.random.default_rng(11)
    for _ in range(3000):
        k = int(g1.integers(2, 7))
        g2.integers(2, 7)
        p = g1.random(k) ** 3
        g2.random(k)
        p = normalize_alg4(p / p.sum())
        assert sample_index(p, float(g2.random())) == int(g1.choice(k, p=p))
    assert g1.random() == g2.random()


def test_reference_rng_order_reproduced_by_a_scalar_loop():
    """Re-implement spec §3.13 for strategy none with one Generator: same trajectory."""
    s = preset("exp2", strategy="none", epochs=40)
    res = run_advising(s, rng=3)
    rng = np.random.default_rng(3)
    pi = np.full((10, 10, 4), 0.25)
    q = np.zeros((10, 10, 4))
    for e in range(40):
        tasks = rng.integers(0, 10, size=10)
        for j in range(10):
            st = tasks[j]
            k = int(rng.choice(4, p=pi[j, st]))
            assert res.tasks[e, j] == st and res.actions[e, j] == s.action_sets[j][k]
            r = s.rewards[st, s.action_sets[j][k]]
            q[j, st, k] = 0.5 * q[j, st, k] + 0.5 * r
            rbar = float((pi[j, st] * q[j, st]).sum())
            pi[j, st] = normalize_alg4(pi[j, st] + 0.1 * (q[j, st] - rbar))
    assert np.allclose(res.pi_final, pi, atol=1e-12)


# ------------------------------------------------------------------ §10.3 equivalences
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_dp_on_identical_sets_equals_traditional_in_the_thesis_variant(seed):
    dp = preset("same", strategy="dp", variant="thesis")
    trad = preset("same", strategy="traditional", variant="thesis")
    a, b = run_advising(dp, rng=seed), run_advising(trad, rng=seed)
    assert identical(a, b)
    assert a.releases_per_epoch.sum() == 0 and a.unprotected_per_epoch.sum() > 0
    # The sound variant noises case-1 releases too: now every release is protected.
    c = run_advising(preset("same", strategy="dp"), rng=seed)
    assert c.unprotected_per_epoch.sum() == 0 and c.releases_per_epoch.sum() > 0


@pytest.mark.parametrize("strategy", ["traditional", "dp"])
def test_zero_budget_equals_no_advice(strategy):
    none = run_advising(preset("exp2", strategy="none"), rng=4)
    for over in ({"ask_budget": 0}, {"give_budget": 0}):
        r = run_advising(preset("exp2", strategy=strategy, **over), rng=4)
        assert identical(r, none, skip=("ask_budget", "give_budget")) and r.advice_total == 0
        assert r.releases_per_epoch.sum() == 0 and r.unprotected_per_epoch.sum() == 0


def test_huge_epsilon_matches_noise_free_dp():
    """ε = 1e12 vs the noise_zero flag (same RNG draws, noise not added), within 1e-9.

    Two agents, so there is one candidate teacher and no exact distance ties (with several
    identical teachers, 1e-12 noise breaks ties that the noise-free run resolves by index).
    """
    base = preset("exp2", strategy="dp", variant="thesis")
    two = base.replace(agents=("u1", "u5"), action_sets=(base.action_sets[0],
                                                         base.action_sets[4]))
    for seed in range(3):
        a = run_advising(two.with_params(epsilon=1e12), rng=seed)
        b = run_advising(two.with_params(noise_zero=True), rng=seed)
        assert a.advice_total == b.advice_total > 0
        assert np.abs(a.q_final - b.q_final).max() <= 1e-9
        assert np.abs(a.pi_final - b.pi_final).max() <= 1e-9
        assert np.abs(a.convergence - b.convergence).max() <= 1e-9
        assert b.releases_per_epoch.sum() == 0 and b.unprotected_per_epoch.sum() > 0


def test_no_advice_is_independent_of_the_layout():
    runs = [run_advising(preset(layout, strategy="none"), rng=7) for layout in
            ("same", "sunflower", "mixed")]
    for r in runs[1:]:
        assert np.array_equal(r.convergence, runs[0].convergence)
        assert np.array_equal(r.pi_final, runs[0].pi_final)


# ------------------------------------------------------------------ budgets
@pytest.mark.parametrize("setup", [
    preset("exp2", strategy="dp", ask_budget=5, give_budget=3),
    preset("exp1", strategy="traditional", ask_budget=4, give_budget=6),
    preset("exp1", strategy="dp", variant="thesis", epochs=120),
    four_cases_setup(ask_budget=7, give_budget=7, direction_guard=True),
])
def test_budget_invariants(setup):
    p = setup.params
    r = run_advising(setup, rng=1)
    n = setup.n_agents
    asked = p.ask_budget - r.ask_budget[-1]
    given = p.give_budget - r.give_budget[-1]
    assert asked.sum() == given.sum() == r.advice_total == len(r.events) <= n * min(
        p.ask_budget, p.give_budget) * max(1, n)
    assert r.advice_total <= n * p.ask_budget and r.advice_total <= n * p.give_budget
    assert (r.ask_budget >= 0).all() and (r.give_budget >= 0).all()
    assert (np.diff(r.ask_budget, axis=0) <= 0).all()
    assert np.bincount(r.events.student, minlength=n).tolist() == asked.tolist()
    assert np.bincount(r.events.teacher, minlength=n).tolist() == given.tolist()
    # No advice after a student's b_ask reached 0; every advice beat the threshold.
    for k in range(len(r.events)):
        e, j = int(r.events.epoch[k]), int(r.events.student[k])
        before = p.ask_budget if e == 1 else r.ask_budget[e - 2, j]
        assert before > 0
    assert (r.events.distance > p.distance_threshold).all()
    assert r.advice_per_epoch.sum() == r.advised.sum()


def test_traditional_advice_only_between_identical_sets():
    r = run_advising(preset("exp2", strategy="traditional"), rng=2)
    assert set(r.events.case.tolist()) == {1}
    assert set(r.events.student.tolist()) <= {0, 1, 2, 3}
    # DP advising reaches every case. (With noise, a noisy candidate nearly always has the
    # largest distance, so raw case-1 teachers rarely win: compare noise-free here.)
    r = run_advising(four_cases_setup(strategy="dp", noise_zero=True), rng=2)
    assert set(r.events.case.tolist()) == {1, 2, 3, 4}


def test_direction_guard_requires_a_more_experienced_teacher():
    s = four_cases_setup(direction_guard=True, ask_budget=30, give_budget=30)
    r = run_advising(s, rng=3)
    assert len(r.events) > 0
    for k in range(len(r.events)):
        e, i, j, t = (int(r.events.epoch[k]), int(r.events.teacher[k]),
                      int(r.events.student[k]), int(r.events.task[k]))
        visits = (r.tasks[:e - 1] == t).sum(axis=0)
        assert visits[i] > visits[j]


# ------------------------------------------------------------------ replay: views, no leakage
@pytest.mark.parametrize("snapshot", [True, False])
def test_replay_proves_views_distances_and_no_leakage(snapshot):
    """Replay every agent's own Algorithm 3 from the logged (task, action, reward).

    The final tables match exactly what the agent's *own* experience gives, so giving
    advice never changed a teacher (and receiving it changed only the student's action).
    With noise_zero each advice's q̂, distance and π′ are recomputed from the replayed
    epoch-start (or live) tables with the scalar reference functions (all four cases).
    """
    s = four_cases_setup(noise_zero=True, snapshot_teachers=snapshot, ask_budget=20,
                         give_budget=20)
    r = run_advising(s, rng=9)
    p = s.params
    sets = s.action_sets
    q = [np.zeros((s.n_tasks, len(a))) for a in sets]
    pi = [np.full((s.n_tasks, len(a)), 1 / len(a)) for a in sets]
    checked = 0
    ev_by_epoch: dict[int, list[int]] = {}
    for k, e in enumerate(r.events.epoch.tolist()):
        ev_by_epoch.setdefault(e, []).append(k)
    for e in range(p.epochs):
        snap_q = [x.copy() for x in q]
        snap_pi = [x.copy() for x in pi]
        events = {int(r.events.student[k]): k for k in ev_by_epoch.get(e + 1, [])}
        for j in range(s.n_agents):
            t = int(r.tasks[e, j])
            if j in events:
                k = events[j]
                i = int(r.events.teacher[k])
                src_q, src_pi = (snap_q, snap_pi) if snapshot else (q, pi)
                view_q, view_p = teacher_view(src_q[i][t], src_pi[i][t], sets[i], sets[j])
                kj = len(sets[j])
                assert np.array_equal(r.events.q_hat[k, :kj], view_q)
                assert r.events.distance[k] == pytest.approx(
                    squared_distance(view_q, q[j][t]), abs=1e-12)
                assert r.events.pi_advice[k, :kj] == pytest.approx(
                    advice_distribution(view_p, view_q, xi=p.xi), abs=1e-12)
                checked += 1
            kpos = sets[j].index(int(r.actions[e, j]))
            rew = s.rewards[t, sets[j][kpos]]
            q[j][t, kpos] = (1 - p.alpha) * q[j][t, kpos] + p.alpha * rew
            rbar = float((pi[j][t] * q[j][t]).sum())
            pi[j][t] = normalize_alg4(pi[j][t] + p.xi * (q[j][t] - rbar))
    assert checked == len(r.events) > 20
    assert {int(c) for c in r.events.case} == {1, 2, 3, 4}
    for j, a in enumerate(sets):
        assert np.allclose(r.q_final[j, :, :len(a)], q[j], atol=1e-12, rtol=0)
        assert np.allclose(r.pi_final[j, :, :len(a)], pi[j], atol=1e-12, rtol=0)


def test_state_stays_valid_and_q_in_reward_range():
    r = run_advising(preset("exp1", strategy="dp", variant="thesis", epsilon=0.1), rng=0)
    pi = r.pi_final[:, :, :4]
    assert np.allclose(pi.sum(axis=2), 1.0, atol=1e-12) and (pi > 0).all()
    assert (r.q_final >= 0).all() and (r.q_final <= 2.0).all()
    assert ((r.convergence > 0) & (r.convergence <= 1)).all()
    assert r.initial_convergence == pytest.approx(0.25)


def test_gamma_bootstraps_from_the_next_task():
    r0 = run_advising(preset("exp2", strategy="none", epochs=50), rng=1)
    r1 = run_advising(preset("exp2", strategy="none", epochs=50, gamma=0.5), rng=1)
    assert np.array_equal(r0.tasks, r1.tasks)
    assert r1.q_final.max() > 2.0 and r1.q_final.max() <= 4.0 + 1e-12
    s = preset("exp2", gamma=0.5)
    assert s.strict_sensitivity == 4.0
    with pytest.raises(InputError) as info:
        preset("exp2", gamma=0.5, snapshot_teachers=False)
    assert info.value.field == "snapshot_teachers"


def test_epsilon_cap_stops_teachers():
    s = preset("exp2", strategy="dp", max_epsilon_per_teacher=20.0, distance_threshold=1e6)
    r = run_advising(s, rng=0)
    assert r.epsilon_spent.max() <= 20.0 + 1e-9
    assert r.releases_per_epoch.sum(axis=0).tolist() == [20] * 10  # ε = 1 per release
    assert r.advice_total == 0 and r.advising_closed_epoch is not None


# ------------------------------------------------------------------ progress, callbacks, modes
def test_progress_cancel_and_on_epoch():
    seen: list[tuple[int, float, int]] = []
    r = run_advising(preset("exp2", epochs=20), rng=0,
                     on_epoch=lambda e, cr, adv: seen.append((e, cr, adv)))
    assert [x[0] for x in seen] == list(range(1, 21))
    assert [x[1] for x in seen] == pytest.approx(r.convergence.tolist())

    def stop(fraction: float, message: str = "") -> None:
        if fraction >= 0.5:
            raise Cancelled()

    with pytest.raises(Cancelled):
        run_advising(preset("exp2", epochs=20), rng=0, progress=stop)


def test_release_mode_runs_with_opendp_noise():
    r = run_advising(preset("fig32", epochs=25), rng=None)
    assert r.mode == "release" and r.seed is None
    assert any("OpenDP" in n for n in r.notes)
    assert r.releases_per_epoch.sum() > 0 and np.isfinite(r.convergence).all()


def test_detail_off_keeps_series_and_counts():
    s = preset("exp2", strategy="dp")
    a, b = run_advising(s, rng=8), run_advising(s, rng=8, detail=False)
    assert np.array_equal(a.convergence, b.convergence)
    assert np.array_equal(a.events.teacher, b.events.teacher)
    assert b.releases is None and np.isnan(b.events.q_hat).all()
    with pytest.raises(InputError):
        b.ledger()


# ------------------------------------------------------------------ presets
def test_presets_and_layouts():
    for name in PRESETS:
        s = preset(name)
        assert s.params.variant == "sound" and s.params.epochs == 700
        assert preset(name, variant="thesis").params.variant == "thesis"
    for layout in LAYOUTS[:3]:
        sets = layout_action_sets(layout)
        assert len(sets) == 10 and all(len(a) == 4 and {0, 1, 2} <= set(a) for a in sets)
    assert len({s for a in layout_action_sets("sunflower") for s in a}) == 12
    mixed = preset("mixed")
    cases = mixed.neighbour_cases()
    assert (cases[:4, :4][~np.eye(4, dtype=bool)] == 1).all() and (cases[4:, :4] == 4).all()
    assert mixed.can_advise("traditional").sum() == 12  # only among agents 1-4
    t35 = preset("table35", variant="thesis")
    p = t35.params
    assert (t35.n_agents, t35.n_servers, t35.n_tasks) == (10, 12, 10)
    assert (p.epsilon, p.sensitivity, p.distance_threshold, p.ask_budget, p.give_budget,
            p.epochs) == (1.0, 1.0, 0.7, 30, 30, 700)
    assert sorted(set(t35.rewards.ravel().tolist())) == [0.0, 2.0]
    assert t35.strict_sensitivity == 2.0 and t35.true_epsilon_per_release == 2.0
    assert preset("table35").noise_sensitivity == 2.0
    assert [a.label for a in experiment_arms("exp2")] == ["no advice", "traditional", "dp"]
    e1 = experiment_arms("exp1")
    assert e1[0].setup.action_sets == e1[1].setup.action_sets != e1[2].setup.action_sets


# ------------------------------------------------------------------ validation and files
@pytest.mark.parametrize("mutate,field", [
    (lambda d: d["agents"][1].update(servers=[]), "action_sets[u2]"),
    (lambda d: d["agents"][1].update(servers=["A", "Z"]), "action_sets[u2]"),
    (lambda d: d["agents"][1].update(servers=["A", "A"]), "action_sets[u2]"),
    (lambda d: d["rewards"][2].__setitem__(3, "fast"), "rewards[3][D]"),
    (lambda d: d["rewards"][2].__setitem__(3, None), "rewards[3][D]"),
    (lambda d: d["rewards"].pop(), "rewards"),
    (lambda d: d["rewards"].__setitem__(0, [0.0] * 12), "rewards"),
    (lambda d: d["params"].update(epsilon=0), "epsilon"),
    (lambda d: d["params"].update(epsilon=-1), "epsilon"),
    (lambda d: d["params"].update(epsilon="x"), "epsilon"),
    (lambda d: d["params"].update(distance_threshold=-0.1), "distance_threshold"),
    (lambda d: d["params"].update(alpha=0), "alpha"),
    (lambda d: d["params"].update(ask_budget=-1), "ask_budget"),
    (lambda d: d["params"].update(epochs=0), "epochs"),
    (lambda d: d["params"].update(strategy="magic"), "strategy"),
    (lambda d: d["params"].update(sensitivity=0), "sensitivity"),
    (lambda d: d["params"].update(warp=1), "params"),
    (lambda d: d.update(version=2), "version"),
    (lambda d: d.pop("servers"), "servers"),
    (lambda d: d.update(servers=list("ABCDEFGHIJKA")), "servers"),
])
def test_bad_set_ups_name_the_field(mutate, field):
    d = preset("exp2").to_dict()
    mutate(d)
    with pytest.raises(InputError) as info:
        AdvisingSetup.from_dict(d)
    assert info.value.field == field
    assert "\n" not in str(info.value)


def test_set_up_round_trip_through_json():
    for name in ("exp1", "fig32"):
        s = preset(name, variant="thesis", strategy="traditional", epsilon=0.4)
        d = json.loads(json.dumps(s.to_dict()))
        back = AdvisingSetup.from_dict(d)
        assert back.to_dict() == s.to_dict()
        assert back.action_sets == s.action_sets and np.array_equal(back.rewards, s.rewards)
    # Rewards may also be a task -> {server: reward} map (missing = 0).
    s = AdvisingSetup.from_dict({"servers": ["A", "B"], "tasks": ["t"],
                                 "agents": [{"name": "a", "servers": ["A", "B"]}],
                                 "rewards": {"t": {"B": 1.5}}})
    assert s.rewards.tolist() == [[0.0, 1.5]] and s.params == AdvisingParams()


def test_result_arrays_are_read_only_and_json_ready():
    r = run_advising(preset("exp2", epochs=40), rng=0)
    with pytest.raises(ValueError):
        r.convergence[0] = 1.0
    d = json.loads(json.dumps(r.to_dict(), allow_nan=False))
    assert len(d["convergence"]) == 40 and len(d["epsilon_spent"]) == 10
    assert isinstance(d["advice_events"], list) and d["advice_events"][0]["case"] in (1, 2, 3, 4)


def test_set_up_and_ledger_round_trip_through_a_project_file(tmp_path):
    from core.project.files import load_project, save_project
    from core.project.model import Project

    s = preset("exp2", variant="thesis", epochs=50)
    r = run_advising(s, rng=1)
    p = Project(name="advising")
    p.advising.append(s)
    p.ledger = r.ledger().entries
    save_project(p, tmp_path / "p.privplan.json")
    back = load_project(tmp_path / "p.privplan.json")
    assert back.advising[0] == s and back.advising[0] is not s
    # Every release is an entry: the noisy ones with their true ε, the raw ones (thesis:
    # identical sets share raw Q-values, advice drawn from the raw policy) unbounded.
    n_raw = r.unprotected_per_epoch.sum()
    noisy = [e for e in back.ledger if e.mechanism == "laplace"]
    raw = [e for e in back.ledger if e.unbounded]
    assert len(noisy) + len(raw) == len(back.ledger)
    assert len(noisy) == r.releases_per_epoch.sum() > 0
    assert sum(e.count for e in raw) == n_raw > 0  # one entry per teacher and kind
    assert noisy[0].epsilon == 2.0 and all(e.reason for e in raw)
