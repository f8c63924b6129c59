"""The MDP workspace (one centre tab): the editor on top, Figure 2.1 results below.

The workspace owns its :class:`gui.mdp.inspector.MdpInspector` and its
:class:`gui.mdp.analysis_panel.AnalysisPanel` (the main window shows them in the
Inspector and Run parameters docks while the tab is active) and uses the
:class:`gui.shell.workers.TaskRunner` the main window gives it. It connects the editor's
selection to the inspector (and back: a problem clicked in the inspector selects its state
or action), and puts the latest "Synthesise & bound" run of its MDP on the drawing.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSplitter, QToolButton, QVBoxLayout, QWidget

from core.mdp import FOUR_STARTUPS_NOTE
from gui.mdp.analysis_panel import AnalysisPanel
from gui.mdp.editor import MdpEditor
from gui.mdp.inspector import MdpInspector
from gui.mdp.plot_panel import CostOfPrivacyPanel
from gui.mdp.view import MdpView
from gui.shell.document import ProjectDocument
from gui.shell.tools import MdpWorkspaceSpec, register_mdp_workspace
from gui.shell.widgets import vertical_scroll
from gui.shell.workers import TaskRunner

__all__ = ["MdpWorkspace", "placeholder_note", "EDITOR_SHARE"]

EDITOR_SHARE = 0.58  # of the splitter's height for the drawing; the results get the rest


def placeholder_note(document: ProjectDocument, mdp_id: str) -> str:
    """The caution to show for an MDP: its entry note, or the placeholder text when the
    model is the illustrative four-startups placeholder loaded without a note."""
    entry = document.mdp_entry(mdp_id)
    if entry.note:
        return entry.note
    if "placeholder" in (entry.model.name or "").lower():
        return FOUR_STARTUPS_NOTE
    return ""


class _Banner(QLabel):
    """A word-wrapped caution that takes the height its text needs at its width, without
    reporting height-for-width: a page with height-for-width is laid out at its preferred
    height by the tab's scroll area (:class:`gui.shell.scroll_tabs.PageScroll`), which made
    the whole workspace taller than a laptop's screen."""

    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt)
        return False

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 (Qt)
        super().resizeEvent(event)
        need = super().heightForWidth(self.width())
        if need > 0 and need != self.minimumHeight():
            self.setMinimumHeight(need)


