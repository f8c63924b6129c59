
# The capability's public face: ``from core.comarl import Name`` (the GUI imports these, not
# the modules). The names load on first use, so importing the package stays cheap.

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.comarl.vdn import VdnSetup, team_grid, train_vdn

_WHERE = {
    "VdnSetup": "core.comarl.vdn",
    "team_grid": "core.comarl.vdn",
    "train_vdn": "core.comarl.vdn",
}

__all__ = [
    "VdnSetup",
    "team_grid",
    "train_vdn",
]


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'core.comarl' has no attribute {name!r}")
