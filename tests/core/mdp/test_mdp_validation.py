"""MDP validation: every bad input is an InputError, one line, naming file/field and the problem."""

from __future__ import annotations

import copy
import json
import zipfile

import numpy as np
import pytest

from core.common.errors import InputError
from core.mdp.files import load_mdp, mdp_from_dict
from core.mdp.model import MDP


def good_dict() -> dict:
    return {
        "format": "privplan-mdp", "version": 1, "name": "tiny",
        "states": ["a", "b"], "initial_state": "a", "horizon": 2, "discount": 1.0,
        "transitions": {"a": {"go": {"a": 0.25, "b": 0.75}, "wait": {"a": 1.0}},
                        "b": {"stay": {"b": 1.0}}},
        "rewards": {"a": {"go": -1.0}}, "terminal_rewards": {"b": 1.0},
    }


def raises_input_error(fn, *args, **kwargs) -> InputError:
    with pytest.raises(InputError) as info:
        fn(*args, **kwargs)
    err = info.value
    assert "\n" not in str(err), f"message is not one line: {str(err)!r}"
    return err


def write_json(tmp_path, d, name="m.mdp.json"):
    path = tmp_path / name
    path.write_text(json.dumps(d), encoding="utf-8")
    return path


def test_good_dict_loads():
    m = mdp_from_dict(good_dict())
    assert m.P.shape == (2, 2, 2)
    assert m.mask.tolist() == [[True, True], [True, False]]
    assert m.R[0].tolist() == [-1.0, 0.0]
    assert m.R_T.tolist() == [0.0, 1.0]


# ----------------------------------------------------------------------------- rows of P
@pytest.mark.parametrize("row, needle", [
    ({"a": 0.25, "b": 0.65}, "sum to 0.9"),
    ({"a": 0.5, "b": 0.75}, "sum to 1.25"),
])
def test_row_not_summing_to_one_names_state_action_and_sum(tmp_path, row, needle):
    d = good_dict()
    d["transitions"]["a"]["go"] = row
    err = raises_input_error(load_mdp, write_json(tmp_path, d))
    msg = str(err)
    assert "m.mdp.json" in msg and err.field == "transitions"
    assert "'a'" in msg and "'go'" in msg and needle in msg and "deficit" in msg


def test_row_sum_tolerance_is_1e_9():
    d = good_dict()
    d["transitions"]["a"]["go"] = {"a": 0.25, "b": 0.75 + 5e-10}
    mdp_from_dict(d)  # within 1e-9: accepted
    d["transitions"]["a"]["go"] = {"a": 0.25, "b": 0.75 + 5e-9}
    raises_input_error(mdp_from_dict, d)


def test_negative_probability_is_refused():
    d = good_dict()
    d["transitions"]["a"]["go"] = {"a": 1.25, "b": -0.25}
    msg = str(raises_input_error(mdp_from_dict, d))
    assert "'a'" in msg and "'go'" in msg and "'b'" in msg and "-0.25" in msg and ">= 0" in msg


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_probability_in_arrays(bad):
    P = np.array([[[0.5, 0.5]], [[0.0, 1.0]]])
    P[1, 0, 0] = bad
    err = raises_input_error(MDP, P=P, R=np.zeros((2, 1)), horizon=1)
    assert err.field == "transitions"
    assert "'s1'" in str(err) and "'a0'" in str(err) and "finite" in str(err)


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_non_finite_probability_in_dict(bad):
    d = good_dict()
    d["transitions"]["b"]["stay"] = {"b": bad}
    err = raises_input_error(mdp_from_dict, d)
    assert err.field == "transitions.b.stay.b" and "finite" in str(err)


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_json_constant_names_file_line_and_column(tmp_path, token):
    path = tmp_path / "nan.mdp.json"
    text = json.dumps(good_dict(), indent=1).replace('"b": 1.0', f'"b": {token}', 1)
    path.write_text(text, encoding="utf-8")
    msg = str(raises_input_error(load_mdp, path))
    assert "nan.mdp.json" in msg and token.lstrip("-") in msg and "line" in msg


def test_probability_of_wrong_type():
    d = good_dict()
    d["transitions"]["a"]["go"] = {"a": "0.25", "b": 0.75}
    err = raises_input_error(mdp_from_dict, d)
    assert err.field == "transitions.a.go.a"


def test_non_finite_reward_is_refused():
    R = np.zeros((2, 1))
    R[1, 0] = np.nan
    err = raises_input_error(MDP, P=np.array([[[0.5, 0.5]], [[0.0, 1.0]]]), R=R, horizon=1)
    assert err.field == "rewards" and "s1/a0" in str(err)


