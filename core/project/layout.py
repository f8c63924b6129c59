"""Positions for the drawable MDPs of a project that has none (part of opening a file)."""

from __future__ import annotations

import numpy as np

from core.mdp.layout import MAX_LAYOUT_STATES, fill_missing_positions
from core.project.model import Project

__all__ = ["fill_project_layouts"]


def fill_project_layouts(project: "Project", *, max_states: int = MAX_LAYOUT_STATES
                         ) -> list[str]:
    """Give every state of the project's drawable models a position (files without a
    ``layout``); returns the ids of the MDPs that got positions. Part of opening a file,
    not an edit: call it before the project reaches the document. A project read from a
    file keeps its merge base (``project.origin``), and the models completed here count as
    unedited at its next save (:func:`core.project.store.mark_unedited`).

    >>> from core.mdp.examples import random_mdp
    >>> p = Project(); _ = p.add_mdp(random_mdp(4, 2, 2, seed=1), "m")
    >>> fill_project_layouts(p), p.mdps[0].model.position("st-1") is not None
    (['m'], True)

    Parameters
    ----------
    project : Project
        The project (changed in place).
    max_states : int
        Larger models are left without positions (not drawn).

    Returns
    -------
    list of str
    """
    changed = []
    for entry in project.mdps:
        model = entry.model
        if not 0 < model.n_states <= max_states:
            continue
        pos = np.asarray(model.positions, dtype=float).reshape(-1, 2)
        if len(pos) == model.n_states and np.isfinite(pos).all():
            continue
        filled = fill_missing_positions(model)
        model.move_states({sid: (float(x), float(y))
                           for sid, (x, y) in zip(model.state_ids, filled)})
        changed.append(entry.id)
    if changed and project.origin is not None:
        from core.project.store import mark_unedited

        mark_unedited(project, ["mdps"])  # positions added on opening are not an edit
    return changed
