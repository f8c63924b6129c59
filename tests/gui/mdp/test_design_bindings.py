"""The Design dialog reads DesignParameters through one table of (widget, field) bindings:
a value set in a widget reaches its field, DesignParameters shown set every widget, the
table gives each widget its help, and a refused value shows the core's message."""

from __future__ import annotations

import dataclasses

import pytest

from core.common import InputError
from core.mdp import DesignParameters
from gui.mdp.analysis_panel import AnalysisPanel
from gui.mdp.design_dialog import LABELS, TIPS, DesignDialog
from gui.shell.style import pretty_message
from gui.shell.workers import TaskRunner


@pytest.fixture
def dialog(qtbot, example_doc):
    runner = TaskRunner()
    panel = AnalysisPanel(example_doc, "four-startups", runner)
    qtbot.addWidget(panel)
    d = DesignDialog(example_doc, "four-startups", panel)
    qtbot.addWidget(d)
    yield panel, d
    d.runner.shutdown()
    runner.shutdown()


def _combo(combo, value) -> None:
    i = combo.findData(value)
    assert i >= 0, value
    combo.setCurrentIndex(i)


WIDGET_VALUES = (
    ("epsilon", lambda d: d.epsilon_spin.setValue(2.5), 2.5),
    ("delta", lambda d: d.delta_spin.setValue(1e-6), 1e-6),
    ("b", lambda d: d.b_spin.setValue(0.35), 0.35),
    ("adjacency", lambda d: _combo(d.adjacency_combo, "all-rows"), "all-rows"),
    ("beta", lambda d: d.beta_spin.setValue(0.2), 0.2),
    ("selection", lambda d: _combo(d.selection_combo, "exponential"), "exponential"),
    ("selection_epsilon", lambda d: (_combo(d.selection_combo, "exponential"),
                                     d.selection_eps_spin.setValue(0.8)), 0.8),
)


@pytest.mark.parametrize(("field", "set_widget", "value"), WIDGET_VALUES,
                         ids=[f for f, _, _ in WIDGET_VALUES])
def test_a_value_set_in_its_widget_reaches_its_field(dialog, field, set_widget, value):
    _, d = dialog
    set_widget(d)
    assert getattr(d.parameters(), field) == pytest.approx(value)


def test_the_seed_is_the_workspaces_and_only_for_an_exponential_selection(dialog):
    panel, d = dialog
    panel.set_parameters(seeded=True, seed=77)
    assert d.parameters().seed is None  # a public selection draws nothing
    _combo(d.selection_combo, "exponential")
    assert d.parameters().seed == 77
    panel.seeded_check.setChecked(False)
    assert d.parameters().seed is None  # release mode


@pytest.mark.parametrize("params", [
    DesignParameters(epsilon=3.0, delta=1e-4, b=0.25, adjacency="all-rows", beta=0.01),
    DesignParameters(epsilon=0.7, delta=0.2, b=0.05, adjacency="one-row", beta=0.3,
                     selection="exponential", selection_epsilon=0.4),
], ids=["public", "exponential"])
def test_parameters_shown_are_read_back_unchanged(dialog, params):
    _, d = dialog
    d.show_parameters(params)
    # the seed is not the dialog's (the workspace's seed, tested above)
    assert dataclasses.replace(d.parameters(), seed=None) == params


def test_every_field_is_bound_once_with_its_help(dialog):
    _, d = dialog
    names = [b.field for b in d.bindings]
    assert set(names) == set(DesignParameters.__dataclass_fields__) - {"seed"}
    assert len(names) == len(set(names)) == len(LABELS)
    for b in d.bindings:
        assert b.widget.toolTip() == b.tooltip
    assert d.epsilon_spin.toolTip() == TIPS["epsilon"]
    assert d.selection_eps_spin.toolTip() == TIPS["selection"]


def test_the_dialog_starts_from_the_workspaces_accounting(qtbot, example_doc):
    runner = TaskRunner()
    panel = AnalysisPanel(example_doc, "four-startups", runner)
    qtbot.addWidget(panel)
    panel.set_parameters(b=0.3, delta_target=0.01, beta=0.1, adjacency="all-rows")
    d = DesignDialog(example_doc, "four-startups", panel)
    qtbot.addWidget(d)
    p = d.parameters()
    assert (p.b, p.delta, p.beta, p.adjacency) == (pytest.approx(0.3), pytest.approx(0.01),
                                                  pytest.approx(0.1), "all-rows")
    runner.shutdown()
    d.runner.shutdown()


def test_a_refused_value_shows_the_cores_message(dialog):
    _, d = dialog
    d.delta_spin.setMaximum(2.0)
    d.delta_spin.setValue(1.5)  # the core's δ lies in (0, 1)
    with pytest.raises(InputError) as core:
        DesignParameters(epsilon=1.0, delta=1.5)
    assert core.value.field == "delta"
    assert not d.run()
    assert d.status.text() == pretty_message(str(core.value))
    assert d.run_button.isEnabled() and d.design_result is None
