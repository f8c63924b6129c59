"""every workspace fits a 1366×768 laptop after running its default job,
and its plots' titles and axis labels are not clipped.

One test per workspace (xdist spreads them): the main window at 1366×768 opens the workspace,
runs its default job (F5 with the parameters it opens with; shorter where the default is
long: the agents tab trains 150 episodes and attacks 20 generations instead of 1,500 and
200) to the end, and then its minimum size must not exceed the screen and it must not have
widened itself; every plot shown must pass :func:`gui.shell.plots.readability_problems`:
its title and axis labels not clipped, its legend covering no plotted data (points, the lines
between them, bars) and not running past the plot.
"""

from __future__ import annotations

import time

import pyqtgraph as pg
import pytest

from gui.shell.plots import readability_problems
from gui.shell.tools import TOOLS, load_tools

load_tools()
SCREEN = (1366, 768)


@pytest.mark.parametrize("key", ["mdp", *TOOLS])
def test_the_workspace_fits_1366x768_after_its_default_job(qtbot, window, key):
    window.resize(*SCREEN)
    qtbot.wait(50)
    if key == "mdp":
        ws = window.open_workspace(window.document.project.mdps[0].id)
        started = window.run_analysis()
        running = lambda: window.active_workspace().analysis_panel.is_running  # noqa: E731
    else:
        ws = window.open_tool(key)
        # a shorter job where the default is long (what is shown after a run, and so what
        # must fit, does not depend on how long the run was): the agents tab's 1,500
        # training episodes and 200 attack generations took 90 s of the suite, and still
        # 38 s of CPU at 150 episodes (13 s at 20 generations)
        if key == "agents":
            ws.episodes_spin.setValue(150)
            ws.generations_spin.setValue(20)
        started = ws.run()
        running = lambda: (ws.is_running() if callable(ws.is_running)  # noqa: E731
                           else ws.is_running)
    deadline = time.monotonic() + 300
    while started and _true(running()) and time.monotonic() < deadline:
        qtbot.wait(100)
    assert not (started and _true(running())), f"{key}: the default job did not finish"
    qtbot.wait(200)
    hint = window.minimumSizeHint()
    assert hint.width() <= SCREEN[0] and hint.height() <= SCREEN[1], (key, hint)
    assert window.minimumSize().width() <= SCREEN[0]
    assert window.width() <= SCREEN[0], f"{key}: the window widened itself to {window.width()}"
    # the Run-parameters dock shows its page whole (no sideways scrolling needed)
    page = window.params_stack.currentWidget()
    assert page.minimumSizeHint().width() <= window.params_stack.width(), (
        key, page.minimumSizeHint().width(), window.params_stack.width())
    # and the workspace fits its tab: no sideways scrolling at a laptop's width
    assert ws.minimumSizeHint().width() <= window.tabs.width(), (
        key, ws.minimumSizeHint().width(), window.tabs.width())
    # a Run button of the workspace is in sight without scrolling the page
    from PySide6.QtWidgets import QAbstractButton

    runs = [b for b in ws.findChildren(QAbstractButton)
            if b.isVisible() and b.text().startswith("▶")]
    hidden = [b.text() for b in runs if b.visibleRegion().isEmpty()]
    assert not hidden, (key, hidden)
    # what the user sees once drawing has settled: a job may still hand its result to the
    # plots (queued signals, debounced redraws) for a moment after it finished, longer on a
    # loaded machine; a problem that persists for 5 s is a real one
    def problems() -> list[str]:
        return [p for plot in ws.findChildren(pg.PlotWidget) if plot.isVisible()
                for p in readability_problems(plot)]

    deadline = time.monotonic() + 5.0
    while problems() and time.monotonic() < deadline:
        qtbot.wait(100)
    assert not problems(), problems()


def _true(value: object) -> bool:
    return bool(value() if callable(value) else value)


