"""The advising parts work from what they are given, with no AdvisingPanel anywhere."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QCheckBox, QComboBox, QLabel, QPushButton, QSpinBox, QWidget

from core.advising.presets import preset
from core.project.model import Project
from gui.advising.parts import RUN_KINDS, Refused
from gui.advising.results import AdvisingResultsView
from gui.advising.running import AdvisingRunner
from gui.advising.views import RunWidgets, ShownSetup
from gui.shell.document import ProjectDocument
from gui.shell.param_field import FieldWithError
from gui.shell.workers import TaskRunner


@pytest.fixture
def host(qtbot):
    w = QWidget()
    qtbot.addWidget(w)
    return w


@pytest.fixture
def widgets(host):
    kind = QComboBox(host)
    for key, text in RUN_KINDS:
        kind.addItem(text, key)
    seeded = QCheckBox(host)
    seeded.setChecked(True)
    spins = []
    for lo, hi, value in ((0, 1000, 7), (1, 1000, 5), (1, 8, 2)):
        s = QSpinBox(host)
        s.setRange(lo, hi)
        s.setValue(value)
        spins.append(s)
    delta = FieldWithError("delta", host)
    delta.edit.setText("1e-5")
    return RunWidgets(kind_combo=kind, kind_help=QLabel(host), seeded_check=seeded,
                      seed_spin=spins[0], seeds_spin=spins[1], workers_spin=spins[2],
                      epsilons_field=FieldWithError("epsilons", host),
                      delta_field=delta,
                      run_button=QPushButton(host), cancel_button=QPushButton(host),
                      progress_label=QLabel(host), mode_label=QLabel(host),
                      error_label=QLabel(host))


def test_run_widgets_read_into_one_request(widgets):
    setup = preset("fig32")
    widgets.set_options(kind="sweep", epsilons="1; 0.1, 1", delta=1e-6)
    req = widgets.request(setup)
    assert (req.kind, req.setup, req.seeded, req.seed, req.n_seeds, req.workers) == (
        "sweep", setup, True, 7, 5, 2)
    assert req.epsilons == (0.1, 1.0) and req.delta == 1e-6
    assert widgets.randomness_label() == "seeded experiment (seeds 7–11)"

    widgets.set_options(kind="single", seeded=False)
    req = widgets.request(setup)
    assert req.seed is None and not req.seeded
    assert "release mode" in widgets.mode_text()


@pytest.mark.parametrize(("options", "field", "words"), [
    ({"delta": 2.0}, "delta_field", "δ"),
    ({"kind": "exp3", "epsilons": " , "}, "epsilons_field", "ε values"),
    ({"kind": "sweep", "epsilons": "0.5, -1"}, "epsilons_field", "ε values"),
])
def test_a_refused_run_field_turns_red_and_says_why(widgets, options, field, words):
    widgets.set_options(**options)
    with pytest.raises(Refused, match=words):
        widgets.request(preset("fig32"))
    assert getattr(widgets, field).has_error


def test_the_runner_runs_from_its_bundle_and_callables(qtbot, host, widgets):
    doc = ProjectDocument(Project(name="parts"))
    shown = ShownSetup()
    results = AdvisingResultsView(host)
    problems: list[str] = []
    logged: list[tuple[str, str]] = []
    recorded: list[str] = []
    runner = TaskRunner(host)

    def record(run_record, entries):  # the panel's ToolPanel.record, reduced to its effect
        assert run_record.kind == "advise" and run_record.params["seed"] == 3 and entries
        recorded.append(run_record.id)
        return True

    runs = AdvisingRunner(doc, widgets, results, runner, shown,
                          setup_problems=lambda: problems,
                          log=lambda level, text: logged.append((level, text)),
                          running_changed=lambda running: None, record=record)
    runner.succeeded.connect(runs.on_runner_succeeded)
    with pytest.raises(Refused, match="load a preset"):
        runs.build_request()  # no set-up shown

    shown.setup = preset("fig32", strategy="dp", epsilon=1.0, epochs=20)
    problems.append("ε must be > 0")
    with pytest.raises(Refused, match="ε must be > 0"):
        runs.build_request()

    problems.clear()
    widgets.set_options(kind="single", seeded=True, seed=3)
    request = runs.build_request()
    assert request.params.seed == 3 and request.params.setup == shown.setup
    with qtbot.waitSignal(runner.finished, timeout=20000):
        runs.start(request)
    qtbot.waitUntil(lambda: bool(recorded), timeout=5000)
    assert recorded == [runs.shown_run]
    assert logged[0] == ("INFO", "advising: Single run of this set-up started (seeded "
                                 "experiment (seed 3))")
    runner.shutdown()
