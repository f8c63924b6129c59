"""core.mdp.annotations: labels and reward structures, and the rewards derived from them,
against a brute-force loop over every (state, action, next state)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.common.errors import InputError
from core.mdp.annotations import Annotations, RewardStructure, derived_rewards
from core.mdp.sparse import Transitions


def _brute(rs: RewardStructure, P: np.ndarray) -> tuple[np.ndarray, int]:
    """r(s, a) by the module docstring's rule, one (s, a) at a time."""
    S, A, _ = P.shape
    t = Transitions.from_dense(P)
    R = np.zeros((S, A))
    varying = 0
    for s in range(S):
        for a in range(A):
            r = 0.0
            if rs.state is not None:
                r += rs.state[s]
            if rs.choice is not None:
                r += rs.choice[s, a]
            if rs.transition is not None:
                lo, hi = int(t.indptr[s * A + a]), int(t.indptr[s * A + a + 1])
                vals = rs.transition[lo:hi]
                if hi > lo and np.all(vals == vals[0]):
                    r += vals[0]
                elif hi > lo:
                    r += float(np.dot(vals, t.data[lo:hi]))
                    varying += 1
            R[s, a] = r
    return R, varying


@settings(max_examples=40)
@given(st.integers(1, 4), st.integers(1, 3), st.integers(0, 2 ** 31),
       st.booleans(), st.booleans(), st.booleans(), st.booleans())
def test_derived_rewards_match_a_loop(S: int, A: int, seed: int, use_state: bool,
                                      use_choice: bool, use_transition: bool,
                                      constant_rows: bool) -> None:
    rng = np.random.default_rng(seed)
    P = rng.uniform(size=(S, A, S)) * (rng.uniform(size=(S, A, S)) > 0.5)
    if S > 1:
        P[0, 0] = 0.0  # an empty row
    t = Transitions.from_dense(P)
    trans = None
    if use_transition:
        trans = rng.integers(-2, 3, size=t.nnz).astype(float)
        if constant_rows:
            trans = np.repeat(rng.normal(size=S * A), np.diff(t.indptr))
    rs = RewardStructure(state=rng.normal(size=S) if use_state else None,
                         choice=rng.normal(size=(S, A)) if use_choice else None,
                         transition=trans)
    R, warnings = derived_rewards(rs, t.indptr, t.data, S, A)
    want, varying = _brute(rs, P)
    assert np.allclose(R, want, atol=1e-12)
    assert bool(warnings) == (varying > 0)
    if varying:
        assert warnings[0].startswith(f"{varying} choice(s)")


def test_a_constant_transition_reward_ignores_the_probabilities() -> None:
    P = np.array([[[0.2, 0.3]], [[0.0, 1.0]]])  # row 0 sums to 0.5: a draft
    t = Transitions.from_dense(P)
    rs = RewardStructure(transition=np.full(t.nnz, 4.0))
    R, warnings = derived_rewards(rs, t.indptr, t.data, 2, 1)
    assert R.tolist() == [[4.0], [4.0]] and warnings == []


def test_empty_structures_give_zero_rewards() -> None:
    t = Transitions.from_dense(np.array([[[1.0]]]))
    R, w = derived_rewards(RewardStructure(), t.indptr, t.data, 1, 1)
    assert R.tolist() == [[0.0]] and w == []
    R, w = derived_rewards(RewardStructure(transition=np.zeros(0)), t.indptr, t.data, 1, 1)
    assert R.tolist() == [[0.0]]


@pytest.mark.parametrize("part", ["state", "choice", "transition"])
def test_reward_structures_refuse_non_finite_values_naming_the_part(part: str) -> None:
    with pytest.raises(InputError) as info:
        RewardStructure(**{part: np.array([1.0, math.nan])})
    assert info.value.field == f"rewards.{part}"


def test_reward_structures_are_read_only_copies_and_compare_by_value() -> None:
    src = np.array([1.0, 2.0])
    rs = RewardStructure(state=src)
    src[0] = 9.0
    assert rs.state is not None and rs.state[0] == 1.0
    with pytest.raises(ValueError):
        rs.state[0] = 3.0
    assert rs.equal(RewardStructure(state=np.array([1.0, 2.0])))
    assert not rs.equal(RewardStructure(state=np.array([1.0, 2.0]), choice=np.zeros((2, 1))))
    assert not rs.equal(RewardStructure())


def test_annotations_sort_and_deduplicate_labels() -> None:
    a = Annotations(labels={"goal": [3, 1, 3], 7: np.array([0])}, variables=("x", 1))
    sets = a.label_sets()
    assert sets["goal"].tolist() == [1, 3] and sets["7"].tolist() == [0]
    assert a.variables == ("x", "1")
    with pytest.raises(ValueError):
        sets["goal"][0] = 5


def test_annotations_reward_used_must_name_a_structure() -> None:
    with pytest.raises(InputError) as info:
        Annotations(rewards={"time": RewardStructure()}, reward_used="cost")
    assert info.value.field == "reward_used"


def test_check_refuses_labels_and_rewards_that_do_not_fit() -> None:
    ok = Annotations(labels={"g": [0, 2]},
                     rewards={"r": RewardStructure(state=np.zeros(3), choice=np.zeros((3, 2)),
                                                   transition=np.zeros(5))})
    ok.check(3, 2, 5)
    with pytest.raises(InputError) as info:
        ok.check(2, 2, 5)
    assert info.value.field == "labels" and "outside [0, 2)" in info.value.problem
    with pytest.raises(InputError) as info:
        ok.check(3, 3, 5)
    assert info.value.field == "rewards" and "choice rewards have shape (3, 2)" in \
        info.value.problem
    with pytest.raises(InputError, match="transition rewards"):
        ok.check(3, 2, 6)
    with pytest.raises(InputError, match="outside"):
        Annotations(labels={"neg": [-1]}).check(3, 1, 0)


def test_without_transition_rewards_and_equality() -> None:
    a = Annotations(labels={"g": [1]},
                    rewards={"r": RewardStructure(state=np.ones(2), transition=np.ones(3))},
                    reward_used="r", variables=("x",))
    b = a.without_transition_rewards()
    assert b.rewards["r"].transition is None and b.rewards["r"].state is not None
    assert (b.reward_used, b.variables) == ("r", ("x",))
    assert a.equal(a) and not a.equal(b) and not a.equal(None)
    assert not a.equal(Annotations(labels={"g": [0]}, rewards=a.rewards, reward_used="r",
                                   variables=("x",)))
