"""The matrix view of an MDP: one row per state–action pair, for models too large to draw.

A :class:`QTableView` over :class:`MdpMatrixModel`, a :class:`QAbstractTableModel` that
reads the document's arrays directly (never one item object per cell), so a 2,000-state,
4-action dense model (8,000 rows × 2,000 next states) opens at once and scrolls freely:
only the visible rows are ever formatted.

Columns: state, action, reward r, terminal reward R_T (first row of each state), Σp of the
row (red with the deficit when it is not 1), and the largest next-state probabilities
("sparse next-state entries"; the Inspector lists and edits the whole row). After a
"Synthesise & bound" run: the action π̄ chooses (★) and v̲, V̄, v̄ per state, at the stage
of the editor's slider (large models keep stage 0 only).
r and R_T are edited in place (each edit is one undoable command); select a row to edit
its probabilities in the Inspector.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from PySide6.QtCore import (
    QAbstractTableModel,
    QItemSelection,
    QItemSelectionModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

from core.common import InputError
from core.mdp import ROW_SUM_TOL
from gui.mdp.canvas_parts import bounds_overlay
from gui.mdp.view import Selection
from gui.shell.document import ProjectDocument, mdp_stack_key
from gui.shell.style import ERROR_COLOUR, PRIVATE_ACCENT, fmt_num

__all__ = ["MdpMatrixModel", "MdpMatrixView", "COLUMNS", "TOP_ENTRIES"]

TOP_ENTRIES = 5
COLUMNS = ("state", "action", "r", "R_T", "Σp", "next states (largest p)")
RESULT_COLUMNS = ("π̄", "v\u0332", "V\u0304", "v\u0304")
COLUMN_TIPS = {
    "state": "The state (s₀ marks the initial state).",
    "action": "The action of this row; select the row to edit its probabilities in the "
              "Inspector.",
    "r": "One-step reward r(s, a): double-click to edit.",
    "R_T": "Terminal reward R_T(s), shown on the first row of each state: double-click to "
           "edit.",
    "Σp": "Sum of the row's probabilities: must be 1 (a red cell shows the deficit).",
    "next states (largest p)": f"The {TOP_ENTRIES} most probable next states of the row and "
                               "how many more there are.",
    "π̄": "★ marks the action the private policy π̄ chooses (at the stage of the slider).",
    "v\u0332": "Pessimistic value v̲ (at the stage of the slider).",
    "V\u0304": "Private value V̄ of π̄ on the private model (at the stage of the slider).",
    "v\u0304": "Optimistic value v̄ (at the stage of the slider).",
}


@dataclass(frozen=True)
class _Cell:
    """One cell data() reads: the model, the table row, its (state, action) pair, the
    column's name and whether the row is its state's first."""

    model: Any
    row: int
    s: int
    j: int
    name: str
    first: bool


class MdpMatrixModel(QAbstractTableModel):
    """State × action rows of one MDP of the document (read through, edited by commands)."""

    rejected = Signal(str)

    def __init__(self, document: ProjectDocument, mdp_id: str, parent: Any = None) -> None:
        super().__init__(parent)
        self._document = document
        self._mdp_id = mdp_id
        self._rows_state = np.zeros(0, dtype=np.int64)
        self._rows_action = np.zeros(0, dtype=np.int64)
        self._first_row = np.zeros(0, dtype=bool)
        self._sums = np.zeros((0, 0))
        self._text_cache: dict[int, str] = {}
        self._overlay: dict[str, Any] | None = None
        self._results_run: str | None = None
        self._stage = 0
        self._chosen: dict[int, int] = {}
        self._values: dict[int, tuple[float, float, float]] = {}
        self._version: tuple[int, int] | None = None
        self._recompute()
        self._shown_structure = self._structure()

    @property
    def _stack_key(self) -> str:
        """This model's undo stack (see :mod:`gui.shell.document`)."""
        return mdp_stack_key(str(self._mdp_id))

    # ------------------------------------------------------------------ structure
    def _model(self):
        if not self._document.has_mdp(self._mdp_id):
            return None
        return self._document.model(self._mdp_id)

    def _recompute(self) -> None:
        model = self._model()
        self._text_cache.clear()
        if model is None:
            self._rows_state = np.zeros(0, dtype=np.int64)
            self._rows_action = np.zeros(0, dtype=np.int64)
            self._first_row = np.zeros(0, dtype=bool)
            self._sums = np.zeros((0, 0))
            self._version = None
            return
        counts = np.array([max(1, len(a)) for a in model.action_ids], dtype=np.int64)
        self._rows_state = np.repeat(np.arange(model.n_states), counts)
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]]) if len(counts) else counts
        self._rows_action = np.arange(len(self._rows_state)) - np.repeat(starts, counts)
        empty = np.array([len(a) == 0 for a in model.action_ids], dtype=bool)
        self._rows_action[np.repeat(empty, counts)] = -1
        self._first_row = np.zeros(len(self._rows_state), dtype=bool)
        self._first_row[starts] = True
        self._sums = model.row_sums() if model.width else np.zeros((model.n_states, 0))
        self._version = (id(model), model.version)
        self._update_overlay()

    def _update_overlay(self) -> None:
        self._chosen, self._values = {}, {}
        model = self._model()
        self._overlay = (bounds_overlay(self._document, self._results_run, self._mdp_id,
                                        self._stage)
                         if self._results_run is not None and model is not None else None)
        if self._overlay is None:
            return
        index = {sid: i for i, sid in enumerate(model.state_ids)}
        where = {aid: j for ids in model.action_ids for j, aid in enumerate(ids)}
        for sid, info in self._overlay["states"].items():
            s = index.get(sid)
            if s is None:
                continue
            self._values[s] = info["values"]
            if info["action"] in where:
                self._chosen[s] = where[info["action"]]

    def _structure(self) -> tuple[Any, ...]:
        model = self._model()
        if model is None:
            return (None,)
        return (id(model), tuple(len(a) for a in model.action_ids), tuple(self.columns()))

    def reload(self) -> None:
        """Re-read the model: values only when its rows and columns are the same (an edit of
        a probability or reward: no reset, so an editor being committed stays valid)."""
        structure = self._structure()
        if structure == getattr(self, "_shown_structure", None) and self.rowCount():
            self._recompute()
            self.dataChanged.emit(self.index(0, 0),
                                  self.index(self.rowCount() - 1, self.columnCount() - 1))
            self.headerDataChanged.emit(Qt.Orientation.Vertical, 0, self.rowCount() - 1)
            return
        self.beginResetModel()
        self._recompute()
        self._shown_structure = structure
        self.endResetModel()

    def set_results(self, run_id: str | None, stage: int = 0) -> None:
        self.beginResetModel()
        self._results_run = run_id
        self._stage = int(stage)
        self._update_overlay()
        self._shown_structure = self._structure()
        self.endResetModel()

    @property
    def overlay(self) -> dict[str, Any] | None:
        return self._overlay

    def pair(self, row: int) -> tuple[int, int]:
        """(state index, action index or -1) of a table row."""
        return int(self._rows_state[row]), int(self._rows_action[row])

    def row_of(self, item_id: str) -> int:
        model = self._model()
        if model is None:
            return -1
        if item_id in model.state_ids:
            s = model.state_ids.index(item_id)
            rows = np.flatnonzero(self._rows_state == s)
            return int(rows[0]) if len(rows) else -1
        try:
            s, j = model.action_index(item_id)
        except InputError:
            return -1
        rows = np.flatnonzero((self._rows_state == s) & (self._rows_action == j))
        return int(rows[0]) if len(rows) else -1

    def id_of(self, row: int) -> str:
        model = self._model()
        s, j = self.pair(row)
        return model.state_ids[s] if j < 0 else model.action_ids[s][j]

    def columns(self) -> tuple[str, ...]:
        return COLUMNS + (RESULT_COLUMNS if self._overlay is not None else ())

    # ------------------------------------------------------------------ Qt model API
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008,N802
        return 0 if parent.isValid() else len(self._rows_state)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008,N802
        return 0 if parent.isValid() else len(self.columns())

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal:
            name = self.columns()[section]
            if role == Qt.ItemDataRole.DisplayRole:
                return name
            if role == Qt.ItemDataRole.ToolTipRole:
                return COLUMN_TIPS.get(name)
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return str(section + 1)
        return None

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if not index.isValid():
            return base
        name = self.columns()[index.column()]
        s, j = self.pair(index.row())
        if (name == "r" and j >= 0) or (name == "R_T" and self._first_row[index.row()]):
            return base | Qt.ItemFlag.ItemIsEditable
        return base

    def _row_ok(self, s: int, j: int) -> bool:
        if j < 0:
            return False
        total = float(self._sums[s, j])
        return math.isfinite(total) and abs(total - 1.0) <= ROW_SUM_TOL

    def data(self, index: QModelIndex | QPersistentModelIndex,
             role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        cell = self._cell(index)
        if cell is None:
            return None
        reader = _ROLE_READERS.get(role)
        return None if reader is None else reader(self, cell)

    def _cell(self, index: QModelIndex | QPersistentModelIndex) -> _Cell | None:
        """The cell ``index`` names, or None outside the table (re-reading a changed model)."""
        model = self._model()
        if model is None or not index.isValid():
            return None
        if self._version != (id(model), model.version):
            self._recompute()  # a change arrived before reload(): never show stale arrays
        row = index.row()
        if row >= len(self._rows_state):
            return None
        s, j = self.pair(row)
        return _Cell(model, row, s, j, self.columns()[index.column()],
                     bool(self._first_row[row]))

    # one reader per role and one text per column: data() dispatches through the tables below
    def _display_text(self, cell: _Cell) -> str:
        return self._text(cell, edit=False)

    def _edit_text(self, cell: _Cell) -> str:
        return self._text(cell, edit=True)

    def _text(self, cell: _Cell, edit: bool) -> str:
        """The cell's text: shown (4 digits) or edited (12 digits)."""
        if cell.name.startswith("next"):
            return self._next_text(cell.model, cell.row, cell.s, cell.j)
        text = _COLUMN_TEXTS.get(cell.name)
        if text is not None:
            return text(self, cell, edit)
        if cell.name in RESULT_COLUMNS and cell.first and cell.s in self._values:
            lo, vp, hi = self._values[cell.s]
            return fmt_num({"v\u0332": lo, "V\u0304": vp, "v\u0304": hi}[cell.name], 4)
        return ""

    def _state_text(self, cell: _Cell, edit: bool) -> str:
        model = cell.model
        mark = " (s₀)" if model.state_ids[cell.s] == model.initial_state else ""
        return model.state_labels[cell.s] + mark if cell.first else ""

    def _action_text(self, cell: _Cell, edit: bool) -> str:
        return cell.model.action_labels[cell.s][cell.j] if cell.j >= 0 else "(no actions)"

    def _reward_text(self, cell: _Cell, edit: bool) -> str:
        if cell.j < 0:
            return ""
        r = cell.model.R[cell.s, cell.j]
        return f"{r:.12g}" if edit else f"{r:.4g}"

    def _terminal_text(self, cell: _Cell, edit: bool) -> str:
        if not cell.first:
            return ""
        r_t = cell.model.R_T[cell.s]
        return f"{r_t:.12g}" if edit else f"{r_t:.4g}"

    def _sum_text(self, cell: _Cell, edit: bool) -> str:
        if cell.j < 0:
            return "–"
        total = float(self._sums[cell.s, cell.j])
        return "1 ✓" if self._row_ok(cell.s, cell.j) else f"{total:.6g} ({1 - total:+.3g})"

    def _chosen_text(self, cell: _Cell, edit: bool) -> str:
        return "★" if cell.j >= 0 and self._chosen.get(cell.s) == cell.j else ""

    def _alignment(self, cell: _Cell) -> int | None:
        if cell.name in ("r", "R_T", "Σp", "π̄", *RESULT_COLUMNS[1:]):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _foreground(self, cell: _Cell) -> QColor | None:
        """Red for a row that does not sum to 1; amber for results, grey when stale."""
        if cell.name == "Σp" and not self._row_ok(cell.s, cell.j):
            return QColor(ERROR_COLOUR)
        if cell.name == "π̄" or (cell.name in RESULT_COLUMNS and self._overlay is not None
                                 and not self._overlay["stale"]):
            return QColor("#8A5300")
        if cell.name in RESULT_COLUMNS:
            return QColor("#888888")
        return None

    def _background(self, cell: _Cell) -> QColor | None:
        """A pink row that does not sum to 1; the chosen action's π̄ cell tinted."""
        if not self._row_ok(cell.s, cell.j):
            return QColor("#FDECE6")
        if cell.name == "π̄" and self._chosen.get(cell.s) == cell.j:
            c = QColor(PRIVATE_ACCENT)
            c.setAlpha(60)
            return c
        return None

    def _font(self, cell: _Cell) -> QFont | None:
        """Bold for the initial state's name."""
        model = cell.model
        if cell.name == "state" and cell.first \
                and model.state_ids[cell.s] == model.initial_state:
            f = QFont()
            f.setBold(True)
            return f
        return None

    def _tooltip(self, cell: _Cell) -> str | None:
        if cell.name == "Σp" and not self._row_ok(cell.s, cell.j):
            return ("This row does not sum to 1; select it and press Normalise in the "
                    "Inspector." if cell.j >= 0 else "Every state needs an action.")
        if cell.name.startswith("next") and cell.j >= 0:
            return html.escape(self._next_text(cell.model, cell.row, cell.s, cell.j, limit=25))
        return None

    def _next_text(self, model, row: int, s: int, j: int, limit: int = TOP_ENTRIES) -> str:
        if j < 0:
            return ""
        key = row * 100 + limit
        text = self._text_cache.get(key)
        if text is not None:
            return text
        nz, p = model.row_entries(s, j)  # the stored entries (sparse rows of a large model)
        order = np.argsort(-p, kind="stable")[:limit]
        text = ", ".join(f"{model.state_labels[int(nz[i])]} {p[i]:.3g}" for i in order)
        if len(nz) > limit:
            text += f", … (+{len(nz) - limit} more)"
        if len(self._text_cache) > 20_000:
            self._text_cache.clear()
        self._text_cache[key] = text or "(no transitions yet)"
        return self._text_cache[key]

    def setData(self, index: QModelIndex | QPersistentModelIndex, value: Any,  # noqa: N802
                role: int = Qt.ItemDataRole.EditRole) -> bool:
        from gui.mdp.inspector import parse_number
        from gui.shell.commands import SetRewardCommand, SetTerminalRewardCommand

        model = self._model()
        if model is None or role != Qt.ItemDataRole.EditRole or not index.isValid():
            return False
        s, j = self.pair(index.row())
        name = self.columns()[index.column()]
        try:
            v = parse_number(str(value))
        except InputError as exc:
            self.rejected.emit(exc.problem)
            return False
        if name == "r" and j >= 0:
            if v != float(model.R[s, j]):
                self._document.push(SetRewardCommand(self._document, self._mdp_id,
                                                     model.action_ids[s][j], v), self._stack_key)
            return True
        if name == "R_T":
            if v != float(model.R_T[s]):
                self._document.push(SetTerminalRewardCommand(self._document, self._mdp_id,
                                                             model.state_ids[s], v),
                                    self._stack_key)
            return True
        return False


# data(): the reader of each role, and the text of each column (the values columns and the
# next states are handled in MdpMatrixModel._text)
_ROLE_READERS: dict[int, Callable[[MdpMatrixModel, _Cell], Any]] = {
    Qt.ItemDataRole.DisplayRole: MdpMatrixModel._display_text,
    Qt.ItemDataRole.EditRole: MdpMatrixModel._edit_text,
    Qt.ItemDataRole.TextAlignmentRole: MdpMatrixModel._alignment,
    Qt.ItemDataRole.ForegroundRole: MdpMatrixModel._foreground,
    Qt.ItemDataRole.BackgroundRole: MdpMatrixModel._background,
    Qt.ItemDataRole.FontRole: MdpMatrixModel._font,
    Qt.ItemDataRole.ToolTipRole: MdpMatrixModel._tooltip,
}
_COLUMN_TEXTS: dict[str, Callable[[MdpMatrixModel, _Cell, bool], str]] = {
    "state": MdpMatrixModel._state_text,
    "action": MdpMatrixModel._action_text,
    "r": MdpMatrixModel._reward_text,
    "R_T": MdpMatrixModel._terminal_text,
    "Σp": MdpMatrixModel._sum_text,
    "π̄": MdpMatrixModel._chosen_text,
}


class MdpMatrixView(QTableView):
    """The matrix of one MDP; selecting rows selects their actions (or action-less states)."""

    selection_changed = Signal()
    message = Signal(str)

    def __init__(self, document: ProjectDocument, mdp_id: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._document = document
        self._mdp_id = mdp_id
        self._silent = False
        self.matrix = MdpMatrixModel(document, mdp_id, self)
        self.setModel(self.matrix)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                             | QAbstractItemView.EditTrigger.EditKeyPressed
                             | QAbstractItemView.EditTrigger.AnyKeyPressed)
        self.setAlternatingRowColors(True)
        self.setWordWrap(False)
        self.setShowGrid(False)
        vh = self.verticalHeader()
        vh.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        vh.setDefaultSectionSize(20)
        vh.setMinimumWidth(36)
        hh = self.horizontalHeader()
        hh.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        hh.setStretchLastSection(False)
        self._set_widths()
        self.matrix.rejected.connect(self.message)
        self.selectionModel().selectionChanged.connect(self._on_selection_model_changed)
        self.matrix.modelReset.connect(self._set_widths)
        document.mdp_changed.connect(self._on_document_mdp_changed)
        document.project_replaced.connect(self._on_document_project_replaced)
        document.run_removed.connect(self._on_document_run_removed)

    def _set_widths(self) -> None:
        widths = {"state": 110, "action": 100, "r": 70, "R_T": 70, "Σp": 120,
                  "next states (largest p)": 420, "π̄": 34, "v\u0332": 70, "V\u0304": 70,
                  "v\u0304": 70}
        for c, name in enumerate(self.matrix.columns()):
            self.setColumnWidth(c, widths.get(name, 80))
        self.horizontalHeader().setSectionResizeMode(
            COLUMNS.index("next states (largest p)"), QHeaderView.ResizeMode.Stretch)

    # ------------------------------------------------------------------ public
    def selection(self) -> Selection:
        model = self._document.model(self._mdp_id) if self._document.has_mdp(self._mdp_id) \
            else None
        if model is None:
            return Selection()
        states, actions = [], []
        for index in self.selectionModel().selectedRows():
            s, j = self.matrix.pair(index.row())
            if j < 0:
                states.append(model.state_ids[s])
            else:
                actions.append(model.action_ids[s][j])
        return Selection(tuple(states), tuple(actions))

    def select_ids(self, ids: list[str] | tuple[str, ...], transitions=()) -> None:
        rows = [r for r in (self.matrix.row_of(i) for i in ids) if r >= 0]
        rows += [r for r in (self.matrix.row_of(a) for a, _ in transitions) if r >= 0]
        selection = QItemSelection()
        last = self.matrix.columnCount() - 1
        for r in rows:
            selection.select(self.matrix.index(r, 0), self.matrix.index(r, last))
        self._silent = True
        try:
            self.selectionModel().select(selection, QItemSelectionModel.SelectionFlag
                                         .ClearAndSelect)
        finally:
            self._silent = False
        if rows:
            self.scrollTo(self.matrix.index(rows[0], 0),
                          QAbstractItemView.ScrollHint.PositionAtCenter)
        self.selection_changed.emit()

    def show_results(self, run_id: str | None, stage: int = 0) -> None:
        keep = self.selection()
        self.matrix.set_results(run_id, stage)
        self._restore(keep)

    def _restore(self, keep: Selection) -> None:
        if not keep.is_empty:
            self.select_ids(keep.ids())

    # ------------------------------------------------------------------ slots
    def _on_selection_model_changed(self, *args: object) -> None:
        if not self._silent:
            self.selection_changed.emit()

    def _on_document_mdp_changed(self, mdp_id: str) -> None:
        if mdp_id == self._mdp_id:
            keep = self.selection()
            top = self.rowAt(0)
            self.matrix.reload()
            self._silent = True
            try:
                self._restore(keep)
            finally:
                self._silent = False
            if top >= 0 and keep.is_empty:
                self.scrollTo(self.matrix.index(min(top, self.matrix.rowCount() - 1), 0),
                              QAbstractItemView.ScrollHint.PositionAtTop)

    def _on_document_project_replaced(self) -> None:
        self.matrix.set_results(None)
        self.matrix.reload()

    def _on_document_run_removed(self, run_id: str) -> None:
        if self.matrix.overlay is not None and self.matrix.overlay["record"].id == run_id:
            self.matrix.set_results(None)


def preview(exec_: bool = True) -> QWidget:
    from gui.shell.preview import example_document, run_preview

    return run_preview(lambda: MdpMatrixView(example_document(), "example-2"), exec_=exec_,
                       title="Matrix view", size=(900, 500))


if __name__ == "__main__":
    preview()
