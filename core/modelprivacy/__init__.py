"""The model privacy lab: membership inference on trained models and what each defense costs
(DP-SGD, the Gaussian post-training mechanism, the one-parameter defense).
"""

# The capability's public face: ``from core.modelprivacy import Name`` (the GUI imports these, not
# the modules). The names load on first use, so importing the package stays cheap.

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.modelprivacy.data import load_dataset, mdp_dataset
    from core.modelprivacy.metrics import tpr_at_fpr_items, unresolved_tpr_reason
    from core.modelprivacy.records import RUN_KIND, TABLE_COLUMNS, TABLE_KIND, table_cells
    from core.modelprivacy.study import MiaSetup, defense_table, run_mia, victim_table

_WHERE = {
    "MiaSetup": "core.modelprivacy.study",
    "RUN_KIND": "core.modelprivacy.records",
    "TABLE_COLUMNS": "core.modelprivacy.records",
    "TABLE_KIND": "core.modelprivacy.records",
    "defense_table": "core.modelprivacy.study",
    "load_dataset": "core.modelprivacy.data",
    "mdp_dataset": "core.modelprivacy.data",
    "run_mia": "core.modelprivacy.study",
    "table_cells": "core.modelprivacy.records",
    "tpr_at_fpr_items": "core.modelprivacy.metrics",
    "unresolved_tpr_reason": "core.modelprivacy.metrics",
    "victim_table": "core.modelprivacy.study",
}

__all__ = [
    "MiaSetup",
    "RUN_KIND",
    "TABLE_COLUMNS",
    "TABLE_KIND",
    "defense_table",
    "load_dataset",
    "mdp_dataset",
    "run_mia",
    "table_cells",
    "tpr_at_fpr_items",
    "unresolved_tpr_reason",
    "victim_table",
]


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'core.modelprivacy' has no attribute {name!r}")