# ----------------------------------------------------------------------------- names
@pytest.mark.parametrize("where, field", [
    ("target", "transitions.a.go"),
    ("source", "transitions"),
    ("rewards", "rewards"),
    ("terminal", "terminal_rewards"),
    ("initial", "initial_state"),
    ("layout", "layout"),
])
def test_unknown_state_names_are_refused(tmp_path, where, field):
    d = good_dict()
    if where == "target":
        d["transitions"]["a"]["go"] = {"a": 0.25, "zz": 0.75}
    elif where == "source":
        d["transitions"]["zz"] = {"stay": {"a": 1.0}}
    elif where == "rewards":
        d["rewards"]["zz"] = {"go": 1.0}
    elif where == "terminal":
        d["terminal_rewards"]["zz"] = 1.0
    elif where == "initial":
        d["initial_state"] = "zz"
    else:
        d["layout"] = {"zz": [0, 0]}
    err = raises_input_error(load_mdp, write_json(tmp_path, d))
    assert err.field == field
    assert "'zz'" in str(err) and "m.mdp.json" in str(err)


def test_reward_for_unknown_action_is_refused():
    d = good_dict()
    d["rewards"]["b"] = {"go": 1.0}  # state b has only "stay"
    err = raises_input_error(mdp_from_dict, d)
    assert err.field == "rewards.b" and "'go'" in str(err)


def test_duplicated_state_names():
    d = good_dict()
    d["states"] = ["a", "b", "a"]
    err = raises_input_error(mdp_from_dict, d)
    assert err.field == "states" and "'a'" in str(err)
    err = raises_input_error(MDP, P=np.full((2, 1, 2), 0.5), R=np.zeros((2, 1)),
                             state_names=("x", "x"))
    assert err.field == "state_names"


@pytest.mark.parametrize("acts", [{}, None])
def test_state_without_actions(acts):
    d = good_dict()
    if acts is None:
        del d["transitions"]["b"]
    else:
        d["transitions"]["b"] = acts
    err = raises_input_error(mdp_from_dict, d)
    assert err.field == "transitions.b" and "no actions" in str(err)


def test_state_without_actions_in_arrays():
    mask = np.array([[True], [False]])
    err = raises_input_error(MDP, P=np.array([[[0.5, 0.5]], [[0.0, 0.0]]]), R=np.zeros((2, 1)),
                             mask=mask, horizon=1)
    assert err.field == "transitions" and "'s1'" in str(err) and "no actions" in str(err)


# ----------------------------------------------------------------------------- horizon/discount
@pytest.mark.parametrize("horizon", [0, -3, 2.5, "3", True, [3]])
def test_bad_horizon(horizon):
    d = good_dict()
    d["horizon"] = horizon
    err = raises_input_error(mdp_from_dict, d)
    assert err.field == "horizon"


@pytest.mark.parametrize("horizon", [0, -1, 2.0, True])
def test_bad_horizon_in_arrays(horizon):
    err = raises_input_error(MDP, P=np.full((2, 1, 2), 0.5), R=np.zeros((2, 1)), horizon=horizon)
    assert err.field == "horizon"


@pytest.mark.parametrize("discount", [1.0, 1.5, 0.0, -0.5, "0.9", None])
def test_infinite_horizon_needs_discount_below_one(discount):
    d = good_dict()
    d["horizon"] = None
    d["discount"] = discount
    err = raises_input_error(mdp_from_dict, d)
    assert err.field == "discount"


def test_infinite_horizon_without_discount_key():
    d = good_dict()
    d["horizon"] = None
    del d["discount"]
    assert raises_input_error(mdp_from_dict, d).field == "discount"


def test_infinite_horizon_discount_in_arrays():
    P, R = np.full((2, 1, 2), 0.5), np.zeros((2, 1))
    assert raises_input_error(MDP, P=P, R=R, horizon=None, discount=1.0).field == "discount"
    assert MDP(P=P, R=R, horizon=None, discount=0.999).discount == 0.999


@pytest.mark.parametrize("discount", [0.0, 1.0000001, float("nan")])
def test_finite_horizon_discount_range(discount):
    err = raises_input_error(MDP, P=np.full((2, 1, 2), 0.5), R=np.zeros((2, 1)), horizon=3,
                             discount=discount)
    assert err.field == "discount"


@pytest.mark.parametrize("s0", [-1, 2, 1.0, True])
def test_bad_initial_state_index(s0):
    err = raises_input_error(MDP, P=np.full((2, 1, 2), 0.5), R=np.zeros((2, 1)), initial_state=s0)
    assert err.field == "initial_state"


@pytest.mark.parametrize("field, value", [
    ("P", np.full((2, 2), 0.5)), ("P", np.full((2, 1, 3), 1 / 3)), ("R", np.zeros((1, 2))),
    ("R_T", np.zeros(3)), ("mask", np.ones((2, 1), dtype=int)),
])
def test_bad_array_shapes(field, value):
    kw = dict(P=np.full((2, 1, 2), 0.5), R=np.zeros((2, 1)))
    kw[field] = value
    assert raises_input_error(MDP, **kw).field == field


# ----------------------------------------------------------------------------- the envelope
@pytest.mark.parametrize("key, value, field", [
    ("format", "privplan-map", "format"),
    ("version", 2, "version"),
    ("version", 0, "version"),
    ("states", [], "states"),
    ("states", ["a", 3], "states"),
    ("transitions", [], "transitions"),
])
def test_bad_envelope(key, value, field):
    d = good_dict()
    d[key] = value
    assert raises_input_error(mdp_from_dict, d).field == field


