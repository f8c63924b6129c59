"""The editable MDP model: edits, problems naming state and action, conversions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.common.errors import InputError
from core.mdp.editable import MdpModel
from core.mdp.examples import example2, four_startups, random_mdp


def drawn() -> MdpModel:
    """The three-state MDP a person draws by hand: go from a to b, b and c absorb."""
    m = MdpModel(name="drawn", horizon=2)
    a, b, c = (m.add_state(n, (100.0 * i, 0.0)) for i, n in enumerate("abc"))
    go = m.add_action(a, "go", reward=-1.0)
    m.set_row(go, {b: 0.75, c: 0.25})
    for s in (b, c):
        m.set_probability(m.add_action(s, "stay"), s, 1.0)
    m.set_terminal_reward(b, 10.0)
    return m


def test_a_drawn_model_is_valid_and_converts():
    m = drawn()
    assert m.is_valid and m.summary().startswith("model valid")
    mdp = m.to_mdp()
    assert mdp.state_names == ("a", "b", "c") and mdp.initial_state == 0
    assert mdp.P[0, 0].tolist() == [0.0, 0.75, 0.25] and mdp.R[0, 0] == -1.0
    assert mdp.R_T.tolist() == [0.0, 10.0, 0.0] and mdp.layout["c"] == (200.0, 0.0)


def test_problems_name_the_state_the_action_and_the_deficit():
    m = drawn()
    go = m.action_ids[0][0]
    m.set_probability(go, "st-3", 0.05)
    (p,) = m.errors()
    assert p.state == "st-1" and p.action == go and p.field == "transitions"
    assert p.deficit == pytest.approx(0.2)
    assert "state 'a', action 'go'" in p.message and "0.8" in p.message
    with pytest.raises(InputError, match="'go'"):
        m.to_mdp()
    m.normalise_row(go)
    assert m.is_valid and m.row(go) == pytest.approx({"st-2": 0.9375, "st-3": 0.0625})


@pytest.mark.parametrize(
    ("edit", "needle"),
    [
        (lambda m: m.add_state("d"), "'d' has no actions"),
        (lambda m: m.set_state_label("st-2", "a"), "two states are named 'a'"),
        (lambda m: m.set_state_label("st-2", " "), "empty name"),
        (lambda m: m.set_probability("ac-1", "st-2", -0.25), "negative"),
        (lambda m: m.set_probability("ac-1", "st-2", float("nan")), "not finite"),
        (lambda m: m.set_settings(horizon=None), "discount"),
        (lambda m: m.add_action("st-1", "go"), "two actions with the same name"),
    ],
)
def test_each_kind_of_problem_is_reported(edit, needle):
    m = drawn()
    edit(m)
    assert any(needle in p.message for p in m.errors()), [p.message for p in m.errors()]
    assert not m.is_valid


def test_remove_state_drops_its_actions_and_incoming_mass():
    m = drawn()
    m.remove_state("st-3")
    assert m.state_labels == ["a", "b"] and m.action_ids == [["ac-1"], ["ac-2"]]
    (p,) = m.errors()
    assert p.action == "ac-1" and p.deficit == pytest.approx(0.25)
    m.remove_state("st-1")
    assert m.initial_state == "st-2" and m.is_valid


def test_remove_action_compacts_and_keeps_the_other_rows():
    m = MdpModel.from_mdp(four_startups())
    before = m.row("ac-4")
    m.remove_action("ac-2")
    assert m.action_ids[0] == ["ac-1", "ac-3", "ac-4"] and m.width == 3
    assert m.row("ac-4") == before and m.label("ac-4") == "acquire_4"
    assert m.to_mdp().n_actions == 3


def test_every_edit_bumps_the_version_and_copy_is_independent():
    m = drawn()
    v = m.version
    snapshot = m.copy()
    m.move_state("st-1", (5.0, 6.0))
    assert m.version == v + 1 and snapshot.position("st-1") == (0.0, 0.0)
    m.set_reward("ac-1", 3.0)
    assert snapshot.reward("ac-1") == -1.0 and m.version == v + 2


def test_unknown_ids_are_input_errors():
    m = drawn()
    with pytest.raises(InputError, match="no state"):
        m.set_probability("ac-1", "st-99", 0.5)
    with pytest.raises(InputError, match="no action"):
        m.set_reward("ac-99", 1.0)
    with pytest.raises(InputError, match="positive sum"):
        m.set_row("ac-1", {})
        m.normalise_row("ac-1")
    with pytest.raises(InputError) as info:
        m.set_settings(horizon=0)
    assert info.value.field == "horizon"


@pytest.mark.parametrize("mdp", [four_startups(), example2(),
                                 random_mdp(6, 3, None, seed=4, discount=0.9)],
                         ids=["four-startups", "example-2", "infinite"])
def test_from_mdp_to_mdp_and_dict_round_trips(mdp):
    m = MdpModel.from_mdp(mdp)
    assert m.to_mdp() == mdp
    again = MdpModel.from_dict(m.to_dict())
    assert again.to_dict() == m.to_dict() and again.to_mdp() == mdp


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(["add_state", "add_action", "remove_state", "remove_action",
                                 "set_p", "normalise"]), min_size=1, max_size=25),
       st.integers(0, 2**31))
def test_random_edit_sequences_keep_arrays_consistent(ops, seed):
    """Whatever the edits, arrays stay aligned with ids and the dict round trip is exact."""
    rng = np.random.default_rng(seed)
    m = drawn()
    for op in ops:
        acts = m.all_action_ids()
        if op == "add_state":
            m.add_state(None, (float(rng.uniform()), 0.0))
        elif op == "add_action" and m.state_ids:
            m.add_action(str(rng.choice(m.state_ids)))
        elif op == "remove_state" and len(m.state_ids) > 1:
            m.remove_state(str(rng.choice(m.state_ids)))
        elif op == "remove_action" and acts:
            m.remove_action(str(rng.choice(acts)))
        elif op == "set_p" and acts and m.state_ids:
            m.set_probability(str(rng.choice(acts)), str(rng.choice(m.state_ids)),
                              float(rng.uniform()))
        elif op == "normalise" and acts:
            a = str(rng.choice(acts))
            if sum(m.row(a).values()) > 0:
                m.normalise_row(a)
        S = m.n_states
        assert m.P.shape == (S, m.width, S) and m.R.shape == (S, m.width)
        assert m.R_T.shape == (S,) and m.positions.shape == (S, 2)
        assert m.width == max((len(a) for a in m.action_ids), default=0)
        mask = m.mask()
        assert not m.P[~mask].any() and not m.R[~mask].any()
    assert MdpModel.from_dict(m.to_dict()).to_dict() == m.to_dict()
    if m.is_valid:
        assert MdpModel.from_mdp(m.to_mdp()).to_mdp() == m.to_mdp()


def test_with_transitions_adopts_checks_and_does_not_copy():
    """The privatisation pipeline hands its array over (no copies of P)."""
    from core.mdp.model import MDP, with_transitions

    m = MDP(P=np.array([[[0.5, 0.5], [0.0, 0.0]], [[0.0, 1.0], [1.0, 0.0]]]),
            R=np.zeros((2, 2)), mask=np.array([[True, False], [True, True]]), horizon=2,
            name="m")
    P = np.array([[[0.25, 0.75], [0.0, 0.0]], [[0.0, 1.0], [0.5, 0.5]]])
    new = with_transitions(m, P, name="m (private)")
    assert new.P is P and not P.flags.writeable and new.name == "m (private)"
    assert new.R is m.R and new.horizon == 2 and m.P[0, 0, 0] == 0.5
    bad = P.copy()
    bad[1, 1] = [0.5, 0.6]
    with pytest.raises(InputError, match="state 's1', action 'a1': probabilities sum"):
        with_transitions(m, bad, name="x")
    hidden = P.copy()
    hidden[0, 1] = [1.0, 0.0]       # a row on an unavailable action
    with pytest.raises(InputError, match="unavailable"):
        with_transitions(m, hidden, name="x")
    with pytest.raises(InputError, match="shape"):
        with_transitions(m, P[:1], name="x")
