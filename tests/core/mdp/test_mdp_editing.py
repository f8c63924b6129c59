"""Editor support in the core: bulk moves, restore, digests, summaries, automatic layout."""

from __future__ import annotations

import numpy as np
import pytest

from core.mdp.editable import MdpModel
from core.mdp.examples import example2, four_startups, random_mdp
from core.mdp.layout import auto_layout, default_spacing, fill_missing_positions


def test_move_states_is_one_version_step_and_can_clear():
    m = MdpModel.from_mdp(four_startups())
    v = m.version
    m.move_states({"st-1": (1.0, 2.0), "st-2": None})
    assert m.version == v + 1
    assert m.position("st-1") == (1.0, 2.0) and m.position("st-2") is None


def test_restore_takes_the_content_and_bumps_the_version():
    m = MdpModel.from_mdp(four_startups())
    before = m.copy()
    m.remove_state("st-2")
    m.set_settings(horizon=5)
    v = m.version
    m.restore(before)
    assert m.version > v
    assert m.to_dict() == before.to_dict()
    m.set_state_label("st-1", "changed")  # the snapshot stays independent
    assert before.state_labels[0] == "start"


def test_digest_follows_what_analyses_read():
    m = MdpModel.from_mdp(four_startups())
    d = m.digest()
    assert m.copy().digest() == d
    m.move_state("st-1", (9.0, 9.0))
    m.set_settings(name="renamed")
    assert m.digest() == d  # position and name do not change results
    for edit in (lambda x: x.set_reward("ac-1", -1.0),
                 lambda x: x.set_probability("ac-1", "st-1", 0.02),
                 lambda x: x.set_state_label("st-3", "lost"),
                 lambda x: x.set_settings(horizon=4)):
        other = m.copy()
        edit(other)
        assert other.digest() != d


def test_summary_accepts_precomputed_problems():
    m = MdpModel.from_mdp(four_startups())
    m.set_probability("ac-1", "st-1", 0.5)
    problems = m.problems()
    assert m.summary(problems) == m.summary()
    assert m.summary().startswith("model invalid: state 'start', action 'acquire_1'")
    assert m.summary([]).startswith("model valid")


@pytest.mark.parametrize("mdp", [four_startups(), example2(), random_mdp(60, 2, 3, seed=1)],
                         ids=["3", "20", "60"])
def test_auto_layout_spreads_states_at_the_spacing(mdp):
    m = MdpModel.from_mdp(mdp)
    pos = auto_layout(m)
    assert pos.shape == (m.n_states, 2) and np.isfinite(pos).all()
    d = np.hypot(*(pos[:, None] - pos[None]).transpose(2, 0, 1))
    np.fill_diagonal(d, np.inf)
    nearest = d.min(axis=1)
    assert np.median(nearest) == pytest.approx(default_spacing(m.n_states), rel=0.02)
    assert nearest.min() > 0.2 * default_spacing(m.n_states)  # nobody on top of another
    assert np.ptp(pos[:, 0]) >= np.ptp(pos[:, 1]) - 1e-6  # wider than tall


def test_auto_layout_tiny_and_empty_models():
    m = MdpModel()
    assert auto_layout(m).shape == (0, 2)
    m.add_state("only")
    assert auto_layout(m).tolist() == [[0.0, 0.0]]
    m.add_state("two")
    pos = auto_layout(m, spacing=100.0)
    assert pos[0, 0] < pos[1, 0] and np.hypot(*(pos[1] - pos[0])) == pytest.approx(100.0)


def test_fill_missing_positions_keeps_the_placed_states():
    m = MdpModel.from_mdp(four_startups())
    m.add_state("new")
    m.add_state("newer")
    pos = fill_missing_positions(m)
    assert pos[:3].tolist() == m.positions[:3].tolist()
    assert np.isfinite(pos).all() and pos[3, 1] > m.positions[:3, 1].max()
    assert pos[3].tolist() != pos[4].tolist()
    everything = MdpModel.from_mdp(random_mdp(5, 2, 2, seed=3))  # no layout at all
    assert np.isfinite(fill_missing_positions(everything)).all()


def test_fill_project_layouts_only_touches_drawable_models_without_positions():
    from core.project.layout import fill_project_layouts
    from core.project.model import Project

    p = Project()
    p.add_mdp(four_startups(), "laid-out")
    p.add_mdp(random_mdp(5, 2, 2, seed=1), "bare")
    p.add_mdp(random_mdp(12, 1, 1, seed=1), "big")
    assert fill_project_layouts(p, max_states=10) == ["bare"]
    assert np.isfinite(p.entry("bare").model.positions).all()
    assert not np.isfinite(p.entry("big").model.positions).any()
    assert p.entry("laid-out").model.position("st-2") == (320.0, -140.0)
    assert p.entry("bare").mdp.layout is not None  # the cached MDP follows the new version


def test_digest_of_the_frozen_mdp_matches_the_model():
    from core.mdp.editable import digest_of

    m = MdpModel.from_mdp(four_startups())  # masked actions: A = 4 but 1 action elsewhere
    mdp = m.to_mdp()
    assert digest_of(m.digest_key(), mdp.P, mdp.R, mdp.R_T) == m.digest()
