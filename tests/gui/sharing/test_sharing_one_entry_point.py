"""The Policy sharing tab and ``share ENV …`` build the same SharingParameters for the same
inputs (the core checks them once; the window shows the core's refusal on its field)."""

from __future__ import annotations

import pytest

from core.cli.main import build_parser
from core.cli.sharing import share_parameters
from core.common.errors import InputError
from gui.sharing.panel import SharingPanel

#: the same run in the window's fields and on the command line (the window lists the students
#: in its own order: none, nonprivate, aware, unaware)
FIELDS = {"k0": 20.0, "coef": 0.9, "eta": 0.1, "lb": 0.05, "delta": 0.01, "lam": 0.25,
          "beta": 0.05, "kappa": 2.0, "lr": 3.0, "budget_e": 1e6, "budget_d": 0.9,
          "iterations": 3, "seeds": 2, "seed": 5, "students": ["aware", "none"],
          "after_budget": "random", "reward_scale": "none", "gradient": "sampled",
          "episodes": 4, "penalty_weight": "occupancy", "nonprivate_target": "mixed"}
ARGV = ["--k0", "20", "--coef", "0.9", "--eta", "0.1", "--lb", "0.05", "--delta", "0.01",
        "--lambda", "0.25", "--beta", "0.05", "--kappa", "2", "--lr", "3",
        "--budget", "1e6,0.9", "--iterations", "3", "--seeds", "2", "--seed", "5",
        "--students", "none,aware", "--after-budget", "random", "--reward-scale", "none",
        "--gradient", "sampled", "--episodes", "4", "--penalty-weight", "occupancy",
        "--nonprivate-target", "mixed"]


@pytest.fixture
def panel(qtbot, example_doc):
    p = SharingPanel(example_doc)
    qtbot.addWidget(p)
    yield p
    p.shutdown()


def test_the_window_and_the_command_line_build_equal_parameters(panel) -> None:
    panel.set_parameters(env="mdp:four-startups", **FIELDS)
    panel.temperature_spin.setValue(1.0)  # the command line's optimal teacher keeps T = 1
    gui = panel.inputs.parameters(str(panel.env_combo.currentData()))
    args = build_parser().parse_args(["share", "p.privplan.json", "--mdp", "four-startups",
                                      *ARGV])
    cli = share_parameters(args, "mdp:four-startups")
    assert gui == cli and gui.to_dict() == cli.to_dict()
    # a softmax teacher: the window keeps its kind and T apart, the flag writes softmax:T
    panel.teacher_combo.setCurrentIndex(panel.teacher_combo.findData("softmax"))
    panel.temperature_spin.setValue(0.5)
    soft = panel.inputs.parameters("mdp:four-startups")
    flag = share_parameters(build_parser().parse_args(
        ["share", "p.privplan.json", "--mdp", "four-startups", *ARGV, "--teacher",
         "softmax:0.5"]), "mdp:four-startups")
    assert (soft.teacher_kind, soft.temperature) == (flag.teacher_kind, flag.temperature)


def test_a_refusal_is_the_cores_and_turns_its_field_red(panel) -> None:
    panel.set_parameters(env="mdp:four-startups", beta=0.999, lam=0.0, iterations=3)
    panel.fields["coef"].setMinimum(0.0)
    panel.fields["coef"].setValue(0.0)  # below the core's (0, 1]
    with pytest.raises(InputError) as info:
        panel.inputs.parameters("mdp:four-startups")
    assert info.value.field == "coef"
    assert not panel.run()
    assert "coef" in panel.message.text() and "(0, 1]" in panel.fields["coef"].toolTip()
