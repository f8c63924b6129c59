"""The Audit workspace: an empirical privacy audit of the mechanisms PrivPlan releases through.

* :mod:`gui.audit.panel` — the tool tab (mechanism, public parameters, samples, randomness
  and confidence on top; Run in a worker; the verdict, the ε_lb ≤ ε_tight ≤ ε_claimed bars,
  the attack ROC and the worst pair below). Each finished audit is a run record of kind
  ``"audit"`` in the project (undoable) and a section of the report.
* :mod:`gui.audit.plots` — the two plots (pyqtgraph, right-click Export… for PNG, SVG, CSV).
* :mod:`gui.audit.screenshot` — ``python -m gui.audit.screenshot docs/screenshot-audit.png``.

The computation is :func:`core.audit.audit_release` of the tab's
:class:`core.audit.AuditParameters` (Qt-free; ``audit MECHANISM …`` builds the same object
and calls the same function), recorded by :func:`core.project.audit_run_record`; nothing
here is a release of
private data — the audit runs the mechanisms on neighbouring inputs it constructs, so it
makes no ledger entry.
"""

from __future__ import annotations

__all__: list[str] = []
