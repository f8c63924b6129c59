"""What an audit run records: its JSON-safe summary (the GUI and the reports read it)."""

from __future__ import annotations

from typing import Any

from core.audit.runner import AuditResult
from core.common.jsonable import jsonable

__all__ = ["RUN_KIND", "audit_summary"]

#: ``RunRecord.kind`` of an audit.
RUN_KIND = "audit"


def audit_summary(result: AuditResult) -> dict[str, Any]:
    """The summary a run record keeps: ``AuditResult.to_dict`` made strict JSON.

    Parameters
    ----------
    result : AuditResult
        The audit.

    Returns
    -------
    dict
        JSON-safe (ε = ∞ is null with its reason, :func:`core.common.jsonable.jsonable`).
    """
    return jsonable(result.to_dict())
