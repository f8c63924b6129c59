"""The DP Advising tab's run fields are one binding table: every field goes from its widget
into the core's parameters and back, a refused value shows the core's message naming the
field, and the table gives each widget its help."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QCheckBox, QComboBox, QLabel, QPushButton, QSpinBox, QWidget

from core.advising import AdviseBenchParameters, AdviseParameters, AdvisingParams
from core.advising.presets import preset
from core.common import InputError
from core.project.model import Project
from gui.advising.panel import AdvisingPanel
from gui.advising.parts import RUN_KINDS, TOOLTIPS, problem_text
from gui.advising.views import RunWidgets
from gui.shell.bindings import set_tooltips
from gui.shell.document import ProjectDocument
from gui.shell.param_field import FieldWithError

SETUP = preset("fig32", epochs=5)


@pytest.fixture
def widgets(qtbot):
    host = QWidget()
    qtbot.addWidget(host)
    kind = QComboBox(host)
    for key, text in RUN_KINDS:
        kind.addItem(text, key)
    seeded = QCheckBox(host)
    seeded.setChecked(True)
    spins = []
    for lo, hi, value in ((0, 1000, 0), (1, 1000, 20), (1, 4, 2)):
        s = QSpinBox(host)
        s.setRange(lo, hi)
        s.setValue(value)
        spins.append(s)
    w = RunWidgets(kind_combo=kind, kind_help=QLabel(host), seeded_check=seeded,
                   seed_spin=spins[0], seeds_spin=spins[1], workers_spin=spins[2],
                   epsilons_field=FieldWithError("epsilons", host),
                   delta_field=FieldWithError("delta", host),
                   run_button=QPushButton(host), cancel_button=QPushButton(host),
                   progress_label=QLabel(host), mode_label=QLabel(host),
                   error_label=QLabel(host))
    w.delta_field.edit.setText("1e-5")
    set_tooltips(w.bindings())
    yield w  # the host (and its widgets) live as long as the test
    host.deleteLater()


# (field, how a user sets the widget, the value the parameters get)
TYPED = [
    ("run", lambda w: w.kind_combo.setCurrentIndex(w.kind_combo.findData("exp2")), "exp2"),
    ("seed", lambda w: w.seed_spin.setValue(17), 17),
    ("seed", lambda w: w.seeded_check.setChecked(False), None),
    ("seeds", lambda w: w.seeds_spin.setValue(7), 7),
    ("workers", lambda w: w.workers_spin.setValue(3), 3),
    ("epsilons", lambda w: (w.kind_combo.setCurrentIndex(w.kind_combo.findData("sweep")),
                            w.epsilons_field.edit.setText("1; 0.1, 1,0.4")), (0.1, 0.4, 1.0)),
    ("delta", lambda w: w.delta_field.edit.setText("2e-6"), 2e-6),
]


@pytest.mark.parametrize(("field", "typed", "value"), TYPED)
def test_each_run_widget_goes_into_its_field(widgets, field, typed, value):
    widgets.kind_combo.setCurrentIndex(widgets.kind_combo.findData("strategies"))
    typed(widgets)
    req = widgets.request(SETUP)
    assert getattr(req.bench, field) == value
    if field in ("seed", "delta"):  # the single run's parameters take them too
        assert getattr(req.params, field) == value


@pytest.mark.parametrize("params", [
    AdviseBenchParameters("sweep", SETUP, seed=5, seeds=3, workers=4, epsilons=(0.2, 2.0),
                          delta=1e-7),
    AdviseBenchParameters("exp3", SETUP, seed=None, seeds=1, workers=1, epsilons=(0.5,),
                          delta=0.25),
    AdviseBenchParameters("exp1-one-different", SETUP, seed=999, seeds=1000, workers=2),
    AdviseBenchParameters("strategies", SETUP, seed=0, seeds=2, workers=1, delta=0.5),
])
def test_experiment_parameters_shown_are_read_back(widgets, params):
    widgets.set_options(kind="single", seeded=True, seed=1, seeds=9, workers=1, delta=0.1)
    widgets.show_parameters(params)
    assert widgets.kind == params.run
    assert widgets.seeded_check.isChecked() is params.seeded
    assert widgets.seeds_spin.value() == params.seeds
    assert widgets.workers_spin.value() == params.workers
    assert widgets.request(SETUP).bench == params


@pytest.mark.parametrize("params", [AdviseParameters(SETUP, seed=3, delta=1e-3),
                                    AdviseParameters(SETUP, seed=None, delta=0.9)])
def test_a_single_run_shown_is_read_back(widgets, params):
    widgets.set_options(kind="exp2")
    widgets.show_parameters(params)
    req = widgets.request(SETUP)
    assert (req.kind, req.bench, req.params) == ("single", None, params)
    assert widgets.delta_field.edit.text() == f"{params.delta:g}"


def _core_problem(**kwargs) -> str:
    with pytest.raises(InputError) as info:
        AdviseBenchParameters(**{"run": "sweep", "setup": SETUP, **kwargs})
    return problem_text(info.value)


@pytest.mark.parametrize(("options", "field", "label", "core"), [
    ({"delta": 1.5}, "delta", "δ", {"delta": 1.5}),
    ({"epsilons": "0.5, abc"}, "epsilons", "ε values:", {"epsilons": ("0.5", "abc")}),
    ({"epsilons": "0.5, -1"}, "epsilons", "ε values:", {"epsilons": (-1.0, 0.5)}),
    ({"epsilons": " ; "}, "epsilons", "ε values:", {"epsilons": ()}),
])
def test_a_refusal_is_the_cores_message_naming_the_field(qtbot, options, field, label, core):
    doc = ProjectDocument(Project(name="refused"))
    panel = AdvisingPanel(doc)
    qtbot.addWidget(panel)
    try:
        panel.set_run_options(kind="sweep", **options)
        assert not panel.run()
        expected = f"{label} {_core_problem(**core)}"
        assert panel.run_problem == expected
        bad = getattr(panel, f"{field}_field")
        assert bad.has_error and expected in bad.error.text()
        assert doc.project.runs == []
        # a value the core accepts clears the red field (and the run may start)
        panel.set_run_options(kind="single", delta=1e-5, epsilons="1")
        assert panel.runs.build_request().kind == "single"
        assert not bad.has_error
        assert TOOLTIPS[field] in bad.edit.toolTip()
    finally:
        panel.shutdown()


def test_the_tables_give_every_bound_widget_its_help(qtbot):
    panel = AdvisingPanel(ProjectDocument(Project(name="tips")))
    qtbot.addWidget(panel)
    try:
        for widget, key in ((panel.kind_combo, "run_kind"), (panel.seed_spin, "seed"),
                            (panel.seeds_spin, "seeds"), (panel.workers_spin, "workers"),
                            (panel.epsilons_field.edit, "epsilons"),
                            (panel.delta_field.edit, "delta"),
                            (panel.strategy_combo, "strategy"),
                            (panel.variant_combo, "variant"),
                            (panel.guard_check, "direction_guard"),
                            *((f.edit, name) for name, f in panel.fields.items())):
            assert widget.toolTip() == TOOLTIPS[key], key
    finally:
        panel.shutdown()


def test_the_set_up_parameters_go_both_ways(qtbot):
    doc = ProjectDocument(Project(name="setup"))
    panel = AdvisingPanel(doc)
    qtbot.addWidget(panel)
    try:
        base = panel.setup
        shown = AdvisingParams.for_variant(
            "thesis", strategy="traditional", epsilon=0.3, distance_threshold=0.25,
            ask_budget=4, give_budget=6, epochs=40, alpha=0.75, xi=0.05, direction_guard=True)
        panel.editor.push_setup(base.with_params(**shown.to_dict()), "test")
        assert panel.strategy_combo.currentData() == "traditional"
        assert panel.variant_combo.currentData() == "thesis"
        assert panel.guard_check.isChecked()
        for name, f in panel.fields.items():
            assert float(f.edit.text()) == pytest.approx(getattr(shown, name)), name
        # widget -> field: each edit is stored in the set-up's parameters
        panel.strategy_combo.setCurrentIndex(panel.strategy_combo.findData("dp"))
        panel.strategy_combo.activated.emit(panel.strategy_combo.currentIndex())
        panel.guard_check.click()
        for name, text, value in (("epsilon", "0.7", 0.7), ("ask_budget", "9", 9),
                                  ("alpha", "0.4", 0.4)):
            panel.fields[name].edit.setText(text)
            panel.fields[name].edit.editingFinished.emit()
            assert getattr(panel.setup.params, name) == value
        p = panel.setup.params
        assert (p.strategy, p.direction_guard) == ("dp", False)
    finally:
        panel.shutdown()
