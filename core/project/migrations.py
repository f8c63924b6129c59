"""Project schema migrations: pure ``dict -> dict`` steps, applied in order.

Bump policy: ``SCHEMA_VERSION`` goes up by one for every change of the saved shape that an
older PrivPlan could misread. Each bump registers ``@migration(n)`` that upgrades the
``project`` payload of version n to n+1, and adds ``tests/data/projects/v{n+1}_*.json``.
Golden files are never edited.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["SCHEMA_VERSION", "migration", "migrate", "MIGRATIONS"]

# 1: MDPs stored in the *.mdp.json interchange shape (names as keys).
# 2: MDPs stored as editable models with stable ids (core.mdp.editable.MdpModel.to_dict), so
#    that drafts (rows not yet summing to 1) can be saved and renames keep references.
SCHEMA_VERSION = 2

Step = Callable[[dict[str, Any]], dict[str, Any]]
MIGRATIONS: dict[int, Step] = {}


def migration(from_version: int) -> Callable[[Step], Step]:
    """Register a step that upgrades a payload from ``from_version`` to ``from_version + 1``.

    Parameters
    ----------
    from_version : int
        The schema version the step reads.

    Returns
    -------
    callable
        The decorator.
    """

    def register(fn: Step) -> Step:
        if from_version in MIGRATIONS:
            raise RuntimeError(f"two migrations from version {from_version}")
        MIGRATIONS[from_version] = fn
        return fn

    return register


def migrate(payload: dict[str, Any], version: int) -> dict[str, Any]:
    """Upgrade ``payload`` from ``version`` to :data:`SCHEMA_VERSION`, one step at a time.

    Parameters
    ----------
    payload : dict
        The file's ``project`` object.
    version : int
        Its schema version.

    Returns
    -------
    dict
        The payload at the current schema.
    """
    while version < SCHEMA_VERSION:
        payload = MIGRATIONS[version](payload)
        version += 1
    return payload


@migration(1)
def _mdps_get_ids(payload: dict[str, Any]) -> dict[str, Any]:
    """Schema 1 -> 2: interchange-shaped MDPs become id-based models (same numbers)."""
    from core.mdp.editable import MdpModel
    from core.mdp.files import mdp_from_dict

    out = dict(payload)
    mdps = []
    for m in payload.get("mdps", []) or []:
        if not isinstance(m, dict):
            mdps.append(m)  # left for the loader to refuse with its field name
            continue
        model = MdpModel.from_mdp(mdp_from_dict({k: v for k, v in m.items()
                                                 if k not in ("id", "note")}))
        d = {"id": m.get("id"), **model.to_dict()}
        if m.get("note"):
            d["note"] = m["note"]
        mdps.append(d)
    out["mdps"] = mdps
    return out
