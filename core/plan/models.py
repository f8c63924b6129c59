"""Which model an ``mdp`` release names: a project's model, a model file or a built-in example.

Only the model's public parts are read before a release (its supports and rewards, for the
accountant and the public proxy of the forecast).
"""

from __future__ import annotations

import os
from typing import Any

from core.common.errors import InputError

__all__ = ["EXAMPLES", "resolve_models", "resolve_model"]


def _four_startups() -> Any:
    from core.mdp.examples import four_startups

    return four_startups()


def _corridor() -> Any:
    from core.mdp.examples import corridor

    return corridor()


#: Built-in examples an ``mdp`` release may name.
EXAMPLES = {"four-startups": _four_startups, "corridor": _corridor}


def resolve_model(name: str, *, project: Any = None, base_dir: str | None = None,
                  field: str = "mdp") -> tuple[Any, str]:
    """(MDP, where it came from) for a model reference.

    A project's model id comes first, then a file (relative to ``base_dir``), then a
    built-in example.

    Parameters
    ----------
    name : str
        The reference.
    project : Project, optional
        The project of ``--execute``.
    base_dir : str, optional
        The plan file's folder.
    field : str
        The field named in errors.

    Returns
    -------
    (MDP, str)
        The model and ``"project"``, ``"file"`` or ``"example"``.
    """
    if project is not None and any(e.id == name for e in project.mdps):
        try:
            return project.mdp(name), "project"
        except InputError as exc:
            raise InputError(f"the project's model {name!r} is invalid: {exc.problem}",
                             field=field) from None
    path = name if base_dir is None or os.path.isabs(name) else os.path.join(base_dir, name)
    if os.path.exists(path):
        from core.mdp.files import load_mdp

        return load_mdp(path), "file"
    if name in EXAMPLES:
        return EXAMPLES[name](), "example"
    raise InputError(f"{name!r} is neither a model of the project, a model file nor a "
                     f"built-in example ({', '.join(EXAMPLES)})", field=field)


def resolve_models(plan: Any, *, project: Any = None, base_dir: str | None = None
                   ) -> dict[str, Any]:
    """Release name -> MDP for every ``mdp`` release of ``plan`` (:func:`resolve_model`).

    Parameters
    ----------
    plan : Plan
        The plan.
    project : Project, optional
        The project of ``--execute``.
    base_dir : str, optional
        The plan file's folder.

    Returns
    -------
    dict
    """
    return {r.name: resolve_model(r.params["mdp"], project=project, base_dir=base_dir,
                                  field=f"releases[{r.name}].mdp")[0]
            for r in plan.releases if r.kind == "mdp"}
