"""A logistics map as the project holds it: a stable id and the validated map.

``Project.maps`` is a list of :class:`MapEntry`. The editable form of a map is its
interchange dict (:func:`core.logistics.io.map_to_dict`), edited by the pure functions of
:mod:`core.logistics.edits`; an entry keeps that dict in canonical form, validated when the
entry is made (from a file or from an edit), and the :class:`LogisticsWorld` built from it.
Entries are immutable: an edit makes a new entry, so undo commands hold them as they are.

Examples
--------
>>> from core.logistics.examples import fig41
>>> from core.logistics.io import map_to_dict
>>> e = MapEntry.from_dict({"id": "map-1", **map_to_dict(fig41())})
>>> e.id, e.label, e.world.n_bases
('map-1', 'fig41 (reconstruction of thesis Fig 4.1)', 29)
>>> MapEntry.from_dict(e.to_dict()) == e
True
>>> MapEntry.from_dict({"id": "map-2", "nodes": []})
Traceback (most recent call last):
...
core.common.errors.InputError: maps[map-2].nodes: ...
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from core.common.errors import InputError
from core.logistics.edits import checked, map_label, world_of
from core.logistics.model import LogisticsWorld

__all__ = ["MapEntry"]


class MapEntry:
    """One map of the project (immutable): ``id``, canonical ``data`` and its ``world``.

    Parameters
    ----------
    map_id : str
        The project's stable id (``"map-1"``).
    world : LogisticsWorld
        The validated map.
    data : Mapping, optional
        Its canonical dict without the id (computed from ``world`` when omitted).
    """

    __slots__ = ("_id", "_world", "_data")

    def __init__(self, map_id: str, world: LogisticsWorld,
                 data: Mapping[str, Any] | None = None) -> None:
        if not isinstance(map_id, str) or not map_id:
            raise InputError(f"needs a non-empty string id, got {map_id!r}", field="maps")
        if data is None:
            from core.logistics.io import map_to_dict

            data = map_to_dict(world)
        self._id = map_id
        self._world = world
        self._data = {k: copy.deepcopy(v) for k, v in data.items() if k != "id"}

    @classmethod
    def from_dict(cls, d: Any) -> "MapEntry":
        """Validate a map dict with an ``"id"`` (InputError naming the map and field).

        Parameters
        ----------
        d : Any
            A ``*.map.json`` object plus ``"id"``, as stored in a project.

        Returns
        -------
        MapEntry
            The entry, its data in canonical form.
        """
        if not isinstance(d, Mapping):
            raise InputError(f"each map must be an object, got {type(d).__name__}",
                             field="maps")
        map_id = d.get("id")
        if not isinstance(map_id, str) or not map_id:
            raise InputError(f"each map needs a non-empty string id, got {map_id!r}",
                             field="maps")
        try:
            canon = checked(d)
            world = world_of(canon)
        except InputError as exc:
            raise InputError(exc.problem, field=f"maps[{map_id}].{exc.field or ''}".rstrip(".")
                             ) from None
        return cls(map_id, world, canon)

    @property
    def id(self) -> str:
        return self._id

    @property
    def world(self) -> LogisticsWorld:
        """The validated world (shared, do not change it)."""
        return self._world

    @property
    def label(self) -> str:
        """A short name for lists: the map's name, else its id."""
        return map_label({"id": self._id, **self._data})

    def to_dict(self) -> dict[str, Any]:
        """A fresh copy of the map dict with ``"id"`` first (safe to edit)."""
        out: dict[str, Any] = {"id": self._id}
        out.update(copy.deepcopy(self._data))
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MapEntry):
            return NotImplemented
        return (self._id, self._data) == (other._id, other._data)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"MapEntry(id={self._id!r}, label={self.label!r})"
