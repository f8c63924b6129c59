"""Model-checker interchange: PRISM's explicit files and Storm's DRN, in and out.

:func:`import_model` reads a PRISM model (``.tra`` with ``.lab``, ``.sta``, ``.srew``,
``.trew``) or one Storm ``.drn`` file; :func:`export_model` writes a model in either format,
or the robust set P̂_{α,β} of a private model as an interval MDP
(:mod:`core.mdp.interop.interval`).
"""

from __future__ import annotations

from core.common.progress import Progress
from core.mdp.interop.common import ImportResult
from core.mdp.interop.drn import read_drn, write_drn, write_drn_interval
from core.mdp.interop.prism import read_prism, write_prism, write_prism_interval

__all__ = ["ImportResult", "import_model", "read_prism", "write_prism", "write_prism_interval",
           "read_drn", "write_drn", "write_drn_interval", "FORMATS"]

#: ``export --format`` values.
FORMATS = ("prism", "drn", "prism-interval", "drn-interval")


def import_model(files: "list[str]", *, horizon: int | None = None,
                 discount: float | None = None, reward: str | None = None,
                 name: str | None = None, progress: "Progress | None" = None) -> ImportResult:
    """Import one ``.drn`` file or a PRISM model's files (see the module docstring).

    Parameters
    ----------
    files : list of str
        The files.
    horizon, discount, reward, name :
        See :func:`core.mdp.interop.prism.read_prism`.
    progress : Progress, optional
        Called with the fraction done (non-decreasing, in [0, 1]) and a short message; it
        may raise :class:`core.common.progress.Cancelled` to stop the import (see
        :func:`read_drn` and :func:`read_prism`).

    Returns
    -------
    ImportResult
    """
    from core.common.errors import InputError

    drn = [f for f in files if str(f).lower().endswith(".drn")]
    if drn:
        if len(files) != 1:
            raise InputError("a Storm model is one .drn file (labels and rewards are inside it)",
                             field="FILE")
        return read_drn(drn[0], horizon=horizon, discount=discount, reward=reward, name=name,
                        progress=progress)
    return read_prism(files, horizon=horizon, discount=discount, reward=reward, name=name,
                      progress=progress)
