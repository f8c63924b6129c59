"""Pieces the Logistics study panels (B1–B5 and packet routing) share: their Run panel's foot,
their page's top bar, their runner's wiring, and the bindings (:mod:`gui.shell.bindings`) of
the two widgets both Run panels have — the swept values typed in a line and the approaches
ticked in a group — with the marking of the widget whose field the core refused."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.common import APPROACH_COLOURS, InputError
from core.logistics import APPROACH_NAMES
from gui.shell.bindings import Binding
from gui.shell.run_controls import RunControls
from gui.shell.style import ERROR_COLOUR
from gui.shell.widgets import show_field_error

__all__ = ["APPROACH_STYLE", "APPROACH_TIPS", "approach_box", "approaches_binding",
           "clear_refused", "connect_study_runner", "mark_refused", "side_run_row",
           "STATUS_WIDTH", "values_binding"]

STATUS_WIDTH = 240  # px of a study page's status line (it must not resize the header)
#: approach -> (legend label, colour, symbol, dashed)
APPROACH_STYLE = {  # names and colours from core (the report draws them the same)
    a: (APPROACH_NAMES[a], APPROACH_COLOURS[a], symbol, dashed)
    for a, symbol, dashed in (("dp", "o", False), ("dp-thesis", "t", True),
                              ("noprivacy", "s", False), ("bestfirst", "d", False),
                              ("greedy", "t1", False), ("simplified", "x", False))
}
APPROACH_TIPS = {
    "dp": "The thesis's method with the sound preset (split ε, node-DP sensitivity, Laplace "
          "release of the route probabilities).",
    "dp-thesis": "The thesis's method as written (its flaws F1–F9 included).",
    "noprivacy": "Same steps and messages as DP-based, with exact shared distances.",
    "bestfirst": "Hop-by-hop broadcast: the nearest agent takes the package (can loop).",
    "greedy": "GPPP: best-first global plan over the public center graph by hop count, then "
              "exact local plans.",
    "simplified": "Thesis 4.5.4: exact public crossing lengths, Dijkstra, a message per center.",
}


def approach_box(parent: QWidget, approaches: Iterable[str]
                 ) -> tuple[QGroupBox, dict[str, QCheckBox]]:
    """The "Approaches" group: one check box per approach (its label and tooltip)."""
    box = QGroupBox("Approaches", parent)
    lay = QVBoxLayout(box)
    checks: dict[str, QCheckBox] = {}
    for a in approaches:
        cb = QCheckBox(APPROACH_STYLE[a][0], box)
        cb.setToolTip(APPROACH_TIPS[a])
        lay.addWidget(cb)
        checks[a] = cb
    return box, checks


def values_binding(edit: QLineEdit, defaults: Callable[[], Sequence[float]], tooltip: str,
                   swept: Callable[[], bool] = lambda: True) -> Binding:
    """The swept values typed in ``edit``, comma (or semicolon) separated: read as a tuple
    of numbers (None when ``swept()`` says the study sweeps nothing one can type; text
    that is not numbers: an :class:`InputError` naming ``values`` — the core checks the
    numbers), shown as ``1, 2.5`` (None: ``defaults()``, the study's own)."""

    def read() -> tuple[float, ...] | None:
        if not swept():
            return None
        try:
            return tuple(float(x) for x in edit.text().replace(";", ",").split(",")
                         if x.strip())
        except ValueError:
            raise InputError("a comma-separated list of numbers", field="values") from None

    def show(values: Sequence[float] | None) -> None:
        edit.setText(", ".join(f"{v:g}" for v in (defaults() if values is None else values)))

    return Binding("values", read, show, edit, tooltip)


def approaches_binding(checks: Mapping[str, QCheckBox],
                       defaults: Callable[[], Iterable[str]]) -> Binding:
    """The approaches ticked in ``checks`` (:func:`approach_box`), in its order; shown by
    ticking exactly those given (None: ``defaults()``; an approach the group does not have:
    ValueError). Each box keeps its own help."""

    def show(approaches: Iterable[str] | None) -> None:
        chosen = set(defaults() if approaches is None else approaches)
        unknown = sorted(chosen - set(checks))
        if unknown:
            raise ValueError(f"approaches cannot include {', '.join(map(repr, unknown))}")
        for a, cb in checks.items():
            cb.setChecked(a in chosen)

    return Binding("approaches",
                   lambda: tuple(a for a, cb in checks.items() if cb.isChecked()), show)


def clear_refused(bindings: Iterable[Binding]) -> None:
    """Every bound widget marked by :func:`mark_refused` back to normal, with its help."""
    for b in bindings:
        if b.widget is not None and b.tooltip and b.widget.styleSheet():
            show_field_error(b.widget, "", b.tooltip)


def mark_refused(bindings: Iterable[Binding], field: str | None, text: str) -> None:
    """Turn the widget bound to the refused ``field`` red with ``text`` above its help (a
    field no single widget edits, such as the approaches: nothing to mark)."""
    for b in bindings:
        if b.field == field and b.widget is not None and b.tooltip:
            show_field_error(b.widget, text, b.tooltip)
            return


def side_run_row(parent: QWidget, run: Callable[[], object], cancel: Callable[[], object]
                 ) -> tuple[QLabel, QHBoxLayout, QPushButton, QPushButton]:
    """The Run panel's foot: a hidden message line for refused values, and Run / Cancel."""
    message = QLabel(parent)
    message.setWordWrap(True)
    message.setStyleSheet(f"QLabel {{ color: {ERROR_COLOUR}; }}")
    message.hide()
    row = QHBoxLayout()
    run_button = QPushButton("▶ Run (F5)", parent)
    run_button.clicked.connect(run)
    cancel_button = QPushButton("■ Cancel (Esc)", parent)
    cancel_button.clicked.connect(cancel)
    row.addWidget(run_button)
    row.addWidget(cancel_button)
    return message, row, run_button, cancel_button


def study_page_bar(page: QWidget, runner: Any, run: Callable[[], object],
                   cancel: Callable[[], object], run_tip: str
                   ) -> tuple[QHBoxLayout, QLabel, RunControls, QLabel]:
    """A study page's top bar — its title, then progress, Run and Cancel on ``runner`` — and
    its caption (a selectable rich-text label the page places itself): (bar, title label,
    run controls, caption)."""
    bar = QHBoxLayout()
    title = QLabel(page)
    title.setTextFormat(Qt.TextFormat.RichText)
    bar.addWidget(title, 1)
    controls = RunControls(runner, page, run=run, cancel=cancel, run_tip=run_tip,
                           running_text="starting…", progress_width=220)
    # the status changes with every progress step: a fixed width and room for two lines keep
    # the title and the buttons from jumping while a study runs
    label = controls.progress_label
    label.setFixedWidth(STATUS_WIDTH)
    label.setMinimumHeight(2 * label.fontMetrics().lineSpacing() + 2)
    for wdg in (label, controls.progress, controls.run_button, controls.cancel_button):
        bar.addWidget(wdg)
    caption = QLabel(page)
    caption.setWordWrap(True)
    caption.setTextFormat(Qt.TextFormat.RichText)
    caption.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return bar, title, controls, caption


def connect_study_runner(page: Any, document: Any) -> None:
    """Wire a study page to its runner and its document, then show its latest recorded run.

    ``page`` (B1–B5 or packet routing) has ``run_controls``, ``runner`` and the slots
    ``_update_running``, ``_on_runner_succeeded``, ``_on_runner_failed``,
    ``_on_runner_cancelled``, ``_on_document_run_removed``, ``_on_document_project_replaced``
    and ``_show_latest_recorded``; what each slot does stays the page's. ``document`` is the
    page's :class:`~gui.shell.document.ProjectDocument`. Call it once the widgets exist.
    """
    page.run_controls.running_changed.connect(page._update_running)
    page.runner.succeeded.connect(page._on_runner_succeeded)
    page.runner.failed.connect(page._on_runner_failed)
    page.runner.cancelled.connect(page._on_runner_cancelled)
    document.run_removed.connect(page._on_document_run_removed)
    document.project_replaced.connect(page._on_document_project_replaced)
    page._update_running(False)
    page._show_latest_recorded()
