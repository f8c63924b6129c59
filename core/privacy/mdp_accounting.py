"""Privacy accounting of a whole privatised MDP, and the accuracy of the mechanism.

Algorithm 1 privatises every row P(s, a) independently with the same k. The sources
are silent on MDP-level adjacency (spec §2.9 end); PrivPlan states the assumption:

* ``"one-row"``: neighbouring MDPs differ in one row, by at most b in L1 (b-adjacent in
  the sense of [D] Def. 1.1). Parallel composition: the release is (max εᵢ, max δᵢ)-DP.
* ``"all-rows"``: every row may change. Basic composition: (Σ εᵢ, Σ δᵢ).

Each row gets its own domain: W = its support minus the last support index, η = the
smallest entry in W and η̄ = the last entry (spec §8.2), unless the caller fixes η and η̄
for every row. Rows outside the guarantee (fewer than three possible next states, or
entries below a fixed η) are listed with the reason, never hidden.

Examples
--------
>>> from core.examples import four_startups
>>> r = mdp_privacy(four_startups(), 50, b=0.1, delta_target=0.05)
>>> r.adjacency, len(r.rows), r.n_applicable
('one-row', 6, 6)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from core._validation import InputError, check_beta, check_k
from core.mdp import MDP
from core.privacy.dirichlet_accounting import DirichletPrivacy, dirichlet_privacy

__all__ = ["ADJACENCIES", "RowPrivacy", "MdpPrivacy", "mdp_privacy", "DirichletAccuracy",
           "dirichlet_accuracy", "ADJACENCY_TEXT"]

ADJACENCIES = ("one-row", "all-rows")
ADJACENCY_TEXT = {
    "one-row": "neighbouring MDPs differ in one transition row, by at most b in L1 "
               "(parallel composition: the worst row)",
    "all-rows": "every transition row may differ, each by at most b in L1 "
                "(basic composition: the sum over rows)",
}


@dataclass(frozen=True)
class RowPrivacy:
    state: str
    action: str
    support: int
    w: int
    eta: float
    eta_bar: float
    result: DirichletPrivacy | None
    reason: str = ""

    @property
    def applicable(self) -> bool:
        return self.result is not None


@dataclass(frozen=True)
class MdpPrivacy:
    k: float
    b: float
    delta_target: float
    adjacency: str
    rows: tuple[RowPrivacy, ...]
    epsilon: float
    delta: float

    @property
    def n_applicable(self) -> int:
        return sum(r.applicable for r in self.rows)

    @property
    def not_applicable(self) -> tuple[RowPrivacy, ...]:
        return tuple(r for r in self.rows if not r.applicable)

    @property
    def statement(self) -> str:
        n_out = len(self.rows) - self.n_applicable
        s = (f"k = {self.k:g}: ({self.epsilon:.4g}, {self.delta:.3g})-DP, assuming "
             f"{ADJACENCY_TEXT[self.adjacency]}")
        if n_out:
            s += f"; {n_out} of {len(self.rows)} rows have no guarantee (listed)"
        return s

    def to_dict(self) -> dict[str, object]:
        return {
            "k": self.k, "b": self.b, "delta_target": self.delta_target,
            "adjacency": self.adjacency, "epsilon": self.epsilon, "delta": self.delta,
            "statement": self.statement,
            "rows": [{"state": r.state, "action": r.action, "support": r.support, "w": r.w,
                      "eta": r.eta, "eta_bar": r.eta_bar, "applicable": r.applicable,
                      "reason": r.reason,
                      "epsilon": None if r.result is None else r.result.epsilon,
                      "delta": None if r.result is None else r.result.delta,
                      "delta_method": None if r.result is None else r.result.delta_method}
                     for r in self.rows],
        }


def mdp_privacy(mdp: MDP, k: float, *, b: float = 0.1, delta_target: float = 0.05,
                adjacency: str = "one-row", eta: float | None = None,
                eta_bar: float | None = None, delta_method: str = "auto",
                zeros: str = "support", smoothing: float = 0.01) -> MdpPrivacy:
    """Per-row and composed (ε, δ) of privatising ``mdp`` with Dir_k (see module docstring).

    ``zeros`` must match the privatisation: with ``"smoothing"`` the rows are first mixed
    with the uniform distribution (as :func:`core.privacy.dirichlet.privatize_mdp` does).
    """
    k = check_k(k)
    if adjacency not in ADJACENCIES:
        raise InputError(f"must be one of {ADJACENCIES}, got {adjacency!r}", field="adjacency")
    if not (isinstance(b, (int, float)) and 0 < b <= 1):
        raise InputError(f"must lie in (0, 1], got {b!r}", field="b")
    check_beta(delta_target, "delta")
    if (eta is None) != (eta_bar is None):
        raise InputError("give both eta and eta_bar, or neither (per-row defaults)",
                         field="eta")
    rows: list[RowPrivacy] = []
    n = mdp.n_states
    for s in range(n):
        for a in mdp.available_actions(s):
            p = mdp.P[s, a]
            if zeros == "smoothing" and (p == 0).any():
                p = (1.0 - smoothing) * p + smoothing / n
            support = np.flatnonzero(p > 0)
            name = (mdp.state_names[s], mdp.action_names[s][a])
            w = support.size - 1
            if w < 2:
                rows.append(RowPrivacy(*name, support.size, max(w, 0), math.nan, math.nan, None,
                                       "fewer than 3 possible next states: |W| >= 2 is needed"))
                continue
            in_w, last = p[support[:-1]], float(p[support[-1]])
            e, eb = (float(in_w.min()), last) if eta is None else (float(eta), float(eta_bar))
            if eta is not None and (in_w.min() < e or p.sum() - in_w.sum() < eb):
                rows.append(RowPrivacy(*name, support.size, w, e, eb, None,
                                       "row lies outside the domain set by eta / eta_bar"))
                continue
            try:
                res = dirichlet_privacy(k, e, eb, w, b, delta_target=delta_target,
                                        delta_method=delta_method)
            except InputError as exc:
                rows.append(RowPrivacy(*name, support.size, w, e, eb, None, str(exc)))
                continue
            rows.append(RowPrivacy(*name, support.size, w, e, eb, res))
    eps = [r.result.epsilon for r in rows if r.result is not None]
    dels = [r.result.delta for r in rows if r.result is not None]
    if adjacency == "one-row":
        e_tot, d_tot = (max(eps), max(dels)) if eps else (math.inf, 1.0)
    else:
        e_tot, d_tot = (sum(eps), min(1.0, sum(dels))) if eps else (math.inf, 1.0)
    return MdpPrivacy(k=k, b=float(b), delta_target=float(delta_target), adjacency=adjacency,
                      rows=tuple(rows), epsilon=e_tot, delta=d_tot)


# --------------------------------------------------------------------------- accuracy
@dataclass(frozen=True)
class DirichletAccuracy:
    """Accuracy of Dir_k (spec §3): variance, expected squared error and radius α."""

    k: float
    beta: float
    n: int
    variance_bound: float  # 1 / (4 (k + 1)), the worst case p_i = 1/2 (Lemma 1.8)
    variance: tuple[float, ...] | None  # p_i (1 - p_i) / (k + 1) when p is given
    expected_sq_error: float | None  # E ||x - p||² = (1 - ||p||²) / (k + 1)
    alpha_paper: float
    alpha_rigorous: float
    note: str


def dirichlet_accuracy(k: float, *, n: int, p: "np.ndarray | None" = None, beta: float = 0.05
                       ) -> DirichletAccuracy:
    """Accuracy figures of Dir_k for vectors of length ``n`` (optionally at a given p).

    Examples
    --------
    >>> a = dirichlet_accuracy(10, n=3, p=np.array([0.2, 0.3, 0.5]))
    >>> [round(v, 6) for v in a.variance]
    [0.014545, 0.019091, 0.022727]
    """
    from core.robust import alpha_radius

    k = check_k(k)
    beta = check_beta(beta)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise InputError(f"must be an integer >= 2, got {n!r}", field="n")
    var = esq = None
    if p is not None:
        p = np.asarray(p, dtype=np.float64)
        var = tuple(float(x) for x in p * (1 - p) / (k + 1))
        esq = float((1 - (p ** 2).sum()) / (k + 1))
    note = ("alpha 'paper' is Lemma 2.2 as published; the lemma can fail (e.g. n = 20, k = 5, "
            "beta = 0.05 gives P(||x-p||_inf >= alpha) = 0.054 > beta). alpha 'rigorous' "
            "uses sub-Gaussian tails and a union bound over the n entries.")
    return DirichletAccuracy(k=k, beta=beta, n=int(n), variance_bound=1 / (4 * (k + 1)),
                             variance=var, expected_sq_error=esq,
                             alpha_paper=alpha_radius(k, beta, mode="paper"),
                             alpha_rigorous=alpha_radius(k, beta, mode="rigorous", n=int(n)),
                             note=note)
