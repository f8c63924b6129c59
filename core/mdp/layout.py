"""Automatic layout of an MDP drawing (networkx), in the editor's coordinates.

:func:`auto_layout` places every state of an :class:`core.mdp.editable.MdpModel`:
a triangle or circle for tiny or dense models, Kamada–Kawai on the graph of likely
transitions for sparse ones, turned so that the long axis is horizontal (views are wider
than tall) and scaled so that neighbouring states are about ``spacing`` apart.
:func:`fill_missing_positions` keeps the positions a model has and places only the states
without one (files without a ``layout``, states added in the matrix view).

Examples
--------
>>> from core.mdp.editable import MdpModel
>>> m = MdpModel()
>>> ids = [m.add_state(f"s{i}") for i in range(3)]
>>> pos = auto_layout(m, spacing=100.0)
>>> pos.shape, bool(np.isfinite(pos).all())
((3, 2), True)
"""

from __future__ import annotations

import math

import numpy as np

from core.mdp.editable import MdpModel

__all__ = ["auto_layout", "fill_missing_positions", "default_spacing",
           "MIN_PROBABILITY", "DENSE_STATES", "MAX_LAYOUT_STATES"]

MIN_PROBABILITY = 0.005  # transitions below this do not pull states together
DENSE_STATES = 40  # above this many states: a circle (Kamada–Kawai is O(S²) per step)
MAX_LAYOUT_STATES = 300  # larger models are not drawn (the editor shows a matrix)


def default_spacing(n_states: int) -> float:
    """Distance between neighbouring states that leaves room for the action fans.

    Parameters
    ----------
    n_states : int
        States of the model.

    Returns
    -------
    float
    """
    if n_states > DENSE_STATES:
        return 90.0
    return 300.0 if n_states <= 6 else max(230.0, 360.0 - 8.0 * n_states)


def _median_nearest(pos: np.ndarray) -> float:
    d = np.hypot(*(pos[:, None, :] - pos[None, :, :]).transpose(2, 0, 1))
    np.fill_diagonal(d, np.inf)
    return float(np.median(d.min(axis=1)))


def auto_layout(model: MdpModel, *, spacing: float | None = None) -> np.ndarray:
    """(S, 2) positions for every state of ``model`` (ignores the positions it has).

    Parameters
    ----------
    model : MdpModel
        The model (its transitions shape the layout).
    spacing : float, optional
        Distance between neighbouring states (default :func:`default_spacing`).

    Returns
    -------
    numpy.ndarray
    """
    import networkx as nx

    S = model.n_states
    spacing = default_spacing(S) if spacing is None else float(spacing)
    if S == 0:
        return np.zeros((0, 2))
    if S == 1:
        return np.zeros((1, 2))
    P = np.nan_to_num(np.clip(model.dense_P(), 0.0, None)) if model.P.size else \
        np.zeros((S, 0, S))
    strength = P.max(axis=1) if P.shape[1] else np.zeros((S, S))
    np.fill_diagonal(strength, 0.0)
    if S <= 3:
        # a triangle with the initial state on the left, the others to its right
        angles = [math.pi + 2 * math.pi * i / S for i in range(S)]
        pos = np.array([(math.cos(a), 0.75 * math.sin(a)) for a in angles])
    else:
        g = nx.Graph()
        g.add_nodes_from(range(S))
        for s, t in zip(*np.nonzero(strength >= MIN_PROBABILITY)):
            g.add_edge(int(s), int(t))
        density = g.number_of_edges() / (S * (S - 1) / 2)
        if density > 0.5 or S > DENSE_STATES or g.number_of_edges() == 0:
            layout = nx.circular_layout(g)
        else:
            layout = nx.kamada_kawai_layout(g, weight=None)
        pos = np.array([layout[i] for i in range(S)], dtype=float)
        centred = pos - pos.mean(axis=0)
        _, _, vt = np.linalg.svd(centred, full_matrices=False)
        pos = centred @ vt.T
        # the initial state on the left
        if model.initial_state in model.state_ids:
            s0 = model.state_ids.index(model.initial_state)
            if pos[s0, 0] > 0:
                pos[:, 0] = -pos[:, 0]
    pos = pos - pos.mean(axis=0)
    nn = _median_nearest(pos)
    if not math.isfinite(nn) or nn < 1e-12:
        nn = 1.0
    result: np.ndarray = np.round(pos * (spacing / nn), 1)
    return result


def fill_missing_positions(model: MdpModel, *, spacing: float | None = None) -> np.ndarray:
    """The model's positions with the missing ones filled in.

    If no state has a position, this is :func:`auto_layout`. Otherwise the placed states
    stay where they are and the others go in rows below them, ``spacing`` apart.

    Parameters
    ----------
    model : MdpModel
        The model.
    spacing : float, optional
        Distance between new rows and states.

    Returns
    -------
    numpy.ndarray
        (S, 2) positions.
    """
    S = model.n_states
    pos = np.array(model.positions, dtype=float).reshape(-1, 2)
    if len(pos) != S:
        pos = np.full((S, 2), np.nan)
    missing = ~np.isfinite(pos).all(axis=1)
    if not missing.any():
        return pos
    if missing.all():
        return auto_layout(model, spacing=spacing)
    spacing = default_spacing(S) if spacing is None else float(spacing)
    placed = pos[~missing]
    x0, y0 = placed[:, 0].min(), placed[:, 1].max() + spacing
    per_row = max(1, int(math.ceil(math.sqrt(int(missing.sum())))))
    for n, s in enumerate(np.flatnonzero(missing)):
        pos[s] = (x0 + spacing * (n % per_row), y0 + spacing * (n // per_row))
    return pos
