"""An empirical privacy audit of the JAX DP-SGD trainer (hockey-stick divergence of a canary).

The trainer's own path (:meth:`DpTrainer.fit`: Poisson sampling, the compiled per-example
clip-and-sum fused with the noisy step) is run many times on a data set D of three records and
on D' = D + one canary. The canary has a feature that no record of D has (feature 0 is zero in
D), so in the coordinates of the first layer's weights on that feature only the canary's
gradient is non-zero: the score ⟨θ_T − θ_0, u⟩ along the canary's gradient in that block is,
in units of s = σC/batch,

* under D:  √T · z (pure noise, whatever the sampling);
* under D': Σ_t b_t · r/σ + √T · z, with b_t ~ Bernoulli(q) the canary's inclusion at step t
  and r = ‖g_block‖/‖g‖ the share of its clipped gradient (norm C) in the block.

That is the Poisson-subsampled Gaussian mechanism with noise multiplier σ/r over T steps,
whose (ε, δ) the accountant (:func:`core.privacy.dpsgd.dpsgd_epsilon`, PLD) computes. The
test measures the hockey-stick divergence δ(ε) = sup_S P(S) − e^ε Q(S) over threshold sets
in both directions:

1. **sound**: a Clopper–Pearson lower bound of δ(ε*) (threshold chosen on one half of the
   draws, evaluated on the other) does not exceed the accountant's δ* — it would if the noise
   were smaller, the clipping missing or the sampling rate larger than the accountant assumes;
2. **tight**: the point estimate at that threshold equals the mechanism's exact value within
   4.5 standard deviations of its sampling distribution (computed from the exact
   probabilities), and the exact sup is close to δ* (the audit could see a violation).

Fixed seeds; the lr is 1 and C is small, so θ moves by ~1e-3 over the T steps and r is the
same at every step to ~1e-3 (checked).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import beta, norm

from core.deep.dpsgd import DpTrainer, per_example_grads
from core.deep.nets import FlatNet
from core.modelprivacy.models import DpSgd, TrainConfig
from core.privacy.dpsgd import dpsgd_epsilon

SIGMA, CLIP, BATCH, DRAWS = 0.4, 1e-3, 2, 6000
DELTA_STAR = 0.05


def _clopper_pearson(k: int, n: int, alpha: float) -> tuple[float, float]:
    lo = 0.0 if k == 0 else float(beta.ppf(alpha / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(beta.ppf(1 - alpha / 2, k + 1, n - k))
    return lo, hi


def _setup():
    net = FlatNet("mlp", 4, (2, 2), 2, hidden=8)
    theta0 = net.init(np.random.default_rng(5))
    rng = np.random.default_rng(6)
    X = rng.normal(size=(3, 4)).astype(np.float32)
    X[:, 0] = 0.0                                     # D never uses feature 0
    y = rng.integers(2, size=3)
    canary = np.array([[10.0, 0.0, 0.0, 0.0]], np.float32)
    p = net.predict_proba(theta0, canary)[0]
    cy = np.array([int(np.argmin(p))])                # the less likely label: a large gradient
    # the coordinates of the first layer's weights on feature 0
    idx = np.asarray(net._unravel(np.arange(net.size, dtype=np.float32))
                     .net.layers[0].weight[:, 0]).astype(int)
    return net, theta0, X, y, canary, cy, idx


def _scores(net, theta0, X, y, idx, u, draws, seed):
    cfg = TrainConfig(epochs=1, batch=BATCH, lr=1.0, momentum=0.0, l2=0.0)
    tr = DpTrainer(net, cfg, DpSgd(SIGMA, CLIP))
    rng, noise = np.random.default_rng(seed), np.random.default_rng(seed + 1)
    s = SIGMA * CLIP / BATCH
    out = np.empty(draws)
    for i in range(draws):
        th = tr.fit(X, y, rng=rng, noise=noise, theta0=theta0)
        out[i] = -((th - theta0.astype(np.float64))[idx] @ u) / s   # lr = 1: θ_T − θ_0 = −Σ g̃_t
    return out


def _exact(t, mu, q, steps, eps, direction):
    """P(S) − e^ε Q(S) for the threshold set of ``direction`` (P, Q exact)."""
    sd = math.sqrt(steps)
    with_c = sum(math.comb(steps, k) * q ** k * (1 - q) ** (steps - k)
                 * (norm.sf((t - k * mu) / sd) if direction == "remove"
                    else norm.cdf((t - k * mu) / sd)) for k in range(steps + 1))
    without = norm.sf(t / sd) if direction == "remove" else norm.cdf(t / sd)
    p, qq = (with_c, without) if direction == "remove" else (without, with_c)
    return p, qq


def test_dpsgd_trainer_passes_a_hockey_stick_canary_audit():
    net, theta0, X, y, canary, cy, idx = _setup()
    Xc, yc = np.vstack([X, canary]), np.concatenate([y, cy])
    g = per_example_grads(net, theta0, canary, cy)[0].astype(np.float64)
    assert np.linalg.norm(g) > 10 * CLIP                         # the canary is clipped
    G0 = per_example_grads(net, theta0, X, y).astype(np.float64)
    assert np.abs(G0[:, idx]).max() == 0.0                       # D is blind in the block
    r = float(np.linalg.norm(g[idx]) / np.linalg.norm(g))
    u = g[idx] / np.linalg.norm(g[idx])
    n1 = Xc.shape[0]
    q = BATCH / n1                                               # the trainer's rate on D'
    steps = math.ceil(n1 / BATCH)
    assert steps == math.ceil(X.shape[0] / BATCH) == 2
    mu = r / SIGMA
    # the accountant's ε* at δ* for this projected mechanism (noise multiplier σ/r)
    eps = dpsgd_epsilon(SIGMA / r, q, steps, DELTA_STAR, method="pld").epsilon
    assert eps is not None and 0.3 < eps < 5

    S1 = _scores(net, theta0, Xc, yc, idx, u, DRAWS, seed=10)    # with the canary
    S0 = _scores(net, theta0, X, y, idx, u, DRAWS, seed=20)      # without
    # the drift of r over the run is negligible (θ moves ~C·σ)
    th = DpTrainer(net, TrainConfig(epochs=1, batch=BATCH, lr=1.0, momentum=0.0),
                   DpSgd(SIGMA, CLIP)).fit(Xc, yc, rng=np.random.default_rng(0),
                                           theta0=theta0)
    g1 = per_example_grads(net, th, canary, cy)[0].astype(np.float64)
    assert abs(np.linalg.norm(g1[idx]) / np.linalg.norm(g1) - r) < 1e-2 * r
    # without the canary the score is N(0, T): mean and variance within their sampling error
    assert abs(S0.mean()) < 4.5 * math.sqrt(steps / DRAWS)
    assert abs(S0.var(ddof=1) / steps - 1) < 4.5 * math.sqrt(2 / (DRAWS - 1))
    # with it the mean is T·q·μ
    m1 = steps * q * mu
    v1 = steps + steps * q * (1 - q) * mu ** 2
    assert abs(S1.mean() - m1) < 4.5 * math.sqrt(v1 / DRAWS)

    half = DRAWS // 2
    grid = np.linspace(-4, 4 + steps * mu, 161)
    exact_sup = 0.0
    for direction in ("remove", "add"):
        P_all, Q_all = (S1, S0) if direction == "remove" else (S0, S1)

        def frac(S, t, direction=direction):
            return (S > t).mean() if direction == "remove" else (S < t).mean()
        # threshold chosen on the first half
        t_best = max(grid, key=lambda t: frac(P_all[:half], t)
                     - math.exp(eps) * frac(Q_all[:half], t))
        P, Q = P_all[half:], Q_all[half:]
        m = P.size
        kP = int(round(frac(P, t_best) * m))
        kQ = int(round(frac(Q, t_best) * m))
        p_lo, _ = _clopper_pearson(kP, m, 1e-3)
        _, q_hi = _clopper_pearson(kQ, m, 1e-3)
        delta_lb = p_lo - math.exp(eps) * q_hi
        assert delta_lb <= DELTA_STAR, (direction, delta_lb, DELTA_STAR)
        # tight: the estimate at t_best equals the exact value within its sampling error
        pe, qe = _exact(t_best, mu, q, steps, eps, direction)
        est = kP / m - math.exp(eps) * kQ / m
        sd = math.sqrt(pe * (1 - pe) / m + math.exp(2 * eps) * qe * (1 - qe) / m)
        assert abs(est - (pe - math.exp(eps) * qe)) < 4.5 * sd, (direction, est, pe, qe)
        print(f"{direction}: eps* {eps:.3f} (r {r:.3f}), threshold {t_best:.2f}: delta "
              f"estimate {est:.4f} (exact {pe - math.exp(eps) * qe:.4f}, sd {sd:.4f}), "
              f"Clopper-Pearson lower bound {delta_lb:.4f} <= delta* {DELTA_STAR}")
        exact_sup = max(exact_sup, max(
            (lambda pq: pq[0] - math.exp(eps) * pq[1])(_exact(t, mu, q, steps, eps, direction))
            for t in grid))
    # the accountant is sound for the exact mechanism and not loose here
    assert exact_sup <= DELTA_STAR * (1 + 1e-3)
    assert exact_sup > 0.8 * DELTA_STAR
    print(f"exact sup over thresholds {exact_sup:.4f}")