class MdpWorkspace(QWidget):
    """MdpEditor above CostOfPrivacyPanel, in a vertical splitter, with a caution banner.

    The results scroll inside their pane (the plots keep the height their axes need), so the
    splitter can give the drawing most of a laptop's height; "Hide results" folds the pane
    away (so does dragging the splitter to the bottom) and "Show results" brings it back.
    """

    inspector_requested = Signal()  # F2 / double-click: the Inspector should be visible

    def __init__(self, document: ProjectDocument, mdp_id: str, runner: TaskRunner,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._document = document
        self._mdp_id = mdp_id
        self.runner = runner
        self.banner = _Banner(self)
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet("QLabel { background: #FFF4D6; color: #5A4100; "
                                  "border: 1px solid #E6C66A; border-radius: 3px; "
                                  "padding: 4px 8px; }")
        self.editor = MdpEditor(document, mdp_id, self, results_run=self._latest_bounds())
        self.mdp_view = self.editor.canvas
        self.inspector = MdpInspector(document, mdp_id)
        self.results = CostOfPrivacyPanel(document, mdp_id, self)
        self.analysis_panel = AnalysisPanel(document, mdp_id, runner)
        self.results_area = vertical_scroll(self.results, self, frame=False)
        self.results_area.setMinimumHeight(60)
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.addWidget(self.editor)
        self.splitter.addWidget(self.results_area)
        self.splitter.setStretchFactor(0, 11)
        self.splitter.setStretchFactor(1, 8)
        self.splitter.setCollapsible(0, False)
        self.splitter.setCollapsible(1, True)
        self.splitter.splitterMoved.connect(self._on_splitter_splitter_moved)
        self._results_sizes: list[int] | None = None  # before "Hide results"
        self._sized = False
        self.results_toggle = QToolButton(self)
        self.results_toggle.setObjectName("results_toggle")
        self.results_toggle.setAutoRaise(True)
        self.results_toggle.clicked.connect(self._on_results_toggle_clicked)
        toggle_row = QHBoxLayout()
        toggle_row.setContentsMargins(0, 0, 0, 0)
        toggle_row.addStretch(1)
        toggle_row.addWidget(self.results_toggle)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(2)
        layout.addWidget(self.banner)
        layout.addWidget(self.splitter, 1)
        layout.addLayout(toggle_row)
        self._update_results_toggle()
        self.editor.selection_changed.connect(self._on_editor_selection_changed)
        self.editor.rename_requested.connect(self._on_editor_rename_requested)
        self.inspector.select_requested.connect(self._on_inspector_select_requested)
        self.inspector.done_editing.connect(self._on_inspector_done_editing)
        document.mdp_changed.connect(self._on_document_mdp_changed)
        document.run_added.connect(self._on_document_run_added)
        document.run_removed.connect(self._on_document_run_removed)
        self._update_banner()
        self.show_latest_bounds()

    @property
    def mdp_id(self) -> str:
        return self._mdp_id

    def title(self) -> str:
        if self._document.has_mdp(self._mdp_id):
            name = self._document.model(self._mdp_id).name or self._mdp_id
        else:
            name = self._mdp_id
        return name if len(name) <= 32 else name[:31] + "…"

    # ------------------------------------------------------------------ results pane
    @property
    def results_shown(self) -> bool:
        return self.splitter.sizes()[1] > 0 if self._sized else self._results_sizes is None

    def set_results_shown(self, shown: bool) -> None:
        """Fold the results pane away (the drawing gets the whole height) or bring it back
        at the height it had."""
        if shown == self.results_shown:
            return
        if shown:
            total = sum(self.splitter.sizes())
            sizes = self._results_sizes or self._default_sizes(total)
            self._results_sizes = None
            self.splitter.setSizes(sizes)
        else:
            self._results_sizes = self.splitter.sizes()
            self.splitter.setSizes([sum(self._results_sizes), 0])
        self._update_results_toggle()

    def reset_layout(self) -> None:
        """View ▸ Reset Layout: results shown, the drawing at its default share."""
        self._results_sizes = None
        self.splitter.setSizes(self._default_sizes(sum(self.splitter.sizes())))
        self._update_results_toggle()

    @staticmethod
    def _default_sizes(total: int) -> list[int]:
        top = round(total * EDITOR_SHARE)
        return [top, max(0, total - top)]

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 (Qt)
        super().resizeEvent(event)
        total = sum(self.splitter.sizes())
        if not self._sized and total > 0 and self.isVisible():
            self._sized = True  # the first real height: the drawing gets its share
            self.splitter.setSizes(self._default_sizes(total))
            self._update_results_toggle()

    def _on_results_toggle_clicked(self) -> None:
        self.set_results_shown(not self.results_shown)

    def _on_splitter_splitter_moved(self, pos: int, index: int) -> None:
        self._update_results_toggle()

    def _update_results_toggle(self) -> None:
        shown = self.results_shown
        self.results_toggle.setText("▾ Hide results" if shown else "▴ Show results (Figure 2.1)")
        self.results_toggle.setToolTip(
            "Fold the results pane away so that the drawing takes the whole height"
            if shown else "Bring back the Figure 2.1 plots and the per-k table")

    def _latest_bounds(self) -> str | None:
        runs = self._document.project.runs_for(self._mdp_id, "bounds")
        return runs[-1].id if runs else None

    def show_latest_bounds(self) -> None:
        """Put the latest "bounds" run of this MDP on the drawing (or clear it)."""
        self.editor.show_results(self._latest_bounds())

    def show_run(self, run_id: str) -> None:
        """Show a recorded run: a sweep in the plots, a "bounds" run on the drawing."""
        record = self._document.run(run_id)
        if record.kind == "sweep":
            self.results.show_run(run_id)
        elif record.kind == "bounds":
            self.editor.show_results(run_id)

    def open_designer(self) -> Any:
        """Analysis ▸ Design for a Target ε…: the privacy designer on this model."""
        from gui.mdp.design_dialog import DesignDialog

        dialog = DesignDialog(self._document, self._mdp_id, self.analysis_panel, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        self.designer = dialog
        return dialog

    def _update_banner(self) -> None:
        note = placeholder_note(self._document, self._mdp_id) \
            if self._document.has_mdp(self._mdp_id) else ""
        self.banner.setText(f"⚠ {note}" if note else "")
        self.banner.setVisible(bool(note))

    def _on_editor_selection_changed(self) -> None:
        self.inspector.set_selection(self.editor.selection())

    def _on_editor_rename_requested(self, item_id: str) -> None:
        self.inspector_requested.emit()
        self.inspector.focus_name(item_id)

    def _on_inspector_select_requested(self, ids: list) -> None:
        self.editor.select_ids(ids)

    def _on_inspector_done_editing(self) -> None:
        self.editor.current().setFocus()  # N, A, F2… work again without a click

    def _on_document_mdp_changed(self, mdp_id: str) -> None:
        if mdp_id == self._mdp_id:
            self._update_banner()

    def _on_document_run_added(self, run_id: str) -> None:
        record = self._document.run(run_id)
        if record.target == self._mdp_id and record.kind == "bounds":
            self.editor.show_results(run_id)

    def _on_document_run_removed(self, run_id: str) -> None:
        if run_id == self.editor.results_run:
            self.show_latest_bounds()


register_mdp_workspace(MdpWorkspaceSpec(
    factory=MdpWorkspace,
    empty_view=lambda document, parent: MdpView(document, None, parent)))


def preview(exec_: bool = True) -> QWidget:
    from gui.shell.preview import example_document, run_preview

    def build() -> QWidget:
        box = QSplitter(Qt.Orientation.Horizontal)
        runner = TaskRunner(box)
        ws = MdpWorkspace(example_document(), "four-startups", runner)
        box.addWidget(ws)
        side = QSplitter(Qt.Orientation.Vertical)
        side.addWidget(ws.inspector)
        side.addWidget(ws.analysis_panel)
        box.addWidget(side)
        box.setStretchFactor(0, 1)
        return box

    return run_preview(build, exec_=exec_, title="MDP workspace", size=(1300, 820))


if __name__ == "__main__":
    preview()
