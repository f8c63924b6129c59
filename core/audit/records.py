"""What an audit run records: its JSON-safe summary (the GUI and the reports read it)."""

from __future__ import annotations

from typing import Any

from core.audit.runner import AuditResult
from core.common.jsonable import jsonable_dict

__all__ = ["RUN_KIND", "audit_summary", "audit_params"]

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
    return jsonable_dict(result.to_dict())


def audit_params(result: AuditResult, params: dict[str, Any]) -> dict[str, Any]:
    """The parameters a run record keeps of an audit (what was asked, strict JSON).

    Parameters
    ----------
    result : AuditResult
        The audit.
    params : dict
        The mechanism's public parameters as passed to ``run_audit``.

    Returns
    -------
    dict
        ``mechanism``, ``params``, ``samples``, ``confidence``, ``seeded`` and ``seed``.
    """
    return jsonable_dict({"mechanism": result.mechanism, "params": dict(params),
                     "samples": result.samples, "confidence": result.confidence,
                     "seeded": result.seed is not None and result.mode == "experiment",
                     "seed": result.seed})
