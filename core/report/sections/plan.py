"""Report section of an executed privacy plan: what was planned beside what was spent."""

from __future__ import annotations

from typing import Any

from core.plan.execute import RUN_KIND
from core.report.model import KeyValues, Paragraph, Section, Table, _eps, _fmt, _time, reporter

__all__: list[str] = []


@reporter(RUN_KIND)
def _plan_section(project: Any, run: Any) -> Section:
    """A plan's execution (``summary`` = the ``budget --json`` payload): the budget, the
    composed and basic totals as planned, and per release its planned (ε, δ) beside the
    ledger entry that recorded it (``parameters.plan``/``release``), so a missing or
    different spend shows."""
    s = run.summary
    name = run.params.get("name", run.target)
    comp, basic, budget = s["composed"], s["basic"], s["budget"]
    blocks: list[Any] = [KeyValues((
        ("plan", str(name)), ("dataset", str(run.target)),
        ("budget (epsilon, delta)", f"({_fmt(budget['epsilon'])}, {_fmt(budget['delta'])})"),
        ("composed, PLD", f"({_eps(comp['epsilon'], comp.get('epsilon_reason', ''))}, "
                          f"{_fmt(comp['delta'])})"),
        ("basic composition", f"({_eps(basic['epsilon'], basic.get('epsilon_reason', ''))}, "
                              f"{_fmt(basic['delta'])})"),
        ("allocation", str(s.get("allocation") or "as written")),
        ("executed", _time(run.created))), title="Plan")]
    spent = {e.parameters.get("release"): e for e in project.ledger
             if e.dataset == run.target and e.parameters.get("plan") == name}
    rows = []
    for r in s["releases"]:
        e = spent.get(r["name"])
        fc = r.get("forecast") or {}
        forecast = (f"{fc.get('metric')}: {_fmt(fc['value'])}" if fc.get("value") is not None
                    else "none")
        if e is None:
            got, status = "—", "not recorded"
        else:
            got = f"{e.id}: ({_eps(e.epsilon, e.reason)}, {_fmt(e.delta)})"
            same = (r["epsilon"] is None and not e.epsilon < float("inf")) or (
                r["epsilon"] is not None and abs(e.epsilon - r["epsilon"]) <= 1e-12)
            status = "as planned" if same else "differs"
        rows.append((r["name"], r["kind"], f"({_eps(r['epsilon'])}, {_fmt(r['delta'])})",
                     got, status, forecast))
    blocks.append(Table(("release", "kind", "planned (eps, delta)", "spent (ledger entry)",
                         "status", "forecast"), tuple(rows), title="Plan vs spent"))
    if any(row[4] != "as planned" for row in rows):
        blocks.append(Paragraph("Some planned releases are missing from the ledger or differ "
                                "from the plan.", "warning"))
    blocks.append(Paragraph("The per-release (epsilon, delta) are each release's own, at its "
                            "own delta; the plan's total is the PLD composition above.",
                            "note"))
    return Section(f"Privacy plan {name} — plan vs spent", blocks, id=f"run-{run.id}")
