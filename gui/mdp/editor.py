"""The MDP editor of a workspace: the canvas or, for large models, the matrix view.

:class:`MdpEditor` stacks :class:`gui.mdp.view.MdpView` (the drawing) and
:class:`gui.mdp.matrix_view.MdpMatrixView` (state × action rows). Models with more than
:data:`gui.mdp.canvas_parts.MATRIX_STATES` states always use the matrix; smaller ones
can switch with the "Drawing / Matrix" buttons. The editing entry points the main window's
Edit menu calls (add state, add action, delete, rename, select all, layout, fit) go to
whichever view is showing.

Above the view, a results bar appears once a "Synthesise & bound" run exists: which run
is overlaid, a stage slider for finite horizons (π̄ may change with the stage) and a
switch to hide the overlay.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QSlider,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gui.mdp.canvas_parts import MATRIX_STATES
from gui.mdp.view import MdpView, Selection
from gui.shell.document import ProjectDocument, mdp_stack_key

if TYPE_CHECKING:
    from gui.mdp.matrix_view import MdpMatrixView
    from gui.mdp.scale_panel import ScalePanel

__all__ = ["MdpEditor"]


class MdpEditor(QWidget):
    """Canvas or matrix of one MDP, with the results bar."""

    selection_changed = Signal()
    rename_requested = Signal(str)
    message = Signal(str)
    mode_changed = Signal(str)
    view_changed = Signal(str)  # "canvas" or "matrix"

    def __init__(self, document: ProjectDocument, mdp_id: str,
                 parent: QWidget | None = None, *, results_run: str | None = None) -> None:
        """``results_run``: the "bounds" run the caller will show at once (drawn from the
        start; :meth:`show_results` still has to be called for the bar and the matrix)."""
        super().__init__(parent)
        self._document = document
        self._mdp_id = mdp_id
        self._run_id: str | None = None
        self.canvas = MdpView(document, mdp_id, self, results_run=results_run)
        self.matrix: MdpMatrixView | None = None  # built when first needed (large: at once)
        self.matrix_area: QWidget | None = None  # the matrix, or it and the scale panel
        self.scale_panel: ScalePanel | None = None  # for large models
        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.canvas)

        self.drawing_button = QToolButton(self)
        self.drawing_button.setText("Drawing")
        self.matrix_button = QToolButton(self)
        self.matrix_button.setText("Matrix")
        self.matrix_button.setToolTip("State × action rows with rewards, row sums and the "
                                      "largest next-state probabilities (for large models).")
        group = QButtonGroup(self)
        for b in (self.drawing_button, self.matrix_button):
            b.setCheckable(True)
            b.setAutoRaise(True)
            b.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
            group.addButton(b)
        self.drawing_button.setChecked(True)
        self.results_label = QLabel(self)
        self.results_label.setTextFormat(Qt.TextFormat.RichText)
        self.stage_label = QLabel("stage", self)
        self.stage_slider = QSlider(Qt.Orientation.Horizontal, self)
        self.stage_slider.setMaximumWidth(160)
        self.stage_slider.setPageStep(1)
        self.stage_slider.setToolTip("The stage t whose π̄ and values are shown (finite "
                                     "horizon: the private policy may differ per stage).")
        self.stage_value = QLabel(self)
        self.stage_value.setMinimumWidth(52)
        self.show_check = QCheckBox("show on drawing", self)
        self.show_check.setChecked(True)
        self.show_check.setToolTip("Show the private policy π̄ and the values v̲ ≤ V̄ ≤ v̄ of "
                                   "the last 'Synthesise & bound' run on the model.")
        bar = QHBoxLayout()
        bar.setContentsMargins(2, 0, 2, 0)
        bar.setSpacing(6)
        bar.addWidget(self.drawing_button)
        bar.addWidget(self.matrix_button)
        bar.addSpacing(12)
        bar.addWidget(self.results_label, 1)
        bar.addStretch(0)
        for w in (self.stage_label, self.stage_slider, self.stage_value, self.show_check):
            bar.addWidget(w)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(bar)
        layout.addWidget(self.stack, 1)

        self.canvas.selection_changed.connect(self.selection_changed)
        self.canvas.rename_requested.connect(self.rename_requested)
        self.canvas.message.connect(self.message)
        self.canvas.mode_changed.connect(self.mode_changed)
        self.drawing_button.clicked.connect(lambda: self.set_view("canvas"))
        self.matrix_button.clicked.connect(lambda: self.set_view("matrix"))
        self.stage_slider.valueChanged.connect(self._on_stage_slider_changed)
        self.show_check.toggled.connect(self._on_show_check_toggled)
        document.mdp_changed.connect(self._on_document_mdp_changed)
        document.project_replaced.connect(self._on_document_project_replaced)
        self._sync_view_to_size()
        self._update_results_bar()

    @property
    def _stack_key(self) -> str:
        """This model's undo stack (see :mod:`gui.shell.document`)."""
        return mdp_stack_key(str(self._mdp_id))

    # ------------------------------------------------------------------ views
    @property
    def mdp_id(self) -> str:
        return self._mdp_id

    @property
    def view(self) -> str:
        return "matrix" if self.matrix is not None and self.stack.currentWidget() is \
            self.matrix_area else "canvas"

    def _too_large(self) -> bool:
        return self._document.has_mdp(self._mdp_id) and \
            self._document.model(self._mdp_id).n_states > MATRIX_STATES

    def _ensure_matrix(self) -> MdpMatrixView:
        if self.matrix is None:
            from gui.mdp.matrix_view import MdpMatrixView

            matrix = self.matrix = MdpMatrixView(self._document, self._mdp_id, self)
            matrix.selection_changed.connect(self.selection_changed)
            matrix.message.connect(self.message)
            self.matrix_area = matrix
            if self._too_large():  # summary, search and neighbourhood beside the rows
                from PySide6.QtWidgets import QSplitter

                from gui.mdp.scale_panel import ScalePanel

                scale = self.scale_panel = ScalePanel(self._document, self._mdp_id, self)
                scale.find_requested.connect(self._on_scale_find)
                matrix.selection_changed.connect(self._on_matrix_selection_for_scale)
                area = QSplitter(Qt.Orientation.Horizontal, self)
                area.addWidget(matrix)
                area.addWidget(scale)
                area.setStretchFactor(0, 3)
                area.setStretchFactor(1, 2)
                self.matrix_area = area
            self.stack.addWidget(self.matrix_area)
            if self._run_id is not None and self.show_check.isChecked():
                self.matrix.show_results(self._run_id, self.stage_slider.value())
        return self.matrix

    def set_view(self, view: str) -> None:
        """``"canvas"`` (the drawing) or ``"matrix"``; large models stay in the matrix."""
        if view == "canvas" and self._too_large():
            view = "matrix"
            self.message.emit(f"This model has more than {MATRIX_STATES} states: it is shown "
                              "as a matrix.")
        keep = self.selection()
        if view == "matrix":
            self._ensure_matrix()
            assert self.matrix_area is not None  # made by _ensure_matrix
            self.stack.setCurrentWidget(self.matrix_area)
        else:
            self.stack.setCurrentWidget(self.canvas)
        self.drawing_button.setChecked(view == "canvas")
        self.matrix_button.setChecked(view == "matrix")
        if not keep.is_empty:
            self.select_ids(keep.ids(), keep.transitions)
        self.view_changed.emit(view)
        self.selection_changed.emit()

    def current(self):
        widget = self.stack.currentWidget()
        return self.matrix if widget is self.matrix_area and self.matrix is not None else widget

    def _on_scale_find(self, state_id: str) -> None:
        """A state found (or clicked) in the scale panel: its rows in the matrix."""
        if self.matrix is None:
            return
        self.matrix.select_ids([state_id])
        row = self.matrix.matrix.row_of(state_id)
        if row >= 0:
            self.matrix.scrollTo(self.matrix.matrix.index(row, 0),
                                 self.matrix.ScrollHint.PositionAtCenter)

    def _on_matrix_selection_for_scale(self) -> None:
        if self.scale_panel is None or self.matrix is None:
            return
        sel = self.matrix.selection()
        model = self._document.model(self._mdp_id)
        sid = sel.states[0] if sel.states else (model.state_of(sel.actions[0])
                                                if sel.actions else None)
        if sid is not None:
            self.scale_panel.show_state_id(sid)

    def _sync_view_to_size(self) -> None:
        large = self._too_large()
        self.drawing_button.setEnabled(not large)
        self.drawing_button.setToolTip(
            f"The drawing is for models up to {MATRIX_STATES} states; this one is shown as a "
            "matrix." if large else "Draw the MDP: states, action dots, transitions.")
        if large and self.view != "matrix":
            self.set_view("matrix")

    # ------------------------------------------------------------------ selection
    def selection(self) -> Selection:
        return self.current().selection()

    def select_ids(self, ids, transitions=()) -> None:
        self.current().select_ids(list(ids), list(transitions))

    # ------------------------------------------------------------------ edits (Edit menu)
    def add_state(self) -> str | None:
        if self.view == "canvas":
            return self.canvas.add_state_at_cursor()
        from gui.shell.commands import AddStateCommand

        cmd = AddStateCommand(self._document, self._mdp_id, None)
        self._document.push(cmd, self._stack_key)
        self.select_ids([cmd.state_id])
        return cmd.state_id

    def add_action(self) -> list[str]:
        if self.view == "canvas":
            return self.canvas.add_action_to_selection()
        from gui.shell.commands import AddActionCommand

        model = self._document.model(self._mdp_id)
        sel = self.selection()
        states = list(sel.states) or list(dict.fromkeys(model.state_of(a) for a in sel.actions))
        added = []
        for sid in states[:1]:
            cmd = AddActionCommand(self._document, self._mdp_id, sid)
            self._document.push(cmd, self._stack_key)
            assert cmd.action_id is not None  # pushing ran redo(), which made the action
            added.append(cmd.action_id)
        if added:
            self.select_ids(added)
        return added

    def delete_selection(self) -> bool:
        if self.view == "canvas":
            return self.canvas.delete_selection()
        from gui.shell.commands import RemoveItemsCommand

        sel = self.selection()
        if sel.is_empty:
            return False
        self._document.push(RemoveItemsCommand(self._document, self._mdp_id, sel.states,
                                               sel.actions), self._stack_key)
        return True

    def rename_selection(self) -> bool:
        ids = self.selection().ids()
        if not ids:
            return False
        self.rename_requested.emit(ids[0])
        return True

    def select_all(self) -> None:
        if self.view == "canvas":
            self.canvas.select_all()
        else:
            assert self.matrix is not None  # the matrix view is shown
            self.matrix.selectAll()

    def set_mode(self, mode: str) -> None:
        if self.view != "canvas" and mode != "select":
            self.set_view("canvas")
        self.canvas.set_mode(mode)

    def auto_layout(self) -> None:
        if self.view != "canvas":
            self.set_view("canvas")
        self.canvas.auto_layout()

    def fit_to_view(self) -> None:
        if self.view == "canvas":
            self.canvas.fit_to_view()

    # ------------------------------------------------------------------ results
    @property
    def results_run(self) -> str | None:
        return self._run_id

    def show_results(self, run_id: str | None) -> None:
        """Overlay the "bounds" run ``run_id`` (or nothing) on the drawing and the matrix."""
        self._run_id = run_id
        blocked = self.stage_slider.blockSignals(True)
        self.stage_slider.setValue(0)
        self.stage_slider.blockSignals(blocked)
        self._apply_results()
        self._update_results_bar()

    def set_stage(self, stage: int) -> None:
        self.stage_slider.setValue(stage)

    @property
    def stage(self) -> int:
        return self.stage_slider.value()

    def _apply_results(self) -> None:
        run = self._run_id if self.show_check.isChecked() else None
        self.canvas.show_results(run, self.stage_slider.value())
        if self.matrix is not None:
            self.matrix.show_results(run, self.stage_slider.value())

    def _update_results_bar(self) -> None:
        overlay = self.canvas.overlay if self._run_id is not None else None
        if overlay is None and self._run_id is not None:
            from gui.mdp.canvas_parts import bounds_overlay

            overlay = bounds_overlay(self._document, self._run_id, self._mdp_id, 0)
        visible = overlay is not None
        for w in (self.results_label, self.show_check):
            w.setVisible(visible)
        stages = overlay["stages"] if overlay is not None else 0
        for stage_widget in (self.stage_label, self.stage_slider, self.stage_value):
            stage_widget.setVisible(stages > 1)
        if overlay is None:
            return
        r = overlay["record"]
        s = r.summary
        stale = " <span style='color:#D55E00'>(model changed since)</span>" \
            if overlay["stale"] else ""
        seed = (f"seed {r.seed}" if r.params.get("seeded", True)
                else f"fresh OS seed {r.seed}")
        self.results_label.setText(
            f"<span style='color:#8A5300'>π̄ and values of <b>{r.id}</b>: k = "
            f"{float(s.get('k', 0)):g}, β = {float(s.get('beta', 0)):g}, α "
            f"{s.get('alpha_mode')}, {seed}</span>{stale}")
        self.results_label.setToolTip(
            f"{r.id} ({r.mode}, {seed}): one private model at k = {float(s.get('k', 0)):g}; "
            f"π̄ synthesised on it; α = {float(s.get('alpha', 0)):.4g}; cost bound at s₀ "
            f"{float(s.get('cost_bound', float('nan'))):.4g}. Kept with the project.")
        self.stage_slider.setRange(0, max(0, stages - 1))
        self.stage_value.setText(f"t = {self.stage_slider.value()}")

    def _on_stage_slider_changed(self, value: int) -> None:
        self.stage_value.setText(f"t = {value}")
        if self._run_id is not None and self.show_check.isChecked():
            self.canvas.show_results(self._run_id, value)
            if self.matrix is not None:
                self.matrix.show_results(self._run_id, value)

    def _on_show_check_toggled(self, checked: bool) -> None:
        self._apply_results()

    def _on_document_mdp_changed(self, mdp_id: str) -> None:
        if mdp_id == self._mdp_id:
            self._sync_view_to_size()
            self._update_results_bar()

    def _on_document_project_replaced(self) -> None:
        self._run_id = None
        self._sync_view_to_size()
        self._update_results_bar()


def preview(exec_: bool = True) -> QWidget:
    from gui.shell.preview import example_document, run_preview

    return run_preview(lambda: MdpEditor(example_document(), "four-startups"), exec_=exec_,
                       title="MDP editor", size=(900, 600))


if __name__ == "__main__":
    preview()
