"""The project document: its model, JSON files, migrations and autosave (Qt-free).
"""

# The capability's public face: ``from core.project import Name`` (the GUI imports these, not
# the modules). The names load on first use, so importing the package stays cheap.

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.project.autosave import (
        RECOVERY_SUFFIX,
        Recovery,
        discard,
        discard_for,
        list_recoverable,
        load_recovery,
        recovery_stem,
        write_recovery,
    )
    from core.project.files import (
        PROJECT_FORMAT,
        load_any,
        load_project,
        project_from_dict,
        save_project,
    )
    from core.project.layout import fill_project_layouts
    from core.project.model import MdpEntry, Project, RunRecord
    from core.project.recording import (
        advise_run_record,
        audit_run_record,
        bounds_run_record,
        comarl_run_record,
        drl_run_record,
        drl_table_record,
        mia_run_record,
        mia_table_record,
        plan_run_record,
        sharing_run_record,
        sweep_run_record,
    )

_WHERE = {
    "bounds_run_record": "core.project.recording",
    "MdpEntry": "core.project.model",
    "PROJECT_FORMAT": "core.project.files",
    "Project": "core.project.model",
    "RECOVERY_SUFFIX": "core.project.autosave",
    "Recovery": "core.project.autosave",
    "RunRecord": "core.project.model",
    "advise_run_record": "core.project.recording",
    "audit_run_record": "core.project.recording",
    "comarl_run_record": "core.project.recording",
    "discard": "core.project.autosave",
    "discard_for": "core.project.autosave",
    "drl_run_record": "core.project.recording",
    "drl_table_record": "core.project.recording",
    "fill_project_layouts": "core.project.layout",
    "list_recoverable": "core.project.autosave",
    "load_any": "core.project.files",
    "load_project": "core.project.files",
    "load_recovery": "core.project.autosave",
    "mia_run_record": "core.project.recording",
    "mia_table_record": "core.project.recording",
    "plan_run_record": "core.project.recording",
    "project_from_dict": "core.project.files",
    "recovery_stem": "core.project.autosave",
    "save_project": "core.project.files",
    "sharing_run_record": "core.project.recording",
    "sweep_run_record": "core.project.recording",
    "write_recovery": "core.project.autosave",
}

__all__ = [
    "bounds_run_record",
    "MdpEntry",
    "PROJECT_FORMAT",
    "Project",
    "RECOVERY_SUFFIX",
    "Recovery",
    "RunRecord",
    "advise_run_record",
    "audit_run_record",
    "comarl_run_record",
    "discard",
    "discard_for",
    "drl_run_record",
    "drl_table_record",
    "fill_project_layouts",
    "list_recoverable",
    "load_any",
    "load_project",
    "load_recovery",
    "mia_run_record",
    "mia_table_record",
    "plan_run_record",
    "project_from_dict",
    "recovery_stem",
    "save_project",
    "sharing_run_record",
    "sweep_run_record",
    "write_recovery",
]


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'core.project' has no attribute {name!r}")
