"""Report sections of DP advising: one run, and an experiment over many seeds."""

from __future__ import annotations

import math
from typing import Any

from core.common.palette import arm_colour
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
    _reason_at,
    _time,
    reporter,
)

__all__: list[str] = []


@reporter("advise")
def _advise_section(project: Any, run: Any) -> Section:
    """One DP advising run.

    ``summary`` is the advising workspace's summary (``gui.advising.results.single_summary``:
    ``setup``, ``convergence``, ``curve_epochs``, ``privacy`` …) or the ``advise --json``
    object (:meth:`core.advising.framework.AdvisingResult.to_dict`: ``preset``,
    ``composition`` …); both are read.
    """
    s = run.summary
    prm = {**(s.get("params") or {}), **(run.params.get("params") or {}), **run.params}
    name = s.get("setup") or s.get("preset") or run.target
    sec = Section(f"Advising run on {name} ({run.id})", id=f"run-{run.id}")
    agents = [str(a) for a in s.get("agents", [])]
    sec.blocks.append(KeyValues((
        ("set-up", str(name)), ("randomness", _mode_text(run)),
        ("strategy", str(s.get("strategy", prm.get("strategy", "")))),
        ("variant", str(s.get("variant", prm.get("variant", "")))),
        ("ε per advice (nominal)", _fmt(s.get("epsilon", prm.get("epsilon")))),
        ("epochs", _fmt(s.get("epochs"))), ("agents", ", ".join(agents)),
        ("ask / give budgets", f"{_fmt(prm.get('ask_budget'))} / "
                               f"{_fmt(prm.get('give_budget'))}"),
        ("created", _time(run.created))), "Parameters"))
    conv = [float(c) for c in s.get("convergence", []) if c is not None]
    if conv:
        epochs = [float(e) for e in s.get("curve_epochs", range(1, len(conv) + 1))]
        xs, ys = tuple(epochs[:len(conv)]), tuple(conv[:len(epochs)])
        if s.get("initial_convergence") is not None:
            xs, ys = (0.0, *xs), (float(s["initial_convergence"]), *ys)
        sec.blocks.append(Figure(
            f"{run.id}-convergence", "Convergence ratio vs epoch", "epoch",
            "convergence ratio",
            (Series("convergence", xs, ys, colour=arm_colour(str(s.get("strategy", "dp")))),)))
        e90 = s.get("epochs_to_90")
        advice = s.get("advice_total")
        sec.blocks.append(KeyValues((
            ("AUC over the first 200 epochs", _fmt(s.get("auc200"))),
            ("final convergence ratio", _fmt(s.get("cr_final", conv[-1]))),
            ("90 % reached at epoch", "never" if e90 is None else _fmt(e90)),
            ("advice events", _fmt(advice if isinstance(advice, int) else
                                   s.get("advice_events"))),
            ("last advice at epoch", _fmt(s.get("last_advice_epoch")))), "Results"))
    priv = s.get("privacy") or s.get("composition") or {}
    if agents and priv.get("basic") is not None:
        raw = priv.get("unprotected", priv.get("unprotected_releases")) or []

        def at(values: Any, i: int) -> str:
            values = values or []
            return _fmt(values[i]) if i < len(values) else "–"

        def eps_at(key: str, i: int) -> str:  # null ε with a reason is unbounded
            values = priv.get(key) or []
            if i >= len(values):
                return "–"
            why = _reason_at(priv.get(f"{key}_reason"), i)
            v = values[i]
            return _eps(v, why) if (v is None and why) or isinstance(v, float) else _fmt(v)

        rows = tuple((a, at(priv.get("releases"), i), at(raw, i), eps_at("basic", i),
                      eps_at("advanced", i), eps_at("rdp", i))
                     for i, a in enumerate(agents))
        sec.blocks.append(Table(
            ("teacher", "noisy releases", "raw releases", "ε basic", "ε advanced", "ε RDP"),
            rows, "Privacy per teacher (true ε)", note=str(priv.get("statement", ""))))
    for n in s.get("notes", []) or []:
        sec.blocks.append(Paragraph(str(n), "note"))
    return sec


@reporter("advise-experiment")
def _advise_experiment_section(project: Any, run: Any) -> Section:
    """An advising experiment (``gui.advising.results.experiment_summary``): arms over seeds."""
    from core.advising.records import CONVERGENCE_RANGE

    s = run.summary
    title = s.get("experiment") or run.params.get("experiment") or "experiment"
    sec = Section(f"Advising {title} ({run.id})", id=f"run-{run.id}")
    seeds = s.get("seeds") or []
    sec.blocks.append(KeyValues((
        ("randomness", str(s.get("randomness") or _mode_text(run))),
        ("seeds", f"{len(seeds)} ({_fmt(min(seeds))}–{_fmt(max(seeds))})" if seeds else "–"),
        ("epochs", _fmt(s.get("epochs"))), ("δ of advanced / RDP", _fmt(s.get("delta"))),
        ("created", _time(run.created))), "Parameters"))
    arms = [a for a in s.get("arms", []) if isinstance(a, dict)]
    epochs = [float(e) for e in s.get("curve_epochs", [])]
    series = []
    labels = [str(a.get("label", "")) for a in arms]
    for a in arms:
        m = [float(v) if v is not None else math.nan for v in a.get("cr_mean", [])]
        ci = [float(v) if v is not None else 0.0 for v in a.get("cr_ci", [])]
        n = min(len(m), len(epochs))
        if n:
            label = str(a.get("label", ""))
            series.append(Series.around(label, tuple(epochs[:n]), tuple(m[:n]),
                                        tuple(ci[:n]) if len(ci) >= n else None,
                                        CONVERGENCE_RANGE, colour=arm_colour(label, labels)))
    if series:
        sec.blocks.append(Figure(f"{run.id}-convergence", "Mean convergence ratio vs epoch "
                                 "(± 95 % CI over seeds)", "epoch", "convergence ratio",
                                 tuple(series)))
    if arms:
        sec.blocks.append(Table(
            ("arm", "strategy", "ε", "AUC₂₀₀", "final ratio", "advice", "worst teacher "
             "ε basic / advanced / RDP"),
            tuple((str(a.get("label", "")), str(a.get("strategy", "")), _fmt(a.get("epsilon")),
                   f"{_fmt(a.get('auc200'))} ± {_fmt(a.get('auc200_ci'), 2)}",
                   f"{_fmt(a.get('cr_final'))} ± {_fmt(a.get('cr_final_ci'), 2)}",
                   _fmt(a.get("advice")),
                   " / ".join(_eps((a.get("privacy") or {}).get(k),
                                   (a.get("privacy") or {}).get(f"{k}_reason", ""))
                              for k in ("worst_basic", "worst_advanced", "worst_rdp")))
                  for a in arms), "Arms (means over seeds)"))
    comps = [c for c in s.get("comparisons", []) if isinstance(c, dict)]
    if comps:
        sec.blocks.append(Table(
            ("a − b", "horizon", "mean AUC difference", "a wins"),
            tuple((f"{c.get('a')} − {c.get('b')}", _fmt(c.get("horizon")),
                   f"{_fmt(c.get('mean'))} ± {_fmt(c.get('ci'), 2)}",
                   f"{_fmt(c.get('wins'))} of {_fmt(c.get('n'))}") for c in comps),
            "Paired comparisons with the first arm"))
    return sec
