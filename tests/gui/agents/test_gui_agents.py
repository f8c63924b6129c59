"""The Private agents workspace, GUI side: draw a grid (undoable), train with
DP-DRL and attack, compare ε, train a PE-VDN team, refuse a broken map."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from gui.agents.panel import AgentsPanel
from gui.agents.texts import SWEEP_COLUMNS


@pytest.fixture
def panel(qtbot, example_doc):
    p = AgentsPanel(example_doc)
    qtbot.addWidget(p)
    p.resize(1400, 900)
    p.show()
    yield p
    p.shutdown()


def _wait(qtbot, panel, start, timeout=120_000):
    with qtbot.waitSignal(panel.runner.finished, timeout=timeout):
        assert start()


def test_draw_a_grid_with_undo(panel, example_doc):
    gid = panel.add_random_grid()
    assert example_doc.project.grids[-1].id == gid
    g = example_doc.project.grids[-1].map
    free = next((r, c) for r, c in g.free_cells() if (r, c) not in (g.start, g.goal))
    panel._on_cell_clicked(free[0], free[1], Qt.MouseButton.LeftButton,
                           Qt.KeyboardModifier.NoModifier)
    assert example_doc.project.grids[-1].map.cells[free] == 0
    panel._on_cell_clicked(free[0], free[1], Qt.MouseButton.LeftButton,
                           Qt.KeyboardModifier.ShiftModifier)
    assert example_doc.project.grids[-1].map.start == free
    stack = example_doc.stack("agents")
    stack.undo()
    stack.undo()
    assert example_doc.project.grids[-1].map.cells[free] == 1
    assert example_doc.project.grids[-1].map.start == g.start
    border = (0, 0)
    panel._on_cell_clicked(*border, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    assert example_doc.project.grids[-1].map.cells[border] == 0   # the border stays wall


def test_train_with_dpdrl_and_attack_is_recorded(qtbot, panel, example_doc):
    panel.size_spin.setValue(7)
    panel.add_random_grid()
    panel.episodes_spin.setValue(150)
    panel.generations_spin.setValue(5)
    n = len(example_doc.project.ledger)
    _wait(qtbot, panel, panel.run)
    assert panel.run_problem == ""
    rec = example_doc.project.runs[-1]
    assert rec.kind == "drl" and rec.summary["epsilon_total"] is None
    assert 0 <= rec.summary["nrr"] <= 1 and panel.recovered_view.grid is not None
    entry = example_doc.project.ledger[-1]
    assert len(example_doc.project.ledger) == n + 1 and entry.unbounded
    assert entry.mechanism == "dpdrl-obfuscation"
    assert "unbounded" in panel.drl_summary.toHtml()
    # the run says whether it converged, by the stated criterion
    conv = rec.summary["convergence"]
    assert rec.summary["converged"] is (conv["eval_success"] >= 0.9)
    assert ("did not converge" if not rec.summary["converged"] else "converged") \
        in panel.drl_summary.toPlainText()
    assert f"within {conv['step_limit']} steps" in panel.drl_summary.toPlainText()


def test_a_broken_map_is_refused_and_nothing_runs(qtbot, panel, example_doc):
    panel.add_random_grid()
    g = example_doc.project.grids[-1].map
    # wall in the goal's every free neighbour: the goal becomes unreachable
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        r, c = g.goal[0] + dr, g.goal[1] + dc
        cur = example_doc.project.grids[-1].map
        if cur.cells[r, c] and (r, c) != cur.start and 0 < r < cur.shape[0] - 1 \
                and 0 < c < cur.shape[1] - 1:
            panel._on_cell_clicked(r, c, Qt.MouseButton.LeftButton,
                                   Qt.KeyboardModifier.NoModifier)
    assert panel.run() is False and panel.run_problem.startswith("map:")
    assert panel.map_problem.text().startswith("Cannot train yet")


def test_compare_epsilons_table(qtbot, panel, example_doc):
    panel.size_spin.setValue(7)
    panel.add_random_grid()
    panel.episodes_spin.setValue(40)
    panel.generations_spin.setValue(2)
    _wait(qtbot, panel, panel.run_sweep)
    rec = example_doc.project.runs[-1]
    assert rec.kind == "drl-table"
    labels = [panel.sweep_table.item(i, 0).text() for i in range(panel.sweep_table.rowCount())]
    assert labels[0] == "No defense" and labels[-1].startswith("Dynamic")
    col = SWEEP_COLUMNS.index("Converged")
    for i, row in enumerate(rec.summary["rows"]):
        text = panel.sweep_table.item(i, col).text()
        assert text.startswith("yes" if row["converged"] else "NO"), text
    panel.sweep_table.setCurrentCell(0, 0)   # Table 5.2: the map recovered without defense
    assert panel.recovered_view._title == "recovered (No defense)"


def test_team_training_and_inspector(qtbot, panel, example_doc):
    panel.tabs.setCurrentIndex(1)
    panel.agents_spin.setValue(2)
    panel.team_episodes_spin.setValue(30)
    panel.dp_check.setChecked(True)
    _wait(qtbot, panel, panel.run)
    rec = example_doc.project.runs[-1]
    assert rec.kind == "comarl" and rec.summary["epsilon"] > 0
    assert "exactly" in panel.inspector.item(0, 1).text()
    # each number says what it compares (two trainings' returns; A on the
    # same tables), so −2.575 vs −1.0 beside "differ by 2.9e-5" no longer reads as broken
    text = " ".join(panel.team_summary.toPlainText().split())
    s = rec.summary
    from gui.shell.style import fmt_value

    assert (f"PE-VDN {fmt_value(s['team_return'])}, plain VDN "
            f"{fmt_value(s['central_team_return'])}") in text
    assert "Two separate trainings" in text and "differ by chance" in text
    assert "on the same tables" in text and "fixed-point encoding error" in text
    mech = [e.mechanism for e in example_doc.project.ledger[-4:]]
    assert mech.count("dpsgd-tables") == 2 and mech.count("secure-sum") == 2


def test_the_tabs_build_the_parameters_the_command_line_builds(panel):
    """The widgets are read through their (field, widget) tables into the same Parameters
    ``drl`` / ``comarl`` build from their flags; the core's refusal is shown on the tab that
    asked, naming the field, and nothing runs."""
    import argparse

    from core.cli.agents import comarl_parameters, drl_parameters

    panel.defense_combo.setCurrentIndex(panel.defense_combo.findData("strict"))
    panel.epsilon_spin.setValue(0.4)
    panel.episodes_spin.setValue(120)
    panel.generations_spin.setValue(7)
    panel.attack_check.setChecked(True)
    panel.seed_spin.setValue(5)
    flags = argparse.Namespace(defense="dpdrl", preset="strict", epsilon=0.4, episodes=120,
                               max_steps=200, agent="tabular", attack=True, population=100,
                               generations=7, seed=5)
    assert panel.drl_parameters() == drl_parameters(flags)
    panel.defense_combo.setCurrentIndex(panel.defense_combo.findData("thesis"))
    assert (panel.drl_parameters().preset, panel.drl_parameters().epsilon) == ("thesis", None)
    panel.agents_spin.setValue(4)
    panel.team_episodes_spin.setValue(50)
    panel.dp_check.setChecked(True)
    panel.sigma_spin.setValue(2.0)
    panel.window_spin.setValue(256)
    team = argparse.Namespace(agents=4, size=7, episodes=50, algorithm="vdn", lr=0.2, dp=True,
                              sigma=2.0, window=256, sample_rate=1 / 32, delta=None,
                              agent="tabular", seed=5)
    assert panel.comarl_parameters() == comarl_parameters(team)
    panel.tabs.setCurrentIndex(1)
    panel.agents_spin.setValue(8)
    panel.team_episodes_spin.setValue(100_000)   # past the time limit: the core refuses
    assert panel.run() is False and not panel.is_running
    assert panel.run_problem.startswith("episodes:")
    assert panel.team_message.isVisibleTo(panel) and not panel.drl_message.isVisibleTo(panel)
