"""Unit tests of core.advising.presets and the small helpers of core.advising.records.

The layouts are checked against what the presets' docstring promises (every agent has
every task's optimal server; ``one-different`` sets are pairwise distinct, …), counted by
brute force; the record helpers against hand-derived values and a short seeded run.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from core.advising.experiments import spearman
from core.advising.framework import run_advising
from core.advising.model import neighbour_case
from core.advising.presets import (
    EXP1_LAYOUTS,
    EXP3_EPSILONS,
    LAYOUTS,
    PRESETS,
    SERVER_LABELS,
    TABLE_3_5,
    core_rewards,
    experiment_arms,
    layout_action_sets,
    layout_rewards,
    preset,
    table35_params,
    worked_example,
)
from core.advising.records import (
    CR_AT_EPOCHS,
    STORED_POINTS,
    advising_dataset,
    randomness_text,
    raw_kinds,
    rounded_json,
    single_ledger_entries,
    single_summary,
)
from core.common.errors import InputError


# ------------------------------------------------------------------ core_rewards
@given(st.integers(1, 12), st.integers(3, 12),
       st.lists(st.integers(0, 2), min_size=1, max_size=3),
       st.floats(-5, 5), st.floats(-5, 5))
@settings(max_examples=30, deadline=None)
def test_core_rewards_one_high_per_task_in_turn(n_tasks, n_servers, core, high, low):
    r = core_rewards(n_tasks, n_servers, core=tuple(core), high=high, low=low)
    assert r.shape == (n_tasks, n_servers)
    for s in range(n_tasks):
        want = np.full(n_servers, low)
        want[core[s % len(core)]] = high
        np.testing.assert_array_equal(r[s], want)


def test_core_rewards_default_is_table_3_5():
    r = core_rewards()
    assert r.shape == (TABLE_3_5["n_tasks"], TABLE_3_5["n_servers"])
    assert set(np.unique(r).tolist()) == set(TABLE_3_5["reward"])
    # tasks 1, 4, 7, 10 -> A; 2, 5, 8 -> B; 3, 6, 9 -> C (1-based, as in the docstring)
    assert [SERVER_LABELS[int(k)] for k in r.argmax(axis=1)] == list("ABCABCABCA")


# ------------------------------------------------------------------ layouts
@pytest.mark.parametrize("name", [x for x in LAYOUTS if x != "fig32"])
def test_every_agent_has_every_tasks_optimum(name):
    sets = layout_action_sets(name)
    best = layout_rewards(name).argmax(axis=1)
    for a in sets:
        assert set(best.tolist()) <= set(a), (name, a)
        assert len(a) == len(set(a)) and all(0 <= k < 12 for k in a)


@pytest.mark.parametrize("name", LAYOUTS)
def test_layout_sets_are_sorted_lists_of_servers(name):
    for a in layout_action_sets(name, 10):
        assert a == sorted(a)


def test_fig32_sets_and_its_neighbour_cases():
    sets = layout_action_sets("fig32")
    labels = ["".join(SERVER_LABELS[k] for k in a) for a in sets]
    assert labels == ["ABCD", "ABCE", "BCDE", "ABCD"]
    assert neighbour_case(sets[0], sets[3]) == 1
    assert neighbour_case(sets[0], sets[1]) == 4
    assert neighbour_case(sets[0], sets[2]) == 4
    assert neighbour_case(sets[1], sets[2]) == 4


@given(st.integers(1, 36))
@settings(max_examples=30, deadline=None)
def test_one_different_sets_are_pairwise_distinct_up_to_36_agents(n):
    sets = [tuple(a) for a in layout_action_sets("one-different", n)]
    assert len(sets) == n and len(set(sets)) == n
    assert all(a[:2] == (0, 1) and len(a) == 4 for a in sets)


def test_one_different_first_sets_follow_the_thesis_and_colex_order():
    sets = layout_action_sets("one-different")
    assert ["".join(SERVER_LABELS[k] for k in a[2:]) for a in sets] == [
        "CD", "CE", "DE", "CF", "DF", "EF", "CG", "DG", "EG", "FG"]
    # each agent has 6 case-4 neighbours (the docstring's count) and no case-1 pair
    for i, a in enumerate(sets):
        cases = [neighbour_case(a, b) for j, b in enumerate(sets) if j != i]
        assert cases.count(4) == 6 and cases.count(1) == 0


@pytest.mark.parametrize("n", [1, 3, 9, 10, 20])
def test_sunflower_and_mixed_petals(n):
    sun = layout_action_sets("sunflower", n)
    assert [a[3] for a in sun] == [3 + j % 9 for j in range(n)]
    mixed = layout_action_sets("mixed", n)
    assert all(a == [0, 1, 2, 3] for a in mixed[:4])
    assert [a[3] for a in mixed[4:]] == [4 + (j - 4) % 8 for j in range(4, n)]


@pytest.mark.parametrize(("n", "sizes"), [(10, (3, 4, 3)), (1, (0, 1, 0)), (20, (6, 8, 6))])
def test_nested_cut_points(n, sizes):
    lens = [len(a) for a in layout_action_sets("nested", n)]
    assert (lens.count(3), lens.count(4), lens.count(5)) == sizes
    assert lens == sorted(lens)


@pytest.mark.parametrize("bad", ["", "Same", "sunflower ", "table35"])
def test_unknown_layout_names_field(bad):
    with pytest.raises(InputError) as ei:
        layout_action_sets(bad)
    assert ei.value.field == "layout"


def test_layout_rewards_one_different_uses_only_a_and_b():
    r = layout_rewards("one-different")
    assert set(r.argmax(axis=1).tolist()) == {0, 1}
    np.testing.assert_array_equal(layout_rewards("mixed"), core_rewards())


# ------------------------------------------------------------------ table35_params / preset
@pytest.mark.parametrize(("variant", "s"), [("thesis", 1.0)])
def test_table35_params_thesis_values(variant, s):
    p = table35_params(variant)
    assert (p.epsilon, p.sensitivity, p.distance_threshold) == (1.0, s, 0.7)
    assert (p.ask_budget, p.give_budget, p.epochs) == (30, 30, 700)
    assert (p.alpha, p.xi, p.gamma, p.q0) == (0.5, 0.1, 0.0, 0.0)


def test_table35_params_overrides_and_bad_variant():
    assert table35_params(epsilon=0.25, epochs=3).epsilon == 0.25
    with pytest.raises(InputError):
        table35_params("nonsense")


@pytest.mark.parametrize("name", PRESETS)
def test_every_preset_builds_with_consistent_shapes(name):
    s = preset(name, epochs=5)
    assert s.rewards.shape == (s.n_tasks, s.n_servers)
    assert len(s.action_sets) == s.n_agents == len(s.agents)
    assert s.params.epochs == 5 and s.params.strategy == "dp"
    assert all(max(a) < s.n_servers for a in s.action_sets)
    # every agent has every task's optimum (fig32's own rewards too)
    best = set(s.rewards.argmax(axis=1).tolist())
    assert all(best <= set(a) for a in s.action_sets)


@pytest.mark.parametrize("bad", ["", "exp4", "TABLE35"])
def test_unknown_preset_names_field(bad):
    with pytest.raises(InputError) as ei:
        preset(bad)
    assert ei.value.field == "preset"


@pytest.mark.parametrize(("name", "layout"), [("mixed", "fig32"), ("fig32", "same"),
                                              ("exp2", "spiral")])
def test_bad_layout_override_names_field(name, layout):
    with pytest.raises(InputError) as ei:
        preset(name, layout=layout)
    assert ei.value.field == "layout"


def test_exp1_layout_follows_strategy_and_rewards_of_is_described():
    assert preset("exp1", strategy="dp").action_sets == tuple(
        tuple(a) for a in layout_action_sets("sunflower"))
    assert preset("exp1", strategy="none").action_sets == tuple(
        tuple(a) for a in layout_action_sets("same"))
    s = preset("exp1", strategy="none", layout="same", rewards_of="one-different")
    np.testing.assert_array_equal(s.rewards, layout_rewards("one-different"))
    assert s.description.endswith("(rewards of one-different) [layout: same]")


def test_bad_parameter_override_names_its_field():
    with pytest.raises(InputError) as ei:
        preset("mixed", epsilon=-1.0)
    assert ei.value.field == "epsilon"


# ------------------------------------------------------------------ experiment_arms
def test_exp3_arms_sweep_epsilon():
    arms = experiment_arms("exp3", epsilons=(0.1, 2.0), epochs=4)
    assert [a.label for a in arms] == ["no advice", "dp eps=0.1", "dp eps=2"]
    assert [a.setup.params.epsilon for a in arms[1:]] == [0.1, 2.0]
    assert arms[0].setup.params.strategy == "none"
    assert len(experiment_arms("exp3", epochs=4)) == 1 + len(EXP3_EPSILONS)


def test_exp_arms_errors_name_fields():
    with pytest.raises(InputError) as ei:
        experiment_arms("exp3", epsilons=())
    assert ei.value.field == "epsilons"
    with pytest.raises(InputError) as ei:
        experiment_arms("exp9")
    assert ei.value.field == "experiment"
    with pytest.raises(InputError) as ei:
        experiment_arms("exp1", layout="mixed")
    assert ei.value.field == "layout"


@pytest.mark.parametrize("layout", EXP1_LAYOUTS)
def test_exp1_arms_share_one_reward_table(layout):
    arms = experiment_arms("exp1", layout=layout, epochs=3)
    assert [a.label for a in arms] == ["no advice", "traditional", "dp"]
    for a in arms[1:]:
        np.testing.assert_array_equal(a.setup.rewards, arms[0].setup.rewards)
    assert [a.setup.params.strategy for a in arms] == ["none", "traditional", "dp"]


def test_exp2_arms_take_a_layout():
    arms = experiment_arms("exp2", layout="nested", epochs=3)
    assert all(a.setup.action_sets == arms[0].setup.action_sets for a in arms)
    assert [len(x) for x in arms[0].setup.action_sets] == [3, 3, 3, 4, 4, 4, 4, 5, 5, 5]


# ------------------------------------------------------------------ worked_example
@pytest.mark.parametrize(("alpha", "repeats"), [(0.5, 1), (0.5, 3), (0.1, 10), (0.5, 60)])
def test_worked_example_q_is_lemma_3_1(alpha, repeats):
    w = worked_example(alpha=alpha, repeats=repeats)
    want = 2.0 * (1 - (1 - alpha) ** repeats)
    assert w.q_teacher == pytest.approx((want, 0.0, 0.0, 0.0))
    assert w.q_student == pytest.approx((want, 0.0, 0.0, 0.0))
    assert w.partial(repeats) == pytest.approx(want)
    assert w.case == 4 and w.teacher_only == ("D",) and w.student_only == ("E",)
    # the teacher's view on the student's actions equals its own Q here: distance 0
    assert w.distance == pytest.approx(0.0) and w.advice is False


def test_worked_example_tables_and_threshold():
    w = worked_example(threshold=-1.0)
    assert w.advice is True  # 0 > -1
    assert [row[0] for row in w.tables["3.1"]] == ["A", "B", "C", "D"]
    assert w.tables["3.2"][3] == ("E", "Q(s, E)", 0.0)
    assert w.tables["3.3"][0][1] == "r(s, A)"
    assert w.partial(0) == 0.0 and w.partial(1, reward=4.0) == pytest.approx(2.0)


# ------------------------------------------------------------------ records helpers
def test_rounded_json_converts_nested_numpy_and_non_finite():
    x = {1: np.float32(0.1), "a": [np.int64(3), np.bool_(True), (np.nan, np.inf, -np.inf)],
         "arr": np.array([[1.23456789, 2.0]]), "s": "ü", "n": None}
    out = rounded_json(x, digits=3)
    assert out == {"1": pytest.approx(0.1), "a": [3, True, [None, None, None]],
                   "arr": [[1.23, 2.0]], "s": "ü", "n": None}
    assert type(out["a"][0]) is int and type(out["a"][1]) is bool
    json.dumps(out, allow_nan=False)


@pytest.mark.parametrize(("x", "digits", "want"), [
    (123456789.0, 3, 123000000.0), (1.0 / 3, 6, 0.333333), (-2.5e-9, 2, -2.5e-9),
    (0.0, 6, 0.0), (True, 6, True), (10**30, 6, 10**30)])
def test_rounded_json_significant_digits(x, digits, want):
    got = rounded_json(x, digits)
    assert got == want and type(got) is type(want)


def test_randomness_text_variants():
    assert "not reproducible" in randomness_text("release", 5)
    assert randomness_text("experiment", 7) == \
        "seeded experiment (seed 7; numpy noise, reproducible)"
    assert randomness_text("experiment", None, seeds=[4]).startswith("seeded experiment: seed 4 ")
    t = randomness_text("experiment", 1, seeds=[5, 3, 9], drawn=True)
    assert t == "fresh OS seed, recorded: seeds 3–9 (3 runs per arm; numpy noise, reproducible)"
    # an empty seed list falls back to the single seed
    assert randomness_text("experiment", 2, seeds=[]) == randomness_text("experiment", 2)


def test_advising_dataset_name():
    assert advising_dataset("fig32", "ü") == "advising:fig32:ü"


@pytest.mark.parametrize(("kw", "want"), [
    ({"strategy": "none"}, []),
    ({"strategy": "dp"}, []),
    ({"strategy": "dp", "noise_zero": True}, ["raw_q"]),
    ({"strategy": "dp", "advice_prior": "teacher"}, ["raw_policy"]),
    ({"strategy": "dp", "direction_guard": True}, ["raw_visits"]),
    ({"strategy": "traditional"}, ["raw_q", "raw_policy"]),
])
def test_raw_kinds(kw, want):
    assert raw_kinds(preset("mixed", **kw)) == want


def test_raw_kinds_thesis_variant_releases_identical_sets_and_policy_raw():
    p = preset("mixed", variant="thesis").params
    # the thesis: identical sets unnoised, advice drawn from the teacher's own policy
    assert not p.noise_on_identical_sets and p.advice_prior == "teacher"
    assert raw_kinds(preset("mixed", variant="thesis")) == ["raw_q", "raw_policy"]


# ------------------------------------------------------------------ summaries of one short run
@pytest.fixture(scope="module")
def run():
    return run_advising(preset("fig32", epochs=300), rng=3)


def test_single_summary_keeps_at_most_stored_points_plus_cr_epochs(run):
    s = single_summary(run)
    ep = s["curve_epochs"]
    assert ep[0] == 1 and ep[-1] == 300 and ep == sorted(set(ep))
    assert STORED_POINTS <= len(ep) <= STORED_POINTS + len(CR_AT_EPOCHS)
    assert all(e in ep for e in CR_AT_EPOCHS)
    conv = np.asarray(run.convergence)
    assert s["convergence"] == [float(conv[e - 1]) for e in ep]
    full = single_summary(run, full=True)
    assert full["curve_epochs"] == list(range(1, 301))


def test_single_summary_counts_match_events(run):
    s = single_summary(run)
    assert sum(s["advice_given"]) == sum(s["advice_received"]) == run.advice_total
    assert s["privacy"]["releases"] == [a.releases for a in run.accounting.agents]
    basic = s["privacy"]["basic"]
    per = run.accounting.epsilon_per_release
    assert basic == [pytest.approx(k * per) for k in s["privacy"]["releases"]]
    assert s["privacy"]["epsilon_per_advice"] == per  # dp and bounded
    assert s["randomness"] == "seeded experiment (seed 3; numpy noise, reproducible)"


def test_single_ledger_entries_one_per_teacher_with_its_count(run):
    entries = single_ledger_entries(run, source="unit")
    assert len(entries) == run.setup.n_agents
    for e, a in zip(entries, run.accounting.agents):
        assert e.dataset == advising_dataset("fig32", a.agent)
        assert e.count == a.releases and e.epsilon == pytest.approx(a.epsilon_per_release)
        assert e.source == "unit" and math.isfinite(e.epsilon)


# ------------------------------------------------------------------ spearman
@given(st.lists(st.tuples(st.integers(-5, 5), st.integers(-5, 5)), min_size=3, max_size=12))
@settings(max_examples=30, deadline=None)
def test_spearman_matches_scipy(pairs):
    x, y = zip(*pairs)
    got = spearman(x, y)
    if len(set(x)) == 1 or len(set(y)) == 1:
        assert got == 0.0
    else:
        assert got == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)
