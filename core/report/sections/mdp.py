"""Report sections of the MDP capability: sweeps, designs, bounds and the models."""

from __future__ import annotations

import math
from typing import Any

from core.common.palette import series_colour
from core.common.quantities import REAL
from core.report.model import (
    REPORT_MAX_STATES,
    Figure,
    KeyValues,
    Paragraph,
    Section,
    Series,
    Table,
    _eps,
    _fmt,
    _mode_text,
    _pair,
    _reason_at,
    _time,
    reporter,
)

__all__: list[str] = []


@reporter("sweep")
def _sweep_section(project: Any, run: Any) -> Section:
    """Figure 2.1 sweep: parameters, values and cost of privacy vs k, (ε, δ) per k."""
    from core.mdp.sweep import QUANTITY_RANGES

    s = run.summary
    p = run.params
    target = next((e for e in project.mdps if e.id == run.target), None)
    name = target.model.name if target is not None else run.target
    sec = Section(f"Privacy sweep of {name} ({run.id})", id=f"run-{run.id}")
    mode = ("seeded experiment (seed %s) — reproducible, not a release" % run.seed
            if run.mode == "experiment" else "release mode (secure noise)")
    sec.blocks.append(KeyValues((
        ("MDP", f"{name} [{run.target}]"), ("randomness", mode),
        ("k values", ", ".join(_fmt(k, 6) for k in s.get("k", []))),
        ("runs per k", _fmt(s.get("runs", p.get("runs")))),
        ("β", _fmt(s.get("beta", p.get("beta")))), ("α radius", str(s.get("alpha_mode", ""))),
        ("zero entries", str(s.get("zeros", "support"))),
        ("π̄ in every run", _policy_text({**p, **s})), ("created", _time(run.created)),
    ), "Parameters"))
    ks = [float(k) for k in s.get("k", [])]
    if not ks:
        sec.blocks.append(Paragraph("This run recorded no results.", "warning"))
        return sec

    def nums(key: str) -> tuple[float, ...]:  # stored summaries keep non-finite as null
        return tuple(math.nan if v is None else float(v) for v in s.get(key, []))

    def series(key: str, label: str, dashed: bool = False) -> Series:
        sd = tuple(0.0 if math.isnan(v) else v for v in nums(f"{key}_sd"))
        mean = nums(f"{key}_mean")
        return Series.around(label, tuple(ks), mean, sd if len(sd) == len(mean) else None,
                             QUANTITY_RANGES.get(key, REAL), dashed=dashed,
                             colour=series_colour(key))

    sec.blocks.append(Figure(
        f"{run.id}-values", "Values at s₀ vs k (mean ± 1 sd)", "k (Dirichlet concentration)",
        "value at s₀", (series("v_lower", "v̲ pessimistic"), series("v_private", "V̄ private"),
                        series("v_true", "V (oracle view)", dashed=True),
                        series("v_upper", "v̄ optimistic")), log_x=True,
        caption="V evaluates π̄ on the true model (oracle view): the private algorithm never "
                "sees it; it is shown to validate the bounds."))
    sec.blocks.append(Figure(
        f"{run.id}-cost", "Cost of privacy at s₀ vs k", "k (Dirichlet concentration)",
        "cost of privacy", (series("cost_bound", "bound v̄ − v̲"),
                            series("cost_empirical", "|V̄ − V| (oracle view)", dashed=True)),
        log_x=True))
    cols = ["k", "α", "v̲", "V̄", "V (oracle)", "v̄", "bound", "|V̄ − V|"]
    rows = []
    for i, k in enumerate(ks):
        row = [_fmt(k, 6), _fmt(s["alpha"][i])] + [
            f"{_fmt(s[f'{q}_mean'][i])} ± {_fmt(s[f'{q}_sd'][i], 2)}"
            for q in ("v_lower", "v_private", "v_true", "v_upper", "cost_bound",
                      "cost_empirical")]
        rows.append(tuple(row))
    sec.blocks.append(Table(tuple(cols), tuple(rows), "Values and cost of privacy per k "
                            "(mean ± sd over the runs)", widths=(8, 8, 14, 14, 14, 14, 14, 14)))
    if "epsilon" in s:
        from core.mdp.accounting import ADJACENCY_TEXT

        n = len(ks)
        out = s.get("privacy_rows_without_guarantee")
        total = s.get("privacy_rows_total")
        pcols: tuple[str, ...] = ("k", "ε", "δ")
        if isinstance(out, list) and isinstance(total, list) and len(out) == len(total) == n:
            pcols += ("rows without a guarantee",)
        prow = tuple((_fmt(k, 6), _eps(s["epsilon"][i], _reason_at(s.get("epsilon_reason"), i)),
                      _fmt(s["delta"][i], 3))
                     + ((f"{out[i]} of {total[i]}",) if len(pcols) == 4 else ())
                     for i, k in enumerate(ks))
        adjacency = str(s.get("adjacency", ""))
        assumed = ADJACENCY_TEXT.get(adjacency, adjacency)
        tail = (" This sweep is a seeded experiment: none of its privatised models was "
                "released." if run.mode == "experiment" else "")
        accountant = str(s.get("accountant") or "Theorem 1.6 (union bound; recorded before "
                                                  "the exact profile)")
        sec.blocks.append(Table(
            pcols, prow, f"Privacy of one privatised model per k (Dirichlet mechanism; "
            f"{accountant})",
            note=f"Each privatised model is (ε, δ)-DP assuming {assumed}; b = "
                 f"{_fmt(s.get('b'))}, target δ̂ = {_fmt(s.get('delta_target'))}.{tail}"))
        c = s.get("composed")
        if isinstance(c, dict):
            sec.blocks.append(Paragraph(
                f"All {c.get('releases')} privatisations of this sweep composed at δ = "
                f"{_fmt(c.get('delta'))}: ε = {_eps(c.get('epsilon'), c.get('epsilon_reason'))}"
                f" with privacy-loss distributions (dp-accounting), ε = "
                f"{_eps(c.get('epsilon_basic'))} under basic composition — what they would "
                "cost if they had been released.", "note"))
    return sec


