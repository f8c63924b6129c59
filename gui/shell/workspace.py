"""The Workspace protocol: what the main window may ask of a tool tab.

A workspace is a tab of the main window that is not an MDP's (those have their own kind,
registered in :mod:`gui.shell.tools`). The window asks nothing else of it, so it needs no
``hasattr``/``getattr`` guesses and no workspace installs window-wide shortcuts: the
window's Run (F5) and Cancel (Esc) act on the current tab through :meth:`Workspace.run`
and :meth:`Workspace.cancel`, and follow :attr:`Workspace.running_changed`.

A workspace that has nothing to run (the ledger, the what-if calculator) sets ``can_run``
to False, returns False from ``run`` and never reports running.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from PySide6.QtCore import SignalInstance
from PySide6.QtWidgets import QWidget

__all__ = ["Workspace"]


@runtime_checkable
class Workspace(Protocol):
    """A tool tab of the main window (see the module docstring)."""

    #: shown in the right-hand dock while the tab is current (None: the dock's placeholder)
    info_panel: QWidget | None
    #: ``(level, text)`` into the Log dock
    message_logged: SignalInstance
    #: False for a workspace with nothing to run (the window's Run stays disabled)
    can_run: bool
    #: True when a run starts, False when it ends (the window's Run/Cancel follow it)
    running_changed: SignalInstance

    @property
    def is_running(self) -> bool:
        """True while the workspace runs something in its worker."""
        ...

    def randomness_label(self) -> str:
        """For the status bar: the randomness the next run will use ("" if it has none)."""
        ...

    def run(self) -> bool:
        """Start what the workspace runs (F5); False, with the reason shown, if it did not."""
        ...

    def cancel(self) -> None:
        """Ask the running work to stop (Esc); nothing is recorded."""
        ...

    def shutdown(self) -> None:
        """Stop workers before the tab closes."""
        ...
