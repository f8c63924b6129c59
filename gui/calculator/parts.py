"""Texts, parameter specs and the parameter row widget of the Privacy Calculator."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QLabel,
    QRadioButton,
    QSpinBox,
    QWidget,
)

from gui.shell.style import ERROR_COLOUR, INVALID_STYLE, OKABE_ITO
from gui.shell.widgets import ParameterSlider, SciSpinBox

__all__ = ["THROTTLE_MS", "N_POINTS", "DRAFT_POINTS", "WARNING_COLOUR", "FIGURE_COLOURS",
           "TOOLTIPS", "PARAMETERS", "FIELDS", "LEFT_COLUMN", "RIGHT_COLUMN", "METHODS",
           "METHOD_SHORT", "LEMMA_NOTE", "ParameterSpec", "ParameterRow", "fmt_value", "INFO_HTML",
           "RESULT_ROWS", "gamma_marker"]

THROTTLE_MS = 120  # at most one computation request per this interval while a slider moves
N_POINTS = 40  # γ grid of the ε–δ and δ–γ curves
DRAFT_POINTS = 16  # while a slider handle is held down
WARNING_COLOUR = "#8A5300"
FIGURE_COLOURS = {"left": OKABE_ITO["blue"], "middle": OKABE_ITO["green"],
                  "right": OKABE_ITO["purple"]}

TOOLTIPS = {
    "k": "Dirichlet concentration k: larger k gives outputs closer to the true probabilities "
         "(more accurate) but a larger ε (less private).",
    "eta": "η is the smallest probability any entry in W may have: a larger η gives a "
           "smaller ε (more private) but admits fewer input vectors.",
    "eta_bar": "η̄ is the least total probability of the entries outside W (which never "
               "change): a larger η̄ gives a smaller ε (more private) but admits fewer "
               "input vectors.",
    "w": "|W| is how many entries may differ between neighbouring inputs: a larger |W| "
         "narrows the threshold range (0, 1/|W|) and makes ε or δ larger (less private).",
    "b": "Adjacency radius b in (0, 1]: neighbouring inputs differ by at most b in L1; a "
         "larger b hides bigger differences (more private) at the price of a larger ε.",
    "delta": "Target δ in (0, 1), the largest acceptable probability that the ε bound fails: "
             "a smaller target is more private but forces a smaller γ, hence a larger ε.",
    "gamma": "Threshold γ in (0, 1/|W|) of the output set Ω₁ on which the ε bound holds: a "
             "smaller γ gives a smaller δ (more private) but a larger ε; the mechanism itself "
             "does not change.",
    "delta_method": "How δ is bounded: auto (the default) is the union bound "
                    "|W|·I_γ(kη, k(1−η)), proven for every input; exact (|W| ≤ 3) is the "
                    "source's vertex reduction (Lemma 1.2, certified quadrature at the "
                    "vertices), whose printed proof has a gap, so it is numerically supported "
                    "but not proven (it reproduces Figure 1.1); Monte Carlo is an estimate at "
                    "the vertices with a 95% upper confidence limit (it rests on Lemma 1.2 "
                    "too).",
    "beta": "β in (0, 1) is the probability that the accuracy radius α fails: a smaller β "
            "gives a wider, more cautious α; it does not change privacy.",
    "n": "n is the length of the probability vector (W plus at least one entry that never "
         "changes); it only enters the accuracy figures, not ε or δ.",
}


@dataclass(frozen=True)
class ParameterSpec:
    label: str
    minimum: float
    maximum: float
    default: float
    log: bool = False
    integer: bool = False
    log_step: float | None = None


PARAMETERS: dict[str, ParameterSpec] = {
    "k": ParameterSpec("k", 0.1, 1e5, 6.7, log=True, log_step=10 ** 0.05),
    "eta": ParameterSpec("η", 0.001, 0.999, 0.15),
    "eta_bar": ParameterSpec("η̄", 0.001, 0.999, 0.15),
    "w": ParameterSpec("|W|", 2, 30, 3, integer=True),
    "b": ParameterSpec("b", 0.001, 1.0, 0.1),
    "delta": ParameterSpec("target δ", 1e-6, 0.999, 0.05, log=True, log_step=10 ** 0.1),
    "gamma": ParameterSpec("γ", 1e-10, 0.999, 0.01, log=True, log_step=10 ** 0.1),
    "beta": ParameterSpec("β", 1e-4, 0.999, 0.05, log=True, log_step=10 ** 0.1),
    "n": ParameterSpec("n", 2, 200, 4, integer=True),
}
#: How the parameter rows bind to the fields of the core's parameters object
#: :class:`core.privacy.CalculatorInputs` (row key → field); the mode (target δ or γ) and the
#: δ method are the other two fields.
FIELDS: dict[str, str] = {"k": "k", "eta": "eta", "eta_bar": "eta_bar", "w": "w", "b": "b",
                          "delta": "delta_target", "gamma": "gamma", "beta": "beta", "n": "n"}
LEFT_COLUMN = ("k", "eta", "eta_bar", "w", "b")
RIGHT_COLUMN = ("delta", "gamma", "delta_method", "beta", "n")
METHODS = (("auto", "auto: exact profile; union bound for γ"),
           ("exact", "exact: Lemma 1.2 (unproven, |W| ≤ 3)"),
           ("union", "union bound (proven)"), ("mc", "Monte Carlo (estimate, Lemma 1.2)"))
#: Short names of the δ methods in the result box.
METHOD_SHORT = {"profile": "exact privacy profile (tight, certified)",
                "union": "proven upper bound (union bound)",
                "exact": "vertex reduction of Lemma 1.2 (unproven)",
                "mc": "estimated (Monte Carlo, 95% upper limit; Lemma 1.2)"}
#: Shown beside the δ method when it rests on Lemma 1.2.
LEMMA_NOTE = "⚠ rests on Lemma 1.2, whose printed proof has a gap: not proven"

class ParameterRow:
    """One parameter: label (or radio button), spin box, slider and a message line."""

    def __init__(self, key: str, panel: QWidget, label: QLabel | QRadioButton) -> None:
        spec = PARAMETERS[key]
        self.key = key
        self.label = label
        if spec.integer:
            spin: QSpinBox | SciSpinBox = QSpinBox(panel)
            spin.setRange(int(spec.minimum), int(spec.maximum))
            spin.setValue(int(spec.default))
        else:
            spin = SciSpinBox(panel, minimum=spec.minimum, maximum=spec.maximum,
                              value=spec.default, log_step=spec.log_step,
                              step=0.01 if spec.maximum <= 1 else 1.0, name=spec.label)
            spin.note_placed = True  # the row's message says it (below)
            spin.refused.connect(self._on_refused)
            spin.lineEdit().textEdited.connect(lambda _t: self._on_refused(""))
        spin.setMinimumWidth(78)
        spin.setAccelerated(True)
        self.spin = spin
        self.slider = ParameterSlider(spin, panel, log=spec.log)
        self.slider.setMinimumWidth(60)  # (the calculator fits a 1366-px window)
        self.message = QLabel(panel)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.hide()
        self.tooltip = TOOLTIPS[key]
        for w in (label, spin, self.slider):
            w.setToolTip(self.tooltip)
        self.error: str = ""
        self.warning: str = ""
        #: the last typed value the field refused (shown until the next edit)
        self.refusal: str = ""
        self.slider.moved_by_user.connect(lambda: self._on_refused(""))

    def _on_refused(self, message: str) -> None:
        if message == self.refusal:
            return
        self.refusal = message
        self.show_message(error=self.error, warning=self.warning)

    def value(self) -> float:
        return float(self.spin.value())

    def set_value(self, value: float) -> None:
        spin = self.spin
        if isinstance(spin, QSpinBox):
            spin.setValue(int(value))
        else:
            spin.setValue(float(value))

    def set_enabled(self, enabled: bool) -> None:
        self.spin.setEnabled(enabled)
        self.slider.setEnabled(enabled)

    def show_message(self, *, error: str = "", warning: str = "", detail: str = "") -> None:
        self.error, self.warning = error, warning
        self.spin.setStyleSheet(INVALID_STYLE if error else "")
        if error:
            self.spin.setToolTip(f"{error}\n\n{self.tooltip}")
            self.message.setText(f"✖ {error}")
            self.message.setStyleSheet(f"color: {ERROR_COLOUR};")
        elif warning:
            self.spin.setToolTip(f"Warning: {detail or warning}\n\n{self.tooltip}")
            self.message.setText(f"⚠ {warning}")
            self.message.setStyleSheet(f"color: {WARNING_COLOUR};")
        elif self.refusal:  # a typed value refused: the field kept its value, says so
            self.spin.setToolTip(f"{self.refusal}\n\n{self.tooltip}")
            self.message.setText(f"✖ {self.refusal}")
            self.message.setStyleSheet(f"color: {ERROR_COLOUR};")
        else:
            self.spin.setToolTip(self.tooltip)
            self.message.clear()
        self.message.setToolTip(error or detail or warning or self.refusal)
        self.message.setVisible(bool(error or warning or self.refusal))


def fmt_value(x: float | None, digits: int = 5) -> str:
    if x is None or not math.isfinite(x):
        return "–"
    if x != 0 and (abs(x) < 1e-3 or abs(x) >= 1e5):
        return f"{x:.{digits - 1}e}"
    return f"{x:.{digits}g}"


#: the right-hand dock of the calculator tab
INFO_HTML = (
    "<b>Privacy Calculator</b><p>A what-if tool: set the parameters of the Dirichlet "
    "mechanism Dir<sub>k</sub> and see its (ε, δ), its accuracy and how they trade "
    "off. Nothing here is recorded in the project or counted as a release.</p>"
    "<p><b>How the numbers are made.</b> The headline ε (black curve, star) is the "
    "<i>exact privacy profile</i>: the hockey-stick curve of the worst neighbouring "
    "pair — two Beta laws with shapes kη and the largest move — evaluated with "
    "certified numerics. It is tight: that pair needs exactly this ε. The other curves "
    "are the paper's Theorem 1.6 with the corrected v₂; γ* "
    "for a target δ is the <i>largest</i> γ with δ(γ) ≤ target (the corrected problem "
    "(1.23)). Its δ is by default the union bound |W|·I<sub>γ</sub>(kη, k(1−η)), "
    "proven for every input. The δ method <i>exact</i> (|W| ≤ 3) is the source's "
    "vertex reduction: a certified quadrature at the domain's vertices, which are the "
    "worst inputs only if Lemma 1.2 holds — and the lemma's printed proof has a gap "
    "(the density is not jointly log-concave in (x, p)), so it is numerically "
    "supported, not proven. Monte Carlo is an estimate at the vertices (95% upper "
    "confidence limit). The result always says which.</p>"
    "<p><b>Figure 1.1</b>: the three buttons set the dissertation's configurations "
    "(|W| = 3, b = 0.1). The top-left plot shows the exact profile, the proven (union) "
    "curve and the figure's own curve (vertex reduction of Lemma 1.2); the result box "
    "gives them at the target (Figure 1.1 left at δ = 0.05: 0.599 exact profile, "
    "2.516 by Lemma 1.2, 2.521 by the union bound). <i>Find k</i> gives the largest k "
    "whose exact profile meets a target ε.</p>"
    "<p>Hover any parameter for what it means and which way is more private. A red "
    "field says why beside it; the plots then keep the last valid state.</p>")


#: the result box: (key, label, tooltip) of each readout
RESULT_ROWS: tuple[tuple[str, str, str], ...] = (
    ("profile", "ε (exact profile)", "The default accountant: the smallest ε whose "
                                     "hockey-stick divergence at the worst "
                                     "neighbouring pair (found exactly: shapes kη, "
                                     "the largest move) is at most the target δ. "
                                     "Tight — a neighbouring pair attains it — and "
                                     "certified; no threshold γ. Smaller is more "
                                     "private."),
    ("epsilon", "ε (Theorem 1.6)", "The paper's statement: the privacy loss bound on "
                                   "Ω₁ (a threshold set), with δ below. Proven but "
                                   "loose; smaller is more private."),
    ("delta", "δ", "Probability that the output falls outside Ω₁, where ε is not "
                   "guaranteed: smaller is more private. By default (auto) it is the "
                   "union bound |W|·I_γ(kη, k(1−η)), proven for every input; 'exact' "
                   "is the source's vertex reduction (Lemma 1.2), whose printed proof "
                   "has a gap: numerically supported, not proven."),
    ("gamma", "γ", "The Ω₁ threshold used: γ* (the largest γ with δ ≤ the target) or the "
                   "fixed γ."),
    ("compare", "ε, other δ", "The same statement with the other δ method: with the "
                              "proven union bound, the source's vertex reduction of "
                              "Lemma 1.2 (the method of Figure 1.1 and of the spec's "
                              "reference values; unproven), and the other way round."),
    ("epsilon_approx", "ε (Lemma 1.7)", "The simplified ε of Lemma 1.7: ε plus a "
                                        "constant offset (needs k·η > 1 etc.)."),
    ("variance", "Var[xᵢ] ≤", "Lemma 1.8: Var[xᵢ] = pᵢ(1−pᵢ)/(k+1) ≤ 1/(4(k+1))."),
    ("sq_error", "E‖x − p‖²", "Expected squared error (1 − ‖p‖²)/(k+1) at the "
                              "uniform p of length n."),
    ("alpha", "α", "Radius with P(‖x − p‖∞ ≥ α) ≤ β: Lemma 2.2 as published "
                       "(paper) and a rigorous union bound over the n entries."),
)


def gamma_marker(dg: Any, gamma: float | None, delta: float, method: str
                 ) -> tuple[list[float], list[float]]:
    """Where the δ–γ plot marks the chosen point: on the plotted curve of ``method`` (the
    curve's own value at the chosen ``gamma``, which the core's grid holds), so the star
    sits on the line; (``gamma``, ``delta``) when that curve has no value there."""
    import numpy as np

    g = np.asarray(dg.gamma)
    curve = getattr(dg, method, None) if method in ("union", "exact", "mc") else None
    curve = dg.union if curve is None else curve
    if gamma is None:
        return [], []
    at = np.flatnonzero(g == gamma)
    if at.size and math.isfinite(float(curve[at[0]])):
        return [gamma], [float(curve[at[0]])]
    return [gamma], [delta]

