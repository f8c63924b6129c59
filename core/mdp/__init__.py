"""The MDP capability: models, files, layout, synthesis, robust bounds, sweeps, examples.
"""

# The capability's public face: ``from core.mdp import Name`` (the GUI imports these, not
# the modules). The names load on first use, so importing the package stays cheap.

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.mdp.accounting import (
        ADJACENCIES,
        ADJACENCY_TEXT,
        DEFAULT_B,
        DEFAULT_DELTA,
        DEFAULT_DOMAIN_RULE,
        DEFAULT_ETA,
        DOMAIN_RULES,
        ETA_AUTO,
        MdpPrivacy,
        adjacency_text,
        mdp_dataset,
        mdp_privacy,
        record_privatization,
    )
    from core.mdp.design import DesignResult
    from core.mdp.editable import MdpModel, Problem, digest_of
    from core.mdp.examples import FOUR_STARTUPS_NOTE, four_startups
    from core.mdp.files import load_mdp, read_json, save_mdp
    from core.mdp.layout import MAX_LAYOUT_STATES, auto_layout, fill_missing_positions
    from core.mdp.model import MDP, ROW_SUM_TOL
    from core.mdp.private_policy import PrivatePolicy, bounds_release
    from core.mdp.privatize import ETA_CAP, eta_label, parse_eta
    from core.mdp.records import (
        BoundsParameters,
        SweepParameters,
        bounds_summary,
        sweep_entries,
        sweep_summary,
    )
    from core.mdp.sweep import DEFAULT_K, SweepResult, privacy_sweep

_WHERE = {
    "BoundsParameters": "core.mdp.records",
    "bounds_release": "core.mdp.private_policy",
    "ADJACENCIES": "core.mdp.accounting",
    "ADJACENCY_TEXT": "core.mdp.accounting",
    "DEFAULT_B": "core.mdp.accounting",
    "DEFAULT_DELTA": "core.mdp.accounting",
    "DEFAULT_DOMAIN_RULE": "core.mdp.accounting",
    "DEFAULT_ETA": "core.mdp.accounting",
    "DEFAULT_K": "core.mdp.sweep",
    "DOMAIN_RULES": "core.mdp.accounting",
    "DesignResult": "core.mdp.design",
    "ETA_AUTO": "core.mdp.accounting",
    "ETA_CAP": "core.mdp.privatize",
    "FOUR_STARTUPS_NOTE": "core.mdp.examples",
    "MAX_LAYOUT_STATES": "core.mdp.layout",
    "MDP": "core.mdp.model",
    "MdpModel": "core.mdp.editable",
    "MdpPrivacy": "core.mdp.accounting",
    "PrivatePolicy": "core.mdp.private_policy",
    "Problem": "core.mdp.editable",
    "ROW_SUM_TOL": "core.mdp.model",
    "SweepParameters": "core.mdp.records",
    "SweepResult": "core.mdp.sweep",
    "adjacency_text": "core.mdp.accounting",
    "auto_layout": "core.mdp.layout",
    "bounds_summary": "core.mdp.records",
    "digest_of": "core.mdp.editable",
    "eta_label": "core.mdp.privatize",
    "fill_missing_positions": "core.mdp.layout",
    "four_startups": "core.mdp.examples",
    "load_mdp": "core.mdp.files",
    "mdp_dataset": "core.mdp.accounting",
    "mdp_privacy": "core.mdp.accounting",
    "parse_eta": "core.mdp.privatize",
    "privacy_sweep": "core.mdp.sweep",
    "read_json": "core.mdp.files",
    "record_privatization": "core.mdp.accounting",
    "save_mdp": "core.mdp.files",
    "sweep_entries": "core.mdp.records",
    "sweep_summary": "core.mdp.records",
}

__all__ = [
    "BoundsParameters",
    "bounds_release",
    "ADJACENCIES",
    "ADJACENCY_TEXT",
    "DEFAULT_B",
    "DEFAULT_DELTA",
    "DEFAULT_DOMAIN_RULE",
    "DEFAULT_ETA",
    "DEFAULT_K",
    "DOMAIN_RULES",
    "DesignResult",
    "ETA_AUTO",
    "ETA_CAP",
    "FOUR_STARTUPS_NOTE",
    "MAX_LAYOUT_STATES",
    "MDP",
    "MdpModel",
    "MdpPrivacy",
    "PrivatePolicy",
    "Problem",
    "ROW_SUM_TOL",
    "SweepParameters",
    "SweepResult",
    "adjacency_text",
    "auto_layout",
    "bounds_summary",
    "digest_of",
    "eta_label",
    "fill_missing_positions",
    "four_startups",
    "load_mdp",
    "mdp_dataset",
    "mdp_privacy",
    "parse_eta",
    "privacy_sweep",
    "read_json",
    "record_privatization",
    "save_mdp",
    "sweep_entries",
    "sweep_summary",
]


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'core.mdp' has no attribute {name!r}")
