"""What an MDP run records: the parameters of a sweep and the summaries of its results.

A :class:`core.project.model.RunRecord` of kind ``"sweep"`` keeps
:meth:`SweepParameters.to_dict` and :func:`sweep_summary`; one of kind ``"bounds"`` keeps
:func:`bounds_summary`. Every number is strict JSON (ε = ∞ is null with its reason,
:func:`core.common.jsonable.jsonable`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from core.common.errors import InputError
from core.common.jsonable import jsonable_dict
from core.common.validation import (
    check_b,
    check_beta,
    check_choice,
    check_flag,
    check_int,
    check_k,
    check_seed,
)
from core.mdp.accounting import ADJACENCIES, DEFAULT_B, DEFAULT_DELTA, record_privatization
from core.mdp.privatize import DEFAULT_DOMAIN_RULE, DEFAULT_ETA, DOMAIN_RULES, parse_eta
from core.mdp.stochastic import check_temperature
from core.privacy.ledger import LedgerEntry, PrivacyLedger

__all__ = ["SweepParameters", "BoundsParameters", "POLICY_SOURCES", "sweep_summary",
           "bounds_summary", "sweep_entries", "bounds_entries", "SWEEP_ORACLE_KEYS"]

#: Summary keys of a sweep computed on the true model (the "oracle view").
SWEEP_ORACLE_KEYS = ("v_true_mean", "v_true_sd", "cost_empirical_mean", "cost_empirical_sd")


#: Where a sweep's π̄ comes from: the greedy optimum, the softmax policy at a temperature,
#: or a given table, of each private model.
POLICY_SOURCES = ("greedy", "softmax", "table")


@dataclass(frozen=True)
class SweepParameters:
    """What one press of Run means; stored in :attr:`core.project.model.RunRecord.params`.

    Validated once, here: every field is checked on construction, and an invalid one raises
    :class:`InputError` naming it (``alpha`` for :attr:`alpha_mode`, ``k`` for an entry of
    :attr:`ks`), so the window, the command line and a plan refuse the same values with the
    same words. :meth:`sweep_kwargs` is what :func:`core.mdp.sweep.privacy_sweep` takes.

    Examples
    --------
    >>> p = SweepParameters(ks=(10, 100), runs=5, beta=0.05, alpha_mode="paper", seeded=True,
    ...                     seed=7, workers=1)
    >>> p.ks, p.sweep_kwargs()["b"]
    ((10.0, 100.0), 0.1)
    >>> from dataclasses import replace
    >>> try:
    ...     replace(p, workers=0)
    ... except InputError as exc:
    ...     print(exc)
    workers: must be an integer >= 1, got 0
    """

    ks: tuple[float, ...]
    runs: int
    beta: float
    alpha_mode: str
    seeded: bool
    seed: int | None  # None: a fresh OS seed is drawn (and recorded in the result)
    workers: int
    b: float = DEFAULT_B
    delta_target: float = DEFAULT_DELTA
    adjacency: str = "one-row"
    eta: "float | str" = DEFAULT_ETA
    domain_rule: str = DEFAULT_DOMAIN_RULE
    delta_method: str = "auto"
    policy_source: str = "greedy"  # π̄: "greedy", "softmax" (at temperature) or "table"
    temperature: float | None = None
    policy_file: str | None = None  # where a given table came from (its name)

    def __post_init__(self) -> None:
        from core.mdp.robust import ALPHA_MODES

        if isinstance(self.ks, (str, bytes)) or not hasattr(self.ks, "__iter__"):
            raise InputError(f"must be a sequence of numbers, got {self.ks!r}", field="k")
        ks = tuple(check_k(k, "k") for k in self.ks)
        if not ks:
            raise InputError("needs at least one value", field="k")
        object.__setattr__(self, "ks", ks)
        object.__setattr__(self, "runs", check_int(self.runs, "runs"))
        object.__setattr__(self, "beta", check_beta(self.beta))
        check_choice(self.alpha_mode, ALPHA_MODES, "alpha")
        check_flag(self.seeded, "seeded")
        object.__setattr__(self, "seed", check_seed(self.seed))
        object.__setattr__(self, "workers", check_int(self.workers, "workers"))
        _check_accounting(self)
        self._check_policy()

    def _check_policy(self) -> None:
        source = check_choice(self.policy_source, POLICY_SOURCES, "policy_source")
        if source == "softmax":
            if self.temperature is None:
                raise InputError("the softmax π̄ needs a temperature", field="temperature")
            object.__setattr__(self, "temperature", check_temperature(self.temperature))
        elif self.temperature is not None:
            raise InputError(f"only the softmax π̄ has a temperature (π̄ is {source}), got "
                             f"{self.temperature!r}", field="temperature")
        if self.policy_file is not None and (source != "table"
                                             or not isinstance(self.policy_file, str)):
            raise InputError("names the file of a given policy table (π̄ from a table), got "
                             f"{self.policy_file!r} with π̄ {source}", field="policy_file")

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["ks"] = list(self.ks)
        if self.policy_source == "greedy":  # (a greedy sweep records what it always did)
            for key in ("policy_source", "temperature", "policy_file"):
                d.pop(key)
        return d

    def sweep_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of :func:`core.mdp.sweep.privacy_sweep` (a given policy table
        is passed beside them: it is not a parameter the record keeps)."""
        return {"runs": self.runs, "beta": self.beta, "alpha_mode": self.alpha_mode,
                "seed": self.seed, "workers": self.workers, "b": self.b,
                "delta_target": self.delta_target, "adjacency": self.adjacency,
                "eta": self.eta, "domain_rule": self.domain_rule,
                "delta_method": self.delta_method, "temperature": self.temperature}


