"""What the parts of the Privacy Calculator are given: the callables and runners they use.

The panel (:class:`gui.calculator.panel.PrivacyCalculatorPanel`) builds the two parts, which
build their own widgets (the panel lays them out), and hands each a frozen bundle of what it
asks of the panel — the parts never see the panel.

* :class:`FormHooks` — for :class:`gui.calculator.form.CalculatorForm`, the parameter fields:
  where their changes go, the parameters as typed, the status line.
* :class:`PlotHooks` — for :class:`gui.calculator.drawing.CalculatorPlots`, the result box and
  plots: the parameters (as typed and last valid), the ε-vs-k and Figure 1.1 runners, the
  "compare all three" box, Find k, the Log dock.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtWidgets import QWidget

from core.privacy import CalculatorInputs, CalculatorResult
from gui.shell.workers import TaskRunner

__all__ = ["FormHooks", "PlotHooks"]


@dataclass(frozen=True)
class FormHooks:
    """What the parameter fields ask of the panel."""

    parent: QWidget  # of the box and the mode group; a message shown is visible to it
    changed: Callable[..., None]  # a value or the δ method changed (the signal's arguments)
    slider_released: Callable[[], None]  # a held-down slider let go: redo at full resolution
    mode_toggled: Callable[[bool], None]  # target δ / γ chosen
    inputs: Callable[[], CalculatorInputs]  # the parameters in the widgets, not validated
    status: Callable[[str], None]  # the status line (rich text)


@dataclass(frozen=True)
class PlotHooks:
    """What the result box and plots ask of the panel."""

    parent: QWidget  # of the result box
    inputs: Callable[[], CalculatorInputs]  # the parameters in the widgets, not validated
    last_valid: Callable[[], CalculatorInputs | None]  # the last parameters that validated
    show_warnings: Callable[[CalculatorResult], None]  # a result's warnings beside the fields
    k_runner: TaskRunner  # the ε-vs-k curve's worker (read: is it running)
    fig_runner: TaskRunner  # computes Figure 1.1's three curves
    idle: Callable[[], bool]  # the point result's worker idle, nothing pending, tab open
    find_k: Callable[[], object]  # "Find k": the largest k meeting the target ε
    log: Callable[[str, str], None]  # level, text (the Log dock)
    compare_on: Callable[[], bool]  # "compare all three" ticked
    set_compare: Callable[[bool], None]  # tick or clear "compare all three"
