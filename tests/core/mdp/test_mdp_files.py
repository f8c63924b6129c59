"""MDP file round trips (JSON and NPZ) and atomic saving."""

from __future__ import annotations

import json
import os
import stat

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.common.atomic import atomic_write_bytes, atomic_write_text
from core.common.errors import InputError
from core.mdp.examples import example2, four_startups, random_mdp
from core.mdp.files import load_mdp, mdp_from_dict, mdp_to_dict, save_mdp
from core.mdp.model import MDP

# The example of docs/formats-and-cli.md §1, verbatim.
FORMATS_EXAMPLE = """
{
  "format": "privplan-mdp",
  "version": 1,
  "name": "four startups",
  "states": ["start", "success", "failure"],
  "initial_state": "start",
  "horizon": 3,
  "discount": 1.0,
  "transitions": {
    "start":   {"acquire_1": {"start": 0.01, "success": 0.198, "failure": 0.792}},
    "success": {"stay": {"start": 0.01, "success": 0.98, "failure": 0.01}},
    "failure": {"stay": {"start": 0.01, "success": 0.01, "failure": 0.98}}
  },
  "rewards": {"start": {"acquire_1": -0.05}},
  "terminal_rewards": {"success": 1.0},
  "layout": {"start": [0, 0], "success": [200, -80], "failure": [200, 80]}
}
"""


def state_dependent_mdp(horizon: int | None = 4, discount: float = 1.0) -> MDP:
    """Three states with 3, 1 and 2 actions, odd names, structural zeros, a layout."""
    P = np.zeros((3, 3, 3))
    P[0, 0] = (0.1, 0.2, 0.7)
    P[0, 1] = (0.0, 1.0, 0.0)
    P[0, 2] = (1 / 3, 1 / 3, 1 / 3)
    P[1, 0] = (0.5, 0.0, 0.5)
    P[2, 0] = (0.0, 0.0, 1.0)
    P[2, 1] = (0.123456789012345, 0.0, 1 - 0.123456789012345)
    mask = np.array([[True, True, True], [True, False, False], [True, True, False]])
    R = np.array([[-0.5, 1e-300, 3.0], [0.0, 0.0, 0.0], [2.5, -7.0, 0.0]])
    return MDP(P=P, R=R, R_T=np.array([0.0, 1.0, -2.0]), mask=mask, horizon=horizon,
               discount=discount, initial_state=1, state_names=("Idle", "busy ü", "s 3"),
               action_names=(("ship", "hold", "wait"), ("go", "", ""), ("stay", "leave", "")),
               name="state-dependent", layout={"Idle": (0, 1), "busy ü": (2.5, -3)})


MDPS = {
    "four_startups": four_startups,
    "state_dependent": state_dependent_mdp,
    "infinite": lambda: state_dependent_mdp(horizon=None, discount=0.9),
    "random_infinite": lambda: random_mdp(6, 3, None, seed=5, discount=0.95),
    "example2": example2,
}


@pytest.mark.parametrize("suffix", [".mdp.json", ".mdp.npz"])
@pytest.mark.parametrize("which", list(MDPS))
def test_round_trip(tmp_path, which, suffix):
    m = MDPS[which]()
    path = tmp_path / f"{m.name.split(' ')[0] or 'x'}{suffix}"
    save_mdp(m, path)
    loaded = load_mdp(path)
    if suffix == ".mdp.json":
        assert loaded == m
        assert loaded.layout == m.layout
    else:
        # The NPZ format (docs/formats-and-cli.md §2) has no name field: the loader names the
        # model after the file. Everything else must survive exactly.
        assert loaded.name == path.name.split(".")[0]
        assert loaded == m.replace(name=loaded.name)
    np.testing.assert_array_equal(loaded.P, m.P)  # bit-exact floats, not just close
    assert loaded.horizon == m.horizon and loaded.discount == m.discount
    assert sorted(os.listdir(tmp_path)) == [path.name]


def test_json_dict_round_trip_is_stable():
    m = state_dependent_mdp()
    d = mdp_to_dict(m)
    assert mdp_from_dict(json.loads(json.dumps(d))) == m
    assert mdp_to_dict(mdp_from_dict(d)) == d
    assert list(d["transitions"]["Idle"]) == ["ship", "hold", "wait"]  # file order = index order
    assert d["transitions"]["busy ü"] == {"go": {"Idle": 0.5, "s 3": 0.5}}  # sparse rows


