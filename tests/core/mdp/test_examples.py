"""The committed example files equal what ``tools/make_examples.py`` writes today."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from core.mdp.examples import EXAMPLE2_SEED, example2, four_startups, random_mdp
from core.mdp.files import load_mdp
from core.project.files import load_project

ROOT = Path(__file__).resolve().parents[3]
ASSETS = ROOT / "assets" / "examples"


@pytest.fixture(scope="module")
def generated(tmp_path_factory, run_tool):
    return run_tool("make_examples", tmp_path_factory.mktemp("examples"))


def test_generator_writes_every_committed_file(generated):
    # *.map.json files come from tools/make_map_examples.py
    # (tests/core/logistics/test_logistics_model.py); *.plan.json are written by hand (the
    # privacy plans a user reads first; tests/core/plan loads and evaluates each)
    assert sorted(p.name for p in generated.iterdir()) == sorted(
        p.name for p in ASSETS.iterdir() if not p.name.endswith((".map.json", ".plan.json")))


@pytest.mark.parametrize("name", sorted(p.name for p in ASSETS.glob("*.json")
                                         if not p.name.endswith((".map.json", ".plan.json"))))
def test_committed_json_is_current(generated, name):
    assert (ASSETS / name).read_bytes() == (generated / name).read_bytes(), (
        f"assets/examples/{name} is stale: run `make examples` (tools/make_examples.py)")


@pytest.mark.parametrize("name", sorted(p.name for p in ASSETS.glob("*.npz")))
def test_committed_npz_is_current(generated, name):
    with np.load(ASSETS / name, allow_pickle=False) as old, \
            np.load(generated / name, allow_pickle=False) as new:
        assert sorted(old.files) == sorted(new.files)
        for key in old.files:
            assert old[key].dtype == new[key].dtype, key
            np.testing.assert_array_equal(old[key], new[key], err_msg=key)


def test_examples_load_as_the_code_builds_them():
    assert load_mdp(ASSETS / "four_startups.mdp.json") == four_startups()
    assert load_mdp(ASSETS / "example2.mdp.json") == example2()
    npz = load_mdp(ASSETS / "example2.mdp.npz")
    assert npz == example2().replace(name=npz.name)
    project = load_project(ASSETS / "builtin.privplan.json")
    assert [e.id for e in project.mdps] == ["four-startups", "example-2"]
    assert project.mdps[0].mdp == four_startups() and project.mdps[1].mdp == example2()


def test_example_models_match_the_spec():
    m = example2()
    assert (m.n_states, m.n_actions, m.horizon, m.discount, m.initial_state) == (20, 5, 10, 1.0, 0)
    assert (m.P > 0).all() and m.mask.all()  # interior rows: u/Σu with u ~ U(0,1)
    assert ((0 <= m.R) & (m.R <= 1)).all() and ((0 <= m.R_T) & (m.R_T <= 1)).all()
    assert example2() == example2(EXAMPLE2_SEED)  # fixed seed: same model every time
    assert random_mdp(4, 2, None, seed=1).discount == 0.95
    f = four_startups()
    assert "placeholder" in f.name
    assert f.available_actions(0) == [0, 1, 2, 3] and f.available_actions(1) == [0]
    assert (f.P[f.mask] > 0).all()  # every row interior (ε₀ = 0.01)
