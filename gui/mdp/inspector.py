"""The Inspector of an MDP workspace: the fields of what is selected, validated as you type.

* A **state**: its name, terminal reward R_T, whether it is the initial state, and its
  actions with the sum of each row (a row that does not sum to 1 is red, with its deficit).
* An **action** (or a transition, which selects its action and row): its name, reward r,
  and a table of next-state probabilities — every state for small models (typing a value
  into an empty row adds a transition), the non-zero ones plus "add next state" for large
  ones. Below it: Σp, the deficit and a one-click *Normalise*.
* Always: the model settings (name, horizon T or infinite, discount γ, initial state) and
  the validity summary — every problem, naming state and action; click one to select it;
  *Normalise all* fixes every row with a deficit (one undoable step).

Nothing here changes the model directly: each committed field pushes one command. A
field with text that is not acceptable turns red and says why (tooltip and message line);
nothing is pushed until it is fixed.

Over 600 lines: the transition table model and the Inspector share the validate-as-you-type
rules of every field (state, action, model settings); they change together.
"""

from __future__ import annotations

import html
import math
from fractions import Fraction
from typing import Any

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from core.common import InputError
from core.mdp import ROW_SUM_TOL
from gui.mdp.view import Selection
from gui.shell.document import ProjectDocument, mdp_stack_key
from gui.shell.style import ERROR_COLOUR
from gui.shell.widgets import show_field_error

__all__ = ["MdpInspector", "TransitionTableModel", "parse_number", "ALL_TARGETS",
           "MAX_PROBLEMS_LISTED"]

ALL_TARGETS = 60  # up to this many states, an action's table lists every next state
#: Combo boxes of states list at most this many (for a large model: the first ones).
COMBO_MAX = 2000
MAX_PROBLEMS_LISTED = 200
_OK_COLOUR = "#1B7F3B"

TOOLTIPS = {
    "state_name": "The state's name (unique in the model). Enter to apply; F2 on the canvas "
                  "comes here.",
    "terminal": "Terminal reward R_T(s): paid when the horizon ends in this state "
                "(finite horizon only).",
    "initial": "The initial state s₀: the analyses report values at this state.",
    "action_name": "The action's name (unique among the actions of its state).",
    "reward": "One-step reward r(s, a): paid when the action is taken in its state.",
    "table": "Next-state probabilities P(s' | s, a). Type a value (fractions like 1/3 work) "
             "to add or change a transition; 0 or an empty cell removes it. The row must "
             "sum to 1.",
    "horizon": "Finite horizon T: the number of decisions (stages 0 … T−1). Untick for the "
               "infinite-horizon discounted problem.",
    "discount": "Discount γ: in (0, 1] for a finite horizon, in (0, 1) for an infinite one.",
    "normalise": "Scale this row so that it sums to 1 (undoable).",
    "normalise_all": "Scale every row that does not sum to 1 (one undoable step).",
}


def parse_number(text: str, what: str = "value") -> float:
    """A finite number from the text of a field; fractions ``a/b`` are accepted.

    >>> parse_number("0.25"), parse_number("1/3") == 1 / 3, parse_number(" -2e-3 ")
    (0.25, True, -0.002)
    """
    t = text.strip().replace(",", ".")
    if not t:
        raise InputError(f"enter a {what}")
    try:
        value = float(Fraction(t)) if "/" in t else float(t)
    except (ValueError, ZeroDivisionError):
        raise InputError(f"{text.strip()!r} is not a number") from None
    if not math.isfinite(value):
        raise InputError(f"the {what} must be finite")
    return value


def parse_probability(text: str) -> float:
    if not text.strip():
        return 0.0
    p = parse_number(text, "probability")
    if not 0.0 <= p <= 1.0:
        raise InputError(f"a probability lies in [0, 1], got {p:g}")
    return p


