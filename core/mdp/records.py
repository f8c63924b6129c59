"""What an MDP run records: the parameters of a sweep and the summaries of its results.

A :class:`core.project.model.RunRecord` of kind ``"sweep"`` keeps
:meth:`SweepParameters.to_dict` and :func:`sweep_summary`; one of kind ``"bounds"`` keeps
:func:`bounds_summary`. Every number is strict JSON (ε = ∞ is null with its reason,
:func:`core.common.jsonable.jsonable`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from core.common.jsonable import jsonable
from core.mdp.accounting import DEFAULT_B, DEFAULT_DELTA, record_privatization
from core.mdp.privatize import DEFAULT_DOMAIN_RULE, DEFAULT_ETA
from core.privacy.ledger import LedgerEntry, PrivacyLedger

__all__ = ["SweepParameters", "sweep_summary", "bounds_summary", "sweep_entries",
           "SWEEP_ORACLE_KEYS"]

#: Summary keys of a sweep computed on the true model (the "oracle view", issue 23 §4.5).
SWEEP_ORACLE_KEYS = ("v_true_mean", "v_true_sd", "cost_empirical_mean", "cost_empirical_sd")


@dataclass(frozen=True)
class SweepParameters:
    """What one press of Run means; stored in :attr:`core.project.model.RunRecord.params`."""

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

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["ks"] = list(self.ks)
        return d

    def sweep_kwargs(self) -> dict[str, Any]:
        return {"runs": self.runs, "beta": self.beta, "alpha_mode": self.alpha_mode,
                "seed": self.seed, "workers": self.workers, "b": self.b,
                "delta_target": self.delta_target, "adjacency": self.adjacency,
                "eta": self.eta, "domain_rule": self.domain_rule,
                "delta_method": self.delta_method}


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
        summary["privacy_rows_total"] = [len(p.rows) for p in result.privacy]
        summary["privacy_rows_without_guarantee"] = [len(p.not_applicable)
                                                     for p in result.privacy]
    # the oracle mark (issue 23): what was computed on the true model, not released
    summary["oracle_keys"] = [k for k in SWEEP_ORACLE_KEYS if k in summary]
    summary["oracle_view"] = ("V and |V̄ − V| evaluate π̄ on the true model: the experimenter's "
                              "oracle view, which the private algorithm never sees")
    return jsonable(summary)


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
    return jsonable(summary)


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
