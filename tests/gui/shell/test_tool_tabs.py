"""Every tool tab of the window is a ToolPanel: one copy of the worker, progress, cancel,
refusal, status and run-recorded plumbing (gui/shell/tool_panel.py), not one per tab."""

from __future__ import annotations

from gui.shell.tool_panel import ToolPanel
from gui.shell.tools import TOOLS
from gui.shell.workspace import Workspace

#: Tool tabs not yet a ToolPanel (the test below fails, saying so, as soon as one is);
#: empty: every tool tab is one. Only shrinks.
STILL_CONVERTING: set[str] = set()


def _tabs(window):
    """(key, page) of every tab: a tool's key, or ``mdp:<id>`` for an MDP workspace."""
    tools = {id(w): key for key, w in window.tools().items()}
    mdps = {id(w): f"mdp:{mdp_id}" for mdp_id, w in window.workspaces().items()}
    pages = [window.tabs.widget(i) for i in range(window.tabs.count())]
    return [(tools.get(id(p)) or mdps.get(id(p)) or repr(p), p) for p in pages]


def test_every_tool_tab_is_a_tool_panel(window):
    for key in TOOLS:
        window.open_tool(key)
    # The MDP editor's tab is not a tool tab: it is the window's own kind of workspace (one
    # per MDP, gui/mdp/workspace.py), whose Run is the window's sweep of that MDP in the
    # window's runner for it — F5 and Esc reach it through run_analysis/cancel_analysis,
    # not through the Workspace protocol — so it is neither a Workspace nor a ToolPanel.
    mdp_id = window.document.project.mdps[0].id
    window.open_workspace(mdp_id)

    tabs = _tabs(window)
    keys = {key for key, _ in tabs}  # the window may have opened other MDPs' tabs itself
    assert {k for k in keys if not k.startswith("mdp:")} == set(TOOLS)
    assert f"mdp:{mdp_id}" in keys
    for key, page in tabs:
        if key.startswith("mdp:"):
            assert not isinstance(page, Workspace), key
            continue
        assert isinstance(page, Workspace), key
        if key in STILL_CONVERTING:
            assert not isinstance(page, ToolPanel), (
                f"the {key} tab is a ToolPanel now: remove it from STILL_CONVERTING")
        else:
            assert isinstance(page, ToolPanel), f"the {key} tab is not a ToolPanel"
    assert STILL_CONVERTING <= set(TOOLS)


def test_a_tab_with_nothing_to_run_keeps_the_window_run_and_cancel_off(window, qtbot):
    """The calculator and the ledger run nothing (``can_run`` False): F5 starts nothing,
    Esc stops nothing — the calculator's background computation is not a run and goes on."""
    calc = window.open_tool("calculator")
    assert isinstance(calc, ToolPanel) and calc.can_run is False
    qtbot.waitUntil(lambda: not calc.is_busy, timeout=60_000)
    k = 12.3456  # not one of the memoised results: computed in the worker
    calc.set_parameters(k=k)
    assert calc.run() is False and calc.randomness_label() == ""
    qtbot.waitUntil(lambda: calc.runner.is_running or calc.result.inputs.k == k,
                    timeout=60_000)
    assert not calc.is_running and not window.run_action.isEnabled()
    assert not window.cancel_action.isEnabled()
    calc.cancel()  # Esc: nothing to stop; the new k is still computed and shown
    qtbot.waitUntil(lambda: not calc.is_busy, timeout=60_000)
    assert calc.result.inputs.k == k
    ledger = window.open_tool("ledger")
    assert isinstance(ledger, ToolPanel) and ledger.run() is False
    assert not window.run_action.isEnabled() and not window.cancel_action.isEnabled()
