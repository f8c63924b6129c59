"""What a model checker's model carries besides P and R: state labels and reward structures.

PRISM and Storm models label states (``init``, ``goal``, …: the atomic propositions of the
properties to check) and may have several named reward structures made of state rewards,
choice (action) rewards and transition rewards. PrivPlan's analyses use one reward per
(state, action), ``R``; :class:`Annotations` keeps the rest so that a model imported from
PRISM or Storm exports again with its labels and rewards, and a privatised model keeps
its labels (the properties a user checks on the interval model name them).

``R`` is derived from the structure named :attr:`Annotations.reward_used`:
r(s, a) = state(s) + choice(s, a) + Σ_t P(s, a, t)·transition(s, a, t), except that a
choice whose transition rewards are the same for every next state gets exactly that
value (no dependence on P: most models put action costs there). A reward that depends on
the next state is an expectation under the *true* P; PrivPlan does not privatise rewards,
so :func:`derived_rewards` says so in a warning.

Examples
--------
>>> import numpy as np
>>> a = Annotations(labels={"goal": np.array([2])},
...                 rewards={"time": RewardStructure(state=np.array([1.0, 1.0, 0.0]))},
...                 reward_used="time")
>>> a.label_sets()["goal"].tolist(), a.reward_used
([2], 'time')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from core.common.errors import InputError

__all__ = ["Annotations", "RewardStructure", "TERMINAL_REWARD", "derived_rewards"]

#: The name of the reward structure that carries PrivPlan's terminal rewards R_T through
#: PRISM and Storm files (state rewards; model checkers read it as an ordinary structure).
TERMINAL_REWARD = "privplan_terminal"


def _ro(a: np.ndarray | None, dtype: type = np.float64) -> np.ndarray | None:
    if a is None:
        return None
    out: np.ndarray = np.array(a, dtype=dtype, copy=True)
    out.setflags(write=False)
    return out


@dataclass(frozen=True, eq=False)
class RewardStructure:
    """One named reward structure: any of state (S,), choice (S, A) and transition rewards
    (one per stored transition, in the order of the model's CSR entries)."""

    state: np.ndarray | None = None
    choice: np.ndarray | None = None
    transition: np.ndarray | None = None

    def __post_init__(self) -> None:
        for name in ("state", "choice", "transition"):
            arr = _ro(getattr(self, name))
            if arr is not None and not np.isfinite(arr).all():
                raise InputError("rewards must be finite", field=f"rewards.{name}")
            object.__setattr__(self, name, arr)

    def equal(self, other: "RewardStructure") -> bool:
        def same(a: np.ndarray | None, b: np.ndarray | None) -> bool:
            return (a is None and b is None) or (
                a is not None and b is not None and np.array_equal(a, b))
        return (same(self.state, other.state) and same(self.choice, other.choice)
                and same(self.transition, other.transition))


@dataclass(frozen=True, eq=False)
class Annotations:
    """State labels and named reward structures of a model (module docstring).

    ``labels`` maps a label to the sorted indices of the states that carry it;
    ``rewards`` maps a structure's name to its :class:`RewardStructure`; ``reward_used``
    names the structure ``R`` was derived from (None: ``R`` is PrivPlan's own);
    ``variables`` are the state variables of a PRISM ``.sta`` file (the state names are
    then their valuations).
    """

    labels: Mapping[str, np.ndarray] = field(default_factory=dict)
    rewards: Mapping[str, RewardStructure] = field(default_factory=dict)
    reward_used: str | None = None
    variables: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        labels = {}
        for name, states in dict(self.labels).items():
            arr = np.unique(np.asarray(states, dtype=np.int64))
            arr.setflags(write=False)
            labels[str(name)] = arr
        object.__setattr__(self, "labels", labels)
        object.__setattr__(self, "rewards", dict(self.rewards))
        object.__setattr__(self, "variables", tuple(str(v) for v in self.variables))
        if self.reward_used is not None and self.reward_used not in self.rewards:
            raise InputError(f"names no reward structure ({self.reward_used!r})",
                             field="reward_used")

    def label_sets(self) -> dict[str, np.ndarray]:
        """``{label: state indices}``."""
        return dict(self.labels)

    def check(self, n_states: int, n_actions: int, nnz: int) -> None:
        """Raise InputError when a label or a reward does not fit the model's shape."""
        for name, states in self.labels.items():
            if states.size and (states[0] < 0 or states[-1] >= n_states):
                raise InputError(f"label {name!r} names a state outside [0, {n_states})",
                                 field="labels")
        for name, rs in self.rewards.items():
            for part, shape in (("state", (n_states,)), ("choice", (n_states, n_actions)),
                                ("transition", (nnz,))):
                arr = getattr(rs, part)
                if arr is not None and arr.shape != shape:
                    raise InputError(f"reward structure {name!r}: {part} rewards have shape "
                                     f"{arr.shape}, the model needs {shape}",
                                     field="rewards")

    def without_transition_rewards(self) -> "Annotations":
        """A copy whose reward structures drop their transition rewards (for a model whose
        transitions changed shape)."""
        return Annotations(labels=self.labels, rewards={
            k: RewardStructure(state=v.state, choice=v.choice)
            for k, v in self.rewards.items()}, reward_used=self.reward_used,
            variables=self.variables)

    def equal(self, other: "Annotations | None") -> bool:
        if other is None:
            return False
        return (set(self.labels) == set(other.labels)
                and all(np.array_equal(v, other.labels[k]) for k, v in self.labels.items())
                and set(self.rewards) == set(other.rewards)
                and all(v.equal(other.rewards[k]) for k, v in self.rewards.items())
                and self.reward_used == other.reward_used
                and self.variables == other.variables)


def derived_rewards(rs: RewardStructure, indptr: np.ndarray, data: np.ndarray,
                    n_states: int, n_actions: int) -> tuple[np.ndarray, list[str]]:
    """R(s, a) from one reward structure (module docstring) and the warnings it needs.

    Parameters
    ----------
    rs : RewardStructure
        The structure.
    indptr, data : numpy.ndarray
        The model's CSR row pointer (S·A + 1) and probabilities.
    n_states, n_actions : int
        S and A.

    Returns
    -------
    (numpy.ndarray, list of str)
        (S, A) rewards and warnings.
    """
    from core.mdp.sparse import segment_sum

    S, A = n_states, n_actions
    R = np.zeros((S, A))
    warnings: list[str] = []
    if rs.state is not None:
        R += rs.state[:, None]
    if rs.choice is not None:
        R += rs.choice
    if rs.transition is not None and rs.transition.size:
        tr = rs.transition
        counts = np.diff(indptr)
        first = np.where(counts > 0, indptr[:-1], 0)
        head = tr[np.minimum(first, tr.size - 1)]
        same = segment_sum((tr != np.repeat(head, counts)).astype(np.int64), indptr) == 0
        expected = segment_sum(tr * data, indptr)
        per_row = np.where(same, np.where(counts > 0, head, 0.0), expected)
        R += per_row.reshape(S, A)
        varying = int((~same & (counts > 0)).sum())
        if varying:
            warnings.append(f"{varying} choice(s) have transition rewards that depend on the "
                            "next state: r(s, a) is their expectation under the model's "
                            "probabilities, which PrivPlan does not privatise (the reward "
                            "then carries information about P)")
    return R, warnings