#: The per-row accountants a bounds run may state its privatisation with.
DELTA_METHODS = ("auto", "union", "exact", "mc")


@dataclass(frozen=True)
class BoundsParameters:
    """What one "Synthesise & bound" means (F6, ``bounds PROJECT --mdp ID``): privatise the
    true model once at ``k``, synthesise π̄ on it and bound its value per state.

    Validated once, here (every :class:`InputError` names the field). ``seeded`` with
    ``seed`` None draws a fresh OS seed (still an experiment, the seed recorded);
    ``release`` privatises with the secure source instead (a release: no seed).
    :meth:`record_params` is what the run record keeps.

    Examples
    --------
    >>> p = BoundsParameters(k=100.0, seed=7)
    >>> p.record_params()["k"], p.accounting()["adjacency"]
    (100.0, 'one-row')
    >>> BoundsParameters(k=-1.0)
    Traceback (most recent call last):
    ...
    core.common.errors.InputError: k: must be a finite number > 0, got -1.0
    """

    k: float
    beta: float = 0.05
    alpha_mode: str = "paper"
    seeded: bool = True
    seed: int | None = None
    eta: "float | str" = DEFAULT_ETA
    domain_rule: str = DEFAULT_DOMAIN_RULE
    b: float = DEFAULT_B
    delta_target: float = DEFAULT_DELTA
    adjacency: str = "one-row"
    delta_method: str = "auto"
    release: bool = False
    temperature: float | None = None  # π̄ the softmax policy at this τ (default: greedy)
    synthesis: str = "induction"  # the greedy π̄ by induction or by the LP (HiGHS)
    policy_table: Any = field(default=None, compare=False, repr=False)  # a given π(a|s)

    def __post_init__(self) -> None:
        from core.mdp.robust import ALPHA_MODES

        object.__setattr__(self, "k", check_k(self.k))
        object.__setattr__(self, "beta", check_beta(self.beta))
        check_choice(self.alpha_mode, ALPHA_MODES, "alpha")
        _check_accounting(self)
        check_flag(self.seeded, "seeded")
        check_flag(self.release, "release")
        object.__setattr__(self, "seed", check_seed(self.seed))
        if self.seed is not None and self.release:
            raise InputError("a release draws its noise from the secure source: it takes "
                             "no seed", field="seed")
        if self.temperature is not None:
            object.__setattr__(self, "temperature", check_temperature(self.temperature))
            if self.policy_table is not None:
                raise InputError("give a policy table or a temperature, not both",
                                 field="policy")
        from core.mdp.private_policy import SYNTHESES

        check_choice(self.synthesis, SYNTHESES, "synthesis")
        if self.synthesis == "lp" and (self.temperature is not None
                                       or self.policy_table is not None):
            raise InputError("the LP synthesises the greedy π̄: not with a given table or a "
                             "temperature", field="synthesis")

    @property
    def policy_source(self) -> str:
        """``"greedy"``, ``"lp"`` (the greedy optimum by the LP), ``"softmax"`` (at
        :attr:`temperature`) or ``"table"`` (given)."""
        if self.temperature is not None:
            return "softmax"
        if self.synthesis == "lp":
            return "lp"
        return "greedy" if self.policy_table is None else "table"

    def accounting(self) -> dict[str, Any]:
        """Keyword arguments of :func:`core.mdp.accounting.mdp_privacy` (besides k)."""
        return {"b": self.b, "delta_target": self.delta_target, "adjacency": self.adjacency,
                "eta": self.eta, "domain_rule": self.domain_rule,
                "delta_method": self.delta_method}

    def record_params(self) -> dict[str, Any]:
        """What a "bounds" run record keeps as its parameters (before the model digest and
        a drawn seed are added)."""
        out = {"k": self.k, "beta": self.beta, "alpha_mode": self.alpha_mode,
               "seeded": self.seeded, "seed": self.seed if self.seeded else None,
               "eta": self.eta, "domain_rule": self.domain_rule}
        if self.policy_source != "greedy":  # (a greedy run records what it always did)
            out["policy_source"] = self.policy_source
            if self.temperature is not None:
                out["temperature"] = self.temperature
        return out


