"""Report sections, one module per capability, discovered the way the audit finds its targets.

:data:`SECTION_MODULES` is the registry: a capability → the import path of the module whose
functions, decorated with :func:`core.report.model.reporter`, lay out that capability's runs
(one per ``RunRecord.kind``). :func:`load_sections` imports them (once) before a report is
built; a new capability adds one line here and one module.
"""

from __future__ import annotations

import importlib

from core.report.model import REPORTERS, Reporter

__all__ = ["SECTION_MODULES", "load_sections"]

#: capability → module that registers its reporters
SECTION_MODULES: dict[str, str] = {
    "mdp": "core.report.sections.mdp",
    "advising": "core.report.sections.advising",
    "logistics": "core.report.sections.logistics",
    "modelprivacy": "core.report.sections.modelprivacy",
    "agents": "core.report.sections.agents",
    "sharing": "core.report.sections.sharing",
    "audit": "core.report.sections.audit",
    "ledger": "core.report.sections.ledger",
    "plan": "core.report.sections.plan",
}


def load_sections() -> dict[str, Reporter]:
    """Import every module of :data:`SECTION_MODULES`; the reporters by run kind.

    Returns
    -------
    dict
        ``RunRecord.kind`` → ``fn(project, run) -> Section`` (a copy).
    """
    for path in SECTION_MODULES.values():
        importlib.import_module(path)
    return dict(REPORTERS)
