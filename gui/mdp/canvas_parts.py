"""The MDP canvas's constants, geometry helpers and results overlay.

Shared by :mod:`gui.mdp.drawing` (which builds the scene), :mod:`gui.mdp.view` (the canvas
itself) and :mod:`gui.mdp.matrix_view` (which shows the same overlay as table columns).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from PySide6.QtCore import QPointF
from PySide6.QtGui import QColor

from core.mdp import MdpModel
from gui.shell.document import ProjectDocument

__all__ = ["bounds_overlay", "MIN_PROBABILITY", "MAX_EDGES", "COMPACT_STATES",
           "MATRIX_STATES", "MODES", "MODE_HINTS", "STATE_RADIUS", "COMPACT_RADIUS", "DOT_RADIUS",
           "DOT_DISTANCE", "STATE_FILL", "STATE_PEN", "DOT_FILL", "DOT_FADED", "EDGE_COLOUR",
           "unit", "angle_dir", "spread_angles", "to_point", "clean_rows"]

MIN_PROBABILITY = 0.005   # when edges must be thinned, these go first
MAX_EDGES = 160           # above this, keep only the top next states of each action
COMPACT_STATES = 40       # above this, draw states and their strongest successors only
MATRIX_STATES = 300       # above this, the canvas draws nothing (the matrix view takes over)

MODES = ("select", "add_state", "connect")
MODE_HINTS = {
    "select": "",
    "add_state": "Add state: click where the new state goes (Esc: back to Select).",
    "connect": "Connect: click or drag from an action dot, then click the next state "
               "(Esc: back to Select).",
}

STATE_RADIUS = 34.0
COMPACT_RADIUS = 11.0
DOT_RADIUS = 5.5
DOT_DISTANCE = STATE_RADIUS + 84.0

STATE_FILL = QColor("#F3F5F9")
STATE_PEN = QColor("#2B2B2B")
DOT_FILL = QColor("#2B2B2B")
DOT_FADED = QColor("#9A9A9A")
EDGE_COLOUR = QColor("#4A4A4A")


def unit(v: np.ndarray) -> np.ndarray:
    n = float(np.hypot(v[0], v[1]))
    return v / n if n > 1e-12 else np.zeros(2)


def angle_dir(theta: float) -> np.ndarray:
    return np.array([math.cos(theta), math.sin(theta)])


def spread_angles(angles: list[float], min_sep: float) -> list[float]:
    """Directions (radians) moved as little as possible so neighbours are ``min_sep`` apart.

    The circle is cut at its widest gap; the rest is isotonic regression (pool adjacent
    violators) of ``angle_i - i * sep``, which keeps the order and centres each cluster.

    >>> [round(math.degrees(a)) for a in spread_angles([0.0, 0.0, 0.0], math.radians(30))]
    [-30, 0, 30]
    """
    n = len(angles)
    if n <= 1:
        return list(angles)
    sep = min(min_sep, 2 * math.pi / n)
    tau = 2 * math.pi
    order = sorted(range(n), key=lambda i: (angles[i] % tau, i))
    a = [angles[i] % tau for i in order]
    gaps = [a[k + 1] - a[k] for k in range(n - 1)] + [a[0] + tau - a[-1]]
    start = (max(range(n), key=lambda k: gaps[k]) + 1) % n
    idx = [(start + m) % n for m in range(n)]
    x = [a[idx[0]]]
    for m in range(1, n):
        v = a[idx[m]]
        while v < x[-1]:
            v += tau
        x.append(v)
    blocks: list[list[float]] = []  # [sum, count]
    for m, v in enumerate(x):
        blocks.append([v - m * sep, 1.0])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            total, count = blocks.pop()
            blocks[-1][0] += total
            blocks[-1][1] += count
    fitted = [b[0] / b[1] for b in blocks for _ in range(int(b[1]))]
    out = [0.0] * n
    for m in range(n):
        theta = fitted[m] + m * sep
        out[order[idx[m]]] = (theta + math.pi) % tau - math.pi
    return out


def to_point(v: np.ndarray) -> QPointF:
    return QPointF(float(v[0]), float(v[1]))


def clean_rows(model: MdpModel) -> np.ndarray:
    """P with NaN and negative entries as 0 (drawing only; the problems list names them)."""
    if not model.P.size:
        return np.zeros((model.n_states, 0, model.n_states))
    return np.clip(np.nan_to_num(model.dense_P(), nan=0.0, posinf=0.0, neginf=0.0), 0.0, None)


def bounds_overlay(document: ProjectDocument, run_id: str, mdp_id: str, stage: int
                   ) -> dict[str, Any] | None:
    """What a "bounds" run shows on the drawing at ``stage``: per state id, the chosen
    action id and (v_lower, v_private, v_upper); plus whether the model changed since."""
    try:
        record = document.run(run_id)
    except KeyError:
        return None
    s = record.summary
    if record.kind != "bounds" or record.target != mdp_id or not document.has_mdp(mdp_id):
        return None
    kept = int(s.get("stages_kept", 0))
    t = min(max(int(stage), 0), max(kept - 1, 0))

    def at(key: str) -> list[Any]:
        arr = s.get(key, [])
        return arr[t] if kept else arr

    state_ids = s.get("state_ids", [])
    policy_ids = at("policy_ids") if s.get("policy_ids") else []
    lo, vp, hi = at("v_lower"), at("v_private"), at("v_upper")
    per_state = {}
    for i, sid in enumerate(state_ids):
        per_state[sid] = {"action": policy_ids[i] if i < len(policy_ids) else None,
                          "values": (float(lo[i]), float(vp[i]), float(hi[i]))}
    stale = record.params.get("model_digest") != document.digest(mdp_id)
    return {"record": record, "stage": t, "stages": kept, "states": per_state,
            "stale": stale}
