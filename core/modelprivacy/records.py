"""What a membership-inference study records in a project: its parameters, a compact summary
and the ledger entries of what the victim released (Qt-free; the window and ``mia --record``
use the same functions).

The protected data set is the victim's training set (``model:<data>``). What leaves is the
victim's released confidence vectors (members and non-members queried by the auditor, and the
attacker's pool queried for the inversion network):

* no defense: one **unbounded** entry (a non-private model's outputs);
* DP-SGD: one entry for the trained model, (ε, δ) of the accountant; every answer is
  post-processing of it;
* GPM: one entry for θ̃, (ε, δ) labelled *random DP* (an empirical sensitivity);
* one-parameter defense: one entry with ε = k·ε per vector and ``count`` = the vectors
  released (the per-vector statement does not cover membership; the entry says so).

Seeded experiments are listed, not spent (ledger convention).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from core.modelprivacy.study import MiaResult, TableRow
from core.privacy.ledger import LedgerEntry

__all__ = ["RUN_KIND", "TABLE_KIND", "TABLE_COLUMNS", "table_cells", "mia_params",
           "mia_summary", "mia_entries",
           "table_summary", "table_entries"]

RUN_KIND = "mia"


def mia_params(result: MiaResult) -> dict[str, Any]:
    """The study's parameters as the record keeps them (JSON)."""
    s = result.setup
    return {"data": result.data, "victim": s.victim, "defense": s.defense,
            "epsilon": s.epsilon, "delta": s.delta, "shadows": s.shadows,
            "train_size": s.train_size, "hidden": s.hidden, "epochs": s.epochs,
            "batch": s.batch, "lr": s.lr, "clip": s.clip,
            "sensitivity_samples": s.sensitivity_samples, "granularity": s.granularity,
            "preset": s.preset, "seeded": result.seed is not None, "seed": result.seed}


def mia_summary(result: MiaResult) -> dict[str, Any]:
    """The JSON result without the notes' repetition (what the record stores); a tabular
    victim's policy values on the true MDP carry the oracle mark."""
    out = result.to_json()
    oracle = [k for k in ("policy_value", "optimal_value") if k in out]
    if oracle:
        out["oracle_keys"] = oracle
        out["oracle_view"] = ("the released model's policy and the optimal policy evaluated "
                              "on the true MDP: the experimenter's oracle view")
    return out


def mia_entries(result: MiaResult, *, source: str = "") -> list[LedgerEntry]:
    """The ledger entries of the victim's releases (see the module docstring).

    Parameters
    ----------
    result : MiaResult
        The study.
    source : str
        The run id.

    Returns
    -------
    list of LedgerEntry
    """
    mode = "experiment" if result.seed is not None else "release"
    dataset = f"model:{result.data}"
    common: dict[str, Any] = dict(dataset=dataset, mode=mode, seed=result.seed, source=source)
    d = result.defense
    if d == "none":
        return [LedgerEntry(id="", mechanism="model-outputs", epsilon=math.inf,
                            released="confidence vectors of a model trained without DP",
                            adjacency="none", reason="confidence vectors of a non-private "
                            "model are released", parameters={"victim": result.victim},
                            **common)]
    eps = float(result.epsilon if result.epsilon is not None else math.inf)
    delta = float(result.delta or 0.0)
    if d == "dpsgd":
        return [LedgerEntry(id="", mechanism="dpsgd", epsilon=eps, delta=delta,
                            released="trained model (every answer is post-processing)",
                            adjacency="add/remove one training record",
                            parameters={k: result.extra.get(k) for k in
                                        ("sigma", "sample_rate", "steps", "clip")},
                            **common)]
    if d == "gpm":
        return [LedgerEntry(id="", mechanism="gpm (random DP)", epsilon=eps, delta=delta,
                            released="noisy parameters theta~ (once)",
                            adjacency="replace one training record; random DP with "
                                      f"gamma = {result.extra.get('gamma', float('nan')):.3g}",
                            parameters={k: result.extra.get(k) for k in
                                        ("sigma", "sensitivity", "sensitivity_samples",
                                         "gamma")}, **common)]
    if d == "dirichlet":
        eps_rec = result.epsilon
        bounded = eps_rec is not None
        return [LedgerEntry(id="", mechanism="dirichlet-rows",
                            epsilon=float(eps_rec) if eps_rec is not None else math.inf,
                            delta=float(result.delta or 0.0) if bounded else 0.0,
                            released="privatised MLE rows (and the policy value iteration "
                                     "finds on them)",
                            adjacency=str(result.extra.get("record_relation",
                                                           "replace one record's next state")),
                            reason="" if bounded else str(result.epsilon_reason),
                            parameters={k: result.extra.get(k) for k in
                                        ("k", "b", "epsilon_row", "delta_row",
                                         "fewest_samples_per_row", "record_radius",
                                         "smoothing")}, **common)]
    count = 2 * result.members + int(result.extra.get("pool_queries", 0))
    return [LedgerEntry(id="", mechanism="oneparam", epsilon=eps, delta=0.0,
                        released="defended confidence vectors (k*epsilon each)",
                        adjacency="neighbouring confidence vectors with the same sub-ranges "
                                  "(Thm 6.1); not training-set membership",
                        parameters={"epsilon_choice": result.extra.get("epsilon_choice"),
                                    "granularity": result.extra.get("granularity"),
                                    "preset": result.extra.get("preset")},
                        count=max(count, 1), **common)]


TABLE_KIND = "mia-table"


def table_summary(rows: list[TableRow]) -> dict[str, Any]:
    """The comparison (Table 6.2's shape) as the record keeps it: one object per row."""
    return {"rows": [r.to_json() for r in rows],
            "compare": "victims" if rows and rows[0].show_victim else "defenses",
            "data": rows[0].result.data if rows else "",
            "victim": rows[0].result.victim if rows else "",
            "seed": rows[0].result.seed if rows else None}


def table_entries(rows: list[TableRow], *, source: str = "") -> list[LedgerEntry]:
    """Every row's releases (each row trained and queried its own victim)."""
    out: list[LedgerEntry] = []
    for r in rows:
        out.extend(mia_entries(r.result, source=source))
    return out


TABLE_COLUMNS = ["Defense", "Train acc.", "Test acc.", "Distortion (ℓ2)", "Inversion error",
                 "MIA acc.", "MIA acc. (defense hidden)", "ε", "δ", "Train (s)",
                 "Test (s/vector)"]


def _f(x: Any, spec: str = ".3f") -> str:
    if x is None:
        return "—"
    try:
        return format(float(x), spec)
    except (TypeError, ValueError):
        return str(x)


def table_cells(rows: Sequence[Mapping[str, Any]]) -> list[list[str]]:
    """Table 6.2-shaped rows as text (one per defense setting)."""
    out = []
    for r in rows:
        eps = r.get("epsilon")
        out.append([str(r.get("label", r.get("defense"))), _f(r.get("train_accuracy")),
                    _f(r.get("test_accuracy")), _f(r.get("distortion")),
                    _f(r.get("inversion_error"), ".4f"), _f(r.get("attack_accuracy")),
                    _f(r.get("attack_accuracy_hidden")),
                    "unbounded" if eps is None and r.get("defense") == "none" else _f(eps, ".3g"),
                    _f(r.get("delta"), ".3g"), _f(r.get("train_s"), ".2f"),
                    _f(r.get("test_s_per_vector"), ".2e")])
    return out