@settings(max_examples=40)
@given(seed=st.integers(0, 2**32 - 1), S=st.integers(1, 6), A=st.integers(1, 4),
       horizon=st.one_of(st.none(), st.integers(1, 30)), holes=st.booleans())
def test_round_trip_random(tmp_path_factory, random_mdp_factory, seed, S, A, horizon, holes):
    m = random_mdp_factory(np.random.default_rng(seed), S, A, horizon, zeros=0.3, holes=holes)
    folder = tmp_path_factory.mktemp("rt")
    save_mdp(m, folder / "m.mdp.npz")
    loaded = load_mdp(folder / "m.mdp.npz")
    assert loaded == m.replace(name=loaded.name)
    if not holes:
        save_mdp(m, folder / "m.mdp.json")
        assert load_mdp(folder / "m.mdp.json") == m


def test_json_packs_action_sets_with_holes(tmp_path):
    """A JSON file lists each state's actions as indices 0..n_s-1 (file order), so an
    array MDP whose available actions have holes comes back packed to the left."""
    P = np.zeros((2, 3, 2))
    P[0, 1] = P[0, 2] = P[1, 0] = (0.5, 0.5)
    mask = np.array([[False, True, True], [True, False, False]])
    m = MDP(P=P, R=np.array([[0.0, 1.0, 2.0], [3.0, 0.0, 0.0]]), mask=mask, horizon=1,
            action_names=(("", "b", "c"), ("d", "", "")))
    save_mdp(m, tmp_path / "h.mdp.json")
    loaded = load_mdp(tmp_path / "h.mdp.json")
    assert loaded.mask.tolist() == [[True, True], [True, False]]
    assert loaded.action_names[0] == ("b", "c") and loaded.R[0].tolist() == [1.0, 2.0]


def test_formats_page_example_loads(tmp_path):
    path = tmp_path / "startups.mdp.json"
    path.write_text(FORMATS_EXAMPLE, encoding="utf-8")
    m = load_mdp(path)
    assert m.name == "four startups"
    assert m.state_names == ("start", "success", "failure")
    assert (m.n_states, m.n_actions, m.horizon, m.discount, m.initial_state) == (3, 1, 3, 1.0, 0)
    np.testing.assert_array_equal(m.P[:, 0], [[0.01, 0.198, 0.792], [0.01, 0.98, 0.01],
                                              [0.01, 0.01, 0.98]])
    assert m.R[:, 0].tolist() == [-0.05, 0.0, 0.0]
    assert m.R_T.tolist() == [0.0, 1.0, 0.0]
    assert m.action_names[0] == ("acquire_1",) and m.action_names[1] == ("stay",)
    assert m.layout == {"start": (0.0, 0.0), "success": (200.0, -80.0), "failure": (200.0, 80.0)}


def test_npz_without_optional_arrays_loads(tmp_path):
    path = tmp_path / "bare.mdp.npz"
    P = np.array([[[0.5, 0.5], [1.0, 0.0]], [[0.0, 1.0], [0.2, 0.8]]])
    np.savez(path, P=P, R=np.array([[1.0, 0.0], [0.0, 2.0]]), horizon=np.int64(-1),
             discount=np.float64(0.9), initial_state=np.int64(1))
    m = load_mdp(path)
    np.testing.assert_array_equal(m.P, P)
    assert m.horizon is None and m.discount == 0.9 and m.initial_state == 1
    assert m.R_T.tolist() == [0.0, 0.0] and m.mask.all()
    assert m.state_names == ("s0", "s1") and m.action_names[1] == ("a0", "a1")


def test_npz_integer_probabilities_and_per_state_action_names(tmp_path):
    path = tmp_path / "ints.mdp.npz"
    np.savez(path, P=np.array([[[1, 0]], [[0, 1]]]), R=np.zeros((2, 1)), horizon=2, discount=1,
             initial_state=0, action_names=np.array([["x"], ["y"]]),
             state_names=np.array(["p", "q"]))
    m = load_mdp(path)
    assert m.P.dtype == np.float64 and m.action_names == (("x",), ("y",))
    assert m.state_names == ("p", "q")


