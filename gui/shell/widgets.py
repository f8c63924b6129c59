"""Small input widgets shared by panels: a compact number spin box and a spin + slider pair.

* :class:`SciSpinBox` shows numbers compactly (``6.7``, ``0.05``, ``3.1e-05``), accepts
  scientific notation, and can step multiplicatively (for parameters spanning decades); a
  typed value outside its range is refused out loud (the field keeps its last value and its
  :attr:`~SciSpinBox.note` says why, ``refused`` carries the text), never silently clamped;
* :class:`ParameterSlider` is a 0–1000 ``QSlider`` mapped linearly or logarithmically onto
  a spin box's range, kept in sync with it without feedback loops.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFocusEvent, QKeyEvent, QValidator
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QDoubleSpinBox,
    QLabel,
    QSlider,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

__all__ = ["SciSpinBox", "ParameterSlider", "SLIDER_STEPS", "info_panel", "show_field_error",
           "open_failure_text", "vertical_scroll", "table_item", "header_item"]

SLIDER_STEPS = 1000


class SciSpinBox(QDoubleSpinBox):
    """A double spin box with ``%g``-style text; ``log_step`` multiplies instead of adding.

    A typed value the box cannot hold (out of range, not finite, not a number) is refused when
    the edit ends (Enter, leaving the field): the box goes back to the value it had before the
    edit, :attr:`note` (a label to place beside or under the box, e.g. with
    :meth:`with_note`) says "k = −1 refused: …; kept 6.7" until the next edit, and ``refused``
    emits that text. Qt's own correction would silently clamp or revert instead.
    """

    refused = Signal(str)

    def __init__(self, parent: QWidget | None = None, *, minimum: float = 0.0,
                 maximum: float = 1.0, value: float = 0.0, digits: int = 5,
                 log_step: float | None = None, step: float = 0.01, name: str = "") -> None:
        super().__init__(parent)
        self._digits = digits
        self._log_step = log_step
        self.name = name
        self.setDecimals(14)  # internal rounding only; the text uses `digits` significant
        self.setRange(minimum, maximum)
        self.setSingleStep(step)
        # validated as you type: every acceptable keystroke emits valueChanged (panels
        # rate-limit their computations)
        self.setKeyboardTracking(True)
        self.setCorrectionMode(QAbstractSpinBox.CorrectionMode.CorrectToNearestValue)
        self.setValue(value)
        self._committed = self.value()
        self.note = QLabel(parent)
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: #B00020;")
        self.note.hide()
        #: whether :attr:`note` is in a layout (else a refusal shows as a tooltip at the box)
        self.note_placed = False
        self.valueChanged.connect(self._on_value_changed)
        self.lineEdit().textEdited.connect(lambda _text: self.note.hide())

    def with_note(self) -> QWidget:
        """The box with its :attr:`note` under it, as one widget for a form row."""
        box = QWidget(self.parentWidget())
        lay = QVBoxLayout(box)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(1)
        lay.addWidget(self)
        lay.addWidget(self.note)
        self.note_placed = True
        return box

    def _on_value_changed(self, _value: float) -> None:
        if not self.lineEdit().isModified():  # set by the program or a slider, not typed
            self._committed = self.value()

    def check_typed(self) -> bool:
        """Refuse a typed value the box cannot hold (see the class docstring); True if none."""
        text = self.lineEdit().text()
        t = text.strip().replace(",", ".")
        special = self.specialValueText()
        if not self.lineEdit().isModified() or not t or (special and t.lower() == special.lower()):
            return True
        try:
            v = float(t)
        except ValueError:
            problem = "is not a number"
        else:
            if self.minimum() <= v <= self.maximum():
                self._committed = v
                return True
            problem = (f"must be between {self.textFromValue(self.minimum())} and "
                       f"{self.textFromValue(self.maximum())}")
        who = self.name or "value"
        message = (f"{who} = {text.strip()} refused: {who} {problem}; kept "
                   f"{self.textFromValue(self._committed)}")
        self.setValue(self._committed)
        self.lineEdit().setText(self.textFromValue(self._committed))
        self.lineEdit().setModified(False)
        self.note.setText(f"✖ {message}")
        self.note.setToolTip(message)
        if self.note_placed:
            self.note.show()
        else:
            QToolTip.showText(self.mapToGlobal(self.rect().bottomLeft()), message, self)
        self.refused.emit(message)
        return False

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt override)
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.check_typed()
        super().keyPressEvent(event)

    def focusOutEvent(self, event: QFocusEvent) -> None:  # noqa: N802 (Qt override)
        self.check_typed()
        super().focusOutEvent(event)

    def textFromValue(self, value: float) -> str:  # noqa: N802 (Qt override)
        return f"{value:.{self._digits}g}"

    def valueFromText(self, text: str) -> float:  # noqa: N802 (Qt override)
        special = self.specialValueText()
        if special and text.strip().lower() == special.lower():
            return self.minimum()  # the special value (e.g. η "auto") sits at the minimum
        try:
            return float(text.strip().replace(",", "."))
        except ValueError:
            return self.value()

    def validate(self, text: str,  # noqa: D401 (Qt override)
                 pos: int) -> tuple[QValidator.State, str, int]:
        t = text.strip().replace(",", ".")
        if not t:
            return (QValidator.State.Intermediate, text, pos)
        special = self.specialValueText().lower()
        if special and special.startswith(t.lower()):
            state = QValidator.State.Acceptable if t.lower() == special else \
                QValidator.State.Intermediate
            return (state, text, pos)
        try:
            v = float(t)
        except ValueError:
            if all(c in "0123456789.eE+-" for c in t):
                return (QValidator.State.Intermediate, text, pos)
            return (QValidator.State.Invalid, text, pos)
        if not math.isfinite(v):
            return (QValidator.State.Invalid, text, pos)
        if self.minimum() <= v <= self.maximum():
            return (QValidator.State.Acceptable, text, pos)
        return (QValidator.State.Intermediate, text, pos)

    def stepBy(self, steps: int) -> None:  # noqa: N802 (Qt override)
        if self._log_step is None or self.value() <= 0:
            super().stepBy(steps)
            return
        self.setValue(self.value() * self._log_step ** steps)


class ParameterSlider(QSlider):
    """A horizontal slider driving ``spin`` (a QDoubleSpinBox or QSpinBox), both ways.

    ``log=True`` maps the slider position to ``minimum·(maximum/minimum)^t``. Moving the
    slider sets the spin box (which emits its own ``valueChanged``); changing the spin box
    moves the slider silently.
    """

    moved_by_user = Signal()

    def __init__(self, spin: QDoubleSpinBox | QSpinBox, parent: QWidget | None = None, *,
                 log: bool = False, minimum: float | None = None,
                 maximum: float | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self._spin = spin
        self._log = log
        self._lo = float(spin.minimum() if minimum is None else minimum)
        self._hi = float(spin.maximum() if maximum is None else maximum)
        if log and self._lo <= 0:
            raise ValueError("a log slider needs a positive minimum")
        self._integer = isinstance(spin, QSpinBox)
        steps = int(self._hi - self._lo) if self._integer else SLIDER_STEPS
        self.setRange(0, max(1, steps))
        self.setSingleStep(1)
        self.setPageStep(max(1, steps // 20))
        self._sync_from_spin()
        spin.valueChanged.connect(self._on_spin_value_changed)
        self.valueChanged.connect(self._on_slider_value_changed)

    def value_at(self, position: int) -> float:
        t = position / self.maximum()
        if self._log:
            return self._lo * (self._hi / self._lo) ** t
        return self._lo + (self._hi - self._lo) * t

    def position_of(self, value: float) -> int:
        v = min(max(float(value), self._lo), self._hi)
        if self._log:
            t = math.log(v / self._lo) / math.log(self._hi / self._lo)
        else:
            t = (v - self._lo) / (self._hi - self._lo)
        return int(round(t * self.maximum()))

    def _sync_from_spin(self) -> None:
        was = self.blockSignals(True)
        self.setValue(self.position_of(self._spin.value()))
        self.blockSignals(was)

    def _on_spin_value_changed(self, *args: object) -> None:
        if self.position_of(self._spin.value()) != self.value():
            self._sync_from_spin()

    def _on_slider_value_changed(self, position: int) -> None:
        value = self.value_at(position)
        spin = self._spin
        if isinstance(spin, QSpinBox):  # self._integer
            spin.setValue(int(round(value)))
        else:
            # a value that reads well: 4 significant digits
            spin.setValue(float(f"{value:.4g}"))
        self.moved_by_user.emit()


def table_item(table: QTableWidget, row: int, column: int) -> QTableWidgetItem:
    """The item at (``row``, ``column``) of a table whose cells have all been set.

    Qt types ``QTableWidget.item`` as optional (an unset cell has none); asking for a cell the
    panel never filled is a bug, so this fails loudly instead of returning None.
    """
    item = table.item(row, column)
    assert item is not None, f"no item at row {row}, column {column}"
    return item


def header_item(table: QTableWidget, column: int) -> QTableWidgetItem:
    """The horizontal header item of ``column`` of a table given its header labels
    (``setHorizontalHeaderLabels`` makes one per column; Qt types it as optional)."""
    item = table.horizontalHeaderItem(column)
    assert item is not None, f"no header item for column {column}"
    return item


def info_panel(html: str) -> QWidget:
    """The right dock's explanation of a tool tab: rich text, top-aligned, wrapped."""
    from PySide6.QtWidgets import QLabel, QVBoxLayout

    w = QWidget()
    label = QLabel(html, w)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
    label.setStyleSheet("QLabel { color: #333; padding: 8px; }")
    lay = QVBoxLayout(w)
    lay.addWidget(label)
    lay.addStretch(1)
    return w


