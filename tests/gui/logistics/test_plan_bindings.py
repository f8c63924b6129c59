"""The Logistics tab's Run parameters are one table of (widget, field) bindings: a value set
in a widget reaches its PlanParameters / PlannerParams field, a PlanParameters shown sets
every widget, the table gives each widget its help, and a refusal is the core's message."""

from __future__ import annotations

import pytest

from core.common import InputError
from core.logistics import PlannerParams
from core.logistics.release import PlanParameters
from gui.logistics.jobs import AUTO_BUDGET, TOOLTIPS
from gui.logistics.panel import LogisticsPanel
from gui.shell.document import ProjectDocument


@pytest.fixture
def planner(qtbot):
    p = LogisticsPanel(ProjectDocument())
    qtbot.addWidget(p)
    assert p.load_fig41() == "map-1"
    yield p.planner
    p.shutdown()


def _combo(combo, value) -> None:
    i = combo.findData(value)
    assert i >= 0, value
    combo.setCurrentIndex(i)


#: (field of PlanParameters or of its planner, how the widget is set, the field's value)
WIDGET_VALUES = (
    ("origin", lambda t: t.set_task("b3", "f"), "b3"),
    ("goal_agent", lambda t: t.set_task("a2", "d"), "d"),
    ("goal", lambda t: (t.set_task("a2", "f"), _combo(t.goal_combo, "f2")), "f2"),
    ("approach", lambda t: _combo(t.approach_combo, "greedy"), "greedy"),
    ("seed", lambda t: t.seed_spin.setValue(4321), 4321),
    ("seed", lambda t: _combo(t.mode_combo, "release"), None),
    ("preset", lambda t: _combo(t.preset_combo, "thesis"), "thesis"),
    ("epsilon", lambda t: t.epsilon_edit.setText("0.75"), 0.75),
    ("comm_budget", lambda t: t.budget_spin.setValue(57), 57.0),
    ("comm_budget", lambda t: t.budget_spin.setValue(AUTO_BUDGET), None),
    ("high_level_solver", lambda t: _combo(t.solver_combo, "rl"), "rl"),
)


@pytest.mark.parametrize(("field", "set_widget", "value"), WIDGET_VALUES,
                         ids=[f"{f}={v}" for f, _, v in WIDGET_VALUES])
def test_a_value_set_in_its_widget_reaches_its_field(planner, field, set_widget, value):
    before = planner._params()
    set_widget(planner)
    params = planner._params()
    got = getattr(params.planner if field in PlannerParams.__dataclass_fields__ else params,
                  field)
    assert got == value
    if field == "preset":  # the preset is the core's: its other knobs follow it
        assert params.planner == PlannerParams.preset_params("thesis", epsilon=0.5)
        assert before.planner.preset == "sound"


@pytest.mark.parametrize("params", [
    PlanParameters("c2", "e", "e3", approach="bestfirst", seed=99,
                   planner=PlannerParams.preset_params("thesis", epsilon=1.25, comm_budget=44.0,
                                                       high_level_solver="rl")),
    PlanParameters("a2", "f", None, approach="dp", seed=None,
                   planner=PlannerParams.preset_params("sound", epsilon=0.3)),
], ids=["seeded-thesis-rl", "release-sound-auto"])
def test_parameters_shown_are_read_back_unchanged(planner, params):
    planner.show_parameters(params)
    assert planner._params() == params
    assert planner.goal_combo.currentData() == params.goal
    assert planner.mode_combo.currentData() == ("experiment" if params.seeded else "release")


def test_every_bound_field_round_trips_and_has_the_tables_help(planner):
    bound = {b.field for b in (*planner._plan_fields, *planner._planner_fields)}
    assert bound == {"origin", "goal_agent", "goal", "approach", "seed", "preset", "epsilon",
                     "comm_budget", "high_level_solver"}
    assert {b.name for b in planner._plan_fields} == set(PlanParameters.__dataclass_fields__) \
        - {"planner"}
    for b in (*planner._plan_fields, *planner._planner_fields):
        assert b.widget is not None and b.widget.toolTip() == b.tooltip and b.tooltip
    assert planner.budget_spin.toolTip() == TOOLTIPS["budget"]
    assert planner.epsilon_edit.toolTip() == TOOLTIPS["epsilon"]


def test_set_plan_options_takes_the_tables_names_only(planner):
    planner.set_plan_options(approach="noprivacy", budget=12, solver="rl", seed=8, epsilon=2)
    p = planner._params()
    assert (p.approach, p.planner.comm_budget, p.planner.high_level_solver, p.seed,
            p.planner.epsilon) == ("noprivacy", 12.0, "rl", 8, 2)
    planner.set_plan_options(seeded=False)
    assert planner._params().seed is None
    with pytest.raises(ValueError, match="colour"):
        planner.set_plan_options(colour="red")
    with pytest.raises(ValueError, match="approach"):
        planner.set_plan_options(approach="astar")


@pytest.mark.parametrize("typed", ["-1", "nan"])
def test_a_refused_epsilon_shows_the_cores_message_on_its_field(planner, typed):
    planner.set_plan_options(epsilon=typed)
    with pytest.raises(InputError) as core:
        PlannerParams.preset_params("sound", epsilon=float(typed))
    assert core.value.field == "epsilon"
    assert not planner.run_plan()
    assert planner.run_problem == str(core.value).replace("epsilon", "ε")
    field = planner.epsilon_field
    assert field.has_error and core.value.problem in field.error.text()
