"""The calculator's widgets are bound to the core's CalculatorInputs by one table."""

from __future__ import annotations

import dataclasses

import pytest

from core.common import InputError
from core.privacy import CalculatorInputs
from gui.calculator.panel import PrivacyCalculatorPanel
from gui.calculator.parts import FIELDS, PARAMETERS


@pytest.fixture
def calc(qtbot, example_doc):
    panel = PrivacyCalculatorPanel(example_doc)
    qtbot.addWidget(panel)
    yield panel
    panel.shutdown()


def test_the_table_binds_every_row_to_a_field_of_the_core_parameters():
    fields = {f.name for f in dataclasses.fields(CalculatorInputs)}
    assert set(FIELDS) == set(PARAMETERS)  # one row per table entry
    assert set(FIELDS.values()) | {"delta_method"} == fields


@pytest.mark.parametrize("mode", ["delta", "gamma"])
def test_inputs_are_the_core_object_of_the_widgets(calc, mode):
    calc.set_parameters(k=9.5, eta=0.2, eta_bar=0.25, w=4, b=0.3, delta=0.02, gamma=0.05,
                        beta=0.1, n=9, mode=mode, delta_method="union")
    got = calc.inputs()
    assert isinstance(got, CalculatorInputs)
    assert got == CalculatorInputs(
        k=9.5, eta=0.2, eta_bar=0.25, w=4, b=0.3,
        delta_target=0.02 if mode == "delta" else None,
        gamma=0.05 if mode == "gamma" else None, delta_method="union", beta=0.1, n=9)
    assert type(got.w) is int and type(got.n) is int


def test_a_refusal_is_the_core_message_beside_its_field(calc):
    calc.set_parameters(eta=0.6, eta_bar=0.5)
    with pytest.raises(InputError) as core:
        calc.inputs().check()
    assert core.value.field == "eta_bar"
    assert "must be < 1" in calc.field_error("eta_bar")
    assert calc.field_error("eta") == ""
