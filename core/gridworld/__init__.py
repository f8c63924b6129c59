
# The capability's public face: ``from core.gridworld import Name`` (the GUI imports these, not
# the modules). The names load on first use, so importing the package stays cheap.

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.gridworld.attack import AttackSetup, recover_map
    from core.gridworld.dpdrl import DrlSetup, train_agent
    from core.gridworld.experiments import defense_sweep
    from core.gridworld.maps import GridEntry, GridMap, example_12x11, random_map, violations

_WHERE = {
    "AttackSetup": "core.gridworld.attack",
    "DrlSetup": "core.gridworld.dpdrl",
    "GridEntry": "core.gridworld.maps",
    "GridMap": "core.gridworld.maps",
    "defense_sweep": "core.gridworld.experiments",
    "example_12x11": "core.gridworld.maps",
    "random_map": "core.gridworld.maps",
    "recover_map": "core.gridworld.attack",
    "train_agent": "core.gridworld.dpdrl",
    "violations": "core.gridworld.maps",
}

__all__ = [
    "AttackSetup",
    "DrlSetup",
    "GridEntry",
    "GridMap",
    "defense_sweep",
    "example_12x11",
    "random_map",
    "recover_map",
    "train_agent",
    "violations",
]


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'core.gridworld' has no attribute {name!r}")
