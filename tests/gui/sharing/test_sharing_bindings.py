"""The Policy sharing set-up is one table of (widget, record key) bindings: a value set in a
widget reaches its SharingParameters key, SharingParameters shown set every widget, and a
refused value turns the widget bound to the core's field red with the core's message."""

from __future__ import annotations

import pytest

from core.common.errors import InputError
from core.sharing import SharingParameters, SharingSetup
from gui.sharing.panel import SharingPanel
from gui.sharing.texts import TOOLTIPS
from gui.sharing.views import SPIN_KEYS

ENV = "mdp:four-startups"


@pytest.fixture
def panel(qtbot, example_doc):
    p = SharingPanel(example_doc)
    qtbot.addWidget(p)
    p.set_parameters(env=ENV)
    yield p
    p.shutdown()


def _params(panel) -> dict:
    return panel.inputs.parameters(ENV).to_dict()


def _combo(combo, value) -> None:
    i = combo.findData(value)
    assert i >= 0, value
    combo.setCurrentIndex(i)


#: (record key, how the widget is set, the key's value in the parameters)
WIDGET_VALUES = (
    *((key, lambda p, name=name: p.fields[name].setValue(0.0625), 0.0625)
      for name, key in SPIN_KEYS.items()),
    ("delta", lambda p: p.fields["delta"].setValue(0.002), 0.002),
    ("tau", lambda p: (_combo(p.bound_combo, "paper"), p.tau_check.setChecked(True),
                       p.fields["tau"].setValue(0.004)), 0.004),
    ("delta", lambda p: (_combo(p.bound_combo, "paper"), p.tau_check.setChecked(True)), None),
    ("bound", lambda p: _combo(p.bound_combo, "tight"), "tight"),
    ("budget", lambda p: (p.fields["budget_e"].setValue(321.0),
                          p.fields["budget_d"].setValue(0.5)), [321.0, 0.5]),
    ("iterations", lambda p: p.iter_spin.setValue(17), 17),
    ("rollout", lambda p: _combo(p.rollout_combo, "sample"), "sample"),
    ("gradient", lambda p: _combo(p.protocol.combos["gradient"], "sampled"), "sampled"),
    ("episodes", lambda p: (_combo(p.protocol.combos["gradient"], "sampled"),
                            p.protocol.episodes_spin.setValue(9)), 9),
    ("teacher", lambda p: _combo(p.teacher_combo, "softmax"), "softmax"),
    ("temperature", lambda p: p.temperature_spin.setValue(0.25), 0.25),
    ("students", lambda p: [c.setChecked(k == "aware") for k, c in p.student_checks.items()],
     ["aware"]),
    ("seeds", lambda p: p.seeds_spin.setValue(3), 3),
    ("seed", lambda p: p.seed_spin.setValue(99), 99),
    ("seed", lambda p: _combo(p.mode_combo, "release"), None),
)


@pytest.mark.parametrize(("key", "set_widget", "value"), WIDGET_VALUES,
                         ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(WIDGET_VALUES)])
def test_a_value_set_in_its_widget_reaches_its_key(panel, key, set_widget, value):
    set_widget(panel)
    got = _params(panel)[key]
    assert got == (pytest.approx(value) if isinstance(value, float) else value)


@pytest.mark.parametrize("params", [
    SharingParameters(ENV, SharingSetup(k0=12.0, coef=0.8, eta=0.05, lb=0.1, delta=0.004,
                                        bound="paper", lam=0.75, beta=0.02, kappa=3.0, lr=2.0,
                                        budget=(500.0, 0.25), iterations=21,
                                        rollout="sample", gradient="sampled", episodes=6),
                      students=("none", "aware"), seeds=4, seed=11, teacher="softmax",
                      temperature=0.3),
    SharingParameters(ENV, SharingSetup(delta=None, tau=0.002, bound="tight"),
                      students=("unaware",), seeds=2, seed=None),
], ids=["seeded-softmax", "fixed-tau-release"])
def test_parameters_shown_are_read_back_unchanged(panel, params):
    panel.inputs.show_parameters(params)
    assert panel.inputs.parameters(ENV) == params


def test_every_record_key_is_bound(panel):
    record = SharingParameters(ENV).to_dict()
    bound = {b.field for b in panel.inputs.bindings()}
    # every key of a run record's params but ``seeded`` (the seed says it) and the two
    # the window keeps at their defaults (the command line's --draws and --steps)
    assert bound == set(record) - {"seeded", "draws", "steps"}


def test_set_parameters_takes_the_tables_names(panel):
    panel.set_parameters(lam=0.125, budget_e=50.0, budget_d=0.75, tau=0.003, bound="paper")
    d = _params(panel)
    assert (d["lambda"], d["budget"], d["tau"], d["delta"]) == (0.125, [50.0, 0.75], 0.003,
                                                                None)
    panel.set_parameters(delta=0.01)  # a target δ again: τ is no longer fixed
    assert (_params(panel)["tau"], _params(panel)["delta"]) == (None, 0.01)
    k0 = panel.fields["k0"].value()
    with pytest.raises(ValueError, match="colour"):
        panel.set_parameters(k0=99.0, colour="red")
    assert panel.fields["k0"].value() == k0  # nothing set
    with pytest.raises(ValueError, match="environment"):
        panel.set_parameters(env="mdp:nowhere")


@pytest.mark.parametrize(("name", "key"), [("lam", "lambda"), ("budget_e", "budget")])
def test_a_refusal_turns_the_bound_widget_red_with_the_cores_message(panel, name, key):
    box = panel.fields[name]
    box.setMinimum(-5.0)
    box.setValue(-1.0)
    with pytest.raises(InputError) as core:
        panel.inputs.parameters(ENV)
    assert core.value.field == key
    assert not panel.run()
    assert panel.message.text() == str(core.value)
    assert box.toolTip().startswith(core.value.problem)
    assert box.toolTip().endswith(TOOLTIPS[name]) and box.styleSheet()
