"""Checks of the Qt binding PySide6 that PrivPlan relies on.

PySide6 6.12.0 drops a reference to ``True`` on every ``Signal.emit()`` called from Python
and to ``None`` on every Python override of a void virtual (``paint``, ``resizeEvent``…).
From Python 3.12 on these objects are immortal and nothing happens; on Python 3.11 their
reference counts run down and the interpreter aborts after a few thousand emits or paints
("Fatal Python error: bool_dealloc / none_dealloc"). :func:`binding_problem` detects this
by behaviour (not by version number), so a fixed PySide6 passes automatically.
"""

from __future__ import annotations

import sys

__all__ = ["binding_problem"]


def binding_problem() -> str | None:
    """A one-line description of a known-broken PySide6, or None if it behaves."""
    from PySide6 import __version__ as pyside_version
    from PySide6.QtCore import QObject, Signal

    class _Probe(QObject):
        ping = Signal()

    probe = _Probe()
    before = sys.getrefcount(True)
    for _ in range(8):
        probe.ping.emit()
    lost = before - sys.getrefcount(True)
    if lost >= 8:
        return (f"PySide6 {pyside_version} on Python {sys.version.split()[0]} loses a reference "
                "on every signal emit and aborts after a few thousand; use "
                "PySide6-Essentials<6.12 or Python >= 3.12")
    return None
