"""User preferences in QSettings (never in the project file), versioned like Orange's.

Bump :data:`SETTINGS_VERSION` when a key changes meaning and add a step to
:func:`migrate_settings`. Tests redirect QSettings to a temporary folder.
"""

from __future__ import annotations

import os
from typing import Any, cast

from PySide6.QtCore import QByteArray, QSettings

__all__ = ["SETTINGS_VERSION", "Settings", "migrate_settings", "MAX_RECENT", "on_backend"]

SETTINGS_VERSION = 1
MAX_RECENT = 8


def migrate_settings(settings: QSettings, version: int) -> None:
    """Upgrade stored settings from ``version`` to :data:`SETTINGS_VERSION` (no steps yet)."""
    settings.setValue("settings_version", SETTINGS_VERSION)


class Settings:
    """Typed access to the few preferences PrivPlan keeps."""

    def __init__(self) -> None:
        self._qs = QSettings()
        # whatever was stored (an int, or its text from an ini file); int() below may refuse it
        stored: Any = self._qs.value("settings_version", None)
        try:
            version = int(stored) if stored is not None else SETTINGS_VERSION
        except (TypeError, ValueError):
            version = 0
        if stored is None or version < SETTINGS_VERSION:
            migrate_settings(self._qs, version)

    def _get(self, key: str, default: Any) -> Any:
        value = self._qs.value(key, default)
        return default if value is None else value

    @property
    def last_dir(self) -> str:
        """The folder of the last file opened or saved; before any, the user's Documents
        folder (or home) — never the program's own folder, where a file dialog would
        otherwise start."""
        stored = str(self._get("files/last_dir", ""))
        if stored and os.path.isdir(stored):
            return stored
        from PySide6.QtCore import QStandardPaths

        docs = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
        return docs if docs and os.path.isdir(docs) else os.path.expanduser("~")

    @last_dir.setter
    def last_dir(self, folder: str) -> None:
        self._qs.setValue("files/last_dir", folder)

    @property
    def recent_files(self) -> list[str]:
        """Recently opened or saved files, newest first."""
        # type=list: Qt returns a list (object in the stubs)
        value = cast("list[object]", self._qs.value("files/recent", [], type=list))
        return [str(v) for v in (value or []) if v][:MAX_RECENT]

    def add_recent_file(self, path: str) -> None:
        import os

        path = os.path.abspath(path)
        files = [f for f in self.recent_files if f != path]
        self._qs.setValue("files/recent", [path, *files][:MAX_RECENT])

    def remove_recent_file(self, path: str) -> None:
        self._qs.setValue("files/recent", [f for f in self.recent_files if f != path])

    def clear_recent_files(self) -> None:
        self._qs.setValue("files/recent", [])

    @property
    def autosave_interval_s(self) -> int:
        """Seconds between autosaves of a project with unsaved changes (default 60)."""
        try:
            return max(5, int(self._get("files/autosave_interval_s", 60)))
        except (TypeError, ValueError):
            return 60

    @autosave_interval_s.setter
    def autosave_interval_s(self, seconds: int) -> None:
        self._qs.setValue("files/autosave_interval_s", int(seconds))

    def window_state(self) -> tuple[QByteArray | None, QByteArray | None]:
        geometry = self._qs.value("window/geometry")
        state = self._qs.value("window/state")
        return (geometry if isinstance(geometry, QByteArray) else None,
                state if isinstance(state, QByteArray) else None)

    def set_window_state(self, geometry: QByteArray, state: QByteArray) -> None:
        self._qs.setValue("window/geometry", geometry)
        self._qs.setValue("window/state", state)

    def sync(self) -> None:
        self._qs.sync()

    @staticmethod
    def _tabs_key(project_path: str) -> str:
        import hashlib
        import os

        digest = hashlib.sha1(os.path.abspath(project_path).encode("utf-8")).hexdigest()
        return f"tabs/{digest[:16]}"

    def tab_order(self, project_path: str) -> tuple[list[str], str]:
        """The tabs a project had open, in order (``mdp:ID`` / ``tool:KEY``), and the
        current one; ``([], "")`` when none is stored."""
        value = self._qs.value(self._tabs_key(project_path), None)
        if not isinstance(value, str) or not value:
            return [], ""
        keys, _, current = value.partition("|")
        return [k for k in keys.split(",") if k], current

    def set_tab_order(self, project_path: str, keys: list[str], current: str) -> None:
        self._qs.setValue(self._tabs_key(project_path), ",".join(keys) + "|" + current)

    @property
    def scheduler_address(self) -> str:
        """The dask scheduler long runs go to ("" = this computer's worker processes).

        ``$DASK_SCHEDULER_ADDRESS`` is used when nothing is set here.
        """
        value = str(self._get("computing/scheduler", "") or "").strip()
        if value:
            return value
        from core.common import scheduler_address

        return scheduler_address(None) or ""

    @scheduler_address.setter
    def scheduler_address(self, address: str) -> None:
        self._qs.setValue("computing/scheduler", str(address).strip())


def on_backend(fn: Any, settings: "Settings | None" = None) -> Any:
    """``fn`` itself, or ``fn`` run on the scheduler of Settings ▸ Computing (the connection
    is made in the worker thread; :func:`core.common.cluster.run_on_scheduler`).

    Parameters
    ----------
    fn : callable
        An experiment that takes ``executor`` and ``workers``.
    settings : Settings, optional
        Where the address is read (default: the application's settings).

    Returns
    -------
    callable
    """
    import functools
    import sys

    address = (settings or Settings()).scheduler_address
    if not address or getattr(sys, "frozen", False):
        return fn
    from core.common import run_on_scheduler

    return functools.partial(run_on_scheduler, fn, address)
