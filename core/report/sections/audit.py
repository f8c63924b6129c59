"""Report section of an empirical privacy audit."""

from __future__ import annotations

import math
from typing import Any

from core.report.model import (
    Figure,
    KeyValues,
    Paragraph,
    Section,
    Series,
    Table,
    _eps,
    _fmt,
    _mode_text,
    _time,
    reporter,
)

__all__: list[str] = []


def _claim_boundary(eps: float, delta: float, n: int = 101) -> tuple[tuple[float, ...],
                                                                      tuple[float, ...]]:
    """The most TPR any test reaches at each FPR if the mechanism is (ε, δ)-DP:
    min(δ + e^ε·FPR, 1 − e^{−ε}(1 − δ − FPR), 1) (Kairouz, Oh & Viswanath 2015)."""
    xs = tuple(i / (n - 1) for i in range(n))
    e = math.exp(min(eps, 700.0))
    ys = tuple(max(0.0, min(delta + e * x, 1.0 - (1.0 - delta - x) / e, 1.0)) for x in xs)
    return xs, ys


@reporter("audit")
def _audit_section(project: Any, run: Any) -> Section:
    """An empirical privacy audit (``summary`` = ``AuditResult.to_dict()``, JSON-safe).

    ε_lb ≤ ε_tight ≤ ε_claimed side by side, the verdict (a violation is a warning
    paragraph), the worst pair, the attack's ROC against the boundary the claim allows.
    """
    s = run.summary
    label = s.get("label") or s.get("mechanism") or run.target
    sec = Section(f"Privacy audit: {label} ({run.id})", id=f"run-{run.id}")
    params = s.get("parameters") or (run.params.get("params") or {})
    conf = s.get("confidence")
    conf_text = "–" if conf is None else f"{100 * float(conf):g} %"
    sec.blocks.append(KeyValues((
        ("mechanism", str(label)), ("randomness", _mode_text(run)),
        ("public parameters", ", ".join(f"{k} = {_fmt(v)}" for k, v in params.items()
                                        if not isinstance(v, (list, dict))) or "–"),
        ("samples per side", _fmt(s.get("samples"))), ("confidence of ε_lb", conf_text),
        ("created", _time(run.created))), "Parameters"))
    claimed = s.get("epsilon_claimed")
    claimed_text = _eps(claimed, s.get("epsilon_claimed_reason") or "")
    tight = s.get("epsilon_tight")
    tight_text = (f"unknown ({s.get('epsilon_tight_reason') or 'output densities unknown'})"
                  if tight is None else _fmt(tight)
                  + (f" ({s.get('epsilon_tight_method')})"
                     if s.get("epsilon_tight_method") else ""))
    sec.blocks.append(Table(
        ("ε_lb (attack)", "ε_tight (exact)", "ε_claimed", "δ_claimed", "verdict"),
        ((f"{_fmt(s.get('epsilon_lb'))} at {conf_text}", tight_text, claimed_text,
          _fmt(s.get("delta_claimed"), 3), str(s.get("verdict", "–"))),),
        "ε_lb ≤ ε_tight ≤ ε_claimed",
        note="ε_lb is proven by the attack with the stated confidence (Clopper–Pearson on "
             "both error rates); ε_tight is the exact ε of the worst pair where the output "
             "densities are known; ε_claimed is PrivPlan's own guarantee. A violation "
             "means ε_lb > ε_claimed.", widths=(20, 26, 22, 14, 18)))
    if s.get("verdict") == "violation":
        sec.blocks.append(Paragraph(
            f"VIOLATION: the attack proves ε ≥ {_fmt(s.get('epsilon_lb'))} with {conf_text} "
            f"confidence, above the claimed ε = {claimed_text}. The stated guarantee of this "
            "mechanism does not hold.", "warning"))
    elif claimed is None or math.isinf(float(claimed)):
        sec.blocks.append(Paragraph(
            f"No finite ε is claimed ({s.get('epsilon_claimed_reason') or 'unbounded'}), so "
            f"the audit cannot find a violation; its ε_lb = {_fmt(s.get('epsilon_lb'))} shows "
            "how much an observer learns.", "note"))
    pair = s.get("pair")
    att = s.get("attack") or {}
    items = [("adjacency", str(s.get("adjacency", "–")))]
    if isinstance(pair, dict):
        items.append(("worst pair", str(pair.get("description") or "")))
        items += [(f"  {k}", _fmt(v) if not isinstance(v, list) else
                   "[" + ", ".join(_fmt(x) for x in v) + "]")
                  for k, v in pair.items() if k != "description"]
    elif pair is not None:
        items.append(("worst pair", str(pair)))
    if att.get("fpr") is not None:
        items.append(("attack", f"{att.get('kind', '')} ({att.get('features', '')}): FPR "
                                f"{_fmt(att.get('fpr'))} ≤ {_fmt(att.get('fpr_upper'))}, FNR "
                                f"{_fmt(att.get('fnr'))} ≤ {_fmt(att.get('fnr_upper'))} on "
                                f"{_fmt(att.get('samples_evaluated'))} per side"))
    sec.blocks.append(KeyValues(tuple(items), "Worst pair and attack"))
    roc = [(float(p[0]), float(p[1])) for p in s.get("roc") or [] if len(p) == 2]
    if roc:
        series = [Series("attack ROC", tuple(p[0] for p in roc), tuple(p[1] for p in roc))]
        if claimed is not None and math.isfinite(float(claimed)):
            bx, by = _claim_boundary(float(claimed), float(s.get("delta_claimed") or 0.0))
            series.append(Series(f"limit if ({_fmt(claimed)}, "
                                 f"{_fmt(s.get('delta_claimed'), 3)})-DP holds", bx, by,
                                 dashed=True))
        series.append(Series("chance (ε = 0)", (0.0, 1.0), (0.0, 1.0), dashed=True))
        sec.blocks.append(Figure(
            f"{run.id}-roc", "Attack ROC (evaluation split)", "false-positive rate",
            "true-positive rate", tuple(series),
            caption="A test against an (ε, δ)-DP mechanism cannot rise above the dashed "
                    "limit; the attack's curve above it is a violation."))
    for n in s.get("notes", []) or []:
        sec.blocks.append(Paragraph(str(n), "note"))
    return sec
