"""Built-in example MDPs (the files in ``assets/examples/`` are generated from these).

* :func:`four_startups` — **illustrative placeholder** for the paper's Example 1. The
  papers publish no numbers for it (spec §7); every number here is ours.
* :func:`example2` — the paper's Example 2 shape (20 states × 5 actions, horizon 10),
  generated randomly from a fixed seed as spec §7 recommends.

Examples
--------
>>> four_startups().n_states, example2().P.shape
(3, (20, 5, 20))
"""

from __future__ import annotations

import numpy as np

from core.mdp.model import MDP
from core.mdp.sparse import Transitions

__all__ = ["four_startups", "example2", "random_mdp", "sparse_random_mdp", "corridor",
           "FOUR_STARTUPS_NOTE", "EXAMPLE2_SEED"]

FOUR_STARTUPS_NOTE = ("Illustrative placeholder, not the paper's model: the sources publish no "
                      "numbers for Example 1 (four startups); these are PrivPlan's.")
EXAMPLE2_SEED = 20200416


def four_startups() -> MDP:
    """Spec §7 placeholder: acquire one of four startups; success pays 1 at the horizon."""
    eps0 = 0.01
    q = np.array([0.2, 0.4, 0.6, 0.8])
    cost = np.array([0.05, 0.2, 0.4, 0.7])
    S, A = 3, 4
    P = np.zeros((S, A, S))
    mask = np.zeros((S, A), dtype=bool)
    for i in range(4):
        P[0, i] = (eps0, round(q[i] * (1 - eps0), 12), round((1 - q[i]) * (1 - eps0), 12))
    P[1, 0] = (eps0, 1 - 2 * eps0, eps0)
    P[2, 0] = (eps0, eps0, 1 - 2 * eps0)
    mask[0, :] = True
    mask[1, 0] = mask[2, 0] = True
    R = np.zeros((S, A))
    R[0] = -cost
    names = (("acquire_1", "acquire_2", "acquire_3", "acquire_4"),
             ("stay", "", "", ""), ("stay", "", "", ""))
    return MDP(P=P, R=R, R_T=np.array([0.0, 1.0, 0.0]), mask=mask, horizon=3, discount=1.0,
               initial_state=0, state_names=("start", "success", "failure"),
               action_names=names, name="four startups (illustrative placeholder)",
               layout={"start": (0.0, 0.0), "success": (320.0, -140.0),
                       "failure": (320.0, 140.0)})


def random_mdp(n_states: int, n_actions: int, horizon: int | None, *, seed: int,
               discount: float | None = None, name: str = "") -> MDP:
    """Spec §7 recipe: rows u/Σu with u ~ U(0,1) (interior), r and R_T ~ U(0,1), s₀ = 0.

    Parameters
    ----------
    n_states, n_actions : int
        Sizes.
    horizon : int or None
        T, or None for an infinite horizon.
    seed : int
        The model's randomness.
    discount : float, optional
        γ (default 1 for a finite horizon, 0.95 for an infinite one).
    name : str
        The model's name.

    Returns
    -------
    MDP
    """
    rng = np.random.default_rng(seed)
    u = rng.uniform(size=(n_states, n_actions, n_states))
    P = u / u.sum(axis=2, keepdims=True)
    R = rng.uniform(size=(n_states, n_actions))
    R_T = rng.uniform(size=n_states)
    disc = discount if discount is not None else (1.0 if horizon is not None else 0.95)
    return MDP(P=P, R=R, R_T=R_T, horizon=horizon, discount=disc, initial_state=0,
               name=name or f"random {n_states}x{n_actions}x{horizon} (seed {seed})")


