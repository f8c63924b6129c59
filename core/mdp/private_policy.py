"""One private policy for the drawing: privatise once, synthesise π̄, bound its value per state.

:func:`private_policy` runs Algorithm 1 once on the *true* model: Dirichlet-privatise
every row with concentration k (:func:`core.mdp.privatize.privatize_mdp`), synthesise
π̄ on the private model and compute V̄, v̲ and v̄ (:func:`core.mdp.robust.cost_of_privacy`).
Unlike the Figure 2.1 sweep it never evaluates π̄ on the true model, so every number it
returns is computed from the private model only, plus public parameters: the robust set
of each row is widened by the public bound of how far the pre-processing (domain rule
``mix``, ``zeros="smoothing"``) moved the centre of the noise away from the true row
(:func:`core.mdp.robust.release_centre_shift`, from P̄'s supports and the public rules), so
that v̲ and v̄ are about the true model.

:meth:`PrivatePolicy.summary` is the compact record a project keeps (docs/conventions.md §3:
parameters and summaries, not big arrays): the policy and the three value functions at
every stage for small models, at stage 0 only for large ones.

Examples
--------
>>> from core.mdp.examples import four_startups
>>> r = private_policy(four_startups(), 100.0, beta=0.05, seed=7)
>>> r.mode, r.seed, r.policy.shape, r.stages_kept
('experiment', 7, (3, 3), 3)
>>> bool((r.v_lower <= r.v_private + 1e-12).all() and (r.v_private <= r.v_upper + 1e-12).all())
True
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from core.common.errors import InputError
from core.common.progress import Progress, no_progress, sub_progress
from core.common.validation import check_beta, check_k, fresh_seed
from core.mdp.model import MDP
from core.mdp.privatize import DEFAULT_DOMAIN_RULE, DEFAULT_ETA, mechanism_rows, privatize_mdp
from core.mdp.robust import ALPHA_MODES, alpha_shift_note, cost_of_privacy, release_centre_shift

if TYPE_CHECKING:  # pragma: no cover
    from core.mdp.accounting import MdpPrivacy
    from core.mdp.records import BoundsParameters

__all__ = ["PrivatePolicy", "private_policy", "ALL_STAGES_MAX_CELLS", "BoundsRelease",
           "bounds_release", "SYNTHESES"]

#: how the greedy π̄ is synthesised on the private model
SYNTHESES = ("induction", "lp")

#: Keep every stage when T × S is at most this; otherwise stage 0 only (a 2,000-state model
#: with T = 10 keeps stage 0: 6,000 numbers instead of 60,000 in the project file).
ALL_STAGES_MAX_CELLS = 10_000


@dataclass(frozen=True, eq=False)
class PrivatePolicy:
    """π̄ and V̄ ≤/≥ bounds per state (stages kept: ``stages_kept``; 0 = infinite horizon).

    Finite horizon: ``policy`` is (stages_kept, S) and the values are (stages_kept, S),
    stage 0 first. Infinite horizon: ``policy`` and values are (S,).

    A stochastic π̄ (a given table, or the softmax synthesis at ``temperature``) is kept in
    ``policy_probs`` ((stages_kept, S, A) or (S, A)); ``policy`` is then its most likely
    action per state and the summary holds no deterministic ``policy``.
    """

    k: float
    beta: float
    alpha: float
    alpha_mode: str
    seed: int | None
    mode: str
    horizon: int | None
    initial_state: int
    policy: np.ndarray
    v_private: np.ndarray
    v_lower: np.ndarray
    v_upper: np.ndarray
    stages_kept: int
    status: str
    warnings: tuple[str, ...] = ()
    elapsed_s: float = 0.0
    alpha_shift: float = 0.0  # largest per-row inflation of α (centre shift); 0: none
    policy_probs: np.ndarray | None = None  # π(a|s) of a stochastic π̄ (stages kept)
    temperature: float | None = None  # τ of a softmax π̄
    synthesis: str = "induction"  # how a greedy π̄ was synthesised: "induction" or "lp"
    synthesis_check: float | None = None  # lp: max |V_lp − V_induction| on the private model

    @property
    def policy_source(self) -> str:
        """``"greedy"`` (synthesised by induction, deterministic), ``"lp"`` (the same optimum
        by the occupancy-measure LP), ``"softmax"`` or ``"table"`` (given)."""
        if self.temperature is not None:
            return "softmax"
        if self.synthesis == "lp":
            return "lp"
        return "greedy" if self.policy_probs is None else "table"

    @property
    def stochastic(self) -> bool:
        """Whether π̄ gives positive probability to more than one action somewhere."""
        p = self.policy_probs
        return p is not None and bool(((p > 0).sum(axis=-1) > 1).any())

    @property
    def alpha_shift_note(self) -> str:
        """Why α was inflated ("" when it was not)."""
        return alpha_shift_note(self.alpha_shift)

    @property
    def cost_bound(self) -> float:
        """v̄(s₀) − v̲(s₀) at stage 0."""
        s0 = self.initial_state
        lo = self.v_lower[0] if self.v_lower.ndim == 2 else self.v_lower
        hi = self.v_upper[0] if self.v_upper.ndim == 2 else self.v_upper
        return float(hi[s0] - lo[s0])

    def summary(self) -> dict[str, Any]:
        """The JSON-safe record kept in the project (``RunRecord.summary``).

        A greedy π̄ is ``policy`` (action indices), as always; a stochastic one is
        ``policy_probs`` (π(a|s)) with ``policy_source`` and, for softmax, ``temperature``
        — never a ``policy`` that a reader could take for a deterministic one."""
        out: dict[str, Any] = {
            "k": self.k, "beta": self.beta, "alpha": self.alpha,
            "alpha_mode": self.alpha_mode, "alpha_shift": self.alpha_shift,
            "alpha_shift_note": self.alpha_shift_note, "seed": self.seed, "mode": self.mode,
            "horizon": self.horizon, "stages_kept": self.stages_kept,
            "policy": self.policy.tolist(), "v_private": self.v_private.tolist(),
            "v_lower": self.v_lower.tolist(), "v_upper": self.v_upper.tolist(),
            "cost_bound": self.cost_bound, "status": self.status,
            "warnings": list(self.warnings), "elapsed_s": self.elapsed_s}
        if self.policy_probs is not None:
            out.pop("policy")
            out.update(policy_source=self.policy_source, stochastic=self.stochastic,
                       policy_probs=self.policy_probs.tolist())
            if self.temperature is not None:
                out["temperature"] = self.temperature
        if self.synthesis == "lp":  # deterministic: ``policy`` stays, with its cross-check
            out.update(policy_source="lp", synthesis="lp",
                       synthesis_check=self.synthesis_check)
        return out


def private_policy(mdp: MDP, k: float, *, beta: float = 0.05, alpha_mode: str = "paper",
                   seed: int | None = None, zeros: str = "support",
                   max_cells: int = ALL_STAGES_MAX_CELLS,
                   progress: Progress = no_progress, eta: "float | str | None" = None,
                   domain_rule: str = DEFAULT_DOMAIN_RULE, release: bool = False,
                   policy_table: np.ndarray | None = None, temperature: float | None = None,
                   synthesis: str = "induction") -> PrivatePolicy:
    """Privatise ``mdp`` once with Dir_k, synthesise π̄ and bound it (see module docstring).

    Parameters
    ----------
    mdp : MDP
        The true model.
    k : float
        Dirichlet concentration (> 0): larger k, more accurate and less private.
    beta, alpha_mode : see :func:`core.mdp.robust.cost_of_privacy`; each row's radius is α plus
        its centre shift (module docstring).
    seed : int, optional
        Experiment seed; drawn from the OS and recorded when omitted (still an
        experiment: the seed is recorded so the run can be repeated).
    max_cells : int
        Keep all T stages when T × S ≤ ``max_cells``, else stage 0 only.
    progress : callable
        ``progress(fraction, message)``; raising :class:`core.common.progress.Cancelled` stops.
    release : bool
        Privatise with the secure source (release mode: no seed, ``mode == "release"``);
        ``seed`` must then be None.
    policy_table : numpy.ndarray, optional
        Bound this stochastic policy π(a|s) (a table for ``mdp``) instead of synthesising π̄.
    temperature : float, optional
        Synthesise the entropy-regularised softmax π̄ at this τ on the private model instead
        of the greedy one (:func:`core.mdp.stochastic.softmax_policy`).
    synthesis : {"induction", "lp"}
        How the greedy π̄ is synthesised on the private model: backward induction / value
        iteration (default) or the occupancy-measure LP with HiGHS
        (:func:`core.mdp.lp_synthesis.synthesize_lp`, Algorithm 1's "linear programming");
        with ``"lp"`` induction runs too and ``synthesis_check`` is the largest difference
        of their values (they agree; on ties the LP may pick another optimal action).
    """
    k = check_k(k)
    beta = check_beta(beta)
    if alpha_mode not in ALPHA_MODES:
        raise InputError(f"must be one of {ALPHA_MODES}, got {alpha_mode!r}", field="alpha")
    if release and seed is not None:
        raise InputError("a release draws its noise from the secure source: it takes no seed",
                         field="seed")
    if policy_table is not None and temperature is not None:
        raise InputError("give a policy table or a temperature, not both", field="policy")
    if synthesis not in SYNTHESES:
        raise InputError(f"must be one of {SYNTHESES}, got {synthesis!r}", field="synthesis")
    if synthesis == "lp" and (policy_table is not None or temperature is not None):
        raise InputError("the LP synthesises the greedy π̄: not with a given table or a "
                         "temperature", field="synthesis")
    if policy_table is not None:
        from core.mdp.stochastic import check_policy_table

        policy_table = check_policy_table(mdp, policy_table)  # before any noise is drawn
    if temperature is not None:
        from core.mdp.stochastic import check_temperature

        temperature = check_temperature(temperature)
    seed = None if release else fresh_seed() if seed is None else int(seed)
    t0 = time.perf_counter()
    progress(0.0, f"privatising {int(mdp.mask.sum())} rows with k = {k:g}")
    # eta / domain_rule: the declared domain (core.privacy.dirichlet), as in the accounting
    prepared = mechanism_rows(mdp, eta=DEFAULT_ETA if eta is None else eta,
                              domain_rule=domain_rule, zeros=zeros)
    progress(0.2, f"drawing the private rows with k = {k:g}")  # a cancel point
    private = privatize_mdp(mdp, k, rng=seed, prepared=prepared)
    progress(0.5, "synthesising π̄ and bounding its value")
    plan, check = None, None
    if synthesis == "lp":
        from core.mdp.lp_synthesis import synthesize_lp
        from core.mdp.robust import _check_bound_sweeps
        from core.mdp.synthesis import synthesize

        _check_bound_sweeps(private.mdp)  # (cost_of_privacy skips it when given a plan)
        plan = synthesize_lp(private.mdp, progress=sub_progress(progress, 0.5, 0.7))
        ref = synthesize(private.mdp)
        check = float(np.max(np.abs(np.asarray(plan.values) - np.asarray(ref.values)),
                             initial=0.0))
    bounds = cost_of_privacy(private.mdp, k=k, beta=beta, alpha_mode=alpha_mode,
                             progress=sub_progress(progress, 0.7 if plan else 0.5, 1.0),
                             plan=plan,
                             policy_table=policy_table, temperature=temperature,
                             centre_shift=release_centre_shift(
                                 private.mdp, eta=prepared.eta, domain_rule=prepared.domain_rule,
                                 zeros=prepared.zeros, smoothing=prepared.smoothing))
    S = mdp.n_states
    if mdp.is_finite:
        T = int(mdp.horizon)  # type: ignore[arg-type]
        keep = T if T * S <= max_cells else 1
        policy = np.asarray(bounds.policy)[:keep]
        vals = [np.asarray(a)[:keep] for a in (bounds.v_private, bounds.v_lower,
                                               bounds.v_upper)]
        probs = None if bounds.policy_probs is None else bounds.policy_probs[:keep]
    else:
        keep = 0
        policy = np.asarray(bounds.policy)
        vals = [np.asarray(a) for a in (bounds.v_private, bounds.v_lower, bounds.v_upper)]
        probs = bounds.policy_probs
    progress(1.0, "done")
    return PrivatePolicy(k=k, beta=beta, alpha=bounds.alpha, alpha_mode=alpha_mode,
                         seed=private.seed, mode=private.mode, horizon=mdp.horizon,
                         initial_state=mdp.initial_state, policy=policy, v_private=vals[0],
                         v_lower=vals[1], v_upper=vals[2], stages_kept=keep,
                         status=bounds.status.message, warnings=private.warnings,
                         elapsed_s=time.perf_counter() - t0, alpha_shift=bounds.alpha_shift,
                         policy_probs=probs, temperature=temperature, synthesis=synthesis,
                         synthesis_check=check)


@dataclass(frozen=True, eq=False)
class BoundsRelease:
    """One "Synthesise & bound" (F6, ``bounds PROJECT --mdp ID``): π̄ and its bounds, the
    (ε, δ) of the privatisation behind them, and what identifies the model they are about.

    ``digest`` is the model's digest (None when no structure key was given);
    ``state_ids`` and ``action_ids`` (per state, in index order) let a record name π̄'s
    actions after the model is edited.
    """

    params: "BoundsParameters"
    result: PrivatePolicy
    privacy: "MdpPrivacy"
    digest: str | None = None
    state_ids: tuple[str, ...] = ()
    action_ids: tuple[tuple[str, ...], ...] = ()


def bounds_release(mdp: MDP, params: "BoundsParameters", *,
                   digest_key: Sequence[Any] | None = None,
                   progress: Progress = no_progress) -> BoundsRelease:
    """Privatise ``mdp`` once, synthesise π̄, bound it and state the privatisation's (ε, δ).

    The one entry point of "Synthesise & bound": the window runs it in its worker, the
    command line (``bounds PROJECT --mdp ID``) calls it directly, and both record its
    result with :func:`core.project.recording.bounds_run_record`.

    Parameters
    ----------
    mdp : MDP
        The true model.
    params : BoundsParameters
        What to run (validated when it was made).
    digest_key : sequence, optional
        :meth:`core.mdp.editable.MdpModel.digest_key` of the model ``mdp`` was made from:
        its digest is computed here (hashing a large model is kept off a UI thread) and its
        state and action ids are kept.
    progress : callable
        ``progress(fraction, message)``; raising :class:`core.common.progress.Cancelled` stops.

    Returns
    -------
    BoundsRelease

    Examples
    --------
    >>> from core.mdp.examples import four_startups
    >>> from core.mdp.records import BoundsParameters
    >>> r = bounds_release(four_startups(), BoundsParameters(k=100.0, seed=7))
    >>> r.result.mode, r.result.seed, r.privacy.k
    ('experiment', 7, 100.0)
    """
    from core.mdp.accounting import mdp_privacy

    digest = None
    state_ids: tuple[str, ...] = ()
    action_ids: tuple[tuple[str, ...], ...] = ()
    if digest_key is not None:
        from core.mdp.editable import digest_of

        key = list(digest_key)
        digest = digest_of(key, mdp.P if mdp.is_dense else mdp.transitions, mdp.R, mdp.R_T)
        state_ids = tuple(str(s) for s in key[0])
        action_ids = tuple(tuple(str(a) for a in row) for row in key[2])
    p = params
    # numba's kernels load before the first progress report, not between a Cancel and the
    # next cancel point (a large model only: small ones run the plain loops)
    from core.mdp import robust_kernels
    robust_kernels.load_for(mdp.nnz)
    # a large model's accounting (per row) takes a while: the last part of the bar and its
    # cancel points
    split = 0.8 if mdp.n_states * mdp.n_actions >= 10_000 else 1.0
    result = private_policy(mdp, p.k, beta=p.beta, alpha_mode=p.alpha_mode,
                            seed=p.seed if p.seeded else None,
                            progress=sub_progress(progress, 0.0, split), eta=p.eta,
                            domain_rule=p.domain_rule, release=p.release,
                            policy_table=p.policy_table, temperature=p.temperature,
                            synthesis=p.synthesis)
    privacy = mdp_privacy(mdp, p.k, **p.accounting(),
                          progress=sub_progress(progress, split, 1.0) if split < 1.0
                          else no_progress)
    return BoundsRelease(params=p, result=result, privacy=privacy, digest=digest,
                         state_ids=state_ids, action_ids=action_ids)