def test_top_level_must_be_an_object(tmp_path):
    path = tmp_path / "list.mdp.json"
    path.write_text("[1, 2]", encoding="utf-8")
    msg = str(raises_input_error(load_mdp, path))
    assert "list.mdp.json" in msg


# ----------------------------------------------------------------------------- files
def test_malformed_json_names_file_line_and_column(tmp_path):
    path = tmp_path / "broken.mdp.json"
    path.write_text('{\n  "format": "privplan-mdp",\n  "states": ["a",, "b"]\n}\n',
                    encoding="utf-8")
    err = raises_input_error(load_mdp, path)
    msg = str(err)
    assert str(path) in msg
    assert "line 3" in msg and "column 18" in msg  # the second comma


def test_missing_file_is_an_input_error(tmp_path):
    for name in ("nope.mdp.json", "nope.mdp.npz"):
        msg = str(raises_input_error(load_mdp, tmp_path / name))
        assert name in msg and "not found" in msg


def test_unknown_extension(tmp_path):
    path = tmp_path / "m.txt"
    path.write_text("{}", encoding="utf-8")
    assert "m.txt" in str(raises_input_error(load_mdp, path))


def test_not_utf8_json(tmp_path):
    path = tmp_path / "latin.mdp.json"
    path.write_bytes(b'{"name": "\xe9"}')
    assert "latin.mdp.json" in str(raises_input_error(load_mdp, path))


@pytest.mark.parametrize("content", [b"", b"garbage, not an archive", b"PK\x03\x04truncated",
                                     b"\x93NUMPY\x01\x00v\x00{'descr': '<f8'"])
def test_malformed_npz(tmp_path, content):
    path = tmp_path / "bad.mdp.npz"
    path.write_bytes(content)
    msg = str(raises_input_error(load_mdp, path))
    assert "bad.mdp.npz" in msg and "NPZ" in msg


def test_npy_file_with_npz_name(tmp_path):
    path = tmp_path / "array.mdp.npz"
    with open(path, "wb") as fh:
        np.save(fh, np.zeros((2, 1, 2)))
    assert "array.mdp.npz" in str(raises_input_error(load_mdp, path))


def test_zip_with_garbage_member(tmp_path):
    path = tmp_path / "junk.mdp.npz"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("P.npy", b"this is not an npy array")
    assert "junk.mdp.npz" in str(raises_input_error(load_mdp, path))


def test_npz_with_pickled_object_array_is_refused(tmp_path):
    path = tmp_path / "pickled.mdp.npz"
    np.savez(path, P=np.full((2, 1, 2), 0.5), R=np.zeros((2, 1)), horizon=1, discount=1.0,
             initial_state=0, state_names=np.array([{"evil": 1}, None], dtype=object))
    assert "pickled.mdp.npz" in str(raises_input_error(load_mdp, path))


REQUIRED_NPZ = ("P", "R", "horizon", "discount", "initial_state")


@pytest.mark.parametrize("missing", REQUIRED_NPZ)
def test_npz_missing_array(tmp_path, missing):
    arrays = dict(P=np.full((2, 1, 2), 0.5), R=np.zeros((2, 1)), horizon=np.int64(1),
                  discount=np.float64(1.0), initial_state=np.int64(0))
    del arrays[missing]
    path = tmp_path / "short.mdp.npz"
    np.savez(path, **arrays)
    err = raises_input_error(load_mdp, path)
    assert err.field == missing and "short.mdp.npz" in str(err) and "missing" in str(err)


def test_npz_bad_contents_name_the_file_and_field(tmp_path):
    path = tmp_path / "rows.mdp.npz"
    P = np.full((2, 1, 2), 0.5)
    P[0, 0] = (0.5, 0.4)
    np.savez(path, P=P, R=np.zeros((2, 1)), horizon=1, discount=1.0, initial_state=0)
    err = raises_input_error(load_mdp, path)
    assert err.field == "transitions" and "rows.mdp.npz" in str(err) and "0.9" in str(err)
    np.savez(path, P=np.full((2, 1, 2), 0.5), R=np.zeros((2, 1)), horizon=-1, discount=1.0,
             initial_state=0)
    assert raises_input_error(load_mdp, path).field == "discount"
    np.savez(path, P=np.full((2, 1, 2), 0.5), R=np.zeros((2, 1)), horizon=1, discount=1.0,
             initial_state=5)
    assert raises_input_error(load_mdp, path).field == "initial_state"
    np.savez(path, P=np.full((2, 1, 2), 0.5), R=np.zeros((2, 1)), horizon=1, discount=1.0,
             initial_state=0, action_names=np.array(["x", "y", "z"]))
    assert raises_input_error(load_mdp, path).field == "action_names"


def test_mdp_errors_carry_the_file_once(tmp_path):
    d = copy.deepcopy(good_dict())
    d["initial_state"] = "nowhere"
    path = write_json(tmp_path, d)
    err = raises_input_error(load_mdp, path)
    assert err.file == str(path) and str(err).count(str(path)) == 1
    assert str(err).startswith(f"{path}: initial_state: ")
