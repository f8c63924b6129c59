"""the sweep table showed 1.5 rows at the default size."""

from __future__ import annotations


def test_the_sweep_table_shows_four_rows_at_1366x768(qtbot, window):
    window.resize(1366, 768)
    qtbot.wait(50)
    ws = window.active_workspace()
    table = ws.results.table
    row = table.verticalHeader().defaultSectionSize()
    visible = table.viewport().height() / row
    assert visible >= 4, (visible, table.height())