@reporter("design")
def _design_section(project: Any, run: Any) -> Section:
    """The privacy designer: the (k, η) frontier for a target and its recommendation."""
    s = run.summary
    entry = next((e for e in project.mdps if e.id == run.target), None)
    name = entry.model.name if entry is not None else run.target
    sec = Section(f"Privacy design for {name} ({run.id})", id=f"run-{run.id}")
    sel = str(s.get("selection", "public"))
    sec.blocks.append(KeyValues((
        ("MDP", f"{name} [{run.target}]"),
        ("target (ε, δ)", _pair(float(s.get("epsilon_target", math.nan)),
                                float(s.get("delta_target", math.nan)))),
        ("b", _fmt(s.get("b"))), ("neighbours", str(s.get("adjacency", ""))),
        ("β of the bound", _fmt(s.get("beta"))), ("cost bound computed on", str(s.get("proxy"))),
        ("selection", "public inputs only (no privacy spent)" if sel == "public" else
         f"exponential mechanism, ε = {_fmt(s.get('selection_epsilon'))} ({_mode_text(run)})"),
        ("created", _time(run.created))), "Target and inputs"))
    frontier = s.get("frontier") or []
    rec = s.get("recommended")
    if frontier:
        pts = tuple(sorted((float(p["k"]), float(p["cost_bound"])) for p in frontier))
        sec.blocks.append(Figure(
            f"{run.id}-frontier", "Cost-of-privacy bound of the largest k meeting the target, "
            "per declared η", "k (Dirichlet concentration)", "cost-of-privacy bound",
            (Series("frontier", tuple(x for x, _ in pts), tuple(y for _, y in pts)),),
            log_x=True))
        rows = tuple((str(p["eta"]) + (" ★" if p == rec else ""), _fmt(p["k"]),
                      _fmt(p["epsilon"]), _fmt(p["cost_bound"])) for p in frontier)
        sec.blocks.append(Table(("η (declared)", "k", "ε at δ", "cost bound"), rows,
                                "Frontier (★ recommended)"))
    for item in s.get("infeasible") or []:
        sec.blocks.append(Paragraph(f"η = {item.get('eta')}: {item.get('reason')}", "note"))
    if rec is None:
        sec.blocks.append(Paragraph(str(s.get("recommended_reason", "no recommendation")),
                                    "warning"))
    return sec


