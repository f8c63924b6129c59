"""Tool tabs: every workspace that is not an MDP's (calculator, ledger, maps, advising...).

A module that provides a tool calls :func:`register_tool` at import time and is listed in
``TOOL_MODULES``; :func:`load_tools` imports them (the main window calls it once). A tool
widget may have ``info_panel`` (shown in the right dock), ``message_logged`` (a signal
into the log) and ``shutdown()`` (called when its tab closes).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from gui.shell.main_window import MainWindow

__all__ = ["ToolSpec", "TOOLS", "TOOL_MODULES", "register_tool", "load_tools"]


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
]


def register_tool(spec: ToolSpec) -> ToolSpec:
    TOOLS[spec.key] = spec
    return spec


def load_tools() -> dict[str, ToolSpec]:
    for name in TOOL_MODULES:
        importlib.import_module(name)
    return TOOLS