def sparse_random_mdp(n_states: int, n_actions: int, successors: int, horizon: int | None, *,
                      seed: int, discount: float | None = None, name: str = "") -> MDP:
    """A sparse random model built directly as CSR rows (no dense array at any point).

    Every row has ``successors`` distinct next states drawn uniformly, with probabilities
    u/Σu, u ~ U(0,1); r and R_T ~ U(0,1); s₀ = 0. The scale benchmarks and the memory test
    use it (10⁶ states × 4 actions × 10 successors is 4·10⁷ transitions, 496 MB of CSR).

    Parameters
    ----------
    n_states, n_actions, successors : int
        S, A and the non-zeros per row (at most S).
    horizon : int or None
        T, or None for an infinite horizon.
    seed : int
        The model's randomness.
    discount : float, optional
        γ (default 1 for a finite horizon, 0.95 for an infinite one).
    name : str
        The model's name.

    Returns
    -------
    MDP

    Examples
    --------
    >>> m = sparse_random_mdp(1000, 4, 10, 5, seed=1)
    >>> m.n_states, m.nnz, m.is_dense
    (1000, 40000, False)
    """
    S, A, n = int(n_states), int(n_actions), int(successors)
    if not 1 <= n <= S:
        raise ValueError("successors must lie in [1, n_states]")
    rng = np.random.default_rng(seed)
    rows = S * A
    idx_type = np.int32 if S < 2**31 - 1 else np.int64
    cols = np.empty((rows, n), dtype=idx_type)
    block = max(1, (1 << 22) // n)
    for r0 in range(0, rows, block):  # distinct next states per row, sorted
        r1 = min(rows, r0 + block)
        c = np.sort(rng.integers(0, S, size=(r1 - r0, n), dtype=idx_type), axis=1)
        while n > 1:
            dup = (c[:, 1:] == c[:, :-1]).any(axis=1)
            if not dup.any():
                break
            redo = np.flatnonzero(dup)
            c[redo] = np.sort(rng.integers(0, S, size=(redo.size, n), dtype=idx_type), axis=1)
        cols[r0:r1] = c
    data = rng.uniform(size=rows * n)
    data.reshape(rows, n)[:] /= data.reshape(rows, n).sum(axis=1, keepdims=True)
    indptr = np.arange(0, rows * n + 1, n, dtype=np.int64)
    R = rng.uniform(size=(S, A))
    R_T = rng.uniform(size=S)
    disc = discount if discount is not None else (1.0 if horizon is not None else 0.95)
    return MDP(transitions=Transitions(S, A, indptr, cols.reshape(-1), data), R=R, R_T=R_T,
               horizon=horizon, discount=disc, initial_state=0,
               name=name or f"sparse random {S}x{A}x{n} (seed {seed})")


def example2(seed: int = EXAMPLE2_SEED) -> MDP:
    """Example 2: 20 states × 5 actions × horizon 10, random from a fixed seed.

    Parameters
    ----------
    seed : int
        The model's seed (default the spec's).

    Returns
    -------
    MDP
    """
    return random_mdp(20, 5, 10, seed=seed, name=f"Example 2 (random 20x5, T=10, seed {seed})")


def corridor(n: int = 12, slip: float = 0.2, discount: float = 0.95) -> MDP:
    """A slippery corridor of ``n`` cells: 'right' moves on (or slips back with ``slip``),
    'left' moves back; the only reward is for reaching the far end, which absorbs. From the
    first cell the plain policy gradient starts near zero, so a teacher visibly helps (the
    policy-sharing tests and ``bench/sharing_claims.py``).

    Parameters
    ----------
    n : int
        Cells (>= 2).
    slip : float
        Probability that 'right' moves back instead.
    discount : float
        γ of the infinite horizon.

    Returns
    -------
    MDP

    Examples
    --------
    >>> m = corridor(4)
    >>> m.n_states, m.n_actions, float(m.R.max())
    (4, 2, 0.8)
    """
    P = np.zeros((n, 2, n))
    R = np.zeros((n, 2))
    for s in range(n):
        if s == n - 1:
            P[s, :, s] = 1.0
            continue
        P[s, 1, s + 1] = 1 - slip
        P[s, 1, max(s - 1, 0)] += slip
        P[s, 0, max(s - 1, 0)] = 1.0
        if s == n - 2:
            R[s, 1] = 1 - slip
    return MDP(P=P, R=R, horizon=None, discount=discount, name=f"corridor ({n} cells)")