class TransitionTableModel(QAbstractTableModel):
    """Next-state probabilities of one action: (next state, p); p is editable."""

    rejected = Signal(str)  # why a typed value was not applied

    def __init__(self, document: ProjectDocument, parent: Any = None) -> None:
        super().__init__(parent)
        self._document = document
        self._mdp_id: str | None = None
        self._action_id: str | None = None
        self._targets: list[int] = []
        self._highlight: str | None = None

    @property
    def _stack_key(self) -> str:
        """This model's undo stack (see :mod:`gui.shell.document`)."""
        return mdp_stack_key(str(self._mdp_id))

    def set_action(self, mdp_id: str | None, action_id: str | None,
                   highlight: str | None = None) -> None:
        self.beginResetModel()
        self._mdp_id, self._action_id, self._highlight = mdp_id, action_id, highlight
        self._targets = self._compute_targets()
        self.endResetModel()

    def refresh(self) -> None:
        """Re-read the action's row. When the same next states are listed (a value edit),
        only the values change: no model reset, which would pull the editor away from a
        view that is still committing it (Qt's "commitData called with an editor that does
        not belong to this view")."""
        targets = self._compute_targets()
        if targets == self._targets and targets:
            self.dataChanged.emit(self.index(0, 0),
                                  self.index(len(targets) - 1, self.columnCount() - 1))
            return
        self.set_action(self._mdp_id, self._action_id, self._highlight)

    @property
    def action_id(self) -> str | None:
        return self._action_id

    def _where(self) -> tuple[Any, int, int] | None:
        if self._mdp_id is None or self._action_id is None \
                or not self._document.has_mdp(self._mdp_id):
            return None
        model = self._document.model(self._mdp_id)
        if not model.has_action(self._action_id):
            return None
        s, j = model.action_index(self._action_id)
        return model, s, j

    def _compute_targets(self) -> list[int]:
        where = self._where()
        if where is None:
            return []
        model, s, j = where
        if model.n_states <= ALL_TARGETS:
            return list(range(model.n_states))
        return [int(t) for t in np.flatnonzero(model.P[s, j])]

    def target_ids(self) -> list[str]:
        where = self._where()
        return [] if where is None else [where[0].state_ids[t] for t in self._targets]

    def row_of(self, state_id: str) -> int:
        where = self._where()
        if where is None or state_id not in where[0].state_ids:
            return -1
        t = where[0].state_ids.index(state_id)
        return self._targets.index(t) if t in self._targets else -1

    # Qt model API
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008,N802
        return 0 if parent.isValid() else len(self._targets)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008,N802
        return 0 if parent.isValid() else 2

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return ("next state s′", "p(s′ | s, a)")[section]
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole:
            return TOOLTIPS["table"]
        return None

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        return base | Qt.ItemFlag.ItemIsEditable if index.column() == 1 else base

    def data(self, index: QModelIndex | QPersistentModelIndex,
             role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        where = self._where()
        if where is None or not index.isValid():
            return None
        model, s, j = where
        t = self._targets[index.row()]
        p = float(model.P[s, j, t])
        if role == Qt.ItemDataRole.DisplayRole:
            if index.column() == 0:
                mark = " (s₀)" if model.state_ids[t] == model.initial_state else ""
                return model.state_labels[t] + mark
            return "" if p == 0 else f"{p:.6g}"
        if role == Qt.ItemDataRole.EditRole:
            return model.state_labels[t] if index.column() == 0 else (
                "" if p == 0 else f"{p:.12g}")
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() == 1:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.BackgroundRole:
            if not math.isfinite(p) or p < 0:
                return QColor("#FDECE6")
            if self._highlight is not None and model.state_ids[t] == self._highlight:
                return QColor("#DCEBFA")
        if role == Qt.ItemDataRole.ForegroundRole and p == 0 and index.column() == 0:
            return QColor("#888888")
        if role == Qt.ItemDataRole.ToolTipRole:
            return TOOLTIPS["table"]
        return None

    def setData(self, index: QModelIndex | QPersistentModelIndex, value: Any,  # noqa: N802
                role: int = Qt.ItemDataRole.EditRole) -> bool:
        from gui.shell.commands import SetProbabilityCommand

        where = self._where()
        if where is None or index.column() != 1 or role != Qt.ItemDataRole.EditRole:
            return False
        model, s, j = where
        t = self._targets[index.row()]
        try:
            p = parse_probability(str(value))
        except InputError as exc:
            self.rejected.emit(f"{model.state_labels[t]}: {exc.problem}")
            return False
        if p == float(model.P[s, j, t]):
            return True
        cmd = SetProbabilityCommand(self._document, self._mdp_id,  # type: ignore[arg-type]
                                    self._action_id, model.state_ids[t], p)  # type: ignore[arg-type]
        self._document.push(cmd, self._stack_key)
        return True


def _set_text(edit: QLineEdit, text: str) -> None:
    """Show ``text`` unless the user is typing in ``edit`` right now."""
    if edit.hasFocus() and edit.isModified():
        return
    if edit.text() != text:
        edit.setText(text)
    edit.setModified(False)
    edit.setCursorPosition(0)


def _mark(edit: QLineEdit, error: str, tip: str) -> None:
    show_field_error(edit, error, tip)


class MdpInspector(QScrollArea):
    """The fields of the selection in one MDP workspace, and the model's settings."""

    select_requested = Signal(list)  # ids of states/actions to select on the canvas
    message_logged = Signal(str, str)  # level, text
    done_editing = Signal()  # Enter in a name field: the keyboard can go back to the canvas

    def __init__(self, document: ProjectDocument, mdp_id: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._document = document
        self._mdp_id = mdp_id
        self._selection = Selection()
        self.setWidgetResizable(True)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        body = QWidget(self)
        self.setWidget(body)

        self.title = QLabel(body)
        self.title.setWordWrap(True)
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.message = QLabel(body)
        self.message.setWordWrap(True)
        self.message.setStyleSheet(f"color: {ERROR_COLOUR};")
        self.message.hide()
        self.pages = QStackedWidget(body)

        # -- nothing selected
        self.none_page = QLabel("Select a state or an action to edit it here. Double-click "
                                "empty canvas (or N) adds a state; A adds an action to the "
                                "selected state.", body)
        self.none_page.setWordWrap(True)
        self.none_page.setStyleSheet("color: #666;")
        self.pages.addWidget(self.none_page)

        # -- a state
        self.state_page = QWidget(body)
        self.state_name = QLineEdit(self.state_page)
        self.state_name.setToolTip(TOOLTIPS["state_name"])
        self.terminal_edit = QLineEdit(self.state_page)
        self.terminal_edit.setToolTip(TOOLTIPS["terminal"])
        self.initial_check = QCheckBox("initial state s₀", self.state_page)
        self.initial_check.setToolTip(TOOLTIPS["initial"])
        self.actions_list = QListWidget(self.state_page)
        self.actions_list.setToolTip("The actions of this state and the sum of each row; "
                                     "double-click one to edit it.")
        self.actions_list.setMaximumHeight(120)
        self.add_action_button = QPushButton("Add action (A)", self.state_page)
        self.add_action_button.setToolTip("Give this state a new action (its probabilities "
                                          "are entered next).")
        form = QFormLayout()
        form.addRow("Name", self.state_name)
        form.addRow("R_T", self.terminal_edit)
        form.addRow("", self.initial_check)
        lay = QVBoxLayout(self.state_page)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(form)
        lay.addWidget(QLabel("Actions", self.state_page))
        lay.addWidget(self.actions_list)
        lay.addWidget(self.add_action_button)
        self.pages.addWidget(self.state_page)

        # -- an action
        self.action_page = QWidget(body)
        self.action_name = QLineEdit(self.action_page)
        self.action_name.setToolTip(TOOLTIPS["action_name"])
        self.reward_edit = QLineEdit(self.action_page)
        self.reward_edit.setToolTip(TOOLTIPS["reward"])
        self.action_state = QLabel(self.action_page)
        self.table_model = TransitionTableModel(document, self)
        self.table = QTableView(self.action_page)
        self.table.setModel(self.table_model)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(21)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.horizontalHeader().setSectionResizeMode(
            1, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.AllEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setToolTip(TOOLTIPS["table"])
        self.add_target_combo = QComboBox(self.action_page)
        self.add_target_combo.setToolTip("Large model: pick a next state to add a transition "
                                         "to it.")
        self.row_label = QLabel(self.action_page)
        self.row_label.setWordWrap(True)
        self.normalise_button = QPushButton("Normalise", self.action_page)
        self.normalise_button.setToolTip(TOOLTIPS["normalise"])
        aform = QFormLayout()
        aform.addRow("Name", self.action_name)
        aform.addRow("r", self.reward_edit)
        aform.addRow("State", self.action_state)
        row = QHBoxLayout()
        row.addWidget(self.row_label, 1)
        row.addWidget(self.normalise_button, 0, Qt.AlignmentFlag.AlignTop)
        alay = QVBoxLayout(self.action_page)
        alay.setContentsMargins(0, 0, 0, 0)
        alay.addLayout(aform)
        alay.addWidget(self.table)
        alay.addWidget(self.add_target_combo)
        alay.addLayout(row)
        self.pages.addWidget(self.action_page)

        # -- several items
        self.multi_page = QWidget(body)
        self.multi_label = QLabel(self.multi_page)
        self.multi_label.setWordWrap(True)
        self.multi_normalise = QPushButton("Normalise selected rows", self.multi_page)
        mlay = QVBoxLayout(self.multi_page)
        mlay.setContentsMargins(0, 0, 0, 0)
        mlay.addWidget(self.multi_label)
        mlay.addWidget(self.multi_normalise)
        mlay.addStretch(1)
        self.pages.addWidget(self.multi_page)

        # -- model settings and validity
        self.model_box = QGroupBox("Model", body)
        self.model_name = QLineEdit(self.model_box)
        self.model_name.setToolTip("The MDP's name (shown on its tab and in the Project tree).")
        self.finite_check = QCheckBox("finite horizon T =", self.model_box)
        self.finite_check.setToolTip(TOOLTIPS["horizon"])
        self.horizon_spin = QSpinBox(self.model_box)
        self.horizon_spin.setRange(1, 100_000)
        self.horizon_spin.setToolTip(TOOLTIPS["horizon"])
        self.horizon_spin.setKeyboardTracking(False)
        self.discount_edit = QLineEdit(self.model_box)
        self.discount_edit.setToolTip(TOOLTIPS["discount"])
        self.initial_combo = QComboBox(self.model_box)
        self.initial_combo.setToolTip(TOOLTIPS["initial"])
        self.initial_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.initial_combo.setMinimumContentsLength(8)
        self.validity_label = QLabel(self.model_box)
        self.validity_label.setWordWrap(True)
        self.validity_label.setTextFormat(Qt.TextFormat.RichText)
        self.problems_list = QListWidget(self.model_box)
        self.problems_list.setWordWrap(True)
        self.problems_list.setToolTip("Everything that stops the analyses; click one to select "
                                      "the state or action it names.")
        self.problems_list.setMaximumHeight(130)
        self.normalise_all_button = QPushButton("Normalise all rows", self.model_box)
        self.normalise_all_button.setToolTip(TOOLTIPS["normalise_all"])
        hrow = QHBoxLayout()
        hrow.addWidget(self.finite_check)
        hrow.addWidget(self.horizon_spin, 1)
        mform = QFormLayout()
        mform.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        mform.addRow("Name", self.model_name)
        mform.addRow("Horizon", hrow)
        mform.addRow("γ", self.discount_edit)
        mform.addRow("s₀", self.initial_combo)
        mlay2 = QVBoxLayout(self.model_box)
        mlay2.addLayout(mform)
        mlay2.addWidget(self.validity_label)
        mlay2.addWidget(self.problems_list)
        mlay2.addWidget(self.normalise_all_button)

        outer = QVBoxLayout(body)
        outer.addWidget(self.title)
        outer.addWidget(self.message)
        outer.addWidget(self.pages)
        outer.addWidget(self.model_box)
        outer.addStretch(1)

        # wiring
        self.state_name.editingFinished.connect(self._on_state_name_edited)
        self.state_name.returnPressed.connect(self.done_editing)
        self.action_name.returnPressed.connect(self.done_editing)
        self.terminal_edit.editingFinished.connect(self._on_terminal_edited)
        self.terminal_edit.textEdited.connect(self._on_number_text_edited)
        self.initial_check.toggled.connect(self._on_initial_check_toggled)
        self.actions_list.itemDoubleClicked.connect(self._on_actions_list_double_clicked)
        self.add_action_button.clicked.connect(self._on_add_action_clicked)
        self.action_name.editingFinished.connect(self._on_action_name_edited)
        self.reward_edit.editingFinished.connect(self._on_reward_edited)
        self.reward_edit.textEdited.connect(self._on_number_text_edited)
        self.table_model.rejected.connect(self._show_message)
        self.add_target_combo.activated.connect(self._on_add_target_activated)
        self.normalise_button.clicked.connect(self._on_normalise_clicked)
        self.multi_normalise.clicked.connect(self._on_multi_normalise_clicked)
        self.model_name.editingFinished.connect(self._on_model_name_edited)
        self.finite_check.toggled.connect(self._on_finite_check_toggled)
        self.horizon_spin.valueChanged.connect(self._on_horizon_spin_changed)
        self.discount_edit.editingFinished.connect(self._on_discount_edited)
        self.discount_edit.textEdited.connect(self._on_number_text_edited)
        self.initial_combo.activated.connect(self._on_initial_combo_activated)
        self.problems_list.itemClicked.connect(self._on_problems_list_clicked)
        self.normalise_all_button.clicked.connect(self._on_normalise_all_clicked)
        document.mdp_changed.connect(self._on_document_mdp_changed)
        document.project_replaced.connect(self._on_document_project_replaced)
        self.refresh()

    @property
    def _stack_key(self) -> str:
        """This model's undo stack (see :mod:`gui.shell.document`)."""
        return mdp_stack_key(str(self._mdp_id))

    # ------------------------------------------------------------------ public
    @property
    def mdp_id(self) -> str:
        return self._mdp_id

    @property
    def selection(self) -> Selection:
        return self._selection

    def set_selection(self, selection: Selection) -> None:
        self._selection = selection
        self._show_message("")
        self.refresh()

    def focus_name(self, item_id: str | None = None) -> None:
        """Put the cursor in the name field of the selected state or action (F2)."""
        if item_id is not None:
            model = self._model()
            if model is None:
                return
            if item_id in model.state_ids:
                self.set_selection(Selection(states=(item_id,)))
            elif model.has_action(item_id):
                self.set_selection(Selection(actions=(item_id,)))
        page = self.pages.currentWidget()
        edit = (self.state_name if page is self.state_page else
                self.action_name if page is self.action_page else None)
        if edit is not None:
            self.ensureWidgetVisible(edit)
            edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
            edit.selectAll()

    def refresh(self) -> None:
        model = self._model()
        if model is None:
            self.title.setText("(this MDP is no longer in the project)")
            self._show_page(self.none_page)
            self.model_box.setEnabled(False)
            return
        self.model_box.setEnabled(True)
        sel = self._valid_selection(model)
        problems = self._document.problems(self._mdp_id)
        if sel.is_empty:
            self.title.setText("<b>Nothing selected</b>")
            self._show_page(self.none_page)
        elif len(sel.states) == 1 and not sel.actions and not sel.transitions:
            self._fill_state(model, sel.states[0], problems)
        elif (len(sel.actions) == 1 and not sel.states and not sel.transitions) or (
                not sel.states and len({a for a, _ in sel.transitions} | set(sel.actions)) == 1):
            aid = sel.actions[0] if sel.actions else sel.transitions[0][0]
            highlight = sel.transitions[0][1] if sel.transitions else None
            self._fill_action(model, aid, highlight, problems)
        else:
            self._fill_multi(model, sel, problems)
        self._fill_model(model, problems)

    # ------------------------------------------------------------------ filling
    def _model(self):
        if not self._document.has_mdp(self._mdp_id):
            return None
        return self._document.model(self._mdp_id)

    def _valid_selection(self, model) -> Selection:
        aids = set(model.all_action_ids())
        sel = self._selection
        return Selection(tuple(s for s in sel.states if s in model.state_ids),
                         tuple(a for a in sel.actions if a in aids),
                         tuple((a, t) for a, t in sel.transitions
                               if a in aids and t in model.state_ids))

    def _row_status(self, model, s: int, j: int) -> tuple[str, bool]:
        total = float(np.sum(model.P[s, j]))
        ok = math.isfinite(total) and abs(total - 1.0) <= ROW_SUM_TOL and \
            bool((model.P[s, j] >= 0).all())
        if ok:
            return "Σp = 1 ✓", True
        if not math.isfinite(total):
            return "Σp is not finite", False
        if (model.P[s, j] < 0).any():
            return f"Σp = {total:.6g}, a probability is negative", False
        return f"Σp = {total:.6g}, deficit {1.0 - total:+.3g}", False

    def _fill_state(self, model, sid: str, problems) -> None:
        s = model.state_index(sid)
        self.title.setText(f"<b>State “{html.escape(model.state_labels[s])}”</b>"
                           f" <span style='color:#777'>({sid})</span>")
        _set_text(self.state_name, model.state_labels[s])
        name_problem = next((p.message for p in problems if p.state == sid and p.action is None
                             and p.field == "states"), "")
        _mark(self.state_name, name_problem, TOOLTIPS["state_name"])
        _set_text(self.terminal_edit, f"{float(model.R_T[s]):.12g}")
        _mark(self.terminal_edit, "", TOOLTIPS["terminal"])
        self.terminal_edit.setEnabled(model.horizon is not None)
        blocked = self.initial_check.blockSignals(True)
        self.initial_check.setChecked(model.initial_state == sid)
        self.initial_check.setEnabled(model.initial_state != sid)
        self.initial_check.blockSignals(blocked)
        self.actions_list.clear()
        for j, aid in enumerate(model.action_ids[s]):
            status, ok = self._row_status(model, s, j)
            item = QListWidgetItem(f"{model.action_labels[s][j]} — r = {model.R[s, j]:g}, "
                                   f"{status}")
            item.setData(Qt.ItemDataRole.UserRole, aid)
            if not ok:
                item.setForeground(QColor(ERROR_COLOUR))
            self.actions_list.addItem(item)
        if not model.action_ids[s]:
            item = QListWidgetItem("no actions yet: every state needs one (press A)")
            item.setForeground(QColor(ERROR_COLOUR))
            self.actions_list.addItem(item)
        self._show_page(self.state_page)

    def _fill_action(self, model, aid: str, highlight: str | None, problems) -> None:
        s, j = model.action_index(aid)
        self.title.setText(f"<b>Action “{html.escape(model.action_labels[s][j])}”</b> of "
                           f"“{html.escape(model.state_labels[s])}” "
                           f"<span style='color:#777'>({aid})</span>")
        _set_text(self.action_name, model.action_labels[s][j])
        name_problem = next((p.message for p in problems if p.action == aid
                             and p.field == "actions"), "")
        _mark(self.action_name, name_problem, TOOLTIPS["action_name"])
        _set_text(self.reward_edit, f"{float(model.R[s, j]):.12g}")
        _mark(self.reward_edit, "", TOOLTIPS["reward"])
        self.action_state.setText(model.state_labels[s])
        if self.table_model.action_id != aid or self.table_model._highlight != highlight:
            self.table_model.set_action(self._mdp_id, aid, highlight)
        else:
            self.table_model.refresh()
        rows = min(max(self.table_model.rowCount(), 2), 12)
        self.table.setFixedHeight(self.table.horizontalHeader().sizeHint().height()
                                  + rows * self.table.verticalHeader().defaultSectionSize()
                                  + 2 * self.table.frameWidth() + 2)
        if highlight is not None and (r := self.table_model.row_of(highlight)) >= 0:
            self.table.scrollTo(self.table_model.index(r, 1))
        large = model.n_states > ALL_TARGETS
        self.add_target_combo.setVisible(large)
        if large:
            self.add_target_combo.clear()
            self.add_target_combo.addItem("add next state…", None)
            nonzero = set(model.row_entries(s, j)[0].tolist())
            shown = 0
            for t, label in enumerate(model.state_labels):  # a combo of COMBO_MAX states
                if shown >= COMBO_MAX:
                    self.add_target_combo.addItem(f"(the first {COMBO_MAX:,} of "
                                                  f"{model.n_states:,} states)", None)
                    break
                if t not in nonzero:
                    self.add_target_combo.addItem(label, model.state_ids[t])
                    shown += 1
        status, ok = self._row_status(model, s, j)
        colour = _OK_COLOUR if ok else ERROR_COLOUR
        self.row_label.setText(f"<span style='color:{colour}'>{html.escape(status)}</span>")
        self.row_label.setToolTip("" if ok else "The probabilities of a row must sum to 1; "
                                  "Normalise scales them.")
        total = float(np.nansum(model.P[s, j]))
        self.normalise_button.setEnabled(not ok and total > 0 and bool(
            (model.P[s, j] >= 0).all()))
        self._show_page(self.action_page)

    def _fill_multi(self, model, sel: Selection, problems) -> None:
        parts = []
        for n, one, many in ((len(sel.states), "state", "states"),
                             (len(sel.actions), "action", "actions"),
                             (len(sel.transitions), "transition", "transitions")):
            if n:
                parts.append(f"{n} {one if n == 1 else many}")
        self.title.setText(f"<b>{', '.join(parts)} selected</b>")
        bad = self._bad_rows_in(model, sel)
        self.multi_label.setText("Delete removes them all in one step. "
                                 + (f"{len(bad)} of the selected rows do not sum to 1."
                                    if bad else ""))
        self.multi_normalise.setVisible(bool(bad))
        self._show_page(self.multi_page)

    def _bad_rows_in(self, model, sel: Selection) -> list[str]:
        aids = list(sel.actions) + [a for a, _ in sel.transitions]
        for sid in sel.states:
            aids += model.action_ids[model.state_index(sid)]
        bad = {p.action for p in self._document.problems(self._mdp_id)
               if p.action is not None and p.deficit is not None and p.deficit < 1.0}
        return [a for a in dict.fromkeys(aids) if a in bad]

    def _fill_model(self, model, problems) -> None:
        _set_text(self.model_name, model.name)
        blocked = [w.blockSignals(True) for w in (self.finite_check, self.horizon_spin)]
        self.finite_check.setChecked(model.horizon is not None)
        self.horizon_spin.setEnabled(model.horizon is not None)
        if model.horizon is not None:
            self.horizon_spin.setValue(int(model.horizon))
        for w, b in zip((self.finite_check, self.horizon_spin), blocked):
            w.blockSignals(b)
        _set_text(self.discount_edit, f"{model.discount:.12g}")
        discount_problem = next((p.message for p in problems if p.field == "discount"), "")
        _mark(self.discount_edit, discount_problem, TOOLTIPS["discount"])
        blocked_c = self.initial_combo.blockSignals(True)
        self.initial_combo.clear()
        # a large model lists its first COMBO_MAX states (and the initial one)
        listed = list(zip(model.state_ids[:COMBO_MAX], model.state_labels[:COMBO_MAX]))
        if model.initial_state is not None and model.n_states > COMBO_MAX \
                and model.initial_state in model.state_ids[COMBO_MAX:]:
            listed.append((model.initial_state, model.label(model.initial_state)))
        for sid, label in listed:
            self.initial_combo.addItem(label, sid)
        at = next((i for i, (sid, _) in enumerate(listed) if sid == model.initial_state), -1)
        self.initial_combo.setCurrentIndex(at)
        self.initial_combo.blockSignals(blocked_c)
        errors = [p for p in problems if p.severity == "error"]
        summary = model.summary(problems)
        if not errors:
            self.validity_label.setText(f"<span style='color:{_OK_COLOUR}'>"
                                        f"{html.escape(summary)}</span>")
        else:
            self.validity_label.setText(
                f"<span style='color:{ERROR_COLOUR}'><b>{len(errors)} problem"
                f"{'s' if len(errors) > 1 else ''}</b> — the analyses will not run until "
                "they are fixed:</span>")
        self.problems_list.clear()
        for p in errors[:MAX_PROBLEMS_LISTED]:
            item = QListWidgetItem(f"⚠ {p.message}")
            item.setData(Qt.ItemDataRole.UserRole, p.action or p.state or "")
            item.setForeground(QColor(ERROR_COLOUR))
            self.problems_list.addItem(item)
        if len(errors) > MAX_PROBLEMS_LISTED:
            self.problems_list.addItem(f"… and {len(errors) - MAX_PROBLEMS_LISTED} more")
        self.problems_list.setVisible(bool(errors))
        fixable = [p for p in errors if p.deficit is not None and p.deficit < 1.0]
        self.normalise_all_button.setVisible(bool(fixable))
        self.normalise_all_button.setText(f"Normalise all {len(fixable)} rows"
                                          if len(fixable) > 1 else "Normalise the row")

    # ------------------------------------------------------------------ helpers
    def _show_page(self, page: QWidget) -> None:
        """Show ``page``; the stack takes the height of the page shown, not the tallest."""
        from PySide6.QtWidgets import QSizePolicy

        for w in (self.pages.widget(i) for i in range(self.pages.count())):
            assert w is not None  # i < count()
            policy = QSizePolicy.Policy.Preferred if w is page else QSizePolicy.Policy.Ignored
            w.setSizePolicy(QSizePolicy.Policy.Preferred, policy)
        self.pages.setCurrentWidget(page)
        self.pages.adjustSize()

    def _show_message(self, text: str) -> None:
        self.message.setText(text)
        self.message.setVisible(bool(text))

    def _push(self, command) -> None:
        self._document.push(command, self._stack_key)

    def _selected_state(self) -> str | None:
        sel = self._valid_selection(self._model()) if self._model() is not None else Selection()
        return sel.states[0] if len(sel.states) == 1 else None

    def _selected_action(self) -> str | None:
        if self.pages.currentWidget() is not self.action_page:
            return None
        return self.table_model.action_id

    def _commit_number(self, edit: QLineEdit, tip: str, old: float, make) -> None:
        if not edit.isModified():
            return
        try:
            value = parse_number(edit.text())
        except InputError as exc:
            _mark(edit, exc.problem, tip)
            self._show_message(exc.problem)
            return
        _mark(edit, "", tip)
        self._show_message("")
        edit.setModified(False)
        if value != old:
            self._push(make(value))

    # ------------------------------------------------------------------ slots
    def _on_number_text_edited(self, text: str) -> None:
        edit = self.sender()
        if not isinstance(edit, QLineEdit):
            return
        tip = {self.terminal_edit: TOOLTIPS["terminal"], self.reward_edit: TOOLTIPS["reward"],
               self.discount_edit: TOOLTIPS["discount"]}.get(edit, "")
        try:
            value = parse_number(text)
            if edit is self.discount_edit and not 0.0 < value <= 1.0:
                raise InputError(f"γ must lie in (0, 1], got {value:g}")
        except InputError as exc:
            _mark(edit, exc.problem, tip)
        else:
            _mark(edit, "", tip)

    def _on_state_name_edited(self) -> None:
        from gui.shell.commands import RenameItemCommand

        sid = self._selected_state()
        if sid is None or not self.state_name.isModified():
            return
        self.state_name.setModified(False)
        name = self.state_name.text().strip()
        model = self._model()
        if not name:
            _mark(self.state_name, "a state needs a name", TOOLTIPS["state_name"])
            self._show_message("A state needs a name.")
            return
        if name != model.label(sid):
            self._push(RenameItemCommand(self._document, self._mdp_id, sid, name))

    def _on_terminal_edited(self) -> None:
        from gui.shell.commands import SetTerminalRewardCommand

        sid = self._selected_state()
        if sid is None:
            return
        model = self._model()
        self._commit_number(self.terminal_edit, TOOLTIPS["terminal"], model.terminal_reward(sid),
                            lambda v: SetTerminalRewardCommand(self._document, self._mdp_id,
                                                               sid, v))

    def _on_initial_check_toggled(self, checked: bool) -> None:
        from gui.shell.commands import SetMdpSettingsCommand

        sid = self._selected_state()
        if checked and sid is not None:
            self._push(SetMdpSettingsCommand(self._document, self._mdp_id, initial_state=sid))

    def _on_actions_list_double_clicked(self, item: QListWidgetItem) -> None:
        aid = item.data(Qt.ItemDataRole.UserRole)
        if aid:
            self.select_requested.emit([aid])

    def _on_add_action_clicked(self) -> None:
        from gui.shell.commands import AddActionCommand

        sid = self._selected_state()
        if sid is None:
            return
        cmd = AddActionCommand(self._document, self._mdp_id, sid)
        self._push(cmd)
        self.select_requested.emit([cmd.action_id])

    def _on_action_name_edited(self) -> None:
        from gui.shell.commands import RenameItemCommand

        aid = self._selected_action()
        if aid is None or not self.action_name.isModified():
            return
        self.action_name.setModified(False)
        name = self.action_name.text().strip()
        if not name:
            _mark(self.action_name, "an action needs a name", TOOLTIPS["action_name"])
            self._show_message("An action needs a name.")
            return
        if name != self._model().label(aid):
            self._push(RenameItemCommand(self._document, self._mdp_id, aid, name))

    def _on_reward_edited(self) -> None:
        from gui.shell.commands import SetRewardCommand

        aid = self._selected_action()
        if aid is None:
            return
        self._commit_number(self.reward_edit, TOOLTIPS["reward"], self._model().reward(aid),
                            lambda v: SetRewardCommand(self._document, self._mdp_id, aid, v))

    def _on_add_target_activated(self, index: int) -> None:
        from gui.shell.commands import SetProbabilityCommand, connect_probability

        target = self.add_target_combo.itemData(index)
        aid = self._selected_action()
        if target is None or aid is None:
            return
        p = connect_probability(self._model(), aid, target)
        self._push(SetProbabilityCommand(self._document, self._mdp_id, aid, target, p))

    def _on_normalise_clicked(self) -> None:
        from gui.shell.commands import NormaliseRowsCommand

        aid = self._selected_action()
        if aid is not None:
            self._push(NormaliseRowsCommand(self._document, self._mdp_id, [aid]))

    def _on_multi_normalise_clicked(self) -> None:
        from gui.shell.commands import NormaliseRowsCommand

        model = self._model()
        bad = self._bad_rows_in(model, self._valid_selection(model))
        if bad:
            self._push(NormaliseRowsCommand(self._document, self._mdp_id, bad))

    def _on_model_name_edited(self) -> None:
        from gui.shell.commands import SetMdpSettingsCommand

        if not self.model_name.isModified():
            return
        self.model_name.setModified(False)
        name = self.model_name.text().strip()
        if name and name != self._model().name:
            self._push(SetMdpSettingsCommand(self._document, self._mdp_id, name=name,
                                             text=f"Rename MDP to “{name}”"))

    def _on_finite_check_toggled(self, checked: bool) -> None:
        from gui.shell.commands import SetMdpSettingsCommand

        model = self._model()
        if model is None:
            return
        horizon = self.horizon_spin.value() if checked else None
        if horizon != model.horizon:
            changes: dict[str, Any] = {"horizon": horizon}
            if horizon is None and model.discount >= 1.0:
                changes["discount"] = 0.95  # an infinite horizon needs γ < 1
            self._push(SetMdpSettingsCommand(self._document, self._mdp_id, **changes))

    def _on_horizon_spin_changed(self, value: int) -> None:
        from gui.shell.commands import SetMdpSettingsCommand

        model = self._model()
        if model is not None and self.finite_check.isChecked() and value != model.horizon:
            self._push(SetMdpSettingsCommand(self._document, self._mdp_id, horizon=int(value)))

    def _on_discount_edited(self) -> None:
        from gui.shell.commands import SetMdpSettingsCommand

        model = self._model()
        if model is None or not self.discount_edit.isModified():
            return
        try:
            value = parse_number(self.discount_edit.text(), "discount")
            if not 0.0 < value <= 1.0:
                raise InputError(f"γ must lie in (0, 1], got {value:g}")
        except InputError as exc:
            _mark(self.discount_edit, exc.problem, TOOLTIPS["discount"])
            self._show_message(exc.problem)
            return
        self.discount_edit.setModified(False)
        self._show_message("")
        if value != model.discount:
            self._push(SetMdpSettingsCommand(self._document, self._mdp_id, discount=value))

    def _on_initial_combo_activated(self, index: int) -> None:
        from gui.shell.commands import SetMdpSettingsCommand

        sid = self.initial_combo.itemData(index)
        model = self._model()
        if sid and model is not None and sid != model.initial_state:
            self._push(SetMdpSettingsCommand(self._document, self._mdp_id, initial_state=sid))

    def _on_problems_list_clicked(self, item: QListWidgetItem) -> None:
        target = item.data(Qt.ItemDataRole.UserRole)
        if target:
            self.select_requested.emit([target])

    def _on_normalise_all_clicked(self) -> None:
        from gui.shell.commands import NormaliseRowsCommand

        fixable = [p.action for p in self._document.errors(self._mdp_id)
                   if p.action is not None and p.deficit is not None and p.deficit < 1.0]
        if fixable:
            self._push(NormaliseRowsCommand(self._document, self._mdp_id, fixable))

    def _on_document_mdp_changed(self, mdp_id: str) -> None:
        if mdp_id == self._mdp_id:
            self.refresh()

    def _on_document_project_replaced(self) -> None:
        self._selection = Selection()
        self.refresh()


def preview(exec_: bool = True) -> QWidget:
    from gui.shell.preview import example_document, run_preview

    def build() -> QWidget:
        doc = example_document()
        w = MdpInspector(doc, "four-startups")
        w.set_selection(Selection(actions=("ac-1",)))
        return w

    return run_preview(build, exec_=exec_, title="Inspector", size=(340, 640))


if __name__ == "__main__":
    preview()
