"""Reports of a project: the report model and its HTML rendering (PDF goes through Qt).
"""

# The capability's public face: ``from core.report import Name`` (the GUI imports these, not
# the modules). The names load on first use, so importing the package stays cheap.

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.report.html import (
        OPTIONAL_SECTIONS,
        Figure,
        GridImage,
        Report,
        build_report,
        default_css,
        ledger_totals,
        section_titles,
        to_html,
        unbounded_reasons,
    )

_WHERE = {
    "OPTIONAL_SECTIONS": "core.report.html",
    "GridImage": "core.report.html",
    "Figure": "core.report.html",
    "Report": "core.report.html",
    "build_report": "core.report.html",
    "default_css": "core.report.html",
    "ledger_totals": "core.report.html",
    "section_titles": "core.report.html",
    "to_html": "core.report.html",
    "unbounded_reasons": "core.report.html",
}

__all__ = [
    "OPTIONAL_SECTIONS",
    "GridImage",
    "Figure",
    "Report",
    "build_report",
    "default_css",
    "ledger_totals",
    "section_titles",
    "to_html",
    "unbounded_reasons",
]


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'core.report' has no attribute {name!r}")
