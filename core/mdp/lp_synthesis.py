"""Policy synthesis as a linear program over occupancy measures (HiGHS), beside induction.

Algorithm 1 lets step 3 use "dynamic programming or linear programming"; this is the LP,
a cross-check of :func:`core.mdp.synthesis.synthesize` (backward induction, value
iteration with policy iteration).

**Infinite horizon** (discount γ < 1). Variables x(s, a) >= 0 for the available pairs, the
discounted occupancy of (s, a) when every state receives one unit of starting mass:

    max Σ_{s,a} r(s, a) x(s, a)
    s.t. Σ_a x(s', a) − γ Σ_{s,a} P(s, a, s') x(s, a) = 1      for every s'.

Its dual, min Σ_s v(s) s.t. v(s) >= r(s, a) + γ Σ_s' P(s, a, s') v(s'), has the optimal
values V* as its unique solution (every state carries weight 1, so v(s) >= V*(s) must hold
with equality), and HiGHS returns it as the equality constraints' marginals.

**Finite horizon** T. Variables x_t(s, a), t = 0 … T−1, and one unit of mass entering every
state at every stage (so that every (t, s) has positive occupancy and the dual is unique):

    max Σ_t Σ_{s,a} c_t(s, a) x_t(s, a),   c_t = r for t < T−1, c_{T−1} = r + γ P R_T,
    s.t. Σ_a x_0(s, a) = 1,   Σ_a x_t(s', a) − γ Σ_{s,a} P(s, a, s') x_{t−1}(s, a) = 1.

The dual variables are the stage values V_t(s) (v_t(s) >= r(s, a) + γ P(s, a)·v_{t+1},
v_T = R_T); ``values`` has them for every stage, and R_T last.

**The duals of the optimal basis.** HiGHS's marginals satisfy the dual constraints only to
its feasibility tolerance (1e-10, amplified by up to 1/(1 − γ): 1.7e-9 on a 100-state model at
γ = 0.95). The basis itself is exact — one action per (t, s) — and its dual solution
y = c_B B⁻¹ is the value of that policy, so ``values`` are computed from the basis by a direct
solve (:func:`core.mdp.synthesis.evaluate_policy`, the way a simplex code refactorises its
final basis); HiGHS's marginals must agree with them to 1e-6 relative or the solve is
reported as failed.

The LP is solved by HiGHS's dual simplex (:func:`scipy.optimize.linprog`,
``method="highs-ds"``), whose answer is a vertex: with positive mass at every (t, s) exactly
one action per (t, s) has x > 0, and that is the policy. Where several actions are
optimal the LP may choose a different one than induction's lowest index (the values agree).
The constraint matrix is built from the CSR rows, so sparse models work as they are, up to
:data:`LP_MAX_NONZEROS` entries.

References
----------
Puterman, *Markov Decision Processes* (1994), §6.9 (the primal and dual LPs);
Altman, *Constrained Markov Decision Processes* (1999), ch. 3 (occupation measures).

Examples
--------
>>> from typing import Any

import numpy as np
>>> from core.mdp.model import MDP
>>> m = MDP(P=np.array([[[1.0, 0.0], [0.0, 1.0]], [[0.0, 1.0], [1.0, 0.0]]]),
...         R=np.array([[0.0, 0.0], [0.0, 0.0]]), R_T=np.array([0.0, 1.0]), horizon=1)
>>> r = synthesize_lp(m)  # state 0 moves to 1 (action 1), state 1 stays (action 0)
>>> r.policy.tolist(), [round(float(x), 12) for x in r.values[0]]
([[1, 0]], [1.0, 1.0])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from core.common.errors import InputError, RunFailure
from core.common.progress import Progress, no_progress
from core.common.results import Status
from core.mdp.model import MDP
from core.mdp.synthesis import PolicyResult, evaluate_policy

__all__ = ["synthesize_lp", "LP_MAX_NONZEROS", "lp_size"]

#: The largest constraint matrix (non-zeros) the LP synthesis builds: beyond it the LP takes
#: minutes and gigabytes where induction takes a fraction of a second.
LP_MAX_NONZEROS = 20_000_000
_HIGHS_OPTIONS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


def lp_size(mdp: MDP) -> tuple[int, int]:
    """(variables, non-zeros of the constraint matrix) of ``mdp``'s synthesis LP.

    Parameters
    ----------
    mdp : MDP
        The model.

    Returns
    -------
    (int, int)
    """
    pairs = int(mdp.mask.sum())
    stages = mdp.horizon if mdp.horizon is not None else 1
    nnz = mdp.nnz if not mdp.is_dense else int(np.count_nonzero(mdp.P))
    return stages * pairs, stages * (pairs + nnz)


def _flow_blocks(mdp: MDP) -> tuple[Any, Any, np.ndarray]:
    """(E, F, pairs): E[s, j] = 1 for the j-th available pair (s, a); F[s', j] = P(s, a, s');
    ``pairs`` the flat indices s·A + a of the available pairs."""
    from scipy.sparse import coo_array, csr_array

    S, A = mdp.n_states, mdp.n_actions
    pairs = np.flatnonzero(mdp.mask.reshape(-1))
    n = pairs.size
    E = coo_array((np.ones(n), (pairs // A, np.arange(n))), shape=(S, n)).tocsr()
    M = mdp.transitions.matrix  # (S·A, S)
    F = csr_array(M[pairs].T)  # (S, n): column j is the row P(s, a, ·) of pair j
    return E, F, pairs


def synthesize_lp(mdp: MDP, *, progress: Progress = no_progress) -> PolicyResult:
    """An optimal policy of ``mdp`` and its values from the occupancy-measure LP.

    Parameters
    ----------
    mdp : MDP
        The model (dense or sparse).
    progress : callable
        ``progress(fraction, message)`` before and after the solve (may cancel).

    Returns
    -------
    PolicyResult
        ``policy`` (T, S) or (S,) action indices, ``values`` (T+1, S) or (S,): the dual
        solution of the LP's optimal basis (module docstring). ``n_iter`` is the number of
        simplex iterations.

    Raises
    ------
    InputError
        When the LP would exceed :data:`LP_MAX_NONZEROS` (field ``method``).
    RunFailure
        When HiGHS does not find the optimum (it always exists).
    """
    from scipy.sparse import block_array

    n_var, nnz = lp_size(mdp)
    if nnz > LP_MAX_NONZEROS:
        raise InputError(f"the synthesis LP of this model has {n_var:,} variables and "
                         f"{nnz:,} constraint entries (more than {LP_MAX_NONZEROS:,}); "
                         "backward induction / value iteration ('induction') is exact and "
                         "far faster here", field="method")
    progress(0.0, f"building the LP ({n_var:,} variables)")
    S, A = mdp.n_states, mdp.n_actions
    g = mdp.discount
    E, F, pairs = _flow_blocks(mdp)
    r = mdp.R.reshape(-1)[pairs]
    n = pairs.size
    if mdp.horizon is None:
        a_eq = (E - g * F).tocsr()
        c = -r
        b = np.ones(S)
        T = 1
    else:
        T = mdp.horizon
        zero = None
        blocks: list[list[object]] = [[zero] * T for _ in range(T)]
        for t in range(T):
            blocks[t][t] = E
            if t:
                blocks[t][t - 1] = -g * F
        a_eq = block_array(blocks, format="csr") if T > 1 else E
        last = r + g * (F.T @ mdp.R_T)
        c = -np.concatenate([np.tile(r, T - 1), last]) if T > 1 else -last
        b = np.ones(T * S)
    from scipy.optimize import linprog  # ~0.5 s to import: paid by the LP path only

    res = linprog(c, A_eq=a_eq, b_eq=b, bounds=(0, None), method="highs-ds",
                  options=_HIGHS_OPTIONS)
    if res.status != 0:  # pragma: no cover - the LP is feasible and bounded
        raise RunFailure(f"HiGHS did not solve the synthesis LP: {res.message}")
    progress(1.0, "solved")
    x = np.asarray(res.x).reshape(T, n)
    v = -np.asarray(res.eqlin.marginals).reshape(T, S)
    # the action of each (t, s): the pair with the largest occupancy at that state
    full = np.full((T, S * A), -1.0)
    full[:, pairs] = x
    policy = np.argmax(full.reshape(T, S, A), axis=2)
    n_iter = int(getattr(res, "nit", 0) or 0)
    pol = policy[0] if mdp.horizon is None else policy
    values = evaluate_policy(mdp, pol)  # the duals of the optimal basis, solved directly
    marginals = v[0] if mdp.horizon is None else v
    exact = values if mdp.horizon is None else values[:T]
    gap = float(np.max(np.abs(marginals - exact), initial=0.0))
    if gap > 1e-6 * (1.0 + float(np.max(np.abs(exact), initial=0.0))):  # pragma: no cover
        raise RunFailure(f"HiGHS's duals differ from its basis's values by {gap:.3g}: the "
                         "synthesis LP was not solved to optimality")
    return PolicyResult(pol, values, Status.SUCCESS, n_iter)
