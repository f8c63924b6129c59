"""Edit ▸ Settings…: where long runs compute, and how often unsaved work is kept.

Page **Computing**: long runs (MDP sweeps, the logistics benchmarks, advising experiments)
use this computer's worker processes unless a dask scheduler is named here (or in
``$DASK_SCHEDULER_ADDRESS``); results are the same bit for bit either way. "Test" connects
in a worker thread and says how many workers answered. The frozen (installed) app has no
dask and always uses its own processes; the page says so.

Page **Files**: the autosave interval.
"""

from __future__ import annotations

import sys

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from core.common import SCHEDULER_ENV, InputError, check_address, check_scheduler, cluster_available
from gui.shell.settings import Settings
from gui.shell.workers import TaskRunner

__all__ = ["SettingsDialog"]

SCHEDULER_TIP = (
    "Address of a dask.distributed scheduler, e.g. tcp://10.0.0.5:8786. Long runs (MDP sweeps, "
    "logistics benchmarks, advising experiments) are then split over its workers instead of "
    "this computer's processes. Every run seeds its own random generator from the experiment "
    "seed and its position, so the numbers are identical bit for bit. Leave empty for this "
    f"computer. Default: ${SCHEDULER_ENV} when set.")


class SettingsDialog(QDialog):
    """The preferences, applied on OK (Cancel changes nothing)."""

    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.setObjectName("settings_dialog")
        self._settings = settings
        self.tabs = QTabWidget(self)
        # -- Computing
        page = QWidget(self.tabs)
        form = QFormLayout(page)
        self.scheduler_edit = QLineEdit(settings.scheduler_address, page)
        self.scheduler_edit.setPlaceholderText("empty: this computer's worker processes")
        self.scheduler_edit.setToolTip(SCHEDULER_TIP)
        self.test_button = QPushButton("&Test", page)
        self.test_button.setToolTip("Connect to the scheduler (up to 5 s) and count its workers")
        row = QHBoxLayout()
        row.addWidget(self.scheduler_edit, 1)
        row.addWidget(self.test_button)
        label = QLabel("Dask &scheduler", page)
        label.setBuddy(self.scheduler_edit)  # Alt+S focuses the address
        form.addRow(label, row)
        self.status_label = QLabel(page)
        self.status_label.setWordWrap(True)
        form.addRow("", self.status_label)
        self.available = cluster_available() and not getattr(sys, "frozen", False)
        if not self.available:
            self.scheduler_edit.setEnabled(False)
            self.test_button.setEnabled(False)
            self.status_label.setText(
                "This installation has no dask.distributed: long runs use this computer's "
                "worker processes. To compute on a cluster, install PrivPlan with pip and the "
                "'cluster' extra (pip install 'privplan[cluster]').")
        self.tabs.addTab(page, "&Computing")
        # -- Files
        files = QWidget(self.tabs)
        files_form = QFormLayout(files)
        self.autosave_spin = QSpinBox(files)
        self.autosave_spin.setRange(5, 3600)
        self.autosave_spin.setSuffix(" s")
        self.autosave_spin.setValue(settings.autosave_interval_s)
        self.autosave_spin.setToolTip("Unsaved work is copied beside the project this often; "
                                      "after a crash PrivPlan offers to recover it.")
        files_form.addRow("&Autosave every", self.autosave_spin)
        self.tabs.addTab(files, "&Files")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs)
        layout.addWidget(buttons)
        self._runner = TaskRunner(self)
        self._runner.succeeded.connect(self._on_test_ok)
        self._runner.failed.connect(self._on_test_failed)
        self._runner.finished.connect(lambda: self.test_button.setEnabled(self.available))
        self.test_button.clicked.connect(self.test_connection)
        self.resize(560, 220)

    # ------------------------------------------------------------------ actions
    def address(self) -> str:
        """The address as typed, checked ("" for this computer); InputError if malformed."""
        text = self.scheduler_edit.text().strip()
        return check_address(text) if text else ""

    def test_connection(self) -> bool:
        """Start a connection test in a worker thread; False if the address is malformed."""
        try:
            address = self.address()
        except InputError as exc:
            self._show(str(exc), error=True)
            return False
        if not address:
            self._show("Empty: long runs use this computer's worker processes.")
            return True
        self.test_button.setEnabled(False)
        self._show(f"Connecting to {address}…")
        self._runner.start(check_scheduler, address)
        return True

    def _on_test_ok(self, text: object) -> None:
        self._show(f"✔ {text}")

    def _on_test_failed(self, exc: object) -> None:
        self._show(str(exc), error=True)

    def _show(self, text: str, *, error: bool = False) -> None:
        self.status_label.setText(text)
        self.status_label.setStyleSheet("color: #b00020;" if error else "")

    def accept(self) -> None:
        try:
            address = self.address() if self.available else self._settings.scheduler_address
        except InputError as exc:
            self._show(str(exc), error=True)
            self.scheduler_edit.setFocus()
            return  # the dialog stays open; nothing is saved
        if self.available:
            self._settings.scheduler_address = address
        self._settings.autosave_interval_s = self.autosave_spin.value()
        self._runner.shutdown()
        super().accept()

    def reject(self) -> None:
        self._runner.shutdown()
        super().reject()
