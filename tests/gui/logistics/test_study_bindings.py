"""The Logistics tab's Experiments (B1–B5) and Packet-routing Run panels are each one table of
(widget, field) bindings: a value set in a widget reaches its BenchParameters /
PacketParameters field, parameters shown set every widget and read back unchanged, the table
gives each widget its help, and a refusal is the core's message on the refused field's widget."""

from __future__ import annotations

import pytest

from core.common import InputError
from core.logistics import BenchParameters, PacketParameters
from gui.logistics.experiments import ExperimentsPage
from gui.logistics.packet_experiments import PacketExperimentsPage
from gui.shell.document import ProjectDocument
from gui.shell.style import INVALID_STYLE


@pytest.fixture
def bench(qtbot):
    page = ExperimentsPage(ProjectDocument())
    qtbot.addWidget(page)
    qtbot.addWidget(page.controls)
    yield page
    page.shutdown()


@pytest.fixture
def packet(qtbot):
    page = PacketExperimentsPage(ProjectDocument())
    qtbot.addWidget(page)
    qtbot.addWidget(page.controls)
    yield page
    page.shutdown()


def _combo(combo, value) -> None:
    i = combo.findData(value)
    assert i >= 0, value
    combo.setCurrentIndex(i)


def _tick(checks, wanted) -> None:
    for a, cb in checks.items():
        cb.setChecked(a in wanted)


#: (field of BenchParameters, how the widget is set, the field's value)
BENCH_WIDGETS = (
    ("benchmark", lambda p: _combo(p.bench_combo, "B4"), "B4"),
    ("values", lambda p: p.values_edit.setText("12; 14, 16"), (12.0, 14.0, 16.0)),
    ("values", lambda p: _combo(p.bench_combo, "B5"), None),  # rounds: nothing to type
    ("approaches", lambda p: _tick(p.approach_checks, {"greedy", "dp"}), ("dp", "greedy")),
    ("worlds", lambda p: p.worlds_spin.setValue(37), 37),
    ("seed", lambda p: p.seed_spin.setValue(2024), 2024),
    ("workers", lambda p: p.workers_spin.setValue(1), 1),
)


@pytest.mark.parametrize(("field", "set_widget", "value"), BENCH_WIDGETS,
                         ids=[f"{f}={v}" for f, _, v in BENCH_WIDGETS])
def test_bench_a_value_set_in_its_widget_reaches_its_field(bench, field, set_widget, value):
    if field == "workers" and bench.workers_spin.maximum() == 1:
        pytest.skip("one CPU: the processes box cannot change")
    assert getattr(bench.bench_parameters(), field) != value  # the default differs
    set_widget(bench)
    assert getattr(bench.bench_parameters(), field) == value


@pytest.mark.parametrize("params", [
    BenchParameters("B1", values=(0.25, 2.0), approaches=("dp", "noprivacy"), worlds=3,
                    seed=42, workers=1),
    BenchParameters("B5", values=None, approaches=("dp-thesis", "simplified"), worlds=500,
                    seed=0, workers=1),
    BenchParameters("B4", values=(0.5,), approaches=("bestfirst",), worlds=1,
                    seed=2 ** 31 - 1, workers=1),
], ids=["B1", "B5-rounds", "B4-edges"])
def test_bench_parameters_shown_are_read_back_unchanged(bench, params):
    bench.show_parameters(params)
    assert bench.bench_parameters() == params
    assert bench.values_edit.isEnabled() == (params.benchmark != "B5")


def test_bench_none_shows_the_benchmarks_own_values_approaches_and_every_cpu(bench):
    bench.show_parameters(BenchParameters("B3", worlds=2, seed=1, workers=None))
    got = bench.bench_parameters()
    cfg = BenchParameters("B3").config()
    assert (got.values, got.approaches) == (tuple(map(float, cfg.values)), cfg.approaches)
    assert got.workers == bench.workers_spin.maximum()
    with pytest.raises(ValueError, match="seed"):  # this page runs seeded benchmarks only
        bench.show_parameters(BenchParameters("B3", seed=None))


def test_bench_every_field_is_bound_once_with_the_tables_help(bench):
    assert [b.field for b in bench.fields] == ["benchmark", "values", "approaches", "worlds",
                                               "seed", "workers"]
    assert set(b.field for b in bench.fields) == \
        set(BenchParameters.__dataclass_fields__) - {"domain"}  # this page: logistics worlds
    for b in bench.fields:
        if b.tooltip:
            assert b.widget.toolTip() == b.tooltip
    assert "50" in bench.worlds_spin.toolTip() and bench.seed_spin.toolTip()
    with pytest.raises(ValueError, match="colour"):
        bench.set_options(colour="red")


def test_bench_a_refusal_is_the_cores_message_on_its_field_and_clears(bench):
    bench.set_options(benchmark="B1", values=[0.5, 0.0])
    with pytest.raises(InputError) as core:
        BenchParameters("B1", values=(0.5, 0.0))
    assert core.value.field == "values"
    help_text = bench.values_edit.toolTip()
    assert not bench.run() and not bench.is_running
    assert bench.controls_message.text() == str(core.value)
    assert INVALID_STYLE in bench.values_edit.styleSheet()
    assert bench.values_edit.toolTip() == f"{core.value}\n\n{help_text}"
    # the next refusal names another field: the values box is back to normal, with its help
    bench.set_options(values=[0.5], approaches=[])
    assert not bench.run() and "approach" in bench.controls_message.text()
    assert bench.values_edit.styleSheet() == "" and bench.values_edit.toolTip() == help_text


