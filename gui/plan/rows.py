"""The plan's releases as rows: name, kind, key public parameters, the budget share as a
slider and the forecast as a bar beside it.

A slider's positions are the release's choices from the core's allocation grid
(:func:`core.plan.release_options`, sorted by the release's own ε): position i *is* the
release with its knob (Laplace ε, Gaussian or DP-SGD σ, MDP k) set as choice i, with that
choice's own ε and forecast utility, so moving a share rescales the release's parameter
without any accounting here. While a slider moves, its share, knob and forecast bar follow
the choice at once (:attr:`ReleaseRows.share_moved`); the panel recomposes the plan in its
worker, debounced, and stores the choice in one undoable step when the slider is let go
(:attr:`ReleaseRows.share_committed`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QGridLayout, QLabel, QProgressBar, QSlider, QWidget

from core.plan import KNOBS, Option, Plan, PlanBudget, PlannedRelease
from gui.plan.gauge import RELEASE_COLOURS
from gui.plan.texts import KIND_TEXT, TOOLTIPS, fmt_eps, forecast_text, knob_text, params_text
from gui.shell.style import ERROR_COLOUR

__all__ = ["ReleaseRow", "ReleaseRows", "nearest_option", "position_for"]

BAR_STEPS = 1000


def nearest_option(options: tuple[Option, ...], epsilon: float) -> int:
    """The position whose own ε is closest to ``epsilon`` (ratio-wise)."""
    if not options:
        return 0
    e = max(epsilon, 1e-12) if math.isfinite(epsilon) else options[-1].epsilon
    return min(range(len(options)),
               key=lambda i: abs(math.log(max(options[i].epsilon, 1e-12) / e)))


def position_for(options: tuple[Option, ...], release: PlannedRelease,
                 epsilon: float | None) -> int | None:
    """The slider position of ``release``: the choice whose knob (ε, σ or k) is closest to
    the release's own, else the choice closest to its own ``epsilon``; None when neither is
    known."""
    knob = KNOBS[release.kind]
    value = release.params.get(knob)
    if options and isinstance(value, (int, float)) and value > 0:
        return min(range(len(options)), key=lambda i: abs(math.log(
            max(float(options[i].release.params.get(knob) or 1e-12), 1e-12) / value)))
    if options and epsilon is not None:
        return nearest_option(options, epsilon)
    return None


class ReleaseRow:
    """The widgets of one release (a row of :class:`ReleaseRows`' grid)."""

    def __init__(self, release: PlannedRelease, parent: QWidget, colour: str) -> None:
        self.name = release.name
        self.colour = colour
        self.kind = release.kind
        self.options: tuple[Option, ...] = ()
        self.name_label = QLabel(parent)
        self.set_breaking(False)
        self.name_label.setToolTip(release.note or release.name)
        self.kind_label = QLabel(KIND_TEXT[release.kind], parent)
        self.params_label = QLabel(parent)
        self.params_label.setWordWrap(True)
        self.params_label.setToolTip(TOOLTIPS["k" if release.kind == "mdp" else
                                              "sigma" if release.kind in ("gaussian", "dpsgd")
                                              else "epsilon"])
        self.slider = QSlider(Qt.Orientation.Horizontal, parent)
        self.slider.setObjectName(f"share_{release.name}")
        self.slider.setToolTip(TOOLTIPS["share"])
        self.slider.setMinimumWidth(110)
        self.share_label = QLabel(parent)
        self.share_label.setToolTip(TOOLTIPS["epsilon"])
        self.share_label.setMinimumWidth(96)
        self.bar = QProgressBar(parent)
        self.bar.setObjectName(f"forecast_{release.name}")
        self.bar.setRange(0, BAR_STEPS)
        self.bar.setTextVisible(True)
        self.bar.setMinimumWidth(96)
        self.bar.setMaximumWidth(170)
        self.bar.setToolTip(TOOLTIPS["forecast"])

    def widgets(self) -> list[QWidget]:
        return [self.name_label, self.kind_label, self.params_label, self.slider,
                self.share_label, self.bar]

    def set_options(self, options: tuple[Option, ...], release: PlannedRelease,
                    epsilon: float | None) -> None:
        """The slider's choices, and its position nearest the release's own ε."""
        self.options = options
        was = self.slider.blockSignals(True)
        self.slider.setRange(0, max(len(options) - 1, 0))
        position = position_for(options, release, epsilon)
        if position is not None:
            self.slider.setValue(position)
        self.slider.setEnabled(bool(options) and not release.fixed)
        self.slider.blockSignals(was)
        if release.fixed:
            self.slider.setToolTip("A fixed release keeps its parameters (\"fixed\": true).")
        elif not options:
            self.slider.setToolTip("Its choices are being computed…")
        else:
            self.slider.setToolTip(TOOLTIPS["share"])

    def show_release(self, release: PlannedRelease, epsilon: float | None,
                     budget_epsilon: float) -> None:
        self.params_label.setText(params_text(release))
        if epsilon is None:
            self.share_label.setText("ε …")
        else:
            self.share_label.setText(f"ε {fmt_eps(epsilon)} · "
                                     f"{100 * epsilon / budget_epsilon:.0f} %")

    def show_utility(self, utility: float | None, text: str, tip: str) -> None:
        self.bar.setValue(0 if utility is None else int(round(BAR_STEPS * utility)))
        self.bar.setFormat(text)
        self.bar.setToolTip(f"{TOOLTIPS['forecast']}\n{tip}")

    def set_breaking(self, breaking: bool) -> None:
        # the swatch is the release's colour in the gauge's basic-composition bar
        swatch = f"<span style='color:{self.colour}'>■</span>"
        name = (f"<b style='color:{ERROR_COLOUR}'>{self.name} ⚠</b>" if breaking
                else f"<b>{self.name}</b>")
        self.name_label.setText(f"{swatch} {name}")


class ReleaseRows(QWidget):
    """Every release of the plan shown as a row (module docstring)."""

    share_moved = Signal(str, int)  # release name, slider position (while it moves)
    share_committed = Signal(str, int)  # release name, position (let go, or a key press)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("plan_rows")
        self._grid = QGridLayout(self)
        self._grid.setContentsMargins(4, 2, 4, 2)
        self._grid.setHorizontalSpacing(10)
        self._grid.setVerticalSpacing(4)
        self._rows: dict[str, ReleaseRow] = {}
        self._layout_key: tuple[tuple[str, str], ...] = ()
        self._budget_epsilon = 1.0
        for col, (text, tip) in enumerate([
                ("release", "The release's name in the plan and the ledger."),
                ("kind", "The mechanism of the release."),
                ("public parameters", TOOLTIPS["k"] + "\n" + TOOLTIPS["sigma"]),
                ("budget share", TOOLTIPS["share"]), ("own ε · share", TOOLTIPS["epsilon"]),
                ("forecast", TOOLTIPS["forecast"])]):
            head = QLabel(f"<i>{text}</i>", self)
            head.setToolTip(tip)
            self._grid.addWidget(head, 0, col)
        self._grid.setColumnStretch(2, 3)
        self._grid.setColumnStretch(3, 2)

    # ------------------------------------------------------------------ public API
    def row(self, name: str) -> ReleaseRow:
        return self._rows[name]

    def rows(self) -> list[ReleaseRow]:
        return list(self._rows.values())

    def show_plan(self, plan: Plan, options: Mapping[str, tuple[Option, ...]],
                  budget: PlanBudget | None) -> None:
        """Rows for ``plan``'s releases (rebuilt when the releases change), their sliders
        at the release's own ε (from ``budget`` when it is this plan's evaluation)."""
        self._budget_epsilon = plan.epsilon
        key = tuple((r.name, r.kind) for r in plan.releases)
        if key != self._layout_key:
            self._rebuild(plan)
            self._layout_key = key
        own = {} if budget is None else {rb.release.name: rb.epsilon for rb in budget.releases}
        for r in plan.releases:
            row = self._rows[r.name]
            eps = own.get(r.name)
            row.set_options(tuple(options.get(r.name, ())), r, eps)
            row.show_release(r, eps, plan.epsilon)

    def show_budget(self, budget: PlanBudget) -> None:
        """Each release's own ε, forecast bar and whether it breaks the budget."""
        for rb in budget.releases:
            row = self._rows.get(rb.release.name)
            if row is None:
                continue
            text, tip = forecast_text(rb)
            row.show_release(rb.release, rb.epsilon, budget.plan.epsilon)
            row.show_utility(rb.forecast.utility, text, tip)
            row.set_breaking(rb.release.name == budget.breaking)

    def preview_option(self, name: str, position: int) -> PlannedRelease | None:
        """Show choice ``position`` of release ``name`` at once (its share, knob and
        forecast); returns the release as that choice sets it."""
        row = self._rows[name]
        if not 0 <= position < len(row.options):
            return None
        opt = row.options[position]
        row.show_release(opt.release, opt.epsilon, self._budget_epsilon)
        tip = f"{knob_text(opt.release)}: own ε = {fmt_eps(opt.epsilon)} (recomposing…)"
        text = "no forecast" if opt.utility is None else f"{100 * opt.utility:.0f} %"
        row.show_utility(opt.utility, text, tip)
        return opt.release

    # ------------------------------------------------------------------ internals
    def _rebuild(self, plan: Plan) -> None:
        for row in self._rows.values():
            for w in row.widgets():
                self._grid.removeWidget(w)
                w.deleteLater()
        self._rows = {}
        for i, r in enumerate(plan.releases, start=1):
            row = ReleaseRow(r, self, RELEASE_COLOURS[(i - 1) % len(RELEASE_COLOURS)])
            for col, w in enumerate(row.widgets()):
                self._grid.addWidget(w, i, col)
            name = r.name
            row.slider.valueChanged.connect(
                lambda pos, n=name: self._on_slider_value_changed(n, pos))
            row.slider.sliderReleased.connect(
                lambda n=name: self.share_committed.emit(n, self._rows[n].slider.value()))
            self._rows[name] = row
        self._grid.setRowStretch(len(plan.releases) + 1, 1)

    def _on_slider_value_changed(self, name: str, position: int) -> None:
        self.share_moved.emit(name, position)
        if not self._rows[name].slider.isSliderDown():  # a key press or a click: one step
            self.share_committed.emit(name, position)
