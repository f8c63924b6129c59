"""The labels over the MDP canvas: the legend under it, the empty text, the mode hint.

:class:`CanvasLabels` takes the canvas it sits on (the Qt widget only: it places its labels
over the viewport and sets the canvas's tooltip); :class:`gui.mdp.drawing.SceneDrawing`
fills the legend after each drawing, :class:`gui.mdp.view.MdpView` sets the mode hint.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGraphicsView, QLabel

from core.mdp import MdpModel
from gui.mdp.canvas_parts import MATRIX_STATES, MIN_PROBABILITY
from gui.shell.style import ERROR_COLOUR, PRIVATE_ACCENT

if TYPE_CHECKING:
    from gui.mdp.drawing import SceneDrawing

__all__ = ["CanvasLabels"]


class CanvasLabels:
    """The legend, empty text and mode hint of ``canvas`` (see the module docstring)."""

    def __init__(self, canvas: QGraphicsView) -> None:
        self._canvas = canvas
        self.legend = QLabel(canvas)
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setStyleSheet("QLabel { background: #F7F7F7; color: #333;"
                                  " border-top: 1px solid #D8D8D8; padding: 3px 8px; }")
        self.empty = QLabel(canvas.viewport())
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.empty.setStyleSheet("QLabel { color: #666; font-size: 11pt; }")
        self.empty.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.hint = QLabel(canvas.viewport())
        self.hint.setStyleSheet("QLabel { background: #FFF4D6; color: #5A4100; "
                                "border: 1px solid #E6C66A; border-radius: 3px; "
                                "padding: 2px 6px; }")
        self.hint.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.hint.hide()

    def legend_text(self) -> str:
        return self.legend.text()

    def empty_text(self) -> str:
        return self.empty.text() if self.empty.isVisibleTo(self._canvas) else ""

    def hint_text(self) -> str:
        return self.hint.text() if self.hint.isVisibleTo(self._canvas) else ""

    def set_hint(self, text: str) -> None:
        """The mode hint at the top left (hidden when ``text`` is empty)."""
        self.hint.setText(text)
        self.hint.setVisible(bool(text))
        self.place()

    def update_legend(self, model: MdpModel | None, drawing: SceneDrawing) -> None:
        """The legend under the drawing: symbols, what was left out, the results shown."""
        if model is None or not model.n_states or model.n_states > MATRIX_STATES:
            self.legend.hide()
            self.place()
            return
        if drawing.compact:
            text = f"<b>Compact view.</b> {drawing.notice}"
        else:
            parts = ["<b>○</b> state (R_T terminal reward) &nbsp; <b>●</b> action "
                     "(r reward, ↺ back to its state) &nbsp; → next state, probability"]
            if drawing.top_per_action:
                parts.append(f"<br>Large model: each action shows only its "
                             f"{drawing.top_per_action} most probable next state"
                             f"{'s' if drawing.top_per_action > 1 else ''} "
                             f"({len(drawing.edge_items)} of {drawing.n_nonzero} edges); "
                             "hover a dot for its full row.")
            elif drawing.hidden_edges:
                parts.append(f"<br>{drawing.hidden_edges} edge(s) with p &lt; {MIN_PROBABILITY} "
                             "hidden; hover a dot for its full row.")
            text = "".join(parts)
        overlay = drawing.overlay
        if overlay is not None:
            r = overlay["record"]
            s = r.summary
            stage = (f"stage {overlay['stage']} of {int(s.get('horizon') or 0) - 1}"
                     if overlay["stages"] else "stationary")
            seed = (f"seeded experiment (seed {r.seed})" if r.params.get("seeded", True)
                    else f"experiment, fresh OS seed {r.seed} (recorded)")
            text += (f"<br><span style='color:{PRIVATE_ACCENT}'><b>●</b></span> action of the "
                     f"private policy π̄ ({stage}) · under each state v\u0332 ≤ V\u0304 ≤ "
                     "v\u0304: pessimistic, private, optimistic value")
            self._canvas.setToolTip(f"{r.id}: k = {float(s.get('k', 0)):g}, β = "
                            f"{float(s.get('beta', 0)):g}, α {s.get('alpha_mode')}, {seed}")
            if overlay["stale"]:
                text += (f" <span style='color:{ERROR_COLOUR}'>⚠ The model changed after this "
                         "run: these are the old results (Synthesise &amp; bound again to "
                         "update them).</span>")
        text += ("<br><span style='color:#777'>N state · A action · drag dot → state: "
                 "transition · Del · F2 rename · wheel zoom · middle-drag pan · F fit</span>")
        self.legend.setText(text)
        self.legend.show()
        self.place()

    def show_empty(self, text: str) -> None:
        """Say why nothing is drawn, in the middle of the canvas."""
        self.empty.setText(text)
        self.empty.show()
        self.legend.hide()
        self.place()

    def hide_empty(self) -> None:
        self.empty.hide()

    def place(self) -> None:
        """Put the legend under the viewport and the other labels over it."""
        v = self._canvas
        frame = v.frameWidth()
        if self.legend.isVisibleTo(v):
            width = max(120, v.width() - 2 * frame)
            self.legend.setMinimumSize(0, 0)
            self.legend.setMaximumSize(16777215, 16777215)
            height = self.legend.heightForWidth(width)
            self.legend.setFixedSize(width, max(height, 18))
            v.setViewportMargins(0, 0, 0, self.legend.height())
            self.legend.move(frame, v.height() - frame - self.legend.height())
        else:
            v.setViewportMargins(0, 0, 0, 0)
        self.empty.setGeometry(v.viewport().rect().adjusted(24, 24, -24, -24))
        self.hint.adjustSize()
        self.hint.move(8, 8)