def vertical_scroll(widget: QWidget, parent: QWidget | None = None, *,
                    frame: bool = True) -> QWidget:
    """``widget`` in a scroll area that fits it to its width and scrolls it vertically only:
    a column taller than a laptop's screen scrolls by itself, so what sits beside or below
    it (a Run button) stays in sight."""
    from PySide6.QtWidgets import QFrame, QScrollArea

    area = QScrollArea(parent)
    area.setWidget(widget)
    area.setWidgetResizable(True)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    if not frame:
        area.setFrameShape(QFrame.Shape.NoFrame)
    return area


def show_field_error(widget: QWidget, error: str, tooltip: str = "", *,
                     message: "QLabel | None" = None, prefix: str = "✖ ",
                     selector: str = "") -> None:
    """A field turned red with the reason, or back to normal when ``error`` is "".

    The app's one way to show a refused value: the field gets the invalid style, its tooltip
    starts with the reason (above the field's own ``tooltip``), and ``message`` (a label
    under the field, optional) shows ``prefix + error``.

    Parameters
    ----------
    widget : QWidget
        The field.
    error : str
        Why the value was refused ("" clears the error).
    tooltip : str
        The field's own help, kept below the reason.
    message : QLabel, optional
        A label that shows the reason (hidden when there is none).
    prefix : str
        Put before the reason in ``message``.
    selector : str
        A style-sheet selector (e.g. ``"QLineEdit"``) when the style must not reach children.
    """
    from gui.shell.style import INVALID_STYLE

    style = (f"{selector} {{ {INVALID_STYLE} }}" if selector else INVALID_STYLE) if error else ""
    widget.setStyleSheet(style)
    widget.setToolTip(f"{error}\n\n{tooltip}" if error and tooltip else error or tooltip)
    if message is not None:
        message.setText(f"{prefix}{error}" if error else "")
        message.setVisible(bool(error))



def open_failure_text(exc: BaseException, path: object) -> str:
    """The dialog text for a file that could not be opened, whatever went wrong.

    An :class:`~core.common.errors.InputError` already names the file and the field; any
    other failure (a damaged archive, a file too deep or too large for memory) is named
    with the file, so every open path can show a dialog instead of letting it escape.
    """
    from core.common import InputError

    if isinstance(exc, InputError):
        return str(exc)
    if isinstance(exc, MemoryError):
        return f"{path}: this file needs more memory than this machine has"
    if isinstance(exc, RecursionError):
        return f"{path}: this file is nested too deeply to be a PrivPlan file"
    return f"{path}: cannot read this file ({type(exc).__name__}: {exc})"