def test_readability_finds_a_clipped_label_and_a_covering_legend(qtbot):
    import numpy as np

    from gui.shell.plots import add_legend, make_plot

    plot = make_plot("t", "x", "a left label far longer than the plot is tall, surely")
    qtbot.addWidget(plot)
    plot.setMinimumSize(10, 10)
    plot.resize(400, 140)
    plot.show()
    x = np.linspace(0, 1, 50)
    legend = add_legend(plot, "top-left", avoid_data=False)
    plot.plot(x, np.ones_like(x), name="flat at the top")
    qtbot.wait(50)
    problems = readability_problems(plot)
    assert any("left axis label clipped" in p for p in problems)
    assert any("legend covers data" in p for p in problems)
    # the factory reserves the room: the same label on a plot it sized itself
    ok = make_plot("t", "x", "a left label far longer than the plot is tall, surely")
    qtbot.addWidget(ok)
    ok.resize(400, ok.minimumHeight())
    ok.show()
    qtbot.wait(50)
    assert not [p for p in readability_problems(ok) if "clipped" in p]
    assert legend.isVisible()


def test_the_side_docks_narrow_in_a_laptop_window_and_widen_again(qtbot, window):
    from gui.shell.compact import COMPACT_WIDTHS, DEFAULT_WIDTHS

    window.resize(*SCREEN)
    qtbot.wait(100)
    page = window.params_stack.currentWidget()
    need = max(COMPACT_WIDTHS[1], page.minimumSizeHint().width())
    assert abs(window.project_dock.width() - COMPACT_WIDTHS[0]) <= 4
    assert need <= window.params_dock.width() <= need + 60  # as wide as its page needs
    window.resize(1600, 950)
    qtbot.wait(100)
    assert window.project_dock.width() >= DEFAULT_WIDTHS[0] - 4
    assert window.params_dock.width() >= DEFAULT_WIDTHS[1] - 4


def _cut_texts(root) -> list[str]:
    """Texts under ``root`` the user cannot read whole: a scroll area showing its horizontal
    scroll bar, a one-line label narrower than its text or elided ("…"), a map title wider
    than its map."""
    from PySide6.QtWidgets import QLabel, QScrollArea

    from gui.agents.grid_view import GridView

    found = []
    for area in root.findChildren(QScrollArea):
        bar = area.horizontalScrollBar()
        # a bar with nothing to scroll (range 0) hides nothing: Qt may leave it shown for a
        # moment after the vertical bar appeared, until the next layout pass
        if area.isVisible() and bar.isVisible() and bar.maximum() > 0:
            found.append(f"horizontal scroll bar in {area.objectName() or area} "
                         f"({bar.maximum()} px to scroll)")
    for lab in root.findChildren(QLabel):
        if not lab.isVisible() or not lab.text() or lab.visibleRegion().isEmpty():
            continue
        if "…" in lab.text():
            found.append(f"elided label {lab.text()[:60]!r}")
        elif not lab.wordWrap() and lab.sizeHint().width() > lab.width():
            found.append(f"label {lab.text()[:60]!r} cut ({lab.sizeHint().width()} > "
                         f"{lab.width()})")
    for view in root.findChildren(GridView):
        if view.isVisible() and view.title_cut():
            found.append(f"map title {view.title!r} cut at {view.width()} px")
    return found


@pytest.mark.parametrize("key", ["advising", "agents"])
def test_nothing_is_cut_sideways_at_1366x768_with_the_docks(qtbot, window, key):
    """The set-up row of DP Advising (grids and the Parameters form) and the Private agents
    page (form, truth and recovered maps) show every text whole at a laptop's width with the
    Project and Run-parameters docks open: no sideways scrolling, no elided or cut label."""
    from PySide6.QtCore import Qt

    from gui.shell.compact import COMPACT_WIDTHS

    window.resize(*SCREEN)
    qtbot.wait(50)
    # the docks' widths a first start gives below 1500 px (gui.shell.compact), not the widths
    # another test of this process left behind
    window.resizeDocks([window.project_dock, window.params_dock], list(COMPACT_WIDTHS),
                       Qt.Orientation.Horizontal)
    qtbot.wait(50)
    ws = window.open_tool(key)
    qtbot.wait(300)
    assert window.project_dock.isVisible() and window.params_dock.isVisible()
    page = window.tabs.scroll_area(window.tabs.currentIndex())
    assert page is not None and not page.horizontalScrollBar().isVisible(), key
    assert not _cut_texts(ws), (key, _cut_texts(ws))
