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

SCHEMA_VERSION = 1

Step = Callable[[dict[str, Any]], dict[str, Any]]
MIGRATIONS: dict[int, Step] = {}


def migration(from_version: int) -> Callable[[Step], Step]:
    """Register a step that upgrades a payload from ``from_version`` to ``from_version + 1``."""

    def register(fn: Step) -> Step:
        if from_version in MIGRATIONS:
            raise RuntimeError(f"two migrations from version {from_version}")
        MIGRATIONS[from_version] = fn
        return fn

    return register


def migrate(payload: dict[str, Any], version: int) -> dict[str, Any]:
    """Upgrade ``payload`` from ``version`` to :data:`SCHEMA_VERSION`, one step at a time."""
    while version < SCHEMA_VERSION:
        payload = MIGRATIONS[version](payload)
        version += 1
    return payload
