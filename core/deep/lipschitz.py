"""The Lipschitz constant of a policy network, from observation to the shared policy — the L of
[KS] Theorem 1 (b-adjacent observations give policies at most L·b apart in ℓ2).

Two ways, and the result says which:

* **bound** (proven): for π(x) = softmax(W_n tanh(… tanh(W_1 x + c_1) …) + c_n), tanh is
  1-Lipschitz and the softmax is ½-Lipschitz in ℓ2 — its Jacobian diag(p) − ppᵀ is symmetric
  positive semi-definite with row i's Gershgorin radius p_i(1 − p_i), so every eigenvalue is
  at most max_i 2p_i(1 − p_i) <= ½ — hence L <= ½·Π_l ‖W_l‖₂ (spectral norms, computed
  exactly by SVD); the η-mixing π̃ = (1 − mη)π + η contracts by (1 − mη). The bound can be
  loose (the product of the layers' worst directions).
* **estimate** (not a proof): the largest spectral norm of the Jacobian of π̃ over the
  observations of roll-outs. It is a *lower* bound on the true constant, so an (ε, δ)
  computed from it is labelled *estimated* and is not a guarantee.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from core.deep.backend import jax, jnp

__all__ = ["LipschitzConstant", "spectral_bound", "jacobian_estimate", "SOFTMAX_LIPSCHITZ"]

#: the ℓ2 Lipschitz constant of the softmax (module docstring)
SOFTMAX_LIPSCHITZ = 0.5


@dataclass(frozen=True)
class LipschitzConstant:
    """L of the η-mixed policy network, and how it was obtained."""

    value: float
    method: str          # "bound" or "estimate"
    proven: bool
    detail: str
    layer_norms: tuple[float, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "method": self.method, "proven": self.proven,
                "detail": self.detail, "layer_norms": list(self.layer_norms)}


def spectral_bound(weights: list[np.ndarray], *, mix: float = 1.0) -> LipschitzConstant:
    """½·Π‖W_l‖₂·mix for a tanh MLP ending in a softmax (module docstring).

    Parameters
    ----------
    weights : list of numpy.ndarray
        The layers' weight matrices, input layer first.
    mix : float
        The η-mixing factor 1 − mη.

    Returns
    -------
    LipschitzConstant

    Examples
    --------
    >>> spectral_bound([np.eye(3) * 2.0, np.ones((2, 3))], mix=0.9).value   # ½·2·√6·0.9
    2.2045407685048604
    """
    norms = tuple(float(np.linalg.norm(np.asarray(w, dtype=np.float64), 2)) for w in weights)
    value = SOFTMAX_LIPSCHITZ * float(np.prod(norms)) * float(mix)
    return LipschitzConstant(value, "bound", True,
                             "proven: ½ (softmax) × the product of the layers' spectral norms "
                             f"({' × '.join(f'{v:.4g}' for v in norms)}) × (1 − mη) = "
                             f"{float(mix):.4g}; tanh is 1-Lipschitz", norms)


def jacobian_estimate(policy: Any, observations: np.ndarray, *, mix: float = 1.0,
                      batch: int = 256) -> LipschitzConstant:
    """max over observations of ‖∂π/∂x‖₂ × mix: an *estimate* (a lower bound on L).

    Parameters
    ----------
    policy : callable
        ``policy(x) -> probabilities`` for one observation (JAX-traceable).
    observations : numpy.ndarray
        (n, d) observations (e.g. from roll-outs).
    mix : float
        The η-mixing factor.
    batch : int
        Jacobians per compiled call.

    Returns
    -------
    LipschitzConstant
    """
    jac = jax.jit(jax.vmap(jax.jacfwd(policy)))
    best = 0.0
    obs = np.asarray(observations, dtype=np.float32)
    for i in range(0, obs.shape[0], batch):
        J = np.asarray(jac(jnp.asarray(obs[i:i + batch])), dtype=np.float64)
        if J.size:
            best = max(best, float(np.linalg.norm(J, 2, axis=(1, 2)).max()))
    return LipschitzConstant(best * float(mix), "estimate", False,
                             f"estimated: the largest Jacobian norm over {obs.shape[0]} roll-out "
                             "observations — a lower bound on the true constant, so an (ε, δ) "
                             "from it is not a guarantee")
