"""The Privacy plan tab's words: tooltips of the privacy parameters, the info panel, and how
a release's key public parameters and forecast are written."""

from __future__ import annotations

import math
from typing import Any

from core.plan import KNOBS, PlannedRelease, ReleaseBudget

__all__ = ["BUTTONS", "TOOLTIPS", "INFO_HTML", "EMPTY_TEXT", "params_text", "knob_text",
           "forecast_text", "fmt_eps", "KIND_TEXT"]

#: One sentence per privacy word: what it means and which way is more private.
TOOLTIPS = {
    "epsilon": "ε — the privacy loss a release may cause: smaller is more private (the "
               "output changes less when one person's data change).",
    "delta": "δ — the probability that the ε guarantee fails: smaller is more private.",
    "k": "k — the Dirichlet concentration of a privatised model: smaller k adds more noise "
         "to the transition rows, so it is more private (smaller ε) and less accurate.",
    "sigma": "σ — the Gaussian noise's standard deviation (relative to the sensitivity for "
             "DP-SGD): larger σ is more private.",
    "eta": "η — the floor mixed into every privatised row: larger η bounds the loss "
           "(more private) at some cost in accuracy.",
    "b": "b — how far (L1) neighbouring transition rows may differ: smaller b protects "
         "less; it is the adjacency the guarantee holds for.",
    "beta": "β — the failure probability of the value bounds (confidence 1 − β).",
    "share": "The release's own ε as a share of the plan's total ε. Moving it sets the "
             "release's knob (Laplace ε, Gaussian or DP-SGD σ, MDP k) to one of the "
             "allocation's grid choices; the composed ε is recomputed (PLD composition "
             "usually costs less than the sum of the shares).",
    "forecast": "Forecast utility in [0, 1], normalised to the release without privacy, "
                "computed from public inputs only (no privacy is spent).",
    "gauge": "The composed (ε, δ) of the whole plan against its total: privacy-loss "
             "distributions composed at the plan's δ (tight, pessimistically "
             "discretised), and basic composition (the sum of the releases' own ε) beside "
             "it. The dashed line is the plan's total ε.",
}

#: The tab's buttons: key -> (text, tooltip).
BUTTONS = {
    "open": ("Open plan…", "Read a plan (*.plan.json) and store it in the project's plans "
                           "(undoable)."),
    "save": ("Save plan…", "Write the plan shown as a *.plan.json file."),
    "weights": ("Split by weights", "Give each adjustable release an ε in proportion to its "
                "weight, scaled up as far as the composition fits (in the worker)."),
    "optimise": ("Optimise", "Maximise Σ weight × forecast utility within the budget (in "
                 "the worker; releases without a forecast keep their parameters)."),
    "execute": ("Execute into project", "Record every release of this feasible plan in the "
                "open project's file (one run of kind plan, one ledger entry per release). "
                "Spent privacy cannot be undone."),
    "estimates": ("Estimates", "Forecast the simulated kinds (logistics, advising, sharing) "
                  "by small seeded simulations on public stand-ins: a second or more per "
                  "release."),
}

KIND_TEXT = {"laplace": "Laplace", "gaussian": "Gaussian", "dpsgd": "DP-SGD",
             "mdp": "MDP (Dirichlet)", "logistics": "logistics", "advising": "advising",
             "sharing": "policy sharing"}

EMPTY_TEXT = ("Open a plan (*.plan.json) to see its releases, their budget shares and "
              "forecasts, and whether the whole study fits its (ε, δ).")

INFO_HTML = (
    "<b>Privacy plan</b><p>A study releases the same data several times. The plan lists "
    "those releases with their public parameters under one total (ε, δ); nothing in it is "
    "private, so planning costs no privacy.</p>"
    "<p><b>Share</b>: each release's own ε as a share of the total. Moving a slider sets "
    "the release's knob (Laplace ε, Gaussian or DP-SGD σ, the MDP's k) to one of the "
    "allocation's choices; its forecast bar follows at once, the composed budget after the "
    "worker recomposes it.</p>"
    "<p><b>Gauge</b>: the composed ε by privacy-loss-distribution (PLD) composition, basic "
    "composition (Σε) beside it, against the plan's ε (dashed). A plan that does not fit "
    "names the first release that takes it past the budget, and cannot be executed.</p>"
    "<p><b>Split by weights</b> gives each release an ε in proportion to its weight; "
    "<b>Optimise</b> maximises Σ weight × forecast utility within the budget.</p>"
    "<p><b>Execute</b> records every release of a feasible plan in the open project's file "
    "(a run of kind <i>plan</i> and one ledger entry per release); an MDP release naming a "
    "model of the project is privatised then. It cannot be undone: a release cannot be "
    "un-spent.</p>")


def fmt_eps(x: float | None) -> str:
    """ε as written in the tab (∞ for an unbounded one)."""
    if x is None or not math.isfinite(x):
        return "∞"
    return f"{x:.3g}" if x < 100 else f"{x:.0f}"


def knob_text(release: PlannedRelease) -> str:
    """The knob an allocation and the slider set, with its value (``σ = 1.3``)."""
    knob = KNOBS[release.kind]
    v = release.params.get(knob)
    if v is None and release.kind in ("gaussian", "mdp"):
        v, knob = release.params.get("epsilon"), "epsilon"
    sym = {"epsilon": "ε", "sigma": "σ", "k": "k"}[knob]
    return f"{sym} = {v:.4g}" if isinstance(v, (int, float)) else f"{sym} = {v}"


def params_text(release: PlannedRelease) -> str:
    """The release's key public parameters on one line (besides its knob)."""
    p = release.params
    kind = release.kind
    parts: list[str] = [knob_text(release)]
    if kind in ("laplace", "gaussian"):
        parts.append(f"Δ = {p['sensitivity']:g}")
    elif kind == "dpsgd":
        parts += [f"q = {p['sample_rate']:g}", f"{p['steps']} steps"]
    elif kind == "mdp":
        parts += [f"{p['mdp']}", f"η = {p['eta']}", f"b = {p['b']:g}"]
    elif kind == "logistics":
        parts.append(f"{p['map']}")
    elif kind == "sharing":
        parts += [f"k₀ = {p['k0']:g}", f"c = {p['c']:g}"]
    if release.fixed:
        parts.append("fixed")
    return ", ".join(parts)


def forecast_text(item: ReleaseBudget) -> tuple[str, str]:
    """(the bar's text, its tooltip) for one release's forecast."""
    f = item.forecast
    own = f"own ε = {fmt_eps(item.epsilon)} at δ = {item.delta:.2g}"
    if f.utility is None:
        return "no forecast", f"{own}\nNo forecast: {f.reason}"
    value = "" if f.value is None else f"\n{f.metric}: {f.value:.4g}"
    extra = "".join(f"\n{k}: {_short(v)}" for k, v in f.details)
    return f"{100 * f.utility:.0f} %", f"{own}\nutility {f.utility:.3f}{value}{extra}"


def _short(v: Any) -> str:
    return f"{v:.4g}" if isinstance(v, float) else str(v)
