"""Report section of private policy sharing ([KS])."""

from __future__ import annotations

from typing import Any

from core.report.model import (
    Figure,
    KeyValues,
    Paragraph,
    Section,
    Series,
    Table,
    _fmt,
    _mode_text,
    _time,
    reporter,
)

__all__: list[str] = []


_SHARING_LABELS = {"none": "no teacher", "nonprivate": "non-private teacher",
                   "aware": "privacy-aware (λ > 0)", "unaware": "privacy-unaware (λ = 0)"}


_SHARING_COLOURS = {"none": "#7F7F7F", "nonprivate": "#1F77B4", "aware": "#2CA02C",
                    "unaware": "#D62728"}


def _gradient_text(p: dict[str, Any]) -> str:
    if p.get("gradient") == "sampled":
        return (f"Tabular REINFORCE from {_fmt(p.get('episodes'))} roll-outs per iteration "
                "(every student explores)")
    return "Exact tabular policy gradient"


def _protocol_rows(p: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """The learning protocol, for records that keep it (older ones do not)."""
    if "after_budget" not in p:
        return ()
    after = ("the paper's uniformly random policies" if p["after_budget"] == "random"
             else "nothing (the teacher stops)")
    if p.get("agent") == "ppo":
        return (("after the budget", after),)
    scale = ("rewards scaled to max |R|" if p.get("reward_scale") == "max"
             else "raw rewards")
    weight = ("discounted visits" if p.get("penalty_weight", "visits") == "visits"
              else "normalised occupancy")
    target = {"teacher": "; the non-private student imitates π_T itself",
              "mixed": "; the non-private student imitates the η-mixed π̃_T"}.get(
        str(p.get("nonprivate_target")), "")
    return (("after the budget", after),
            ("protocol", f"{_gradient_text(p)}; {scale}; penalty weighed by {weight}{target}"))


@reporter("sharing")
def _sharing_section(project: Any, run: Any) -> Section:
    """Private policy sharing ([KS]): parameters, learning curves, the teacher's ledger."""
    s, p = run.summary, run.params
    sec = Section(f"Policy sharing: {p.get('env', run.target)} ({run.id})", id=f"run-{run.id}")
    tau = ("τ solved per roll-out for δ ≤ " + _fmt(p.get("delta"), 3) if p.get("tau") is None
           else f"fixed τ = {_fmt(p.get('tau'), 3)}")
    sec.blocks.append(KeyValues((
        ("environment", str(p.get("env", run.target))),
        ("teacher", str(p.get("teacher", "optimal"))), ("randomness", _mode_text(run)),
        ("mechanism", f"Dirichlet on policies, k_j = {_fmt(p.get('k0'))}·{_fmt(p.get('coef'))}^j,"
                      f" η = {_fmt(p.get('eta'))}, L·b = {_fmt(p.get('lb'))}, {tau}, ε bound "
                      f"{p.get('bound', 'paper')}"),
        ("students", f"{', '.join(p.get('students', []))}; λ = {_fmt(p.get('lambda'))}, β = "
                     f"{_fmt(p.get('beta'))}, κ = {_fmt(p.get('kappa'))}, "
                     f"{_fmt(p.get('seeds'))} seeds × {_fmt(p.get('iterations'))} iterations"),
        ("budget", f"(E, D) = ({_fmt((p.get('budget') or [None, None])[0])}, "
                   f"{_fmt((p.get('budget') or [None, None])[1])})"),
        *_protocol_rows(p), ("adjacency", str(s.get("adjacency", ""))), *_ppo_rows(s),
        ("created", _time(run.created))), "Parameters"))
    ppo = p.get("agent") == "ppo"
    xs = tuple(float(v) for v in s.get("iteration", []))
    series = [Series(_SHARING_LABELS.get(k, k), xs, tuple(float(v) for v in c["median"]),
                     colour=_SHARING_COLOURS.get(k)) for k, c in s.get("curves", {}).items()]
    if xs:
        series.append(Series("J(π_T), the teacher", (xs[0], xs[-1]),
                             (float(s["teacher_value"]),) * 2, dashed=True, colour="#000000"))
        sec.blocks.append(Figure(
            f"{run.id}-curves", "Learning curves (median over seeds)", "iteration (roll-out)",
            "mean return (last 100 episodes)" if ppo else "J(π) at s₀", tuple(series),
            caption=("PPO students (networks); the teacher's demonstrations are Dirichlet "
                     "draws of its network's policy at the students' observations, until its "
                     "budget stops it." if ppo else
                     f"{_gradient_text(p)}; the teacher's demonstrations are "
                     "Dirichlet draws of its policy, until its budget stops it.")))
    total = s.get("ledger_total") or {}
    rows = [(str(i), _fmt(k), _fmt(e), _fmt(d, 3), _fmt(t, 3), str(q), _fmt(et), _fmt(dt, 3))
            for i, (k, e, d, t, q, et, dt) in enumerate(zip(
                s.get("k", []), s.get("epsilon", []), s.get("delta", []), s.get("tau", []),
                s.get("queries", []), s.get("epsilon_total", []), s.get("delta_total", [])))]
    if len(rows) > 12:
        rows = rows[:6] + [("…",) * 8] + rows[-5:]
    stop = (f"stopped before roll-out {s['stopped_at']}: {s.get('stop_reason', '')}"
            if s.get("stopped_at") is not None else "never stopped")
    sec.blocks.append(Table(
        ("roll-out", "k", "ε / query", "δ / query", "τ", "queries", "ε total", "δ total"),
        tuple(rows), "The teacher's ledger (basic composition)",
        note=(f"Total over all {total['runs']} noisy student runs" if "runs" in total
              else "Total of one student run (recorded before the budget covered every run)")
             + f" ({_fmt(total.get('epsilon'))}, {_fmt(total.get('delta'), 3)}); {stop}. ε "
             "per query is eq. 12 (exact); δ per query a 95 % Monte Carlo upper bound."))
    finals = s.get("final", {})
    sec.blocks.append(Table(
        ("student", "final J (median)", "85 % band", "cost J(π_T) − J"),
        tuple((_SHARING_LABELS.get(k, k), _fmt(v["median"]),
               f"[{_fmt(v['lower'])}, {_fmt(v['upper'])}]",
               _fmt((s.get("cost_of_privacy") or {}).get(k))) for k, v in finals.items()),
        "Students"))
    for n in s.get("notes", []) or []:
        sec.blocks.append(Paragraph(str(n), "note"))
    return sec


def _ppo_rows(s: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """The network teacher's return, Lipschitz constant and guarantee (``share --agent ppo``)."""
    lip = s.get("lipschitz")
    if not isinstance(lip, dict):
        return ()
    return (("teacher return", _fmt(s.get("teacher_return"))),
            ("Lipschitz constant L", f"{_fmt(lip.get('value'))} — {lip.get('detail', '')}"),
            ("guarantee", str(s.get("guarantee", ""))))