def _policy_text(summary: Any) -> str:
    """Which π̄ a bounds or sweep run bounded (greedy; the softmax synthesis; a given table)."""
    source = summary.get("policy_source", "greedy")
    if source == "softmax":
        return (f"softmax (entropy-regularised) policy of the private model, temperature "
                f"{_fmt(summary.get('temperature'))} (stochastic)")
    if source == "table":
        what = "a given policy table"
        if summary.get("policy_file"):
            what += f" ({summary['policy_file']})"
        if "stochastic" in summary:
            what += " (stochastic)" if summary.get("stochastic") else " (deterministic)"
        return what
    if source == "lp":
        check = summary.get("synthesis_check")
        return ("greedy optimum of the private model by the occupancy-measure LP (HiGHS; "
                "deterministic)" + ("" if check is None else
                                    f"; its values agree with induction to {_fmt(check)}"))
    return "greedy optimum of the private model (deterministic)"


@reporter("bounds")
def _bounds_section(project: Any, run: Any) -> Section:
    """Policy on one privatised model and its cost-of-privacy bounds (Theorem 1 or 2).

    ``summary`` is the MDP workspace's (``PrivatePolicy.summary()`` with ``state_ids`` and
    ``policy_ids``): values per stage and state, π̄ per stage.
    """
    s = run.summary
    p = run.params
    entry = next((e for e in project.mdps if e.id == run.target), None)
    name = entry.model.name if entry is not None else run.target
    sec = Section(f"Private policy and bounds for {name} ({run.id})", id=f"run-{run.id}")

    def label(item: Any) -> str:
        if entry is None or item is None:
            return _fmt(item)
        try:
            text: str = entry.model.label(str(item))
            return text
        except (KeyError, ValueError, IndexError):
            return str(item)

    sec.blocks.append(KeyValues((
        ("MDP", f"{name} [{run.target}]"), ("randomness", _mode_text(run)),
        ("k", _fmt(s.get("k", p.get("k")), 6)), ("β", _fmt(s.get("beta", p.get("beta")))),
        ("α radius", f"{_fmt(s.get('alpha'))} ({s.get('alpha_mode', p.get('alpha_mode', ''))})"),
        ("horizon", "∞" if s.get("horizon") is None else _fmt(s.get("horizon"))),
        ("π̄", _policy_text(s)),
        ("cost-of-privacy bound at s₀", _fmt(s.get("cost_bound"))),
        ("status", str(s.get("status", ""))), ("created", _time(run.created))), "Parameters"))
    states = list(s.get("state_ids") or [])
    pol = s.get("policy_ids") or s.get("policy") or []
    first = pol[0] if pol and isinstance(pol[0], list) else pol

    def stage0(key: str) -> list[Any]:
        v = s.get(key) or []
        return v[0] if v and isinstance(v[0], list) else v

    lo, mid, hi = stage0("v_lower"), stage0("v_private"), stage0("v_upper")
    if states and len(lo) == len(mid) == len(hi) == len(states):
        # a large model lists its first REPORT_MAX_STATES states (the file has them all)
        shown = range(min(len(states), REPORT_MAX_STATES))
        rows = tuple((label(states[i]), label(first[i]) if i < len(first) else "–",
                      _fmt(lo[i]), _fmt(mid[i]), _fmt(hi[i])) for i in shown)
        title = "Policy and values at stage 0"
        if len(states) > REPORT_MAX_STATES:
            title += (f" (the first {REPORT_MAX_STATES:,} of {len(states):,} states; the "
                      "project file has every state)")
        head = "most likely action (stage 0)" if "policy_probs" in s else "π̄ action (stage 0)"
        sec.blocks.append(Table(("state", head, "v̲ pessimistic",
                                 "V̄ private", "v̄ optimistic"), rows, title))
    for w in s.get("warnings", []) or []:
        sec.blocks.append(Paragraph(str(w), "warning"))
    return sec


def _mdp_section(project: Any) -> Section:
    sec = Section("Models", id="models")
    rows = []
    for e in project.mdps:
        m = e.model
        rows.append((e.id, m.name, str(m.n_states), str(sum(len(a) for a in m.action_ids)),
                     "∞" if m.horizon is None else str(m.horizon), _fmt(m.discount),
                     m.summary()))
    if rows:
        sec.blocks.append(Table(("id", "name", "states", "state–action pairs", "horizon",
                                 "discount", "validity"), tuple(rows)))
    for e in project.mdps:
        if e.note:
            sec.blocks.append(Paragraph(f"{e.model.name}: {e.note}", "note"))
    return sec
