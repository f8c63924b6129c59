"""core.mdp.editable.MdpModel: the editable draft of a project's MDP.

A reference model of plain dicts follows a random sequence of edits (add and remove states
and actions, set probabilities, rows and rewards, rename, normalise); after every sequence
the model's own ``to_dict`` must equal the reference, and the same edits made on a model
that keeps its transitions as sparse rows must give the same document and the same list of
problems. Beside that: validation messages that name the state and action, ``to_mdp`` of a
valid draft, ``from_dict`` refusals naming the field, digests and copies.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.common.errors import InputError
from core.mdp.editable import MdpModel, digest_of
from core.mdp.rows import SparseRows


class _Reference:
    """The model as dicts: states in order, each with its actions in order."""

    def __init__(self) -> None:
        self.states: dict[str, dict[str, Any]] = {}
        self.initial: str | None = None

    def add_state(self, sid: str, label: str) -> None:
        self.states[sid] = {"label": label, "rt": 0.0, "actions": {}}
        if self.initial is None:
            self.initial = sid

    def remove_state(self, sid: str) -> None:
        del self.states[sid]
        for st_ in self.states.values():
            for a in st_["actions"].values():
                a["row"].pop(sid, None)
        if self.initial == sid:
            self.initial = next(iter(self.states), None)

    def to_dict(self, name: str, horizon: Any, discount: float) -> dict[str, Any]:
        states, actions, trans = [], [], []
        for sid, st_ in self.states.items():
            d: dict[str, Any] = {"id": sid, "label": st_["label"]}
            if st_["rt"] != 0:
                d["terminal_reward"] = st_["rt"]
            states.append(d)
            for aid, a in st_["actions"].items():
                ad: dict[str, Any] = {"id": aid, "state": sid, "label": a["label"]}
                if a["reward"] != 0:
                    ad["reward"] = a["reward"]
                actions.append(ad)
                order = list(self.states)
                for t in sorted((t for t, p in a["row"].items() if p != 0), key=order.index):
                    trans.append({"action": aid, "target": t, "p": a["row"][t]})
        return {"name": name, "horizon": horizon, "discount": discount,
                "initial_state": self.initial, "states": states, "actions": actions,
                "transitions": trans}


_op = st.tuples(st.sampled_from(["add_state", "remove_state", "add_action", "remove_action",
                                 "set_p", "set_row", "reward", "rt", "rename", "normalise"]),
                st.integers(0, 50), st.integers(0, 50),
                st.sampled_from([0.0, 0.25, 0.5, 1.0, 0.3]))


def _apply(m: MdpModel, ref: _Reference, op: tuple[str, int, int, float]) -> None:
    kind, i, k, v = op
    sids = list(ref.states)
    aids = [(sid, a) for sid in sids for a in ref.states[sid]["actions"]]
    if kind == "add_state" or not sids:
        sid = m.add_state(f"state {len(sids)} ü")
        ref.add_state(sid, f"state {len(sids)} ü")
        return
    sid = sids[i % len(sids)]
    target = sids[k % len(sids)]
    if kind == "remove_state" and len(sids) > 1:
        m.remove_state(sid)
        ref.remove_state(sid)
    elif kind == "add_action" or not aids:
        row = {target: v} if v else None
        aid = m.add_action(sid, f"go{k % 3}", reward=v, row=row)
        ref.states[sid]["actions"][aid] = {"label": f"go{k % 3}", "reward": v,
                                          "row": dict(row or {})}
    else:
        owner, aid = aids[i % len(aids)]
        a = ref.states[owner]["actions"][aid]
        if kind == "remove_action":
            m.remove_action(aid)
            del ref.states[owner]["actions"][aid]
        elif kind == "set_p":
            m.set_probability(aid, target, v)
            a["row"][target] = v
        elif kind == "set_row":
            row = {target: 1.0 - v, sids[(k + 1) % len(sids)]: v} if len(sids) > 1 else \
                {target: 1.0}
            m.set_row(aid, row)
            a["row"] = dict(row)
        elif kind == "reward":
            m.set_reward(aid, -v)
            a["reward"] = -v
        elif kind == "rt":
            m.set_terminal_reward(sid, v * 10)
            ref.states[sid]["rt"] = v * 10
        elif kind == "rename":
            m.set_action_label(aid, f"renamed {k}")
            a["label"] = f"renamed {k}"
        elif kind == "normalise":
            total = sum(a["row"].values())
            if total > 0:
                m.normalise_row(aid)
                a["row"] = {t: p / total for t, p in a["row"].items()}
            else:
                with pytest.raises(InputError) as info:
                    m.normalise_row(aid)
                assert info.value.field == "transitions"


def _normalised(d: dict[str, Any]) -> str:
    for t in d["transitions"]:
        t["p"] = round(t["p"], 12)
    return json.dumps(d, sort_keys=True)


#: two states with one action each, so that the random edits find actions to change
_START = [("add_state", 0, 0, 0.0), ("add_action", 0, 0, 0.5), ("add_action", 1, 1, 1.0)]


@settings(max_examples=30)
@given(st.lists(_op, min_size=3, max_size=25))
def test_edits_match_a_reference_model_dense_and_sparse(ops: list) -> None:
    dense, sparse, ref = MdpModel(name="m"), MdpModel(name="m"), _Reference()
    sparse_ref = _Reference()
    first = dense.add_state("start")
    ref.add_state(first, "start")
    sparse.add_state("start")
    sparse_ref.add_state(first, "start")
    for op in _START:
        _apply(dense, ref, op)
        _apply(sparse, sparse_ref, op)
    sparse.P = SparseRows.from_dense(sparse.P)
    for op in ops:
        _apply(dense, ref, op)
        _apply(sparse, sparse_ref, op)
    want = _normalised(ref.to_dict("m", 3, 1.0))
    assert _normalised(dense.to_dict()) == want
    assert _normalised(sparse.to_dict()) == want
    assert sparse.is_sparse and not dense.is_sparse
    assert [p.message for p in dense.problems()] == [p.message for p in sparse.problems()]
    assert np.allclose(dense.dense_P(), sparse.dense_P())
    assert dense.nnz == sparse.nnz == len(json.loads(want)["transitions"])
    # the arrays never keep a column for actions nobody has
    counts = [len(a) for a in dense.action_ids]
    assert dense.width == max(counts, default=0)
    again = MdpModel.from_dict(json.loads(json.dumps(dense.to_dict())))
    assert _normalised(again.to_dict()) == want and again.version == 0


def _valid_two_state() -> tuple[MdpModel, dict[str, str]]:
    m = MdpModel(name="two")
    a, b = m.add_state("a", (0, 0)), m.add_state("b", (10, 5))
    go = m.add_action(a, "go", reward=1.5, row={a: 0.25, b: 0.75})
    stay = m.add_action(b, "stay", row={b: 1.0})
    return m, {"a": a, "b": b, "go": go, "stay": stay}


def test_a_valid_draft_freezes_into_the_same_mdp() -> None:
    m, ids = _valid_two_state()
    m.set_terminal_reward(ids["b"], 2.0)
    m.set_settings(horizon=None, discount=0.9, initial_state=ids["b"], name="renamed")
    assert m.is_valid and m.problems() == []
    mdp = m.to_mdp()
    assert mdp.name == "renamed" and mdp.horizon is None and mdp.discount == 0.9
    assert mdp.initial_state == 1 and list(mdp.state_names) == ["a", "b"]
    assert mdp.P[0, 0].tolist() == [0.25, 0.75] and mdp.R[0, 0] == 1.5
    assert mdp.R_T.tolist() == [0.0, 2.0]
    assert mdp.layout == {"a": (0.0, 0.0), "b": (10.0, 5.0)}
    back = MdpModel.from_mdp(mdp)
    assert back.to_mdp() == mdp
    assert "model valid ✓ (2 states, 2 state–action pairs)" == m.summary()


def test_problems_name_the_state_and_action() -> None:
    m, ids = _valid_two_state()
    m.set_probability(ids["go"], ids["b"], 0.5)       # sums to 0.75
    m.set_reward(ids["stay"], math.nan)
    m.add_state("a")                                   # a duplicate name, no actions
    m.set_terminal_reward(ids["a"], math.inf)
    msgs = [p.message for p in m.errors()]
    assert "two states are named 'a'" in msgs
    assert "state 'a', action 'go': probabilities sum to 0.75, not 1 (deficit 0.25)" in msgs
    assert "state 'b', action 'stay': the reward is not finite" in msgs
    assert "state 'a': the terminal reward is not finite" in msgs
    assert "state 'a' has no actions" in msgs
    deficit = next(p for p in m.errors() if p.deficit is not None)
    assert deficit.deficit == pytest.approx(0.25) and deficit.action == ids["go"]
    assert m.summary().startswith("model invalid: ") and "more)" in m.summary()
    with pytest.raises(InputError) as info:
        m.to_mdp()
    assert "more problems" in info.value.problem


def test_problems_of_probabilities_and_action_names() -> None:
    m, ids = _valid_two_state()
    m.set_probability(ids["go"], ids["a"], -0.25)
    m.set_probability(ids["stay"], ids["b"], math.nan)
    other = m.add_action(ids["b"], "stay", row={ids["b"]: 1.0})
    m.set_action_label(other, "  ")
    msgs = [p.message for p in m.errors()]
    assert "state 'a', action 'go': a probability is negative" in msgs
    assert "state 'b', action 'stay': a probability is not finite" in msgs
    assert "state 'b', action '  ': the action has no name" in msgs
    m.set_action_label(other, "stay")
    assert "state 'b' has two actions with the same name" in [p.message for p in m.errors()]


def test_settings_problems_and_refusals() -> None:
    m, ids = _valid_two_state()
    m.horizon, m.discount = None, 1.0
    assert any(p.field == "discount" for p in m.errors())
    with pytest.raises(InputError) as info:
        m.set_settings(horizon=0)
    assert info.value.field == "horizon"
    with pytest.raises(InputError):
        m.set_settings(horizon=True)
    with pytest.raises(InputError) as info:
        m.set_settings(discount=1.5)
    assert info.value.field == "discount"
    with pytest.raises(InputError) as info:
        m.set_settings(initial_state="st-99")
    assert info.value.field == "state"
    assert MdpModel().errors()[0].field == "states"


def test_unknown_ids_and_taken_ids_are_refused() -> None:
    m, ids = _valid_two_state()
    with pytest.raises(InputError) as info:
        m.set_reward("ac-404", 1.0)
    assert info.value.field == "action"
    with pytest.raises(InputError) as info:
        m.move_state("st-404", (1, 1))
    assert info.value.field == "state"
    with pytest.raises(InputError, match="is taken"):
        m.add_state("c", state_id=ids["a"])
    with pytest.raises(InputError, match="is taken"):
        m.add_action(ids["a"], action_id=ids["go"])
    assert not m.has_action("ac-404") and m.has_action(ids["go"])
    assert m.state_of(ids["stay"]) == ids["b"] and m.label(ids["go"]) == "go"
    assert m.label(ids["b"]) == "b" and m.row(ids["go"]) == {ids["a"]: 0.25, ids["b"]: 0.75}


def test_removing_a_state_drops_its_transitions_and_moves_the_initial_state() -> None:
    m, ids = _valid_two_state()
    m.remove_state(ids["a"])
    assert m.initial_state == ids["b"] and m.n_states == 1
    assert m.state_ids == [ids["b"]] and not m.has_action(ids["go"])
    assert m.row(ids["stay"]) == {ids["b"]: 1.0} and m.is_valid


def test_positions_and_digest() -> None:
    m, ids = _valid_two_state()
    d0 = m.digest()
    m.move_states({ids["a"]: (3, 4), ids["b"]: None})
    assert m.position(ids["a"]) == (3.0, 4.0) and m.position(ids["b"]) is None
    assert m.digest() == d0  # positions are not what an analysis reads
    m.set_state_label(ids["a"], "A")
    assert m.digest() != d0
    mdp = m.to_mdp()
    assert digest_of(m.digest_key(), mdp.P, mdp.R, mdp.R_T) == m.digest()


def test_copy_is_independent_and_restore_bumps_the_version() -> None:
    m, ids = _valid_two_state()
    snap = m.copy()
    m.set_reward(ids["go"], 9.0)
    assert snap.reward(ids["go"]) == 1.5
    v = m.version
    m.restore(snap)
    assert m.reward(ids["go"]) == 1.5 and m.version > v


def test_every_edit_bumps_the_version_and_problems_follow() -> None:
    m, ids = _valid_two_state()
    assert m.is_valid
    v = m.version
    m.set_probability(ids["stay"], ids["b"], 0.5)
    assert m.version == v + 1 and not m.is_valid
    m.normalise_row(ids["stay"])
    assert m.is_valid and m.row(ids["stay"]) == {ids["b"]: 1.0}


@pytest.mark.parametrize("doc, field", [
    ([], "mdp"),
    ({"states": "x"}, "states"),
    ({"states": [{"label": "no id"}]}, "states[0]"),
    ({"states": [{"id": "s", "pos": [1]}]}, "states[0].pos"),
    ({"states": [{"id": "s", "pos": [1, "y"]}]}, "states[0].pos"),
    ({"states": [{"id": "s", "terminal_reward": math.inf}]}, "states[0].terminal_reward"),
    ({"states": [{"id": "s"}, {"id": "s"}]}, "states"),
    ({"states": [{"id": "s"}], "actions": [{"id": "a", "state": "t"}]}, "actions[0].state"),
    ({"states": [{"id": "s"}], "actions": [{"id": "a", "state": "s"},
                                            {"id": "a", "state": "s"}]}, "actions[1]"),
    ({"states": [{"id": "s"}], "actions": [{"id": "a", "state": "s", "reward": "1"}]},
     "actions[0].reward"),
    ({"states": [{"id": "s"}], "actions": [{"id": "a", "state": "s"}],
      "transitions": [{"action": "b", "target": "s", "p": 1}]}, "transitions[0].action"),
    ({"states": [{"id": "s"}], "actions": [{"id": "a", "state": "s"}],
      "transitions": [{"action": "a", "target": "t", "p": 1}]}, "transitions[0].target"),
    ({"states": [{"id": "s"}], "actions": [{"id": "a", "state": "s"}],
      "transitions": [{"action": "a", "target": "s", "p": None}]}, "transitions[0].p"),
    ({"states": [{"id": "s"}], "horizon": 2.5}, "horizon"),
    ({"states": [{"id": "s"}], "discount": "1"}, "discount"),
    ({"states": [{"id": "s"}], "initial_state": "t"}, "initial_state"),
])
def test_from_dict_refusals_name_the_field(doc: Any, field: str) -> None:
    with pytest.raises(InputError) as info:
        MdpModel.from_dict(doc)
    assert info.value.field == field


def test_from_dict_with_a_sidecar_array_checks_its_shape_and_masks_it() -> None:
    doc = {"states": [{"id": "s"}, {"id": "t"}],
           "actions": [{"id": "a", "state": "s"}, {"id": "b", "state": "s"},
                       {"id": "c", "state": "t"}], "initial_state": "s"}
    P = np.full((2, 2, 2), 0.5)
    m = MdpModel.from_dict(doc, P=P)
    assert m.dense_P()[1, 1].tolist() == [0.0, 0.0]  # t has one action: slot 1 masked
    assert m.is_valid
    with pytest.raises(InputError) as info:
        MdpModel.from_dict(doc, P=np.zeros((2, 1, 2)))
    assert info.value.field == "arrays"


def test_a_later_transition_entry_replaces_an_earlier_one() -> None:
    doc = {"states": [{"id": "s"}], "actions": [{"id": "a", "state": "s"}],
           "transitions": [{"action": "a", "target": "s", "p": 0.3},
                           {"action": "a", "target": "s", "p": 1.0}]}
    assert MdpModel.from_dict(doc).row("a") == {"s": 1.0}
