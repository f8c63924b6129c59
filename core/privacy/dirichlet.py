"""The Dirichlet mechanism: privatise probability vectors with Dir(k·p).

Sampling goes through log-gamma variates so that tiny concentrations k·p_i never
produce exact zeros, NaN or denormal numbers: for a < 1 we use
``log G_a = log G_{a+1} + log(U)/a`` (Marsaglia–Tsang boosting), normalise in log space
(log-sum-exp) and floor at a small *normal* number before renormalising.

Zero entries in a row (the mechanism needs p in the open simplex) are handled by
``zeros="support"`` (default: privatise the support only, keep structural zeros and
warn that the support is disclosed) or ``zeros="smoothing"`` (mix with the uniform
distribution, ``p <- (1-λ)p + λ/n``, which changes the model). See spec §8.1.

Randomness: an int seed or a numpy Generator gives *seeded experiment* mode; ``None``
gives *release* mode with variates built from the operating system's CSPRNG.

References
----------
Gohari, *Engineering AI Systems for Privacy*, ch. 1 (the Dirichlet mechanism) and
Algorithm 1 of ch. 2.

Examples
--------
>>> import numpy as np
>>> x = dirichlet_rows(np.array([[0.2, 0.3, 0.5]]), k=10.0, rng=np.random.default_rng(1))
>>> x.shape, bool(abs(x.sum() - 1) < 1e-12)
((1, 3), True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import logsumexp

from core._validation import InputError, RandomSource, as_random_source, check_k
from core.mdp import MDP
from core.privacy.dirichlet_accounting import DirichletPrivacy, dirichlet_privacy

__all__ = ["ZERO_MODES", "PrivatizedMDP", "dirichlet_rows", "privatize_mdp",
           "dirichlet_privacy", "DirichletPrivacy"]

ZERO_MODES = ("support", "smoothing")
_FLOOR = 1e-300  # far above the smallest normal double (2.2e-308): renormalising keeps it normal


def _log_gamma_variates(alpha: np.ndarray, gen: Any) -> np.ndarray:
    """log G with G ~ Gamma(alpha, 1), accurate even for alpha ≪ 1 (no underflow)."""
    small = alpha < 1.0
    g = gen.standard_gamma(np.where(small, alpha + 1.0, alpha))
    logg = np.log(g)
    if small.any():
        u = 1.0 - gen.random(alpha.shape)  # (0, 1]: log is finite
        logg = logg + np.where(small, np.log(u) / np.where(small, alpha, 1.0), 0.0)
    return logg


def dirichlet_rows(p: np.ndarray, k: float, rng: "np.random.Generator | int | RandomSource | None"
                   ) -> np.ndarray:
    """Draw Dir(k·p) for every row of ``p`` (shape (m, n)); zero entries stay exactly zero.

    Every positive entry of the output is a normal float >= 1e-300 and rows sum to 1.
    """
    src = as_random_source(rng)
    p = np.atleast_2d(np.asarray(p, dtype=np.float64))
    alpha = k * p
    support = p > 0
    logg = _log_gamma_variates(np.where(support, alpha, 1.0), src.generator)
    logg = np.where(support, logg, -np.inf)
    x = np.exp(logg - logsumexp(logg, axis=1, keepdims=True))
    x = np.where(support, np.maximum(x, _FLOOR), 0.0)
    return x / x.sum(axis=1, keepdims=True)


@dataclass(frozen=True, eq=False)
class PrivatizedMDP:
    """The output of Algorithm 1 step 1, with how it was produced."""

    mdp: MDP
    k: float
    mode: str  # "release" or "experiment"
    seed: int | None
    zeros: str
    smoothing: float
    rows: int
    warnings: tuple[str, ...]

    @property
    def mode_label(self) -> str:
        return RandomSource(None, self.mode, self.seed).label


def privatize_mdp(mdp: MDP, k: float, *, rng: "np.random.Generator | int | RandomSource | None"
                  = None, zeros: str = "support", smoothing: float = 0.01) -> PrivatizedMDP:
    """Privatise every available row P(s, a) of ``mdp`` independently with Dir_k.

    Parameters
    ----------
    mdp : MDP
        The true model.
    k : float
        Concentration (> 0). Larger k: more accurate, *less* private (ε grows with k).
    rng : int, Generator or None
        Seed or generator for a reproducible experiment; ``None`` for a release.
    zeros : {"support", "smoothing"}
        How zero probabilities are handled (module docstring).
    smoothing : float
        λ in (0, 1) for ``zeros="smoothing"``.

    Examples
    --------
    >>> import numpy as np
    >>> m = MDP(P=np.array([[[0.5, 0.5]], [[0.0, 1.0]]]), R=np.zeros((2, 1)), horizon=1)
    >>> r = privatize_mdp(m, 50.0, rng=3)
    >>> r.mode, r.mdp.P[1, 0].tolist()
    ('experiment', [0.0, 1.0])
    """
    k = check_k(k)
    if zeros not in ZERO_MODES:
        raise InputError(f"must be one of {ZERO_MODES}, got {zeros!r}", field="zeros")
    src = as_random_source(rng)
    rows = mdp.P[mdp.mask]
    warnings: list[str] = []
    if zeros == "smoothing":
        if not 0.0 < smoothing < 1.0:
            raise InputError(f"must lie in (0, 1), got {smoothing!r}", field="smoothing")
        n = mdp.n_states
        if (rows == 0).any():
            warnings.append(f"rows with zeros were smoothed with λ={smoothing:g}: the privatised "
                            "model is centred on a modified MDP")
        rows = np.where((rows == 0).any(axis=1, keepdims=True),
                        (1.0 - smoothing) * rows + smoothing / n, rows)
    elif (rows == 0).any():
        warnings.append("support-restricted privatisation: zero probabilities stay zero, so the "
                        "support (which transitions are possible) is disclosed")
        single = int(((rows > 0).sum(axis=1) == 1).sum())
        if single:
            warnings.append(f"{single} deterministic row(s) have a single possible next state "
                            "and are released unchanged (no privacy for them)")
    private = np.zeros_like(mdp.P)
    private[mdp.mask] = dirichlet_rows(rows, k, src)
    return PrivatizedMDP(
        mdp=mdp.replace(P=private, name=(mdp.name + " (private)").strip()), k=k, mode=src.mode,
        seed=src.seed, zeros=zeros, smoothing=smoothing if zeros == "smoothing" else 0.0,
        rows=int(mdp.mask.sum()), warnings=tuple(warnings))
