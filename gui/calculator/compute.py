"""The calculator's worker tasks, memoised: results are pure functions of frozen inputs.

Going back to a configuration (a preset, an undone slider move) redraws at once. The
tasks run in the panel's :class:`gui.shell.workers.TaskRunner` threads (hence the lock).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from core.common import no_progress
from core.privacy import (
    CURVE_RTOL,
    FIGURE_1_1,
    CalculatorInputs,
    CalculatorResult,
    EpsilonDeltaCurve,
    EpsilonVsK,
    epsilon_delta_curve,
    epsilon_vs_k,
    evaluate_calculator,
)
from gui.calculator.parts import N_POINTS

__all__ = ["RESULTS", "K_CURVES", "FIGURE_CURVES", "Memo", "evaluate_task", "epsilon_vs_k_task",
           "figure_curves"]

class Memo:
    """A small thread-safe LRU memo: calculator results are pure functions of their
    (hashable, frozen) inputs, so going back to a configuration (a preset, an undone
    slider move) redraws at once."""

    def __init__(self, size: int = 64) -> None:
        self._items: OrderedDict[Any, Any] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def get(self, key: Any) -> Any:
        with self._lock:
            if key not in self._items:
                return None
            self._items.move_to_end(key)
            return self._items[key]

    def put(self, key: Any, value: Any) -> Any:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


RESULTS = Memo()
K_CURVES = Memo()
FIGURE_CURVES: dict[str, dict[str, EpsilonDeltaCurve]] = {"exact": {}, "union": {}}


def evaluate_task(inputs: CalculatorInputs, *, n_points: int, progress: Any = no_progress
              ) -> CalculatorResult:
    """The task of the main runner: :func:`evaluate_calculator`, memoised."""
    key = (inputs, n_points)
    hit = RESULTS.get(key)
    if hit is not None:
        return hit
    return RESULTS.put(key, evaluate_calculator(inputs, n_points=n_points, progress=progress))


def epsilon_vs_k_task(key: tuple[Any, ...], *, progress: Any = no_progress) -> EpsilonVsK:
    """The task of the ε-vs-k runner: cancellable k by k, memoised."""
    hit = K_CURVES.get(key)
    if hit is not None:
        return hit
    eta, eta_bar, w, b, delta_target, gamma, method, ks = key
    # a plotted curve: the exact method's brackets to 0.1 % (δ stays a certified upper
    # bound, ε moves by ~1e-6 and the curve settles in a third of the time)
    return K_CURVES.put(key, epsilon_vs_k(list(ks), eta, eta_bar, w, b,
                                           delta_target=delta_target, gamma=gamma,
                                           delta_method=method, progress=progress,
                                           rtol=CURVE_RTOL))


def figure_curves(*, progress: Any = no_progress
                   ) -> dict[str, dict[str, EpsilonDeltaCurve]]:
    """The ε–δ curves of the three Figure 1.1 configurations (computed once), by δ method:
    ``"exact"`` — the figure itself (the vertex reduction of Lemma 1.2, unproven) — and
    ``"union"`` (proven)."""
    for i, (name, cfg) in enumerate(FIGURE_1_1.items()):
        for method, store in FIGURE_CURVES.items():
            if name not in store:
                store[name] = epsilon_delta_curve(cfg["k"], cfg["eta"], cfg["eta_bar"],
                                                  int(cfg["w"]), cfg["b"], n_points=N_POINTS,
                                                  delta_method=method)
        progress((i + 1) / len(FIGURE_1_1), f"Figure 1.1 {name}")
    return {method: dict(store) for method, store in FIGURE_CURVES.items()}