def _check_accounting(params: "SweepParameters | BoundsParameters") -> None:
    """Check and normalise the public mechanism parameters both parameter objects share:
    ``eta``, ``domain_rule``, ``b``, ``delta_target``, ``adjacency``, ``delta_method``."""
    set_ = object.__setattr__
    set_(params, "eta", parse_eta(params.eta))
    check_choice(params.domain_rule, DOMAIN_RULES, "domain_rule")
    set_(params, "b", check_b(params.b))
    set_(params, "delta_target", check_beta(params.delta_target, "delta_target"))
    check_choice(params.adjacency, ADJACENCIES, "adjacency")
    check_choice(params.delta_method, DELTA_METHODS, "delta_method")


def sweep_summary(result: Any) -> dict[str, Any]:
    """What a run record keeps of a :class:`core.mdp.sweep.SweepResult`: everything in
    its ``to_dict()`` except the (large) per-row privacy table, which is replaced by the
    number of rows and of rows without a guarantee per k (recomputed on demand).
    Non-finite numbers (ε = ∞ when some row has no guarantee) are stored as null with the
    reason in ``epsilon_reason`` (:func:`core.common.jsonable.jsonable`).

    Parameters
    ----------
    result : SweepResult
        The sweep.

    Returns
    -------
    dict
        Strict JSON.
    """
    summary = result.to_dict()
    summary.pop("privacy_rows", None)
    if result.privacy:
        summary["privacy_rows_total"] = [p.n_rows for p in result.privacy]
        summary["privacy_rows_without_guarantee"] = [p.n_not_applicable
                                                     for p in result.privacy]
    # the oracle mark: what was computed on the true model, not released
    summary["oracle_keys"] = [k for k in SWEEP_ORACLE_KEYS if k in summary]
    summary["oracle_view"] = ("V and |V̄ − V| evaluate π̄ on the true model: the experimenter's "
                              "oracle view, which the private algorithm never sees")
    return jsonable_dict(summary)


def bounds_summary(result: Any, state_ids: list[str], action_ids: list[list[str]]
                   ) -> dict[str, Any]:
    """What a "bounds" run record keeps of a :class:`core.mdp.private_policy.PrivatePolicy`:
    its summary plus the ids of the states and of the chosen actions (``policy_ids``), so
    the drawing can show π̄ even after the model was edited.

    Parameters
    ----------
    result : PrivatePolicy
        π̄ and its bounds.
    state_ids : list of str
        The model's state ids, in index order.
    action_ids : list of list of str
        Per state, its action ids in index order.

    Returns
    -------
    dict
        Strict JSON.
    """
    summary = result.summary()
    summary["state_ids"] = list(state_ids)
    pol = result.policy

    def ids(row: Any) -> list[str | None]:
        return [action_ids[s][int(a)] if int(a) < len(action_ids[s]) else None
                for s, a in enumerate(row)]

    summary["policy_ids"] = [ids(r) for r in pol] if pol.ndim == 2 else ids(pol)
    return jsonable_dict(summary)


def sweep_entries(mdp_id: str, result: Any, *, source: str,
                  time: str | None = None) -> list[LedgerEntry]:
    """The ledger entries of a privacy sweep: one per k (``count`` = runs), experiment mode.

    The sweep evaluates π̄ on the true model (oracle view), so it is never a release; its
    privatisations are listed so a reader sees every use of the data. A value of k with no
    DP guarantee makes an unbounded entry (ε = ∞ with the reason), never none.

    Parameters
    ----------
    mdp_id : str
        The MDP's id in the project (the dataset is ``mdp:<id>``).
    result : SweepResult
        The sweep.
    source : str
        What made the entries (the run id).
    time : str, optional
        Their timestamp (default: now).

    Returns
    -------
    list of LedgerEntry
        One per k, with ids local to a fresh ledger (the project gives them its own).
    """
    led = PrivacyLedger()
    for k, priv in zip(result.k.tolist(), result.privacy):
        record_privatization(led, mdp_id=mdp_id, privacy=priv, k=float(k), mode="experiment",
                             seed=result.seed, source=source, count=result.runs,
                             zeros=result.zeros, time=time)
    return led.entries


def bounds_entries(mdp_id: str, release: Any, *, source: str,
                   time: str | None = None) -> list[LedgerEntry]:
    """The ledger entry of a "Synthesise & bound" run: its one privatisation of the model.

    Everything the run shows (π̄, V̄, v̲, v̄) is computed from that privatised model, so
    the privatisation's (ε, δ) covers it (post-processing); a seeded run is an experiment
    (listed, not spent), a run in release mode is spent. An unbounded privatisation makes
    an unbounded entry (ε = ∞ with the reason), never none.

    Parameters
    ----------
    mdp_id : str
        The MDP's id in the project (the dataset is ``mdp:<id>``).
    release : BoundsRelease
        :func:`core.mdp.private_policy.bounds_release`.
    source : str
        What made the entry (the run id).
    time : str, optional
        Its timestamp (default: now).

    Returns
    -------
    list of LedgerEntry
        One entry, with an id local to a fresh ledger (the project gives it its own).
    """
    led = PrivacyLedger()
    result = release.result
    record_privatization(led, mdp_id=mdp_id, privacy=release.privacy, k=result.k,
                         mode=result.mode, seed=result.seed, source=source, time=time)
    return led.entries
