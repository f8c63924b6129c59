"""Pieces every capability of the core shares (Qt-free).
"""

# The capability's public face: ``from core.common import Name`` (the GUI imports these, not
# the modules). The names load on first use, so importing the package stays cheap.

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.common.atomic import atomic_write_text
    from core.common.cluster import (
        SCHEDULER_ENV,
        check_address,
        check_scheduler,
        cluster_available,
        run_on_scheduler,
        scheduler_address,
    )
    from core.common.errors import InputError
    from core.common.jsonable import dumps
    from core.common.memory import format_bytes
    from core.common.palette import (
        APPROACH_COLOURS,
        CYCLE,
        ERROR_COLOUR,
        OKABE_ITO,
        PRIVATE_ACCENT,
        agent_colour,
        arm_colour,
        cycle_colour,
        series_colour,
    )
    from core.common.progress import Cancelled, Progress, no_progress, sub_progress, time_left_text
    from core.common.validation import check_beta, check_k

_WHERE = {
    "APPROACH_COLOURS": "core.common.palette",
    "CYCLE": "core.common.palette",
    "Cancelled": "core.common.progress",
    "ERROR_COLOUR": "core.common.palette",
    "InputError": "core.common.errors",
    "OKABE_ITO": "core.common.palette",
    "PRIVATE_ACCENT": "core.common.palette",
    "Progress": "core.common.progress",
    "SCHEDULER_ENV": "core.common.cluster",
    "agent_colour": "core.common.palette",
    "arm_colour": "core.common.palette",
    "atomic_write_text": "core.common.atomic",
    "check_address": "core.common.cluster",
    "check_beta": "core.common.validation",
    "check_k": "core.common.validation",
    "check_scheduler": "core.common.cluster",
    "cluster_available": "core.common.cluster",
    "cycle_colour": "core.common.palette",
    "dumps": "core.common.jsonable",
    "format_bytes": "core.common.memory",
    "no_progress": "core.common.progress",
    "run_on_scheduler": "core.common.cluster",
    "scheduler_address": "core.common.cluster",
    "series_colour": "core.common.palette",
    "sub_progress": "core.common.progress",
    "time_left_text": "core.common.progress",
}

__all__ = [
    "APPROACH_COLOURS",
    "CYCLE",
    "Cancelled",
    "ERROR_COLOUR",
    "InputError",
    "OKABE_ITO",
    "PRIVATE_ACCENT",
    "Progress",
    "SCHEDULER_ENV",
    "agent_colour",
    "arm_colour",
    "atomic_write_text",
    "check_address",
    "check_beta",
    "check_k",
    "check_scheduler",
    "cluster_available",
    "cycle_colour",
    "dumps",
    "format_bytes",
    "no_progress",
    "run_on_scheduler",
    "scheduler_address",
    "series_colour",
    "sub_progress",
    "time_left_text",
]


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'core.common' has no attribute {name!r}")