def test_npz_is_loaded_without_pickle(tmp_path, monkeypatch):
    seen = {}
    real_load = np.load

    def spy(*args, **kwargs):
        seen.update(kwargs)
        return real_load(*args, **kwargs)

    monkeypatch.setattr(np, "load", spy)
    save_mdp(four_startups(), tmp_path / "a.mdp.npz")
    load_mdp(tmp_path / "a.mdp.npz")
    assert seen.get("allow_pickle") is False


def test_npz_layout(tmp_path):
    save_mdp(four_startups(), tmp_path / "a.mdp.npz")
    with np.load(tmp_path / "a.mdp.npz", allow_pickle=False) as z:
        assert z["P"].dtype == np.float64 and z["P"].shape == (3, 4, 3)
        assert z["R"].shape == (3, 4) and z["R_T"].shape == (3,)
        assert z["mask"].dtype == bool and z["mask"].shape == (3, 4)
        assert int(z["horizon"]) == 3 and float(z["discount"]) == 1.0
        assert int(z["initial_state"]) == 0
        assert z["state_names"].tolist() == ["start", "success", "failure"]


def test_mdp_arrays_are_read_only():
    m = four_startups()
    for arr in (m.P, m.R, m.R_T, m.mask):
        with pytest.raises(ValueError):
            arr[0] = 0


def test_masked_entries_are_zeroed():
    P = np.full((2, 2, 2), 0.5)
    P[1, 1] = (7.0, 7.0)  # garbage in an unavailable row is ignored, then zeroed
    m = MDP(P=P, R=np.ones((2, 2)), mask=np.array([[True, True], [True, False]]))
    assert m.P[1, 1].tolist() == [0.0, 0.0] and m.R[1, 1] == 0.0


# ----------------------------------------------------------------------------- atomic writes
def test_atomic_save_leaves_no_temp_files(tmp_path):
    for i in range(3):
        save_mdp(four_startups(), tmp_path / "a.mdp.json")
        save_mdp(four_startups(), tmp_path / "a.mdp.npz")
        atomic_write_text(tmp_path / "t.txt", f"v{i}")
    assert sorted(os.listdir(tmp_path)) == ["a.mdp.json", "a.mdp.npz", "t.txt"]
    assert (tmp_path / "t.txt").read_text() == "v2"


@pytest.mark.parametrize("suffix", [".mdp.json", ".mdp.npz"])
def test_failed_save_keeps_old_file(tmp_path, monkeypatch, suffix):
    path = tmp_path / f"a{suffix}"
    save_mdp(four_startups(), path)
    before = path.read_bytes()

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="No space"):
        save_mdp(example2(), path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == [path.name]


def test_failed_write_keeps_old_file(tmp_path, monkeypatch):
    path = tmp_path / "t.txt"
    atomic_write_text(path, "old")

    def broken_fsync(fd):
        raise OSError(5, "I/O error")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError):
        atomic_write_bytes(path, b"new")
    assert path.read_text() == "old" and os.listdir(tmp_path) == ["t.txt"]


def test_interrupted_save_keeps_old_file(tmp_path, monkeypatch):
    path = tmp_path / "t.txt"
    atomic_write_text(path, "old")

    def interrupted(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_text(path, "new")
    assert path.read_text() == "old" and os.listdir(tmp_path) == ["t.txt"]


@pytest.fixture
def umask_027():
    old = os.umask(0o027)
    try:
        yield
    finally:
        os.umask(old)


def test_new_file_permissions_respect_umask(tmp_path, umask_027):
    save_mdp(four_startups(), tmp_path / "a.mdp.json")
    save_mdp(four_startups(), tmp_path / "a.mdp.npz")
    for name in ("a.mdp.json", "a.mdp.npz"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o640


def test_existing_file_keeps_its_permissions(tmp_path, umask_027):
    path = tmp_path / "a.mdp.json"
    path.write_text("{}")
    os.chmod(path, 0o604)
    save_mdp(four_startups(), path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o604
    assert load_mdp(path) == four_startups()


def test_save_into_missing_folder_is_an_input_error(tmp_path):
    with pytest.raises(InputError) as info:
        save_mdp(four_startups(), tmp_path / "no" / "such" / "a.mdp.json")
    assert info.value.field == "output" and "a.mdp.json" in str(info.value)


def test_save_with_unknown_suffix_is_an_input_error(tmp_path):
    with pytest.raises(InputError):
        save_mdp(four_startups(), tmp_path / "a.csv")
    assert os.listdir(tmp_path) == []
