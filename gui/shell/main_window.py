"""PrivPlan's main window: menus, toolbar, docks, workspace tabs and status bar.

Layout (``docs/conventions.md`` §8): the Project tree on the left, one workspace tab per open
MDP in the centre (the MDP editor above, Figure 2.1 below) plus, on request, the Privacy
Calculator tab (Analysis ▸ Privacy Calculator, Ctrl+Shift+P, or "Privacy Calculator" in the
Project tree), the active workspace's Inspector and run parameters on the right, a Log dock
(hidden by default) and a status bar with model validity, the randomness mode and the progress
of a running analysis.

Editing: the Edit menu and the toolbar (Select, Add state, Add action, Connect) act on the
active workspace's editor; its single-key shortcuts (N, A, C, Delete, F2, F) work while
the editor has the keyboard focus. Files: New/Open/Open Recent/Save/Save As, Import and
Export of ``*.mdp.json``/``*.mdp.npz``; large files open in a worker thread (the window
stays responsive); a recovery copy is autosaved every minute while there are unsaved
changes (:mod:`gui.shell.autosave`) and offered after a crash (:meth:`MainWindow.offer_recovery`).

The window owns the :class:`gui.shell.document.ProjectDocument` it is given and one
:class:`gui.shell.workers.TaskRunner` per workspace; ``closeEvent`` shuts them all down.

Save, Save As, Open Recent, crash recovery and Import/Export MDP are
:mod:`gui.shell.file_actions` (its dialog functions are the ones tests replace); the window
keeps thin delegates. Over 600 lines still: the rest (opening in a worker, docks, tabs,
status) is the shell's one coordinator.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QInputDialog,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QProgressBar,
    QScrollArea,
    QStackedWidget,
    QStyle,
    QToolBar,
    QWidget,
)

from core import __version__
from core.mdp import mdp_dataset
from core.project import Project
from gui.shell.autosave import AutosaveController
from gui.shell.commands import RenameProjectCommand
from gui.shell.docks import placeholder
from gui.shell.document import PROJECT_STACK, ProjectDocument, mdp_stack_key
from gui.shell.file_actions import FileActions
from gui.shell.help import install_help_menu
from gui.shell.ledger import spent_text
from gui.shell.log_panel import LogPanel
from gui.shell.project_files import BACKGROUND_BYTES, _file_size, _open_in_worker, read_project_file
from gui.shell.project_panel import ProjectPanel
from gui.shell.resources import ABOUT_HTML
from gui.shell.scroll_tabs import ScrollTabWidget
from gui.shell.settings import Settings
from gui.shell.tools import EXAMPLES, TOOLS, load_tools, mdp_workspace_spec, window_extensions
from gui.shell.tools_menu import install as install_tools_menu
from gui.shell.welcome import WelcomePage
from gui.shell.widgets import open_failure_text
from gui.shell.workers import TaskRunner
from gui.shell.workspace import Workspace

__all__ = ["MainWindow", "read_project_file", "OPEN_FILTERS", "BACKGROUND_BYTES"]

OPEN_FILTERS = ("PrivPlan files (*.privplan.json *.mdp.json *.mdp.npz *.json *.npz);;"
                "PrivPlan projects (*.privplan.json);;MDP files (*.mdp.json *.mdp.npz);;"
                "All files (*)")
MAX_AUTO_OPEN = 6
DEFAULT_SIZE = (1500, 950)

# Runs of these kinds are shown by the tool tab named here (double-click in the project tree).
RUN_TOOLS = {"advise": "advising", "advise-experiment": "advising", "plan": "logistics",
             "plan-bench": "logistics", "plan-packet": "logistics", "audit": "audit",
             "sharing": "sharing", "mia": "modelprivacy", "mia-table": "modelprivacy",
             "drl": "agents", "drl-table": "agents", "comarl": "agents"}


class MainWindow(QMainWindow):
    file_opened = Signal(str)  # a file was loaded into the document (also in the background)
    open_failed = Signal(str)  # the message shown

    def __init__(self, document: ProjectDocument, parent: QWidget | None = None, *,
                 use_settings: bool = True) -> None:
        super().__init__(parent)
        self._document = document
        self._use_settings = use_settings
        document.setParent(self)
        self._settings = Settings()
        # MDP workspaces (gui.mdp's widgets, Any: the shell may not import gui.mdp) by MDP id
        self._workspaces: dict[str, Any] = {}
        self._runners: dict[str, TaskRunner] = {}
        self._tools: dict[str, Any] = {}  # open tool tabs (Workspace widgets) by key
        self._inspector_hidden_for_tool = False
        self._inspector_was_visible = True
        self._loader = TaskRunner(self)  # opens large files off the UI thread
        # what a background read other than File ▸ Open does with its result (an import)
        self._loader_finish: Callable[[object], object] | None = None
        self._loading: str | None = None
        load_tools()
        self._discard_on_close = False
        self.setObjectName("main_window")
        self.setDockOptions(QMainWindow.DockOption.AnimatedDocks
                            | QMainWindow.DockOption.AllowTabbedDocks)

        # centre: workspace tabs, or an empty state
        self.tabs = ScrollTabWidget(self)  # pages scroll: none sets the window's minimum
        self.tabs.setTabsClosable(True)
        self.tabs.setMovable(True)
        self.tabs.setDocumentMode(True)
        self.empty_view = mdp_workspace_spec().empty_view(document, self)
        self.closed_label = WelcomePage(self)  # recent projects, examples, the guide
        self.central = QStackedWidget(self)
        for w in (self.empty_view, self.closed_label, self.tabs):
            self.central.addWidget(w)
        self.setCentralWidget(self.central)

        # docks
        self.project_panel = ProjectPanel(document, self, tools=lambda: [
            (t.key, t.title, t.tooltip) for t in TOOLS.values() if t.in_tree], examples=lambda: [
            (e.key, e.title, e.tooltip) for e in EXAMPLES.values() if e.tool in TOOLS])
        self.project_dock = self._add_dock("Project", "project_dock", self.project_panel,
                                           Qt.DockWidgetArea.LeftDockWidgetArea)
        self.inspector_stack = QStackedWidget(self)
        self.inspector_placeholder = placeholder("The Inspector shows the fields of what is "
                                                 "selected in an MDP workspace.", self)
        self.inspector_stack.addWidget(self.inspector_placeholder)
        self.inspector_dock = self._add_dock("Inspector", "inspector_dock", self.inspector_stack,
                                             Qt.DockWidgetArea.RightDockWidgetArea)
        self.params_stack = QStackedWidget(self)  # its dock follows the page (gui.shell.compact)
        self.params_placeholder = placeholder("Open an MDP workspace to set the parameters of "
                                              "its analysis here.", self)
        self.params_stack.addWidget(self.params_placeholder)
        scroll = QScrollArea(self)
        scroll.setWidget(self.params_stack)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.params_dock = self._add_dock("Run parameters", "params_dock", scroll,
                                          Qt.DockWidgetArea.RightDockWidgetArea)
        self.splitDockWidget(self.inspector_dock, self.params_dock, Qt.Orientation.Vertical)
        self.log_panel = LogPanel(self)
        self.log_dock = self._add_dock("Log", "log_dock", self.log_panel,
                                       Qt.DockWidgetArea.BottomDockWidgetArea)
        self.log_dock.hide()
        self.log_dock.visibilityChanged.connect(self._on_log_dock_visibility_changed)
        self._log_dock_sized = False
        self.log_panel.install_logging_handler()
        self.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.RightDockWidgetArea)

        self.file_actions = FileActions(self)  # Save, Save As, Open Recent, recovery
        self._create_actions()
        self._create_menus_and_toolbar()
        self._create_status_bar()
        self.autosave = AutosaveController(
            document, interval_s=self._settings.autosave_interval_s, parent=self)
        self.autosave.failed.connect(lambda text: self.log_panel.warning(text))
        self._loader.succeeded.connect(self._on_loader_succeeded)
        self._loader.failed.connect(self._on_loader_failed)

        document.project_replaced.connect(self._on_document_project_replaced)
        document.dirty_changed.connect(self._on_document_dirty_changed)
        # Undo follows the focus: the Project tree undoes project changes, a tab its own
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._on_app_focus_changed)
        # ledger entries and budgets change through the undo stacks: keep "ε spent" current
        document.history_changed.connect(self._update_status)
        document.path_changed.connect(self._on_document_path_changed)
        document.name_changed.connect(self._on_document_name_changed)
        document.run_added.connect(self._on_document_run_added)
        document.run_removed.connect(self._on_document_run_removed)
        document.mdp_changed.connect(self._on_document_mdp_changed)
        document.mdp_added.connect(self._on_document_mdp_added)
        document.mdp_removed.connect(self._on_document_mdp_removed)
        self.tabs.currentChanged.connect(self._on_tabs_current_changed)
        self.tabs.tabCloseRequested.connect(self._on_tabs_tab_close_requested)
        self.project_panel.mdp_activated.connect(self._on_project_panel_mdp_activated)
        self.project_panel.run_activated.connect(self._on_project_panel_run_activated)
        self.project_panel.rename_requested.connect(self.rename_project)
        self.project_panel.tool_activated.connect(self._on_project_panel_tool_activated)
        self.project_panel.example_activated.connect(self.open_example)
        self.project_panel.new_mdp_requested.connect(self.new_mdp)
        self.project_panel.export_requested.connect(self.export_mdp)

        self.project_dock.setMinimumWidth(170)
        self.params_dock.setMinimumWidth(300)
        self.resize(*DEFAULT_SIZE)  # then fitted to the screen (gui.shell.screen_fit)
        self._screen_fit_default_state = self.saveState()  # View ▸ Reset Layout's docks
        geometry, state = self._settings.window_state() if use_settings else (None, None)
        if geometry is not None:
            self.restoreGeometry(geometry)
        if state is not None:
            self.restoreState(state)
        else:
            self.resizeDocks([self.project_dock, self.params_dock], [220, 320],
                             Qt.Orientation.Horizontal)
            self.resizeDocks([self.inspector_dock, self.params_dock], [330, 570],
                             Qt.Orientation.Vertical)
        self._open_initial_workspaces()
        self._update_title()
        self._update_status()
        self.log_panel.info(f"PrivPlan {__version__}: opened “{document.display_name}”"
                            + (f" from {document.path}" if document.path else ""))
        for install in window_extensions():  # e.g. File ▸ Export Report… (gui/report/export.py)
            install(self)
        self.tools_menu = install_tools_menu(self)  # Tools ▸ …, tab order, stale messages
        self.tools_menu.restore()

    # ------------------------------------------------------------------ construction
    def _add_dock(self, title: str, name: str, widget: QWidget,
                  area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def _create_actions(self) -> None:
        style = self.style()
        sp = QStyle.StandardPixmap

        def action(text: str, slot, shortcut=None, icon=None, tip: str = "") -> QAction:
            a = QAction(text, self)
            if icon is not None:
                a.setIcon(style.standardIcon(icon))
            if shortcut is not None:
                a.setShortcut(shortcut)
            if tip:
                a.setStatusTip(tip)
                a.setToolTip(tip)
            a.triggered.connect(slot)
            return a

        self.new_action = action("&New Project", self.new_project, QKeySequence.StandardKey.New,
                                 sp.SP_FileIcon, "Start a new project with an empty MDP to draw")
        self.new_mdp_action = action("New &MDP", self.new_mdp, QKeySequence("Ctrl+Shift+N"),
                                     None, "Add an empty MDP to the project and draw it")
        self.import_action = action("&Import Model…", lambda: self.import_mdp(), None, None,
                                    "Add a model to the project: *.mdp.json, *.mdp.npz, "
                                    "PRISM explicit files (.tra …) or a Storm .drn")
        self.export_action = action("&Export MDP…", lambda: self.export_mdp(), None, None,
                                    "Write the active MDP as *.mdp.json or *.mdp.npz")
        self.open_action = action("&Open…", self.open_file, QKeySequence("Ctrl+O"),
                                  sp.SP_DialogOpenButton,
                                  "Open a project (*.privplan.json) or an MDP file")
        self.save_action = action("&Save", self.save, QKeySequence("Ctrl+S"),
                                  sp.SP_DialogSaveButton, "Save the project")
        self.save_as_action = action("Save &As…", self.save_as, QKeySequence("Ctrl+Shift+S"),
                                     None, "Save the project under a new name")
        self.quit_action = action("&Quit", self.close, QKeySequence.StandardKey.Quit, None,
                                  "Quit PrivPlan")
        self.quit_action.setMenuRole(QAction.MenuRole.QuitRole)
        # one stack per workspace: Undo/Redo act on the current tab's (gui.shell.document)
        group = self._document.undo_group
        self.undo_action = group.createUndoAction(self, "&Undo")
        self.undo_action.setShortcut(QKeySequence.StandardKey.Undo)
        self.undo_action.setIcon(style.standardIcon(sp.SP_ArrowBack))
        self.undo_action.setIconText("Undo")  # the toolbar stays narrow; the menu says what
        self.redo_action = group.createRedoAction(self, "&Redo")
        redo_keys = list(QKeySequence.keyBindings(QKeySequence.StandardKey.Redo))
        if QKeySequence("Ctrl+Shift+Z") not in redo_keys:
            redo_keys.append(QKeySequence("Ctrl+Shift+Z"))
        self.redo_action.setShortcuts(redo_keys)
        self.redo_action.setIcon(style.standardIcon(sp.SP_ArrowForward))
        self.redo_action.setIconText("Redo")
        self.rename_action = action("Re&name Project…", self.rename_project, None, None,
                                    "Rename the project (undoable)")
        self.settings_action = action("Se&ttings…", self.open_settings,
                                      QKeySequence.StandardKey.Preferences, None,
                                      "Where long runs compute (this computer or a dask "
                                      "cluster) and how often unsaved work is kept")
        # editing the active MDP; single keys work while its editor has the keyboard focus
        self.add_state_action = action("Add &State", self._edit("add_state"), QKeySequence("N"),
                                       None, "Add a state under the mouse pointer (N)")
        self.add_action_action = action("Add &Action", self._edit("add_action"),
                                        QKeySequence("A"), None,
                                        "Give the selected state a new action (A)")
        self.delete_action = action("&Delete", self._edit("delete_selection"),
                                    QKeySequence(QKeySequence.StandardKey.Delete), None,
                                    "Delete the selected states, actions and transitions (Del)")
        self.rename_item_action = action("Rena&me…", self._edit("rename_selection"),
                                         QKeySequence("F2"), None,
                                         "Rename the selected state or action in the Inspector "
                                         "(F2)")
        self.select_all_action = action("Select A&ll", self._edit("select_all"),
                                        QKeySequence(QKeySequence.StandardKey.SelectAll), None,
                                        "Select every state and action")
        self.auto_layout_action = action("Automatic La&yout", self._edit("auto_layout"),
                                         QKeySequence("Ctrl+L"), None,
                                         "Place the states automatically (undoable)")
        self.fit_action = action("&Fit Drawing to View", self._fit_active_drawing,
                                 QKeySequence("F"), None, "Fit the MDP drawing to the view (F)")
        self.mode_group = QActionGroup(self)
        self.mode_actions: dict[str, QAction] = {}
        for mode, text, key, icon, tip in (
                ("select", "Select", None, sp.SP_ArrowUp,
                 "Select, move and rubber-band select; drag from an action dot to a state to "
                 "connect them (Esc returns here)"),
                ("add_state", "Add state", None, sp.SP_FileDialogNewFolder,
                 "Click on the canvas to add states (N adds one at the pointer)"),
                ("connect", "Connect", QKeySequence("C"), sp.SP_ArrowRight,
                 "Click an action dot, then the next state, to add a transition (C)")):
            a = action(text, lambda checked=False, m=mode: self._set_mode(m), key, icon, tip)
            a.setCheckable(True)
            self.mode_group.addAction(a)
            self.mode_actions[mode] = a
        self.mode_actions["select"].setChecked(True)
        self.toolbar_add_action = action("Add action", self._edit("add_action"), None,
                                         sp.SP_FileDialogNewFolder,
                                         "Give the selected state a new action (A)")
        self.editor_actions = [self.add_state_action, self.add_action_action,
                               self.delete_action, self.rename_item_action,
                               self.select_all_action, self.fit_action,
                               self.mode_actions["connect"]]
        for a in self.editor_actions:
            a.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.run_action = action("&Run", self.run_current, QKeySequence("F5"),
                                 sp.SP_MediaPlay,
                                 "Run what the current tab runs: the privacy sweep of an MDP "
                                 "workspace, or the tool's run (F5)")
        self.bounds_action = action("&Synthesise && Bound", self.run_bounds, QKeySequence("F6"),
                                    None, "Privatise the model once, synthesise the private "
                                    "policy and show it with its value bounds on the drawing "
                                    "(F6)")
        self.cancel_action = action("&Cancel", self.cancel_current, QKeySequence("Esc"),
                                    sp.SP_MediaStop, "Cancel the current tab's run (Esc)")
        self.share_action = action(
            "Share This MDP's &Policy…", self.share_policy, None, None,
            "Open Policy sharing on this MDP: its optimal policy as the teacher of private "
            "students (Dirichlet mechanism, Theorem 1 of [KS])")
        self.design_action = action(
            "&Design for a Target ε…", self.open_designer, QKeySequence("Ctrl+Shift+D"), None,
            "The privacy designer: for a target (ε, δ), the (k, η) that meet it on this MDP "
            "and the one with the least cost of privacy (Ctrl+Shift+D)")
        self.calculator_action = action(
            "Privacy Ca&lculator", self.open_calculator, QKeySequence("Ctrl+Shift+P"), None,
            "Open the Privacy Calculator: (ε, δ) of the Dirichlet mechanism, what-if "
            "(Ctrl+Shift+P)")
        self.about_action = action("&About PrivPlan", self.show_about)
        self.about_action.setMenuRole(QAction.MenuRole.AboutRole)

    def _create_menus_and_toolbar(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        self.recent_menu = QMenu("Open &Recent", self)
        self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
        for a in (self.new_action, self.new_mdp_action, self.open_action, self.recent_menu,
                  None, self.save_action, self.save_as_action, None, self.import_action,
                  self.export_action, None, self.quit_action):
            if a is None:
                file_menu.addSeparator()
            elif isinstance(a, QMenu):
                file_menu.addMenu(a)
            else:
                file_menu.addAction(a)
        self.file_menu = file_menu
        edit_menu = bar.addMenu("&Edit")
        edit_menu.addAction(self.undo_action)
        edit_menu.addAction(self.redo_action)
        edit_menu.addSeparator()
        for a in (self.mode_actions["select"], self.add_state_action, self.add_action_action,
                  self.mode_actions["connect"]):
            edit_menu.addAction(a)
        edit_menu.addSeparator()
        for a in (self.delete_action, self.rename_item_action, self.select_all_action,
                  self.auto_layout_action):
            edit_menu.addAction(a)
        edit_menu.addSeparator()
        edit_menu.addAction(self.rename_action)
        edit_menu.addSeparator()
        edit_menu.addAction(self.settings_action)
        self.edit_menu = edit_menu
        view_menu = bar.addMenu("&View")
        for dock in (self.project_dock, self.inspector_dock, self.params_dock, self.log_dock):
            view_menu.addAction(dock.toggleViewAction())
        view_menu.addSeparator()
        view_menu.addAction(self.fit_action)
        analysis_menu = bar.addMenu("&Analysis")
        analysis_menu.addAction(self.run_action)
        analysis_menu.addAction(self.bounds_action)
        analysis_menu.addAction(self.cancel_action)
        analysis_menu.addSeparator()
        analysis_menu.addAction(self.share_action)
        analysis_menu.addAction(self.design_action)
        analysis_menu.addAction(self.calculator_action)
        help_menu = bar.addMenu("&Help")
        help_menu.addAction(self.about_action)
        install_help_menu(self, help_menu)  # Help ▸ User Guide (F1): the current tab's page
        self.view_menu = view_menu

        tb = QToolBar("Main toolbar", self)
        tb.setObjectName("main_toolbar")
        tb.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        tb.setMovable(False)
        for a in (self.new_action, self.open_action, self.save_action, None, self.undo_action,
                  self.redo_action, None, self.mode_actions["select"],
                  self.mode_actions["add_state"], self.toolbar_add_action,
                  self.mode_actions["connect"], None, self.run_action, self.cancel_action):
            tb.addSeparator() if a is None else tb.addAction(a)
        self.toolbar = tb
        self.addToolBar(tb)
        view_menu.insertAction(view_menu.actions()[0], tb.toggleViewAction())

    def _create_status_bar(self) -> None:
        sb = self.statusBar()
        self.validity_label = QLabel(self)
        self.mode_label = QLabel(self)
        self.mode_label.setToolTip("Randomness mode of the active workspace's analysis.")
        self.progress_bar = QProgressBar(self)
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setFixedWidth(220)
        self.progress_bar.setFormat("%p%")
        self.progress_bar.hide()
        for w in (self.validity_label, self.mode_label, self.progress_bar):
            sb.addPermanentWidget(w)

    # ------------------------------------------------------------------ workspaces
    @property
    def settings(self) -> Settings:
        return self._settings

    @property
    def document(self) -> ProjectDocument:
        return self._document

    def workspaces(self) -> dict[str, Any]:
        return dict(self._workspaces)

    def active_workspace(self) -> Any | None:
        """The MDP workspace of the current tab, or None (a tool tab or nothing)."""
        w = self.tabs.currentWidget()
        return w if w is not None and w in self._workspaces.values() else None

    def open_workspace(self, mdp_id: str) -> Any:
        """Open (or bring forward) the workspace tab of ``mdp_id``."""
        ws = self._workspaces.get(mdp_id)
        if ws is None:
            runner = TaskRunner(self)
            ws = mdp_workspace_spec().factory(self._document, mdp_id, runner, self.tabs)
            self._workspaces[mdp_id] = ws
            self._runners[mdp_id] = runner
            panel = ws.analysis_panel
            panel.message_logged.connect(self.log_panel.log)
            panel.parameters_changed.connect(self._update_status)
            runner.started.connect(functools.partial(self._on_runner_started, mdp_id))
            runner.progress_changed.connect(
                functools.partial(self._on_runner_progress_changed, mdp_id))
            runner.finished.connect(functools.partial(self._on_runner_finished, mdp_id))
            self.params_stack.addWidget(panel)
            self.inspector_stack.addWidget(ws.inspector)
            ws.editor.addActions(self.editor_actions)
            ws.editor.message.connect(self._on_editor_message)
            ws.editor.mode_changed.connect(self._on_editor_mode_changed)
            ws.inspector_requested.connect(self._on_workspace_inspector_requested)
            ws.inspector.message_logged.connect(self.log_panel.log)
            index = self.tabs.addTab(ws, ws.title())
            self.tabs.setTabToolTip(index, f"{self._document.model(mdp_id).name or mdp_id} "
                                           f"({mdp_id})")
        self.tabs.setCurrentWidget(ws)
        self.central.setCurrentWidget(self.tabs)
        self._on_tabs_current_changed(self.tabs.currentIndex())
        return ws

    def close_workspace(self, mdp_id: str) -> None:
        ws = self._workspaces.pop(mdp_id, None)
        if ws is None:
            return
        runner = self._runners.pop(mdp_id)
        runner.shutdown()
        self.params_stack.removeWidget(ws.analysis_panel)
        ws.analysis_panel.deleteLater()
        self.inspector_stack.removeWidget(ws.inspector)
        ws.inspector.deleteLater()
        self.tabs.removeTab(self.tabs.indexOf(ws))
        ws.deleteLater()
        runner.deleteLater()
        if not self._workspaces and not self._tools:
            self._show_empty_centre()
        self._update_status()

    # ------------------------------------------------------------------ tool tabs
    # Every workspace that is not an MDP's; see gui/shell/tools.py for how modules register one.
    @property
    def calculator(self) -> QWidget | None:
        """The Privacy Calculator tab, if open."""
        return self._tools.get("calculator")

    def tools(self) -> dict[str, QWidget]:
        return dict(self._tools)

    def open_tool(self, key: str, title: str | None = None,
                  factory: Callable[[], QWidget] | None = None, *, tooltip: str = "") -> QWidget:
        """Open (or bring forward) the tool tab ``key``; registered tools need only the key."""
        w = self._tools.get(key)
        if w is None:
            spec = TOOLS.get(key)
            if factory is None and spec is None:
                raise KeyError(f"no tool {key!r}")
            title = title or (spec.title if spec else key)
            tooltip = tooltip or (spec.tooltip if spec else "")
            w = factory() if factory is not None else spec.factory(self)  # type: ignore[union-attr]
            if not isinstance(w, QWidget) or not isinstance(w, Workspace):
                raise TypeError(f"tool {key!r} does not implement gui.shell.workspace.Workspace")
            self._tools[key] = w
            w.message_logged.connect(self.log_panel.log)
            w.running_changed.connect(self._on_tool_running_changed)
            if w.info_panel is not None:
                self.params_stack.addWidget(w.info_panel)
            index = self.tabs.addTab(w, title)
            if tooltip:
                self.tabs.setTabToolTip(index, tooltip)
            self.log_panel.info(f"{title} opened")
        self.tabs.setCurrentWidget(w)
        self.central.setCurrentWidget(self.tabs)
        self._on_tabs_current_changed(self.tabs.currentIndex())
        return w

    def close_tool(self, key: str) -> None:
        w = self._tools.pop(key, None)
        if w is None:
            return
        w.shutdown()
        side = w.info_panel
        if side is not None:
            self.params_stack.removeWidget(side)
            side.deleteLater()
        self.tabs.removeTab(self.tabs.indexOf(w))
        w.deleteLater()
        if not self._workspaces and not self._tools:
            self._show_empty_centre()
        self._update_status()

    def open_calculator(self) -> QWidget:
        """Open (or bring forward) the Privacy Calculator tab."""
        return self.open_tool("calculator")

    def close_calculator(self) -> None:
        self.close_tool("calculator")

    def _close_all_workspaces(self) -> None:
        for mdp_id in list(self._workspaces):
            self.close_workspace(mdp_id)

    def _open_initial_workspaces(self) -> None:
        entries = self._document.project.mdps[:MAX_AUTO_OPEN]
        for e in entries:
            self.open_workspace(e.id)
        if entries:
            self.tabs.setCurrentIndex(self.tabs.indexOf(self._workspaces[entries[0].id]))
        elif not self._tools:
            self._show_empty_centre()

    def _show_empty_centre(self) -> None:
        self.central.setCurrentWidget(self.closed_label if self._document.project.mdps
                                      else self.empty_view)
        self.params_stack.setCurrentWidget(self.params_placeholder)
        self.inspector_stack.setCurrentWidget(self.inspector_placeholder)

    # ------------------------------------------------------------------ file actions
    def new_project(self) -> None:
        """A new project holding one empty MDP, open for drawing."""
        from core.mdp import MdpModel

        if not self._maybe_save():
            return
        project = Project(name="Untitled")
        project.add_mdp(MdpModel(name="Untitled MDP"), "mdp-1")
        self._document.replace_project(project, None)

    def new_mdp(self) -> str:
        """Add an empty MDP to the project (undoable) and open its workspace."""
        from core.mdp import MdpModel
        from gui.shell.commands import AddMdpCommand

        taken = {e.model.name for e in self._document.project.mdps}
        n = 1
        while f"MDP {n}" in taken:
            n += 1
        cmd = AddMdpCommand(self._document, MdpModel(name=f"MDP {n}"))
        self._document.push(cmd)
        self._document.set_active_stack(PROJECT_STACK)  # Ctrl+Z undoes what was just done
        return cmd.mdp_id

    def open_file(self) -> None:
        if not self._maybe_save():
            return
        path, _ = QFileDialog.getOpenFileName(self, "Open project or MDP",
                                              self._settings.last_dir, OPEN_FILTERS)
        if path:
            self.open_path(path)

    def open_path(self, path: str | os.PathLike[str], *, background: bool | None = None
                  ) -> bool:
        """Load ``path`` into the document; on any problem explain it and change nothing.

        Files larger than :data:`BACKGROUND_BYTES` (with their sidecar arrays) load in a
        worker thread (``background=None``): the call returns True at once and
        :attr:`file_opened` (or :attr:`open_failed`) follows.
        """
        path = str(path)
        if self._loading is not None:
            self.statusBar().showMessage(f"Still opening {self._loading}…", 4000)
            return False
        if background is None:
            background = _file_size(path) > BACKGROUND_BYTES
        if background:
            self._loading = path
            self._set_loading(True)
            self._loader.start(_open_in_worker, path)
            return True
        try:
            project, is_project = read_project_file(path)
        except Exception as exc:  # noqa: BLE001 - any failure: a dialog, the document kept
            self.report_open_error(open_failure_text(exc, path))
            return False
        self._finish_open(path, project, is_project)
        return True

    def _finish_open(self, path: str, project: Project, is_project: bool,
                     problems: dict | None = None) -> None:
        self._settings.last_dir = str(Path(path).parent)
        self._settings.add_recent_file(path)
        self._document.replace_project(project, path if is_project else None,
                                       problems=problems)
        if not is_project:
            self.log_panel.info(f"{path} is an MDP file: it was wrapped in a new, unsaved "
                                "project (Save As… to keep it)")
        self.file_opened.emit(path)

    def _set_loading(self, loading: bool) -> None:
        for w in (self.tabs, self.project_panel, self.inspector_stack, self.params_stack):
            w.setEnabled(not loading)
        for a in (self.new_action, self.open_action, self.save_action, self.save_as_action,
                  self.import_action, self.new_mdp_action):
            a.setEnabled(not loading)
        self.recent_menu.setEnabled(not loading)
        if loading:
            self.progress_bar.setRange(0, 0)  # busy
            self.progress_bar.show()
            self.statusBar().showMessage(f"Opening {self._loading}…")
        else:
            self.progress_bar.setRange(0, 1000)
            self.statusBar().clearMessage()
            self._update_actions()

    def _on_loader_succeeded(self, result: object) -> None:
        finish, self._loader_finish = self._loader_finish, None
        self._loading = None
        self._set_loading(False)
        if finish is not None:  # another background read (gui.shell.load_cancel)
            finish(result)
            return
        path, project, is_project, problems = cast(  # what _open_in_worker returns
            "tuple[str, Project, bool, dict]", result)
        self._finish_open(path, project, is_project, problems)

    def _on_loader_failed(self, exc: object) -> None:
        path = self._loading
        self._loading = None
        self._set_loading(False)
        self.report_open_error(open_failure_text(exc if isinstance(exc, BaseException)
                                                  else RuntimeError(str(exc)), path))

    @property
    def is_loading(self) -> bool:
        return self._loading is not None

    def report_open_error(self, message: str) -> None:
        self.log_panel.error(f"cannot open: {message}")
        self.open_failed.emit(message)
        QMessageBox.critical(self, "Cannot open file", message)

    def _fill_recent_menu(self) -> None:
        self.file_actions.fill_recent_menu()

    def add_recent_file(self, path: str) -> None:
        self._settings.add_recent_file(path)

    def open_recent(self, path: str) -> bool:
        """Open a recent file (asks about unsaved changes first; forgets missing files)."""
        return self.file_actions.open_recent(path)

    def import_mdp(self, path: str | list[str] | None = None) -> str | None:
        """Add a model (MDP, PRISM or Storm files) to the project; the new MDP's id."""
        return self.file_actions.import_mdp(path)

    def export_mdp(self, mdp_id: str | None = None, path: str | None = None) -> bool:
        """Write an MDP (default: the active one) as *.mdp.json or *.mdp.npz."""
        return self.file_actions.export_mdp(mdp_id, path)

    def offer_recovery(self) -> bool:
        """After a crash: offer the autosaved copies; True if one was recovered."""
        return self.file_actions.offer_recovery()

    def save(self) -> bool:
        return self.file_actions.save()

    def save_as(self) -> bool:
        return self.file_actions.save_as()

    def save_to(self, path: str | os.PathLike[str]) -> bool:
        """Save atomically and mark the document clean, merging what others recorded."""
        return self.file_actions.save_to(path)

    def _maybe_save(self) -> bool:
        """True when it is fine to drop the current project (saved, discarded or clean)."""
        return self.file_actions.maybe_save()

    def open_settings(self) -> bool:
        """Edit ▸ Settings…; returns True when the settings were applied (OK)."""
        from gui.shell.settings_dialog import SettingsDialog

        dialog = SettingsDialog(self._settings, self)
        self.settings_dialog = dialog  # (tests drive it)
        ok = dialog.exec() == SettingsDialog.DialogCode.Accepted
        if ok:
            self.autosave.set_interval(self._settings.autosave_interval_s)
            where = self._settings.scheduler_address or "this computer's worker processes"
            self.statusBar().showMessage(f"Long runs compute on {where}", 5000)
        return ok

    def open_designer(self) -> QWidget | None:
        """Analysis ▸ Design for a Target ε…: the designer dialog on the current MDP."""
        ws = self.active_workspace()
        if ws is None:
            self.statusBar().showMessage("Open an MDP tab first: the designer works on a "
                                         "model", 5000)
            return None
        return ws.open_designer()

    def share_policy(self) -> QWidget | None:
        """Analysis ▸ Share This MDP's Policy…: the Policy sharing tab on the current MDP."""
        ws = self.active_workspace()
        if ws is None or "sharing" not in TOOLS:
            return None
        panel = self.open_tool("sharing")
        panel.set_parameters(env=f"mdp:{ws.mdp_id}")  # type: ignore[attr-defined]
        return panel

    def rename_project(self) -> None:
        name, ok = QInputDialog.getText(self, "Rename project", "Project name:",
                                        text=self._document.project.name)
        name = name.strip()
        if ok and name and name != self._document.project.name:
            self._document.push(RenameProjectCommand(self._document, name))
            self._document.set_active_stack(PROJECT_STACK)

    def discard_and_close(self) -> bool:
        """Close without asking about unsaved changes (``--screenshot``)."""
        self._discard_on_close = True
        return self.close()

    # ------------------------------------------------------------------ analysis actions
    def run_analysis(self) -> bool:
        ws = self.active_workspace()
        if ws is None:
            self.statusBar().showMessage("Open an MDP workspace first.", 4000)
            return False
        return ws.analysis_panel.run()

    def run_bounds(self) -> bool:
        """Synthesise & bound on the active MDP (F6)."""
        ws = self.active_workspace()
        if ws is None:
            self.statusBar().showMessage("Open an MDP workspace first.", 4000)
            return False
        return ws.analysis_panel.run_bounds()

    def cancel_analysis(self) -> None:
        ws = self.active_workspace()
        if ws is not None and ws.runner.is_running:  # "Cancelling…" in sight until it stops
            ws.analysis_panel.cancel()
            self.statusBar().showMessage("Cancelling…")
            self.progress_bar.setFormat("Cancelling… %p%")

    def current_tool(self) -> Workspace | None:
        """The tool tab that is current, or None (an MDP workspace or nothing)."""
        w = self.tabs.currentWidget()
        return w if isinstance(w, Workspace) and w in self._tools.values() else None

    def run_current(self) -> bool:
        """F5: the sweep of the active MDP workspace, or the current tool's run."""
        tool = self.current_tool()
        return tool.run() if tool is not None else self.run_analysis()

    def cancel_current(self) -> None:
        """Esc: cancel the current tab's run."""
        tool = self.current_tool()
        if tool is not None:
            tool.cancel()
        else:
            self.cancel_analysis()

    def _on_tool_running_changed(self, running: bool) -> None:
        if self.sender() is self.tabs.currentWidget():
            self._update_actions()

    def show_about(self) -> None:
        QMessageBox.about(self, "About PrivPlan", ABOUT_HTML.format(version=__version__))

    def _fit_active_drawing(self) -> None:
        ws = self.active_workspace()
        if ws is not None:
            ws.editor.fit_to_view()

    def _edit(self, method: str) -> Callable[..., None]:
        """A slot that calls ``method`` on the active workspace's editor."""

        def slot(*args: object) -> None:
            ws = self.active_workspace()
            if ws is None:
                self.statusBar().showMessage("Open an MDP workspace first.", 4000)
                return
            getattr(ws.editor, method)()

        return slot

    def _set_mode(self, mode: str) -> None:
        ws = self.active_workspace()
        if ws is None:
            self.mode_actions["select"].setChecked(True)
            return
        ws.editor.set_mode(mode)
        ws.editor.canvas.setFocus()

    # ------------------------------------------------------------------ status
    def _update_title(self) -> None:
        where = self._document.path or "not saved"
        self.setWindowTitle(f"{self._document.display_name}[*] — {where} — PrivPlan")
        self.setWindowModified(self._document.is_dirty)

    def _update_status(self) -> None:
        ws = self.active_workspace()
        if self.calculator is not None and self.tabs.currentWidget() is self.calculator:
            self.validity_label.setText("Privacy Calculator")
            self.validity_label.setToolTip("A what-if tool: nothing it computes is recorded "
                                           "in the project or released.")
            self.mode_label.setText(" · what-if, nothing is recorded")
        elif ws is None and (tool := self.current_tool()) is not None:
            # another tool tab: its title, and its randomness mode when it has one
            self.validity_label.setStyleSheet("")
            self.validity_label.setText(self.tabs.tabText(self.tabs.currentIndex()))  # tool's
            self.validity_label.setToolTip("")
            label = tool.randomness_label()
            self.mode_label.setText(" · " + label if label else "")
        elif ws is None or not self._document.has_mdp(ws.mdp_id):
            self.validity_label.setText("no model open")
            self.mode_label.setText("")
        else:
            summary = self._document.summary(ws.mdp_id)
            valid = self._document.is_valid(ws.mdp_id)
            shown = summary if len(summary) <= 90 else summary[:89] + "…"
            self.validity_label.setText(shown)
            self.validity_label.setStyleSheet("" if valid else "QLabel { color: #D55E00; }")
            self.validity_label.setToolTip(
                "Every row of P is a probability distribution and every reward is finite."
                if valid else f"{summary}\n\nThe analyses refuse to run until every problem "
                "is fixed; the Inspector lists them.")
            spent = spent_text(self._document, mdp_dataset(ws.mdp_id))
            self.mode_label.setText(" · " + ws.analysis_panel.randomness_label()
                                    + (f" · {spent}" if spent else ""))
        self._update_actions()

    def _update_actions(self) -> None:
        ws = self.active_workspace()
        tool = self.current_tool()
        running = (ws is not None and ws.analysis_panel.is_running) or (
            tool is not None and tool.is_running)
        self.run_action.setEnabled((ws is not None or (tool is not None and tool.can_run))
                                   and not running)
        self.bounds_action.setEnabled(ws is not None and not running)
        self.share_action.setEnabled(ws is not None and "sharing" in TOOLS)
        self.cancel_action.setEnabled(running)
        for a in (*self.editor_actions, self.auto_layout_action, self.toolbar_add_action,
                  *self.mode_actions.values(), self.export_action):
            a.setEnabled(ws is not None)
        if self._loading is not None:
            return
        if ws is not None and running:
            self.progress_bar.show()
        else:
            self.progress_bar.hide()

    # ------------------------------------------------------------------ slots
    def _on_document_project_replaced(self) -> None:
        self._close_all_workspaces()
        self._open_initial_workspaces()
        self._update_title()
        self._update_status()
        self.log_panel.info(f"project “{self._document.display_name}” opened"
                            + (f" from {self._document.path}" if self._document.path else ""))

    def _on_document_dirty_changed(self, dirty: bool) -> None:
        self._update_title()

    def _on_document_path_changed(self, path: str) -> None:
        self._update_title()

    def _on_document_name_changed(self, name: str) -> None:
        self._update_title()

    def _on_document_run_added(self, run_id: str) -> None:
        r = self._document.run(run_id)
        s = r.summary
        mode = (f"seeded experiment (seed {r.seed})" if r.params.get("seeded", True)
                else f"experiment, fresh OS seed {r.seed}")
        if r.kind == "sweep":
            what = f"{len(s.get('k', []))} k values × {s.get('runs')} runs"
        elif r.kind == "bounds":
            what = (f"π̄ and bounds at k = {s.get('k')}, cost bound at s₀ "
                    f"{float(s.get('cost_bound', float('nan'))):.4g}")
        else:
            self.log_panel.info(f"{r.id} recorded: {r.kind} on {r.target}")
            return
        self.log_panel.info(f"{r.id} recorded: {r.kind} on {r.target}, {what}, "
                            f"β = {s.get('beta')}, α {s.get('alpha_mode')}, {mode}, "
                            f"{float(s.get('elapsed_s', 0.0)):.2f} s")

    def _on_document_mdp_changed(self, mdp_id: str) -> None:
        ws = self._workspaces.get(mdp_id)
        if ws is not None:
            index = self.tabs.indexOf(ws)
            self.tabs.setTabText(index, ws.title())
            self.tabs.setTabToolTip(index, f"{self._document.model(mdp_id).name or mdp_id} "
                                           f"({mdp_id})")
        if self._is_active(mdp_id):
            self._update_status()

    def _on_document_mdp_added(self, mdp_id: str) -> None:
        self.open_workspace(mdp_id)

    def _on_document_mdp_removed(self, mdp_id: str) -> None:
        self.close_workspace(mdp_id)

    def _on_editor_message(self, text: str) -> None:
        self.statusBar().showMessage(text, 6000)

    def _on_editor_mode_changed(self, mode: str) -> None:
        action = self.mode_actions.get(mode)
        if action is not None and self.sender() is getattr(self.active_workspace(), "editor",
                                                           None):
            action.setChecked(True)

    def _on_workspace_inspector_requested(self) -> None:
        if not self.inspector_dock.isVisible():
            self.inspector_dock.show()
        self.inspector_dock.raise_()

    def _on_document_run_removed(self, run_id: str) -> None:
        self.log_panel.info(f"{run_id} removed from the project")

    @Slot(QWidget, QWidget)
    def _on_app_focus_changed(self, old: QWidget | None, new: QWidget | None) -> None:
        if new is None or new.window() is not self:
            return
        w: QWidget | None = new
        while w is not None:
            if w is self.project_dock:
                self._document.set_active_stack(PROJECT_STACK)
                return
            if w is self.tabs or w is self.params_dock or w is self.inspector_dock:
                self._document.set_active_stack(self.current_stack_key())
                return
            w = w.parentWidget()

    def current_stack_key(self) -> str:
        """The undo stack of the current tab (the project's when no tab is open)."""
        ws = self.active_workspace()
        if ws is not None:
            return mdp_stack_key(ws.mdp_id)
        w = self.tabs.currentWidget()
        for key, tool in self._tools.items():
            if tool is w:
                return key
        return PROJECT_STACK

    def _on_tabs_current_changed(self, index: int) -> None:
        ws = self.active_workspace()
        self._document.set_active_stack(self.current_stack_key())
        self.inspector_stack.setCurrentWidget(ws.inspector if ws is not None
                                              else self.inspector_placeholder)
        # one Inspector: a tool tab inspects in its own panel, so the MDP dock steps aside
        # (and comes back, as the user left it, on an MDP tab)
        if ws is None and self.current_tool() is not None:
            if not self._inspector_hidden_for_tool:
                self._inspector_was_visible = self.inspector_dock.isVisible()
                self._inspector_hidden_for_tool = True
            self.inspector_dock.hide()
        elif self._inspector_hidden_for_tool:
            self._inspector_hidden_for_tool = False
            if self._inspector_was_visible:
                self.inspector_dock.show()
        if ws is not None:
            self.mode_actions[ws.editor.canvas.mode].setChecked(True)
        if ws is not None:
            self.params_stack.setCurrentWidget(ws.analysis_panel)
        elif (tool := self.current_tool()) is not None and tool.info_panel is not None:
            self.params_stack.setCurrentWidget(tool.info_panel)
        else:
            self.params_stack.setCurrentWidget(self.params_placeholder)
        self._update_status()

    def _on_log_dock_visibility_changed(self, visible: bool) -> None:
        if visible and not self._log_dock_sized:
            self._log_dock_sized = True
            self.resizeDocks([self.log_dock], [170], Qt.Orientation.Vertical)

    def _on_tabs_tab_close_requested(self, index: int) -> None:
        ws = self.tabs.widget(index)
        mdp_id = next((k for k, w in self._workspaces.items() if w is ws), None)
        if mdp_id is not None:
            self.close_workspace(mdp_id)
        else:
            key = next((k for k, w in self._tools.items() if w is ws), None)
            if key is not None:
                self.close_tool(key)

    def _on_project_panel_mdp_activated(self, mdp_id: str) -> None:
        self.open_workspace(mdp_id)

    def _on_project_panel_tool_activated(self, key: str) -> None:
        self.open_tool(key)

    def open_example(self, key: str) -> QWidget:
        """Open the tool of built-in example ``key`` and add the example there."""
        w = self.open_tool(EXAMPLES[key].tool)
        EXAMPLES[key].open(w)
        return w

    def _on_project_panel_run_activated(self, run_id: str) -> None:
        record = self._document.run(run_id)
        if record.kind in ("sweep", "bounds") and self._document.has_mdp(record.target):
            self.open_workspace(record.target).show_run(run_id)
        elif record.kind in RUN_TOOLS and RUN_TOOLS[record.kind] in TOOLS:
            self.open_tool(RUN_TOOLS[record.kind]).show_run(run_id)  # type: ignore[attr-defined]

    def _on_runner_started(self, mdp_id: str) -> None:
        if self._is_active(mdp_id):
            self.progress_bar.setValue(0)
        self._update_actions()

    def _on_runner_progress_changed(self, mdp_id: str, fraction: float, message: str) -> None:
        if self._is_active(mdp_id):
            self.progress_bar.setValue(int(round(1000 * fraction)))
            if not self._runners[mdp_id].is_cancelling:
                self.statusBar().showMessage(f"Analysis: {message}")

    def _on_runner_finished(self, mdp_id: str) -> None:
        self.progress_bar.setFormat("%p%")
        if self._is_active(mdp_id):
            self.statusBar().clearMessage()
        self._update_actions()

    def _is_active(self, mdp_id: str) -> bool:
        ws = self.active_workspace()
        return ws is not None and ws.mdp_id == mdp_id

    # ------------------------------------------------------------------ Qt events
    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        if not self._discard_on_close and not self._maybe_save():
            event.ignore()
            return
        for runner in list(self._runners.values()):
            runner.shutdown()
        self._loader.shutdown()
        self.autosave.shutdown()
        self.autosave.discard()  # a normal close: nothing to recover
        for tool in self._tools.values():
            tool.shutdown()
        if self._use_settings:
            self._settings.set_window_state(self.saveGeometry(), self.saveState())
            self._settings.sync()
        self.log_panel.remove_logging_handler()
        event.accept()


def preview(exec_: bool = True) -> QWidget:
    from gui.shell.preview import example_document, run_preview

    return run_preview(lambda: MainWindow(example_document()), exec_=exec_,
                       title="", size=DEFAULT_SIZE)


if __name__ == "__main__":
    preview()
