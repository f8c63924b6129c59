"""The registries through which workspace packages plug into the shell.

The shell never imports a workspace package (import-linter contract ``GUI layers``);
workspaces register themselves when :func:`load_tools` imports the modules listed here by
name (the way napari discovers plugins):

* **tool tabs** — every workspace that is not an MDP's (calculator, ledger, maps,
  advising, audit): a module calls :func:`register_tool` at import time and is listed in
  ``TOOL_MODULES``. A tool widget implements :class:`gui.shell.workspace.Workspace`
  where it runs work (``info_panel`` in the right dock, ``message_logged`` into the log,
  ``run``/``cancel`` for F5/Esc, ``shutdown()`` when its tab closes);
* **the MDP workspace kind** — one tab per MDP of the project: :func:`register_mdp_workspace`
  (module ``gui.mdp.workspace``);
* **window extensions** — actions a package adds to the main window (File ▸ Export
  Report…): :func:`register_window_extension` (module ``gui.report.export``);
* **examples** — built-in examples listed under "Examples" in the project tree: a tool
  registers ``ExampleSpec(key, title, tool, open)``; double-clicking one opens the tool tab
  ``tool`` and calls ``open(widget)`` (module ``gui.logistics.example_maps``: the logistics,
  air and rover maps).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from gui.shell.main_window import MainWindow

__all__ = ["ToolSpec", "TOOLS", "TOOL_MODULES", "EXTENSION_MODULES", "register_tool", "load_tools",
           "ExampleSpec", "EXAMPLES", "register_example",
           "MdpWorkspaceSpec", "register_mdp_workspace", "mdp_workspace_spec",
           "register_window_extension", "window_extensions"]


@dataclass(frozen=True)
class ToolSpec:
    """A kind of tool tab: its title, tooltip, and ``factory(window) -> QWidget``."""

    key: str
    title: str
    factory: Callable[["MainWindow"], "QWidget"]
    tooltip: str = ""
    in_tree: bool = True  # listed under "Tools" in the project tree


TOOLS: dict[str, ToolSpec] = {}

# Modules that register tools, in the order they appear under "Tools" (one line each).
TOOL_MODULES: list[str] = [
    "gui.calculator.panel",
    "gui.advising.panel",
    "gui.ledger.panel",
    "gui.logistics.panel",
    "gui.audit.panel",
    "gui.sharing.panel",
    "gui.modelprivacy.panel",
    "gui.agents.panel",
    "gui.plan.panel",
]


# Modules that register the MDP workspace kind and window extensions.
EXTENSION_MODULES: list[str] = [
    "gui.mdp.workspace",
    "gui.report.export",
    "gui.logistics.example_maps",
    "gui.shell.compact",
    "gui.shell.screen_fit",
    "gui.shell.file_drop",
    "gui.shell.load_cancel",
]


@dataclass(frozen=True)
class ExampleSpec:
    """A built-in example in the project tree: opening it opens tool tab ``tool`` and
    calls ``open(widget)`` on that tab (which adds the example to the project)."""

    key: str
    title: str
    tool: str
    open: Callable[["QWidget"], object]
    tooltip: str = ""


EXAMPLES: dict[str, ExampleSpec] = {}


def register_example(spec: ExampleSpec) -> ExampleSpec:
    """Register a built-in example (called by a workspace module at import time)."""
    EXAMPLES[spec.key] = spec
    return spec


@dataclass(frozen=True)
class MdpWorkspaceSpec:
    """How the shell builds the tab of one MDP and the canvas shown when none is open.

    ``factory(document, mdp_id, runner, parent)`` returns the workspace widget (it has
    ``mdp_id``, ``title()``, ``editor``, ``inspector``, ``analysis_panel`` and the
    ``inspector_requested`` signal); ``empty_view(document, parent)`` the blank canvas.
    The factory's result is typed ``Any``: it is gui.mdp's widget class, which the shell may
    not import (the layers contract), and no protocol can say "a QWidget with these too".
    """

    factory: Callable[..., Any]
    empty_view: Callable[..., "QWidget"]


_MDP_WORKSPACE: list[MdpWorkspaceSpec] = []
_WINDOW_EXTENSIONS: list[Callable[["MainWindow"], object]] = []


def register_tool(spec: ToolSpec) -> ToolSpec:
    """Register a tool tab (called by the tool's module at import time)."""
    TOOLS[spec.key] = spec
    return spec


def register_mdp_workspace(spec: MdpWorkspaceSpec) -> MdpWorkspaceSpec:
    """Register the MDP workspace kind (the last registration wins)."""
    _MDP_WORKSPACE[:] = [spec]
    return spec


def mdp_workspace_spec() -> MdpWorkspaceSpec:
    """The registered MDP workspace kind (after :func:`load_tools`)."""
    if not _MDP_WORKSPACE:
        raise LookupError("no MDP workspace registered: call load_tools() first")
    return _MDP_WORKSPACE[0]


def register_window_extension(install: Callable[["MainWindow"], object]
                              ) -> Callable[["MainWindow"], object]:
    """Register ``install(window)``, run once by every main window after its menus exist."""
    if install not in _WINDOW_EXTENSIONS:
        _WINDOW_EXTENSIONS.append(install)
    return install


def window_extensions() -> list[Callable[["MainWindow"], object]]:
    """The registered window extensions, in registration order."""
    return list(_WINDOW_EXTENSIONS)


def load_tools() -> dict[str, ToolSpec]:
    """Import every module that registers a tool, the MDP workspace or an extension."""
    for name in EXTENSION_MODULES + TOOL_MODULES:
        importlib.import_module(name)
    return TOOLS
