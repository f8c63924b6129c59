"""core.deep.lipschitz: the proven spectral bound is the product it states and is never below
the Jacobian estimate, which is exact for a network whose constant is known."""

from __future__ import annotations

import numpy as np
import pytest

from core.deep.backend import jnp
from core.deep.lipschitz import SOFTMAX_LIPSCHITZ, jacobian_estimate, spectral_bound


def _mlp(weights: list[np.ndarray]):  # type: ignore[no-untyped-def]
    ws = [jnp.asarray(w, dtype=jnp.float32) for w in weights]

    def policy(x):  # type: ignore[no-untyped-def]
        h = x
        for w in ws[:-1]:
            h = jnp.tanh(w @ h)
        z = ws[-1] @ h
        return jnp.exp(z - z.max()) / jnp.exp(z - z.max()).sum()

    return policy


def test_spectral_bound_is_half_the_product_of_spectral_norms() -> None:
    rng = np.random.default_rng(0)
    ws = [rng.normal(size=(8, 4)), rng.normal(size=(8, 8)), rng.normal(size=(3, 8))]
    b = spectral_bound(ws, mix=0.7)
    norms = [np.linalg.svd(w, compute_uv=False)[0] for w in ws]
    assert b.value == pytest.approx(SOFTMAX_LIPSCHITZ * np.prod(norms) * 0.7)
    assert b.layer_norms == pytest.approx(tuple(norms))
    assert b.proven and b.method == "bound" and "proven" in b.detail
    j = b.to_json()
    assert j["value"] == b.value and j["layer_norms"] == list(b.layer_norms)


def test_the_estimate_never_exceeds_the_bound() -> None:
    rng = np.random.default_rng(1)
    ws = [rng.normal(size=(6, 4)), rng.normal(size=(3, 6))]
    obs = rng.normal(size=(200, 4))
    est = jacobian_estimate(_mlp(ws), obs, mix=0.9, batch=64)
    bound = spectral_bound(ws, mix=0.9)
    assert 0.0 < est.value <= bound.value
    assert not est.proven and est.method == "estimate" and "200 roll-out" in est.detail


def test_the_softmax_half_is_reached_on_a_two_action_linear_policy() -> None:
    # π(x) = softmax(W x) with W = [[a], [-a]]: at x = 0, p = (½, ½) and the Jacobian
    # (diag(p) − p pᵀ) W = [[a/2], [−a/2]] has norm a/√2 = ½·‖W‖₂: the bound is reached
    a = 3.0
    w = np.array([[a], [-a]])
    est = jacobian_estimate(_mlp([w]), np.zeros((1, 1)))
    jac = (np.diag([0.5, 0.5]) - 0.25) @ w
    assert est.value == pytest.approx(np.linalg.norm(jac, 2), rel=1e-5)
    assert est.value == pytest.approx(spectral_bound([w]).value, rel=1e-5)  # tight here


def test_no_observations_estimate_zero() -> None:
    est = jacobian_estimate(_mlp([np.eye(2)]), np.zeros((0, 2)))
    assert est.value == 0.0
