"""The MDP workspace (one centre tab): the drawing on top, Figure 2.1 results below.

The workspace owns its :class:`gui.panels.analysis_panel.AnalysisPanel` (which the main
window shows in the Run parameters dock while the tab is active) and uses the
:class:`gui.workers.TaskRunner` the main window gives it.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSplitter, QVBoxLayout, QWidget

from core.examples import FOUR_STARTUPS_NOTE
from gui.document import ProjectDocument
from gui.editors.mdp_view import MdpView
from gui.panels.analysis_panel import AnalysisPanel
from gui.panels.plot_panel import CostOfPrivacyPanel
from gui.workers import TaskRunner

__all__ = ["MdpWorkspace", "placeholder_note"]


def placeholder_note(document: ProjectDocument, mdp_id: str) -> str:
    """The caution to show for an MDP: its entry note, or the placeholder text when the
    model is the illustrative four-startups placeholder loaded without a note."""
    entry = document.mdp_entry(mdp_id)
    if entry.note:
        return entry.note
    if "placeholder" in (entry.mdp.name or "").lower():
        return FOUR_STARTUPS_NOTE
    return ""


class MdpWorkspace(QWidget):
    """MdpView above CostOfPrivacyPanel, in a vertical splitter, with a caution banner."""

    def __init__(self, document: ProjectDocument, mdp_id: str, runner: TaskRunner,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._document = document
        self._mdp_id = mdp_id
        self.runner = runner
        self.banner = QLabel(self)
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet("QLabel { background: #FFF4D6; color: #5A4100; "
                                  "border: 1px solid #E6C66A; border-radius: 3px; "
                                  "padding: 4px 8px; }")
        self.mdp_view = MdpView(document, mdp_id, self)
        self.results = CostOfPrivacyPanel(document, mdp_id, self)
        self.analysis_panel = AnalysisPanel(document, mdp_id, runner)
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.addWidget(self.mdp_view)
        self.splitter.addWidget(self.results)
        self.splitter.setStretchFactor(0, 9)
        self.splitter.setStretchFactor(1, 11)
        self.splitter.setSizes([360, 440])
        self.splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addWidget(self.banner)
        layout.addWidget(self.splitter, 1)
        document.mdp_changed.connect(self._on_document_mdp_changed)
        self._update_banner()

    @property
    def mdp_id(self) -> str:
        return self._mdp_id

    def title(self) -> str:
        if self._document.has_mdp(self._mdp_id):
            name = self._document.mdp_entry(self._mdp_id).mdp.name or self._mdp_id
        else:
            name = self._mdp_id
        return name if len(name) <= 32 else name[:31] + "…"

    def _update_banner(self) -> None:
        note = placeholder_note(self._document, self._mdp_id) \
            if self._document.has_mdp(self._mdp_id) else ""
        self.banner.setText(f"⚠ {note}" if note else "")
        self.banner.setVisible(bool(note))

    def _on_document_mdp_changed(self, mdp_id: str) -> None:
        if mdp_id == self._mdp_id:
            self._update_banner()


def preview(exec_: bool = True) -> QWidget:
    from gui.preview import example_document, run_preview

    def build() -> QWidget:
        box = QSplitter(Qt.Orientation.Horizontal)
        runner = TaskRunner(box)
        ws = MdpWorkspace(example_document(), "four-startups", runner)
        box.addWidget(ws)
        box.addWidget(ws.analysis_panel)
        box.setStretchFactor(0, 1)
        return box

    return run_preview(build, exec_=exec_, title="MDP workspace", size=(1300, 820))


if __name__ == "__main__":
    preview()
