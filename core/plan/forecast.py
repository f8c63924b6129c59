"""Forecast utility of each planned release, from public inputs only.

A forecast says what a release is expected to be worth before anything is spent. Each is
computed from the release's public parameters and public proxies; where no honest forecast
exists it is ``None`` with the reason, never invented.

* ``laplace`` / ``gaussian``: the probability that the released answer is within
  ``tolerance`` (default: the sensitivity, one person's effect) of the true one —
  1 − exp(−t·ε/Δ) for Laplace noise of scale Δ/ε, erf(t/(σ√2)) for Gaussian noise; 1 without
  noise. The expected absolute error is given beside it.
* ``mdp``: the robust cost-of-privacy bound (Theorem 2, confidence 1 − β) at (k, η) on the
  designer's public proxy (every row uniform on its support, the model's rewards;
  :func:`core.mdp.design.public_proxy`); normalised as 1 − bound / U with U the value range
  (no privacy costs 0, so 1).
* ``dpsgd``: the accuracy the user measured on a public-data proxy at a few ε
  (``proxy_accuracy``, [[ε, accuracy], …]), interpolated linearly in log ε at the release's
  ε; normalised by ``nonprivate_accuracy``. Without a proxy curve: None.
* ``logistics``, ``advising``, ``sharing``: an estimate from small seeded simulations on public
  stand-ins (:mod:`core.plan.simulate`): the expected route overhead and messages per plan
  on synthetic worlds, the advising gain on the public preset, the student's expected return
  on a public environment. They take a second or more each, so they are computed on demand
  (``estimates=True``); otherwise None with that reason.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from core.plan.accounting import model_memo

__all__ = ["Forecast", "forecast_release"]


@dataclass(frozen=True)
class Forecast:
    """A release's forecast: ``metric`` and its ``value`` (None with ``reason``), and
    ``utility`` in [0, 1] normalised to the release without privacy (None when unknown)."""

    metric: str
    value: float | None
    utility: float | None
    reason: str = ""
    details: tuple[tuple[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"metric": self.metric, "value": self.value,
                             "utility": self.utility}
        if self.value is None:
            d["value_reason"] = self.reason
        if self.utility is None:
            d["utility_reason"] = self.reason
        d.update(dict(self.details))
        return d


#: What a simulated kind's forecast measures, and its unit.
SIMULATED = {
    "logistics": ("expected route overhead (stretch - 1, synthetic worlds)",
                  "simulation on seeded synthetic worlds"),
    "advising": ("advising gain (convergence-ratio AUC over no advice, public preset)",
                 "simulation of the public preset"),
    "sharing": ("student's expected return (mean J over the iterations, public environment)",
                "simulation on the public environment"),
}
ON_DEMAND = ("a simulation estimate (a second or more per release): computed on demand "
             "(budget --estimate, or Estimate in the window)")


def _simulated(kind: str, p: dict[str, Any], estimates: bool) -> Forecast:
    from core.plan import simulate

    metric, what = SIMULATED[kind]
    if not estimates:
        return Forecast(metric, None, None, ON_DEMAND, details=(("estimate", "on demand"),))
    details: tuple[tuple[str, Any], ...]
    if kind == "logistics":
        r = simulate.logistics_estimate(p["epsilon"], p["preset"], p["centers"])
        value = r["route_overhead"]
        details = (("messages_per_plan", r["messages"]), ("delivery_rate", r["success"]),
                   ("worlds", simulate.LOGISTICS_WORLDS))
    elif kind == "advising":
        r = simulate.advising_estimate(p["epsilon"], p["preset"])
        value = r["gain"]
        details = (("auc", r["auc"]), ("auc_no_advice", r["auc_none"]),
                   ("auc_traditional", r["auc_traditional"]),
                   ("seeds", simulate.ADVISING_SEEDS), ("epochs", simulate.ADVISING_EPOCHS))
    else:
        r = simulate.sharing_estimate(p["k0"], p["c"], p["rollouts"], p["env"])
        value = r["return"]
        details = (("return_no_teacher", r["return_none"]),
                   ("return_nonprivate", r["return_nonprivate"]),
                   ("seeds", simulate.SHARING_SEEDS),
                   ("iterations", simulate.SHARING_ITERATIONS))
    util = r["utility"]
    ok = math.isfinite(value)
    return Forecast(metric, value if ok else None,
                    util if ok and math.isfinite(util) else None,
                    "" if ok and math.isfinite(util) else
                    "the simulation delivered nothing to measure or normalise by",
                    details=(("estimate", what), *details))


def _noise(kind: str, p: dict[str, Any]) -> Forecast:
    tol = float(p.get("tolerance") or p["sensitivity"])
    if kind == "laplace":
        scale = p["sensitivity"] / p["epsilon"]
        u = 1.0 - math.exp(-tol / scale)
        err = scale
    else:
        scale = float(p["sigma"])
        u = math.erf(tol / (scale * math.sqrt(2.0)))
        err = scale * math.sqrt(2.0 / math.pi)
    return Forecast(f"P(|error| <= {tol:g})", u, u,
                    details=(("expected_abs_error", err), ("tolerance", tol)))


@model_memo
def _mdp_cost(model: Any, k: float, eta: Any, beta: float) -> tuple[float, float]:
    from core.mdp.design import public_proxy, value_range
    from core.mdp.privatize import mechanism_rows
    from core.mdp.robust import centre_shift, cost_of_privacy

    proxy = public_proxy(model)
    shift = centre_shift(mechanism_rows(proxy, eta=eta, domain_rule="mix"),
                         (proxy.n_states, proxy.n_actions))
    cost = float(cost_of_privacy(proxy, k=k, beta=beta, centre_shift=shift).cost_bound)
    return cost, float(value_range(model))


def _dpsgd(p: dict[str, Any], epsilon: float) -> Forecast:
    metric = "accuracy (public-data proxy)"
    curve = p.get("proxy_accuracy")
    if not curve:
        return Forecast(metric, None, None, "no public-data proxy given (proxy_accuracy: "
                                            "[[epsilon, accuracy], ...] measured on public "
                                            "data)")
    if not math.isfinite(epsilon):
        return Forecast(metric, None, None, "the release has no finite epsilon")
    xs = [math.log(e) for e, _ in curve]
    ys = [a for _, a in curve]
    x = math.log(epsilon)
    if x < xs[0] or x > xs[-1]:
        return Forecast(metric, None, None, f"epsilon {epsilon:.3g} is outside the proxy "
                                            f"curve's range [{curve[0][0]:g}, "
                                            f"{curve[-1][0]:g}]")
    j = max(i for i in range(len(xs)) if xs[i] <= x)
    j = min(j, len(xs) - 2)
    w = (x - xs[j]) / (xs[j + 1] - xs[j]) if xs[j + 1] > xs[j] else 0.0
    acc = ys[j] + w * (ys[j + 1] - ys[j])
    base = p.get("nonprivate_accuracy")
    util = min(1.0, acc / base) if base else None
    return Forecast(metric, acc, util, "" if base else "no nonprivate_accuracy given to "
                                                       "normalise by")


def forecast_release(release: Any, epsilon: float, model: Any = None, *,
                     estimates: bool = False) -> Forecast:
    """The forecast of one resolved release whose own ε is ``epsilon``.

    Parameters
    ----------
    release : PlannedRelease
        The release (σ or k resolved).
    epsilon : float
        Its own ε at its δ (the DP-SGD proxy curve is read there).
    model : MDP, optional
        The model of an ``mdp`` release (only its supports and rewards are read).
    estimates : bool
        Run the simulated kinds' estimates (:mod:`core.plan.simulate`); without, their
        forecast is None, computed on demand.

    Returns
    -------
    Forecast

    Examples
    --------
    >>> from core.plan.document import PlannedRelease
    >>> f = forecast_release(PlannedRelease("c", "laplace", {"epsilon": 1.0,
    ...                      "sensitivity": 1.0, "tolerance": None}), 1.0)
    >>> round(f.utility, 4)   # 1 - exp(-1)
    0.6321
    """
    kind, p = release.kind, release.params
    if kind in ("laplace", "gaussian"):
        return _noise(kind, p)
    if kind == "dpsgd":
        return _dpsgd(p, epsilon)
    if kind == "mdp":
        cost, span = _mdp_cost(model, float(p["k"]), p["eta"], float(p["beta"]))
        util = max(0.0, 1.0 - cost / span) if span > 0 else None
        return Forecast("cost-of-privacy bound (public proxy)", cost, util,
                        "" if util is not None else "the rewards have no range",
                        details=(("value_range", span),))
    return _simulated(kind, p, estimates)