#: (field of PacketParameters, how the widget is set, the field's value)
PACKET_WIDGETS = (
    ("experiment", lambda p: _combo(p.experiment_combo, "fig410"), "fig410"),
    ("values", lambda p: p.values_edit.setText("0.3, 0.35"), (0.3, 0.35)),
    ("approaches", lambda p: _tick(p.approach_checks, {"dp-thesis", "greedy"}),
     ("greedy", "dp-thesis")),
    ("worlds", lambda p: p.worlds_spin.setValue(33), 33),
    ("seed", lambda p: p.seed_spin.setValue(99), 99),
    ("seed", lambda p: p.seed_check.setChecked(False), None),
    ("dynamics", lambda p: p.dynamics_spin.setValue(0.25), 0.25),
    ("sizes", lambda p: p.sizes_spin.setValue(17), 17),
    ("sizes", lambda p: _combo(p.experiment_combo, "fig49"), None),  # fig49 sweeps it
    ("dynamics_per", lambda p: _combo(p.per_combo, "agent"), "agent"),
    ("connectivity", lambda p: _combo(p.connectivity_combo, "area"), "area"),
    ("solver", lambda p: _combo(p.solver_combo, "rl"), "rl"),
    ("workers", lambda p: p.workers_spin.setValue(p.workers_spin.maximum()), None),
)


@pytest.mark.parametrize(("field", "set_widget", "value"), PACKET_WIDGETS,
                         ids=[f"{f}={v}" for f, _, v in PACKET_WIDGETS])
def test_packet_a_value_set_in_its_widget_reaches_its_field(packet, field, set_widget, value):
    if field == "workers":
        value = packet.workers_spin.maximum()
        if value == 1:
            pytest.skip("one CPU: the processes box cannot change")
    assert getattr(packet.packet_parameters(), field) != value  # the default differs
    set_widget(packet)
    assert getattr(packet.packet_parameters(), field) == value


@pytest.mark.parametrize("params", [
    PacketParameters("fig410", worlds=3, seed=11, values=(0.3, 0.6), approaches=("dp",),
                     dynamics_per="agent", connectivity="area", dynamics=0.25, solver="rl",
                     sizes=6, workers=1),
    PacketParameters("fig49", worlds=2, seed=None, values=(10.0, 20.0),
                     approaches=("noprivacy", "bestfirst", "dp-thesis"), dynamics=0.001,
                     sizes=None, workers=1),
    PacketParameters("fig411", worlds=500, seed=0, values=(0.05,), approaches=("greedy",),
                     dynamics=1.0, sizes=200, workers=1),
], ids=["fig410-all-knobs", "fig49-os-seed", "fig411-edges"])
def test_packet_parameters_shown_are_read_back_unchanged(packet, params):
    packet.show_parameters(params)
    assert packet.packet_parameters() == params
    assert packet.seed_check.isChecked() == (params.seed is not None)
    assert packet.seed_spin.isEnabled() == (params.seed is not None)


def test_packet_none_shows_the_figures_own_values_approaches_and_sizes(packet):
    packet.show_parameters(PacketParameters("fig410", worlds=2, seed=1, sizes=None))
    got = packet.packet_parameters()
    assert got.values == (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8) and got.approaches == ("dp",)
    assert got.sizes == 10 and got.workers == packet.workers_spin.maximum()


def test_packet_every_field_is_bound_once_with_the_tables_help(packet):
    fields = [b.field for b in packet.fields]
    assert sorted(fields) == sorted(set(PacketParameters.__dataclass_fields__))
    assert fields[0] == "experiment"  # first: a figure brings its own values and approaches
    for b in packet.fields:
        if b.tooltip:
            assert b.widget.toolTip() == b.tooltip
    assert packet.seed_check.toolTip().startswith("Unticked")
    assert "fig49 sweeps it" in packet.sizes_spin.toolTip()


@pytest.mark.parametrize(("options", "field", "widget"), [
    ({"experiment": "fig411", "values": [0.5, 2]}, "values", "values_edit"),
    ({"experiment": "fig49", "values": [10, 20.5]}, "values", "values_edit"),
])
def test_packet_a_refusal_is_the_cores_message_on_its_field(packet, options, field, widget):
    packet.set_options(**options)
    with pytest.raises(InputError) as core:
        PacketParameters(options["experiment"], values=tuple(options["values"]))
    assert core.value.field == field
    w = getattr(packet, widget)
    help_text = w.toolTip()
    assert not packet.run() and not packet.is_running
    assert packet.controls_message.text() == str(core.value)
    assert INVALID_STYLE in w.styleSheet() and w.toolTip() == f"{core.value}\n\n{help_text}"
    packet.set_options(values=[0.2] if options["experiment"] == "fig411" else [10],
                       approaches=[])
    assert not packet.run() and "approach" in packet.controls_message.text()
    assert w.styleSheet() == "" and w.toolTip() == help_text  # back, with its help


def test_packet_text_that_is_not_numbers_is_refused_on_the_values_box(packet):
    packet.values_edit.setText("ten")
    assert not packet.run()
    assert packet.controls_message.text() == "values: a comma-separated list of numbers"
    assert INVALID_STYLE in packet.values_edit.styleSheet()
