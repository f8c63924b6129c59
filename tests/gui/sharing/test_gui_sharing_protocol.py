"""The Policy sharing workspace's protocol group: after the budget, reward scale, gradient and
penalty weight reach the core's set-up, the run and its record."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from core.mdp.examples import four_startups
from core.sharing import SharingSetup
from core.sharing.learning import sharing_study
from gui.sharing.panel import SharingPanel
from gui.sharing.protocol import PROTOCOL_TOOLTIPS

TIMEOUT = 60_000


@pytest.fixture
def panel(qtbot, example_doc):
    p = SharingPanel(example_doc)
    qtbot.addWidget(p)
    p.resize(1300, 850)
    p.show()
    yield p
    p.shutdown()


def test_defaults_are_the_cores_and_every_choice_is_explained(panel):
    default = SharingSetup()
    values = panel.protocol.values()
    for key in ("after_budget", "reward_scale", "gradient", "penalty_weight", "episodes",
                "nonprivate_target"):
        assert values[key] == getattr(default, key)
    for key, combo in panel.protocol.combos.items():
        assert combo.toolTip() == PROTOCOL_TOOLTIPS[key] and len(combo.toolTip()) > 80
    assert not panel.protocol.episodes_spin.isEnabled()  # only for the sampled gradient
    panel.set_parameters(gradient="sampled")
    assert panel.protocol.episodes_spin.isEnabled()
    with pytest.raises(ValueError, match="after_budget"):
        panel.set_parameters(after_budget="later")


def test_the_papers_rule_runs_and_is_recorded(qtbot, panel):
    # a budget the teacher spends within the run, so the after-budget rule matters
    panel.set_parameters(env="mdp:four-startups", iterations=12, seeds=3, seed=5, coef=0.9,
                         eta=0.1, budget_e=60.0, budget_d=0.9, after_budget="random",
                         reward_scale="none", gradient="sampled", episodes=3,
                         penalty_weight="occupancy", nonprivate_target="mixed")
    setup = panel.setup()
    assert (setup.after_budget, setup.reward_scale, setup.gradient, setup.episodes,
            setup.penalty_weight, setup.nonprivate_target) == (
        "random", "none", "sampled", 3, "occupancy", "mixed")
    with qtbot.waitSignal(panel.runner.succeeded, timeout=TIMEOUT):
        assert panel.run()
    ref = sharing_study(four_startups(), setup, seeds=3, seed=5)
    assert ref.result.ledger.stopped_at is not None  # the rule was exercised
    for kind in ("none", "nonprivate", "aware", "unaware"):
        np.testing.assert_array_equal(panel.study.result.curves[kind], ref.result.curves[kind])
    # the stop rule gives other curves for the noisy students once the teacher has stopped
    stop = sharing_study(four_startups(), replace(setup, after_budget="stop"), seeds=3, seed=5)
    assert not np.array_equal(stop.result.curves["unaware"], ref.result.curves["unaware"])
    record = panel._document.project.runs[-1]
    for key in ("after_budget", "reward_scale", "gradient", "penalty_weight",
                "nonprivate_target"):
        assert record.params[key] == getattr(setup, key)
    assert record.params["episodes"] == 3
    notes = " ".join(record.summary["notes"])
    assert "uniformly random policies" in notes and "normalised occupancy" in notes
