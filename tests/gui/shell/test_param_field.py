"""gui.shell.param_field: a field bound to one parameter of a typed parameters object."""

from __future__ import annotations

import pytest

from core.advising.model import AdvisingParams
from core.common.errors import InputError
from core.logistics.planner import PlannerParams
from gui.shell.param_field import ParamField, parse_number


@pytest.fixture
def params():
    return {"current": AdvisingParams()}


@pytest.fixture
def field(qtbot, params):
    f = ParamField("epsilon", lambda: params["current"], label="ε", tooltip="ε per release")
    qtbot.addWidget(f)
    return f


def test_shows_the_value_of_the_parameters_object(qtbot, field, params):
    assert field.edit.text() == f"{AdvisingParams().epsilon:g}"  # the core's default
    field.show_value(params["current"].replace(epsilon=0.25))
    assert field.edit.text() == "0.25" and not field.has_error
    planner = ParamField("epsilon", lambda: PlannerParams.preset_params("sound"))
    qtbot.addWidget(planner)
    assert planner.edit.text() == f"{PlannerParams.preset_params('sound').epsilon:g}"


def test_integer_parameters_parse_as_int(qtbot, params):
    f = ParamField("epochs", lambda: params["current"])
    qtbot.addWidget(f)
    f.edit.setText("50")
    assert f.value() == 50 and isinstance(f.value(), int)
    f.edit.setText("2.5")  # not silently rounded: the core refuses it
    assert "integer" in f.problem()


@pytest.mark.parametrize("text,words", [("abc", "must be a number"), ("0", "> 0"),
                                        ("-1", "> 0"), ("inf", "finite")])
def test_refused_values_say_what_the_core_says(field, text, words):
    field.edit.setText(text)
    problem = field.problem()
    assert problem is not None and problem.startswith("ε ") and words in problem
    with pytest.raises(InputError) as err:
        field.checked_value()
    assert err.value.field == "epsilon"
    assert field.has_error and words in field.error.text() and "Not applied" in field.error.text()
    assert words in field.edit.toolTip() and "ε per release" in field.edit.toolTip()


def test_checked_against_the_current_object(qtbot, params):
    # a value is judged with the other parameters of the moment: norm_floor < norm_center
    f = ParamField("norm_floor", lambda: params["current"])
    qtbot.addWidget(f)
    f.edit.setText("0.6")
    assert "norm_floor < norm_center" in f.problem()
    params["current"] = AdvisingParams(norm_center=0.9)
    assert f.problem() is None and f.checked_value() == 0.6


def test_as_you_type_and_on_leaving(qtbot, field):
    field.edit.setText("-2")
    field.edit.textEdited.emit("-2")
    assert field.has_error
    with qtbot.waitSignal(field.refused) as refused:
        field.edit.editingFinished.emit()
    assert refused.args[0] == "epsilon" and "> 0" in refused.args[1]
    field.edit.setText("0.5")
    field.edit.textEdited.emit("0.5")
    assert not field.has_error
    with qtbot.waitSignal(field.committed) as committed:
        field.edit.editingFinished.emit()
    assert committed.args == ["epsilon", 0.5]


def test_parse_number():
    assert parse_number(" 1,5 ") == 1.5 and parse_number(2) == 2.0
    for bad in ("", "x", True):
        with pytest.raises(ValueError):
            parse_number(bad)


def test_help_given_later_stays_below_a_refused_value(qtbot, field):
    """A binding table gives the help after the field is made (set_tooltips): the line edit
    shows it, a refusal puts its reason above it, and clearing the refusal restores it."""
    field.setToolTip("the help given later")
    assert field.edit.toolTip() == "the help given later"
    field.set_error("ε must be > 0")
    tip = field.edit.toolTip()
    assert tip != "the help given later" and "the help given later" in tip
    field.clear_error()
    assert field.edit.toolTip() == "the help given later"
